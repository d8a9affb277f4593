-- Webhooks: deliveries claimed many at a time (issue 51). One claimer
-- per replica leases as many due deliveries as it has idle senders, in
-- one statement, where every worker used to claim one for itself: sixteen
-- workers racing for the head of one index spent more time on the claim
-- (about 1.3 ms of database time each, most of it lock waits) than on the
-- POST.
--
-- webhook_claim_many keeps the cap on one webhook's attempts in flight
-- the way webhook_claim does (00058): it locks the webhooks it will claim
-- for first (SKIP LOCKED: a claimer elsewhere holding one makes this one
-- take other webhooks), and only then, in a statement of its own, counts
-- each one's attempts in flight and takes what room is left, in due
-- order, leases run out first. The webhooks taken are those of the first
-- due deliveries not at their cap on the first statement's snapshot, no
-- more of them than deliveries are wanted: a webhook locked is one no
-- claimer elsewhere takes meanwhile.
--
-- webhook_deliveries_webhook_waiting and _leased find one webhook's
-- waiting deliveries and its attempts in flight without reading its
-- history of delivered ones.
--
-- Online: safe. A new function, and two partial indexes built CONCURRENTLY.
-- webhook_claim stays for replicas still running the one-at-a-time
-- claim; a later migration drops it.

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_webhook_waiting
    ON webhook_deliveries (company_id, webhook_id, next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_webhook_leased
    ON webhook_deliveries (company_id, webhook_id, lease_until) WHERE status = 'in_flight';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION webhook_claim_many(token uuid, lease interval, per_webhook integer, max_attempts integer,
    wanted integer)
RETURNS SETOF webhook_deliveries
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    cs uuid[];
    ws uuid[];
BEGIN
    -- The webhooks of the first due deliveries, those at their cap on
    -- this snapshot left out: as many as are wanted, locked.
    WITH due AS (
        (SELECT d.company_id, d.webhook_id, d.lease_until AS at FROM webhook_deliveries d
         WHERE d.status = 'in_flight' AND d.lease_until <= now() AND d.webhook_id IS NOT NULL
         ORDER BY d.lease_until LIMIT wanted * 4)
        UNION ALL
        (SELECT d.company_id, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d
         WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= now() AND d.webhook_id IS NOT NULL
           AND d.webhook_id <> ALL (ARRAY(SELECT f.webhook_id FROM webhook_deliveries f
               WHERE f.status = 'in_flight' AND f.lease_until > now() AND f.webhook_id IS NOT NULL
               GROUP BY f.webhook_id HAVING count(*) >= per_webhook))
         ORDER BY d.next_attempt_at LIMIT wanted * 4)),
    held AS (
        SELECT w.company_id, w.id FROM webhooks w
        JOIN (SELECT company_id, webhook_id, min(at) AS first FROM due GROUP BY 1, 2) c
            ON c.company_id = w.company_id AND c.webhook_id = w.id
        WHERE w.active
        ORDER BY c.first LIMIT wanted
        FOR NO KEY UPDATE OF w SKIP LOCKED)
    SELECT array_agg(company_id), array_agg(id) INTO cs, ws FROM held;
    IF cs IS NULL THEN
        RETURN;
    END IF;
    -- A statement of its own: it sees every claim committed before the
    -- locks were had.
    RETURN QUERY
    WITH room AS (
        SELECT h.company_id, h.id, per_webhook - (SELECT count(*) FROM webhook_deliveries f
            WHERE f.status = 'in_flight' AND f.lease_until > now()
              AND f.company_id = h.company_id AND f.webhook_id = h.id) AS n
        FROM unnest(cs, ws) AS h (company_id, id)),
    -- Each webhook's leases run out and its waiting deliveries, up to
    -- its room of each (a locking clause cannot sit in a UNION's arm, so
    -- each arm locks in a subquery of its own), then its room of both.
    cand AS (
        SELECT x.company_id, x.id, x.webhook_id, 0 AS k, x.due FROM room r CROSS JOIN LATERAL (
            SELECT d.company_id, d.id, d.webhook_id, d.lease_until AS due FROM webhook_deliveries d
            WHERE d.status = 'in_flight' AND d.lease_until <= now()
              AND d.company_id = r.company_id AND d.webhook_id = r.id
            ORDER BY d.lease_until LIMIT greatest(r.n, 0) FOR UPDATE SKIP LOCKED) x
        UNION ALL
        SELECT x.company_id, x.id, x.webhook_id, 1, x.due FROM room r CROSS JOIN LATERAL (
            SELECT d.company_id, d.id, d.webhook_id, d.next_attempt_at AS due FROM webhook_deliveries d
            WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= now()
              AND d.company_id = r.company_id AND d.webhook_id = r.id
            ORDER BY d.next_attempt_at LIMIT greatest(r.n, 0) FOR UPDATE SKIP LOCKED) x),
    ranked AS (
        SELECT c.company_id, c.id, c.k, c.due, r.n,
            row_number() OVER (PARTITION BY c.company_id, c.webhook_id ORDER BY c.k, c.due) AS i
        FROM cand c JOIN room r ON r.company_id = c.company_id AND r.id = c.webhook_id),
    picked AS (SELECT p.company_id, p.id FROM ranked p WHERE p.i <= p.n ORDER BY p.k, p.due LIMIT wanted)
    UPDATE webhook_deliveries d SET status = 'in_flight', attempts = least(d.attempts + 1, max_attempts),
        lease_token = token, lease_until = now() + lease
    FROM picked p WHERE d.company_id = p.company_id AND d.id = p.id
    RETURNING d.*;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS webhook_claim_many(uuid, interval, integer, integer, integer);
DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_webhook_waiting;
DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_webhook_leased;
