-- Webhooks (issue 20): the dispatcher and the delivery workers are woken
-- the moment there is work, not at their next sweep.
--
-- A NOTIFY sent in a transaction is delivered only when it commits, and
-- never when it rolls back: an event announced is an event that exists.
-- Statement-level triggers send one per statement, and PostgreSQL folds
-- a transaction's identical notifications into one.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION webhooks_wake() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_ARGV[0], '');
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER events_wake AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION webhooks_wake('kontera_events');
CREATE TRIGGER webhook_deliveries_wake AFTER INSERT ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION webhooks_wake('kontera_deliveries');

-- Pruning: an event goes once no delivery names it; the foreign key's
-- check and the pruner's look-up both want this index.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (company_id, event_id) WHERE event_id IS NOT NULL;
CREATE INDEX events_created ON events (created_at);
-- A claim walks the due deliveries in the order they fall due and stops
-- at the first it can take: one index per way a delivery is due, each in
-- its own order (the OR of both could only be sorted after reading all).
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE status = 'in_flight';
-- The deliveries are a queue: rows change state within seconds, by the
-- thousand in a burst. Vacuumed and analysed early, its partial indexes
-- stay short and the planner knows how many rows wait.
ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 200,
    autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 200);

-- +goose Down
DROP INDEX webhook_deliveries_leased;
DROP INDEX webhook_deliveries_waiting;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'failed', 'in_flight');
ALTER TABLE webhook_deliveries RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
    autovacuum_analyze_scale_factor, autovacuum_analyze_threshold);
DROP INDEX events_created;
DROP INDEX webhook_deliveries_event;
DROP TRIGGER webhook_deliveries_wake ON webhook_deliveries;
DROP TRIGGER events_wake ON events;
DROP FUNCTION webhooks_wake();
