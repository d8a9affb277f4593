-- Fewer round trips on every write: taking an Idempotency-Key's lock and
-- reading its stored outcome become one call.

-- +goose Up
-- Takes the key's transaction-scoped advisory lock without waiting and,
-- when it was free, answers the key's live record (NULLs when none).
-- The record is read by a second query inside this VOLATILE function, so
-- with a snapshot taken after the lock: a request that held the key has
-- committed or rolled back by then, and its record is seen. (One SELECT
-- doing both would read with a snapshot from before the lock and could
-- miss it, running the write twice.)
-- +goose StatementBegin
CREATE FUNCTION idempotency_claim(p_api_key uuid, p_key uuid, p_ttl interval)
RETURNS TABLE (locked boolean, request_hash bytea, status smallint, content_type text, body bytea, created_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended(p_api_key::text || p_key::text, 7201)) THEN
        RETURN QUERY SELECT false, NULL::bytea, NULL::smallint, NULL::text, NULL::bytea, NULL::timestamptz;
        RETURN;
    END IF;
    RETURN QUERY
    SELECT true, k.request_hash, k.status, k.content_type, k.body, k.created_at
    FROM (SELECT 1) one
    LEFT JOIN idempotency_keys k ON k.api_key_id = p_api_key AND k.key = p_key AND k.created_at > now() - p_ttl;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION idempotency_claim(uuid, uuid, interval);
