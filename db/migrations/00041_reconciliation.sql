-- Reconciliation (issue 24): the skattekonto's rows, the balances the
-- banks state, the links of outside rows to verifikat, the proposals the
-- matching engine keeps, and the sign-offs that freeze a period.
--
-- A link set ties outside rows to verifikat that close to the öre: one
-- row to one verifikat, many rows to one, or one row to many. Every row
-- of a set is paired with the set's first verifikat (entry_ordinal 0) and
-- every verifikat with its first row (row_ordinal 0), so the two partial
-- unique indexes keep one active set per row and one per verifikat,
-- whatever requests race. Links are removed by stamping, never deleted.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE bank_statement_balances (
    company_id      uuid           NOT NULL,
    cash_account_id uuid           NOT NULL,
    day             date           NOT NULL,
    balance         numeric(14, 2) NOT NULL,
    source          text           NOT NULL CHECK (source IN ('camt053', 'bank_feed')),
    recorded_at     timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, cash_account_id, day),
    FOREIGN KEY (company_id, cash_account_id) REFERENCES cash_accounts (company_id, id)
);
REVOKE DELETE ON bank_statement_balances FROM kontera_app;

CREATE TABLE skattekonto_transactions (
    company_id  uuid           NOT NULL REFERENCES companies (id),
    id          uuid           NOT NULL DEFAULT gen_random_uuid(),
    date        date           NOT NULL,
    description text           NOT NULL CHECK (char_length(description) BETWEEN 1 AND 500),
    amount      numeric(14, 2) NOT NULL,
    saldo_after numeric(14, 2),
    -- opening: the "Ingående saldo" the history starts from (amount 0).
    kind        text           NOT NULL DEFAULT 'row' CHECK (kind IN ('opening', 'row')),
    upcoming    boolean        NOT NULL DEFAULT false,
    source      text           NOT NULL CHECK (source IN ('skatteverket_file', 'manual')),
    -- What a re-import knows the row by: day, amount, text and which of
    -- alike rows of that day it is.
    row_key     text           NOT NULL CHECK (char_length(row_key) <= 700),
    is_ignored  boolean        NOT NULL DEFAULT false,
    created_at  timestamptz    NOT NULL DEFAULT now(),
    updated_at  timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, row_key),
    CHECK (kind = 'row' OR amount = 0 AND saldo_after IS NOT NULL AND NOT upcoming),
    CHECK (NOT upcoming OR saldo_after IS NULL)
);
CREATE INDEX skattekonto_transactions_date ON skattekonto_transactions (company_id, date);

-- What Skatteverket said stays as it said it: a coming debit may become
-- drawn (it gets its saldo), a row may be ignored, and only rows added by
-- hand are deleted.
-- +goose StatementBegin
CREATE FUNCTION skattekonto_transactions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.source <> 'manual' THEN
            RAISE EXCEPTION 'a skattekonto row from Skatteverket is never deleted' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.amount, NEW.kind, NEW.source, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.amount, OLD.kind, OLD.source, OLD.created_at)
       OR (NOT OLD.upcoming AND (NEW.date, NEW.description, NEW.saldo_after, NEW.upcoming, NEW.row_key)
           IS DISTINCT FROM (OLD.date, OLD.description, OLD.saldo_after, OLD.upcoming, OLD.row_key)) THEN
        RAISE EXCEPTION 'a skattekonto row keeps what Skatteverket said' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER skattekonto_transactions_guard BEFORE UPDATE OR DELETE ON skattekonto_transactions
    FOR EACH ROW EXECUTE FUNCTION skattekonto_transactions_guard();
CREATE TRIGGER skattekonto_transactions_no_truncate BEFORE TRUNCATE ON skattekonto_transactions
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

CREATE TABLE reconciliation_links (
    company_id       uuid           NOT NULL REFERENCES companies (id),
    id               uuid           NOT NULL DEFAULT gen_random_uuid(),
    set_id           uuid           NOT NULL,
    account_key      text           NOT NULL CHECK (account_key ~ '^(skattekonto|bank:[0-9a-f-]{36})$'),
    external_id      uuid           NOT NULL,
    journal_entry_id uuid           NOT NULL,
    row_ordinal      smallint       NOT NULL CHECK (row_ordinal BETWEEN 0 AND 99),
    entry_ordinal    smallint       NOT NULL CHECK (entry_ordinal BETWEEN 0 AND 99),
    allocated_amount numeric(14, 2) NOT NULL,
    method           text           NOT NULL CHECK (method IN ('manual', 'reference', 'exact', 'date_window',
                                                               'many_to_one', 'one_to_many')),
    confidence       numeric(3, 2)  CHECK (confidence BETWEEN 0 AND 1),
    created_by       jsonb          NOT NULL,
    created_at       timestamptz    NOT NULL DEFAULT now(),
    removed_by       jsonb,
    removed_at       timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    CHECK ((removed_at IS NULL) = (removed_by IS NULL)),
    CHECK (row_ordinal = 0 OR entry_ordinal = 0)
);
CREATE UNIQUE INDEX reconciliation_links_row ON reconciliation_links (company_id, external_id, entry_ordinal)
    WHERE removed_at IS NULL;
CREATE UNIQUE INDEX reconciliation_links_entry ON reconciliation_links (company_id, journal_entry_id, row_ordinal)
    WHERE removed_at IS NULL;
