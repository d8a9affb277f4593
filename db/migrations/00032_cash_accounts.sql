-- Bank (issue 21, first part): the company's cash accounts, each on a
-- 19xx account of the chart, and which of them invoices print as payee
-- per currency.
--
-- A cash account is where bank transactions land and what their
-- verifikat book against: its ledger account is the account's for the
-- company's life (a transaction booked on it stays booked there), so it
-- never changes. One account is the primary (the default for what names
-- none); an IBAN is one account per currency, so a bank connection that
-- brings the same IBAN takes the row over.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE cash_accounts (
    company_id         uuid        NOT NULL REFERENCES companies (id),
    id                 uuid        NOT NULL DEFAULT gen_random_uuid(),
    ledger_account     text        NOT NULL CHECK (ledger_account ~ '^19[2-9][0-9]$'),
    name               text        NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    currency           text        NOT NULL CHECK (currency IN ('SEK', 'EUR', 'USD', 'GBP', 'NOK', 'DKK', 'CHF')),
    iban               text        CHECK (iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$'),
    is_primary         boolean     NOT NULL DEFAULT false,
    enabled            boolean     NOT NULL DEFAULT true,
    source             text        NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'bank_feed', 'sie_import')),
    balance            numeric(14, 2),
    available_balance  numeric(14, 2),
    balance_updated_at timestamptz,
    voucher_series     text        CHECK (voucher_series ~ '^[A-Z]$'),
    invoice_payee      boolean     NOT NULL DEFAULT true,
    payee              jsonb       NOT NULL DEFAULT '{}'
                                   CHECK (jsonb_typeof(payee) = 'object' AND octet_length(payee::text) <= 4000),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, ledger_account),
    CHECK (enabled OR NOT is_primary)
);
CREATE UNIQUE INDEX cash_accounts_iban ON cash_accounts (company_id, iban, currency) WHERE iban IS NOT NULL;
CREATE UNIQUE INDEX cash_accounts_primary ON cash_accounts (company_id) WHERE is_primary;

-- The ledger account is the cash account's for good.
-- +goose StatementBegin
CREATE FUNCTION cash_accounts_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.ledger_account IS DISTINCT FROM OLD.ledger_account OR NEW.currency IS DISTINCT FROM OLD.currency THEN
        RAISE EXCEPTION 'a cash account keeps its ledger account and currency' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER cash_accounts_guard BEFORE UPDATE ON cash_accounts
    FOR EACH ROW EXECUTE FUNCTION cash_accounts_guard();
REVOKE DELETE ON cash_accounts FROM kontera_app;

CREATE TABLE cash_account_payees (
    company_id      uuid NOT NULL REFERENCES companies (id),
    currency        text NOT NULL CHECK (currency IN ('SEK', 'EUR', 'USD', 'GBP', 'NOK', 'DKK', 'CHF')),
    cash_account_id uuid NOT NULL,
    PRIMARY KEY (company_id, currency),
    FOREIGN KEY (company_id, cash_account_id) REFERENCES cash_accounts (company_id, id)
);

-- +goose Down
DROP TABLE cash_account_payees;
DROP TABLE cash_accounts;
DROP FUNCTION cash_accounts_guard();
