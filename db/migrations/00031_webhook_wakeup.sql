-- Webhooks (issue 20): the dispatcher and the delivery workers are woken
-- the moment there is work, not at their next sweep.
--
-- A NOTIFY sent in a transaction is delivered only when it commits, and
-- never when it rolls back: an event announced is an event that exists.
-- Statement-level triggers send one per statement, and PostgreSQL folds
-- a transaction's identical notifications into one.

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
-- A claim counts the attempts in flight of the candidate's webhook (the
-- per-webhook cap): only those rows, not the webhook's whole history.
CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (company_id, webhook_id) WHERE status = 'in_flight';

-- +goose Down
DROP INDEX webhook_deliveries_in_flight;
DROP INDEX events_created;
DROP INDEX webhook_deliveries_event;
DROP TRIGGER webhook_deliveries_wake ON webhook_deliveries;
DROP TRIGGER events_wake ON events;
DROP FUNCTION webhooks_wake();
