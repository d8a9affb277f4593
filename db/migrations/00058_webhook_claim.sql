-- Webhooks: a delivery is claimed by a function, so that the cap on one
-- webhook's attempts in flight (webhooks.PerWebhook) holds when workers
-- claim at the same moment.
--
-- A single statement counts the attempts in flight on the snapshot it
-- started with: four idle workers woken by one NOTIFY all counted none
-- and each took a delivery of the same hanging receiver, and the others'
-- deliveries waited for a lease to run out. The function locks the
-- candidate's webhook row first (SKIP LOCKED: a worker claiming for that
-- webhook makes the others look elsewhere), and only then counts, in a
-- statement of its own, which in READ COMMITTED sees every claim
-- committed before the lock was had. It stays one round trip.
--
-- Online: safe. A new function; nothing existing is rewritten or locked.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION webhook_claim(token uuid, lease interval, per_webhook integer, max_attempts integer)
RETURNS SETOF webhook_deliveries
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    cand record;
    -- The webhooks at their cap on this statement's snapshot: skipped
    -- without a look; the count after the lock settles the others.
    busy uuid[] := ARRAY(SELECT f.webhook_id FROM webhook_deliveries f
        WHERE f.status = 'in_flight' AND f.lease_until > now() AND f.webhook_id IS NOT NULL
        GROUP BY f.webhook_id HAVING count(*) >= per_webhook);
    n integer;
BEGIN
    LOOP
        -- A lease that ran out first (its replica died), then what is due,
        -- each in the order of its own index.
        SELECT d.company_id, d.id, d.webhook_id INTO cand
        FROM webhook_deliveries d
        JOIN webhooks w ON w.company_id = d.company_id AND w.id = d.webhook_id AND w.active
        WHERE d.status = 'in_flight' AND d.lease_until <= now() AND d.webhook_id <> ALL (busy)
        ORDER BY d.lease_until LIMIT 1
        FOR UPDATE OF d SKIP LOCKED FOR NO KEY UPDATE OF w SKIP LOCKED;
        IF NOT FOUND THEN
            SELECT d.company_id, d.id, d.webhook_id INTO cand
            FROM webhook_deliveries d
            JOIN webhooks w ON w.company_id = d.company_id AND w.id = d.webhook_id AND w.active
            WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= now() AND d.webhook_id <> ALL (busy)
            ORDER BY d.next_attempt_at LIMIT 1
            FOR UPDATE OF d SKIP LOCKED FOR NO KEY UPDATE OF w SKIP LOCKED;
            IF NOT FOUND THEN
                RETURN;
            END IF;
        END IF;
        SELECT count(*) INTO n FROM webhook_deliveries f
        WHERE f.status = 'in_flight' AND f.lease_until > now()
          AND f.company_id = cand.company_id AND f.webhook_id = cand.webhook_id;
        IF n < per_webhook THEN
            RETURN QUERY UPDATE webhook_deliveries d SET status = 'in_flight',
                attempts = least(d.attempts + 1, max_attempts), lease_token = token, lease_until = now() + lease
            WHERE d.company_id = cand.company_id AND d.id = cand.id
            RETURNING d.*;
            RETURN;
        END IF;
        busy := busy || cand.webhook_id;
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION webhook_claim(uuid, interval, integer, integer);
