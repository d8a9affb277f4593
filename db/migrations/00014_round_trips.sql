-- Fewer round trips on every write: taking an Idempotency-Key's lock and
-- reading its stored outcome become one call.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

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

-- Takes up to want tokens of key's bucket of lim a minute at once: a
-- replica's lease, spent in memory, so a key's requests do not all write
-- the bucket. Tokens are only ever taken from the bucket, never created,
-- so the limit holds across replicas; a lease a replica does not spend
-- in time is forfeited (under-admission, at most want - 1 per replica and
-- take in flight).
-- granted 0 means refused. It replaces ratelimit_take (00012), which was
-- this with want 1.
-- +goose StatementBegin
CREATE FUNCTION ratelimit_lease(key uuid, lim integer, want integer)
RETURNS TABLE (granted integer, tokens double precision, updated_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    t double precision;
    since timestamptz;
    at timestamptz;
    have double precision;
    n integer;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO rate_limit_buckets (api_key_id, tokens, last_allowed, updated_at)
    VALUES (key, lim, true, clock_timestamp()) ON CONFLICT (api_key_id) DO NOTHING;
    SELECT b.tokens, b.updated_at INTO t, since FROM rate_limit_buckets b WHERE b.api_key_id = key FOR UPDATE;
    -- The time is read once the row is ours, so it never runs backwards.
    at := clock_timestamp();
    have := ratelimit_refill(t, since, lim, at);
    n := least(want, floor(have))::integer;
    UPDATE rate_limit_buckets b SET tokens = have - n, last_allowed = n > 0, updated_at = at WHERE b.api_key_id = key;
    RETURN QUERY SELECT n, have - n, at;
END $$;
-- +goose StatementEnd

DROP FUNCTION ratelimit_take(uuid, integer);

-- +goose Down
-- +goose StatementBegin
CREATE FUNCTION ratelimit_take(key uuid, lim integer)
RETURNS TABLE (tokens double precision, last_allowed boolean, updated_at timestamptz)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY
    INSERT INTO rate_limit_buckets AS b (api_key_id, tokens, last_allowed, updated_at)
    VALUES (key, lim - 1, true, clock_timestamp())
    ON CONFLICT (api_key_id) DO UPDATE SET
        last_allowed = ratelimit_refill(b.tokens, b.updated_at, lim, clock_timestamp()) >= 1,
        tokens = ratelimit_refill(b.tokens, b.updated_at, lim, clock_timestamp())
            - CASE WHEN ratelimit_refill(b.tokens, b.updated_at, lim, clock_timestamp()) >= 1 THEN 1 ELSE 0 END,
        updated_at = clock_timestamp()
    RETURNING b.tokens, b.last_allowed, b.updated_at;
END $$;
-- +goose StatementEnd
DROP FUNCTION ratelimit_lease(uuid, integer, integer);
DROP FUNCTION idempotency_claim(uuid, uuid, interval);
