-- The rate limit as a token bucket per key instead of fixed one-minute
-- windows: a key holds up to its limit of tokens, refilled evenly (the
-- limit per minute), and a request takes one. A burst is at most the
-- limit, and there is no double burst at a window's edge (the fixed
-- windows let 2 × the limit through in two seconds around a minute). The
-- bucket lives in the database, as the windows did, so the limit holds
-- across every replica: one statement per request.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
DROP TABLE rate_limit_windows;
CREATE UNLOGGED TABLE rate_limit_buckets (
    api_key_id   uuid PRIMARY KEY,
    tokens       double precision NOT NULL,
    last_allowed boolean NOT NULL,
    updated_at   timestamptz NOT NULL
);
GRANT SELECT, INSERT, UPDATE, DELETE ON rate_limit_buckets TO kontera_app;

-- The tokens of a bucket that held t at since, refilled at lim per
-- minute up to lim, as of at.
-- +goose StatementBegin
CREATE FUNCTION ratelimit_refill(t double precision, since timestamptz, lim integer, at timestamptz)
RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
    SELECT least(lim::double precision, t + greatest(extract(epoch FROM at - since), 0) * lim / 60.0)
$$;
-- +goose StatementEnd

-- Takes a token of key's bucket of lim a minute. The bucket is transient
-- state in an unlogged table: its transaction commits without waiting for
-- the disk (synchronous_commit off), which is most of what a request's
-- rate limiting would otherwise cost. One statement for the caller.
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

-- +goose Down
DROP FUNCTION ratelimit_take(uuid, integer);
DROP FUNCTION ratelimit_refill(double precision, timestamptz, integer, timestamptz);
DROP TABLE rate_limit_buckets;
CREATE UNLOGGED TABLE rate_limit_windows (
    api_key_id   uuid NOT NULL,
    window_start timestamptz NOT NULL,
    count        integer NOT NULL,
    PRIMARY KEY (api_key_id, window_start)
);
GRANT SELECT, INSERT, UPDATE, DELETE ON rate_limit_windows TO kontera_app;
