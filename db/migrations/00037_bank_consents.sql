-- Bank (issue 21): connections made through an aggregator. A connection
-- is asked for (pending, with the URL the user gives consent at), given
-- on the callback (the session, sealed, and the accounts it covers), and
-- its accounts feed cash accounts: one account at once, several once the
-- company has chosen (pending_selection). A sync's attempt is committed
-- before the bank is called, so the 15-minute cooldown and the daily run
-- hold across replicas; next_allowed_at is the bank's own limit.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE bank_connections
    ADD COLUMN bank_country     text CHECK (bank_country ~ '^[A-Z]{2}$'),
    ADD COLUMN psu_type         text NOT NULL DEFAULT 'business' CHECK (psu_type IN ('business', 'personal')),
    ADD COLUMN authorization_id text CHECK (octet_length(authorization_id) <= 200),
    ADD COLUMN authorization_url text CHECK (octet_length(authorization_url) <= 4000),
    ADD COLUMN return_url       text CHECK (octet_length(return_url) <= 2048),
    ADD COLUMN session          bytea CHECK (octet_length(session) <= 1000),
    ADD COLUMN next_allowed_at  timestamptz,
    ADD COLUMN balances_at      timestamptz,
    ADD CONSTRAINT bank_connections_session CHECK (status NOT IN ('pending_selection', 'active') OR session IS NOT NULL);
-- What the daily run looks for: active connections, least recently tried.
CREATE INDEX bank_connections_due ON bank_connections (last_attempt_at NULLS FIRST) WHERE status = 'active';

CREATE TABLE bank_connection_accounts (
    company_id      uuid NOT NULL,
    connection_id   uuid NOT NULL,
    uid             text NOT NULL CHECK (octet_length(uid) BETWEEN 1 AND 200),
    iban            text CHECK (iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$'),
    currency        text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    name            text CHECK (char_length(name) <= 200),
    cash_account_id uuid,
    PRIMARY KEY (company_id, connection_id, uid),
    FOREIGN KEY (company_id, connection_id) REFERENCES bank_connections (company_id, id),
    FOREIGN KEY (company_id, cash_account_id) REFERENCES cash_accounts (company_id, id)
);
-- A cash account is fed by one account of one connection at a time.
CREATE UNIQUE INDEX bank_connection_accounts_cash ON bank_connection_accounts (company_id, cash_account_id)
    WHERE cash_account_id IS NOT NULL;
REVOKE DELETE ON bank_connection_accounts FROM kontera_app;

-- The connection that feeds a cash account, and its account there.
ALTER TABLE cash_accounts ADD COLUMN bank_connection_id uuid,
    ADD FOREIGN KEY (company_id, bank_connection_id) REFERENCES bank_connections (company_id, id);

-- +goose Down
ALTER TABLE cash_accounts DROP COLUMN bank_connection_id;
DROP TABLE bank_connection_accounts;
DROP INDEX bank_connections_due;
ALTER TABLE bank_connections DROP CONSTRAINT bank_connections_session,
    DROP COLUMN balances_at, DROP COLUMN next_allowed_at, DROP COLUMN session, DROP COLUMN return_url,
    DROP COLUMN authorization_url, DROP COLUMN authorization_id, DROP COLUMN psu_type, DROP COLUMN bank_country;