CREATE INDEX reconciliation_links_account ON reconciliation_links (company_id, account_key) WHERE removed_at IS NULL;

-- A link is stamped removed once; nothing else of it changes.
-- +goose StatementBegin
CREATE FUNCTION reconciliation_links_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.removed_at IS NOT NULL OR NEW.removed_at IS NULL
       OR (NEW.company_id, NEW.id, NEW.set_id, NEW.account_key, NEW.external_id, NEW.journal_entry_id, NEW.row_ordinal,
           NEW.entry_ordinal, NEW.allocated_amount, NEW.method, NEW.confidence, NEW.created_by, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.set_id, OLD.account_key, OLD.external_id, OLD.journal_entry_id,
           OLD.row_ordinal, OLD.entry_ordinal, OLD.allocated_amount, OLD.method, OLD.confidence, OLD.created_by,
           OLD.created_at) THEN
        RAISE EXCEPTION 'a reconciliation link is only ever stamped removed' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER reconciliation_links_guard BEFORE UPDATE ON reconciliation_links
    FOR EACH ROW EXECUTE FUNCTION reconciliation_links_guard();
REVOKE DELETE ON reconciliation_links FROM kontera_app;
CREATE TRIGGER reconciliation_links_no_truncate BEFORE TRUNCATE ON reconciliation_links
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- The engine's proposals per account, replaced whole on each recompute.
CREATE TABLE reconciliation_proposals (
    company_id        uuid          NOT NULL REFERENCES companies (id),
    account_key       text          NOT NULL,
    seq               integer       NOT NULL,
    external_ids      uuid[]        NOT NULL,
    journal_entry_ids uuid[]        NOT NULL,
    allocations       jsonb         NOT NULL,
    confidence        numeric(3, 2) NOT NULL,
    method            text          NOT NULL,
    reasons           text[]        NOT NULL,
    computed_at       timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, account_key, seq)
);

CREATE TABLE reconciliation_signoffs (
    company_id             uuid           NOT NULL REFERENCES companies (id),
    id                     uuid           NOT NULL DEFAULT gen_random_uuid(),
    account_key            text           NOT NULL,
    through_date           date           NOT NULL,
    note                   text           CHECK (char_length(note) <= 2000),
    forced                 boolean        NOT NULL,
    external_balance       numeric(14, 2) NOT NULL,
    ledger_balance         numeric(14, 2) NOT NULL,
    difference             numeric(14, 2) NOT NULL,
    unexplained_difference numeric(14, 2) NOT NULL,
    bridge                 jsonb          NOT NULL,
    items                  jsonb          NOT NULL,
    signed_by              jsonb          NOT NULL,
    signed_at              timestamptz    NOT NULL DEFAULT now(),
    -- A later sign-off of the account takes over (superseded_at).
    superseded_at          timestamptz,
    reopened_at            timestamptz,
    reopened_by            jsonb,
    reopen_reason          text           CHECK (char_length(reopen_reason) <= 2000),
    PRIMARY KEY (company_id, id),
    CHECK ((reopened_at IS NULL) = (reopened_by IS NULL) AND (reopened_at IS NULL) = (reopen_reason IS NULL))
);
CREATE UNIQUE INDEX reconciliation_signoffs_active ON reconciliation_signoffs (company_id, account_key)
    WHERE superseded_at IS NULL AND reopened_at IS NULL;
CREATE INDEX reconciliation_signoffs_list ON reconciliation_signoffs (company_id, account_key, signed_at DESC, id DESC);

-- What was signed stays signed: only the stamps of a later sign-off and
-- of a reopening are set, each once.
-- +goose StatementBegin
CREATE FUNCTION reconciliation_signoffs_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.company_id, NEW.id, NEW.account_key, NEW.through_date, NEW.note, NEW.forced, NEW.external_balance,
        NEW.ledger_balance, NEW.difference, NEW.unexplained_difference, NEW.bridge, NEW.items, NEW.signed_by, NEW.signed_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.account_key, OLD.through_date, OLD.note, OLD.forced,
        OLD.external_balance, OLD.ledger_balance, OLD.difference, OLD.unexplained_difference, OLD.bridge, OLD.items,
        OLD.signed_by, OLD.signed_at)
       OR (OLD.superseded_at IS NOT NULL AND NEW.superseded_at IS DISTINCT FROM OLD.superseded_at)
       OR (OLD.reopened_at IS NOT NULL AND (NEW.reopened_at, NEW.reopened_by, NEW.reopen_reason)
           IS DISTINCT FROM (OLD.reopened_at, OLD.reopened_by, OLD.reopen_reason)) THEN
        RAISE EXCEPTION 'a sign-off keeps what was signed' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER reconciliation_signoffs_guard BEFORE UPDATE ON reconciliation_signoffs
    FOR EACH ROW EXECUTE FUNCTION reconciliation_signoffs_guard();
REVOKE DELETE ON reconciliation_signoffs FROM kontera_app;
CREATE TRIGGER reconciliation_signoffs_no_truncate BEFORE TRUNCATE ON reconciliation_signoffs
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- +goose Down
DROP TABLE reconciliation_signoffs, reconciliation_proposals, reconciliation_links, skattekonto_transactions,
    bank_statement_balances;
DROP FUNCTION reconciliation_signoffs_guard(), reconciliation_links_guard(), skattekonto_transactions_guard();
