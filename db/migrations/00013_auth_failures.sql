-- Failed authentications per client address, as a token bucket like the
-- keys' own limit: an address that sends unknown keys at speed is refused
-- with 429 before any key it sends is looked at, so keys cannot be
-- guessed at speed.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE UNLOGGED TABLE auth_failure_buckets (
    client     text PRIMARY KEY CHECK (length(client) BETWEEN 1 AND 100),
    tokens     double precision NOT NULL,
    updated_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE auth_failure_buckets;
