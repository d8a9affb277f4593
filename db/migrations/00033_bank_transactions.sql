-- Bank (issue 21): the transactions the bank reports on the company's
-- cash accounts, and how each was booked.
--
-- A transaction is what the bank said: its date, amount, currency and
-- bank reference never change (an import that says otherwise is another
-- transaction). It is unbooked until a verifikat books it
-- (journal_entry_id), ignored when the company says it needs none, and
-- deleted only while unbooked and added by hand. Each is unique per
-- settlement account by its external id, so an import or sync that
-- overlaps an earlier one adds only what is new.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE bank_transactions (
    company_id            uuid        NOT NULL REFERENCES companies (id),
    id                    uuid        NOT NULL DEFAULT gen_random_uuid(),
    cash_account_id       uuid,
    ledger_account        text        NOT NULL CHECK (ledger_account ~ '^19[0-9][0-9]$'),
    date                  date        NOT NULL,
    description           text        CHECK (char_length(description) <= 2000),
    original_description  text        CHECK (char_length(original_description) <= 2000),
    title_edited_at       timestamptz,
    amount                numeric(14, 2) NOT NULL,
    currency              text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    amount_sek            numeric(14, 2),
    exchange_rate         numeric(14, 6),
    exchange_rate_date    date,
    reference             text        CHECK (char_length(reference) <= 200),
    merchant_name         text        CHECK (char_length(merchant_name) <= 200),
    counterparty_account  text        CHECK (char_length(counterparty_account) <= 100),
    mcc_code              text        CHECK (mcc_code ~ '^[0-9]{4}$'),
    external_id           text        NOT NULL CHECK (char_length(external_id) BETWEEN 1 AND 200),
    import_source         text        NOT NULL DEFAULT 'api'
                                      CHECK (import_source IN ('api', 'manual', 'bank_feed', 'bank_file')),
    bank_file_import_id   uuid,
    journal_entry_id      uuid,
    invoice_id            uuid,
    supplier_invoice_id   uuid,
    is_business           boolean,
    category              text        CHECK (octet_length(category) <= 60),
    is_ignored            boolean     NOT NULL DEFAULT false,
    -- Once booked and then uncategorized, the row has a history in the
    -- books (a verifikat and its storno name it): it is kept.
    was_booked            boolean     NOT NULL DEFAULT false,
    document_id           uuid,
    reconciliation_method text        CHECK (reconciliation_method IN ('categorized', 'invoice', 'supplier_invoice',
                                                                       'batch', 'linked', 'bulk')),
    -- The texts a search looks in, folded as Go folds them (Å as å,
    -- whatever the database's locale).
    search_text           text        NOT NULL DEFAULT '',
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, cash_account_id) REFERENCES cash_accounts (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    CHECK (NOT (is_ignored AND journal_entry_id IS NOT NULL)),
    CHECK ((journal_entry_id IS NULL) = (reconciliation_method IS NULL))
);
CREATE UNIQUE INDEX bank_transactions_external ON bank_transactions (company_id, ledger_account, external_id);
-- The list, newest first; what a period lock looks for.
CREATE INDEX bank_transactions_created ON bank_transactions (company_id, created_at DESC, id DESC);
CREATE INDEX bank_transactions_unbooked ON bank_transactions (company_id, date)
    WHERE journal_entry_id IS NULL AND NOT is_ignored;
CREATE INDEX bank_transactions_entry ON bank_transactions (company_id, journal_entry_id) WHERE journal_entry_id IS NOT NULL;

-- What the bank said stays as it said it; a booked row is deleted never.
-- +goose StatementBegin
CREATE FUNCTION bank_transactions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.journal_entry_id IS NOT NULL OR OLD.was_booked THEN
            RAISE EXCEPTION 'a bank transaction booked once is never deleted' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.date, NEW.amount, NEW.currency, NEW.external_id, NEW.import_source,
            NEW.original_description, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.date, OLD.amount, OLD.currency, OLD.external_id,
            OLD.import_source, OLD.original_description, OLD.created_at) THEN
        RAISE EXCEPTION 'a bank transaction keeps what the bank said' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.was_booked AND NOT NEW.was_booked THEN
        RAISE EXCEPTION 'a bank transaction keeps its history' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.journal_entry_id IS NOT NULL AND NEW.journal_entry_id IS NOT NULL
       AND (NEW.ledger_account, NEW.cash_account_id) IS DISTINCT FROM (OLD.ledger_account, OLD.cash_account_id) THEN
        RAISE EXCEPTION 'a booked bank transaction stays on its account' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER bank_transactions_guard BEFORE UPDATE OR DELETE ON bank_transactions
    FOR EACH ROW EXECUTE FUNCTION bank_transactions_guard();

-- Counterparty memory: the last booking of the same merchant.
CREATE INDEX bank_transactions_merchant ON bank_transactions (company_id, merchant_name, updated_at DESC)
    WHERE journal_entry_id IS NOT NULL AND merchant_name IS NOT NULL;

-- +goose Down
DROP TABLE bank_transactions;
DROP FUNCTION bank_transactions_guard();
