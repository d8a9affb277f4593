-- Bank (issue 21): connections to banks through an account-information
-- aggregator (PSD2). A connection is a consent the company gave in its
-- bank; it feeds cash accounts until the consent expires. Without an
-- aggregator configured no connection is ever made, and the list is empty.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE bank_connections (
    company_id      uuid        NOT NULL REFERENCES companies (id),
    id              uuid        NOT NULL DEFAULT gen_random_uuid(),
    aggregator      text        NOT NULL CHECK (octet_length(aggregator) <= 40),
    bank            text        CHECK (octet_length(bank) <= 200),
    status          text        NOT NULL DEFAULT 'pending'
                                CHECK (status IN ('pending', 'pending_selection', 'active', 'expired', 'error')),
    since           timestamptz NOT NULL DEFAULT now(),
    last_synced_at  timestamptz,
    last_attempt_at timestamptz,
    consent_expires timestamptz,
    error_message   text        CHECK (octet_length(error_message) <= 1000),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

-- +goose Down
DROP TABLE bank_connections;
