-- The ledger: verifikationer and their lines, the rättelse log, gapless
-- voucher numbering, the general ledger (postings) and its balances, and
-- the asynchronous operations that year-end and imports run as.
--
-- The database keeps the rules of Bokföringslagen itself, so that no code
-- path and no hand-written SQL can break the books:
--   * an entry is born a draft; only a draft's lines may be replaced;
--   * posting assigns the next voucher number of (company, period, series),
--     gapless, and needs debits = credits > 0 (checked at commit);
--   * a posted entry never changes, except through a logged rättelse
--     (description/date, struck and added lines), the link to its storno,
--     its internal note and its underlag mark;
--   * nothing is posted into a closed period, into a locked one (except the
--     year-end and opening-balance entries), or on or before the company's
--     lock date.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- The journal tables of 00002 were placeholders, written only by tests.
DROP TABLE journal_lines, journal_entries;

ALTER TABLE fiscal_periods ADD CONSTRAINT fiscal_periods_company_id_key UNIQUE (company_id, id);

CREATE TABLE journal_entries (
    company_id           uuid NOT NULL REFERENCES companies (id),
    id                   uuid NOT NULL DEFAULT gen_random_uuid(),
    fiscal_period_id     uuid NOT NULL,
    voucher_series       text NOT NULL DEFAULT 'A' CHECK (voucher_series ~ '^[A-Z]$'),
    voucher_number       integer NOT NULL DEFAULT 0 CHECK (voucher_number >= 0),
    entry_date           date NOT NULL,
    description          text NOT NULL CHECK (length(description) BETWEEN 1 AND 500),
    status               text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'posted', 'cancelled')),
    source_type          text NOT NULL DEFAULT 'manual' CHECK (source_type ~ '^[a-z_]{1,40}$'),
    source_id            text CHECK (length(source_id) BETWEEN 1 AND 200),
    notes                text CHECK (length(notes) BETWEEN 1 AND 2000),
    reverses_id          uuid,
    reversed_by_id       uuid,
    correction_of_id     uuid,
    -- How many stornos and corrections lie between this entry and the
    -- original it descends from; deep chains need allow_deep_chain.
    chain_depth          smallint NOT NULL DEFAULT 0 CHECK (chain_depth >= 0),
    no_document_required boolean NOT NULL DEFAULT false,
    no_document_reason   text CHECK (length(no_document_reason) BETWEEN 1 AND 500),
    posted_at            timestamptz,
    cancelled_at         timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, fiscal_period_id) REFERENCES fiscal_periods (company_id, id),
    FOREIGN KEY (company_id, reverses_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, reversed_by_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, correction_of_id) REFERENCES journal_entries (company_id, id),
    CHECK ((status = 'posted') = (voucher_number > 0)),
    CHECK ((status = 'posted') = (posted_at IS NOT NULL)),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
    CHECK (NOT no_document_required OR status = 'posted'),
    CHECK (no_document_required OR no_document_reason IS NULL)
);
CREATE UNIQUE INDEX journal_entries_voucher ON journal_entries (company_id, fiscal_period_id, voucher_series, voucher_number)
    WHERE voucher_number > 0;
CREATE INDEX journal_entries_recent ON journal_entries (company_id, created_at DESC, id);
CREATE INDEX journal_entries_drafts ON journal_entries (company_id, fiscal_period_id) WHERE status = 'draft';
CREATE UNIQUE INDEX journal_entries_one_storno ON journal_entries (company_id, reverses_id) WHERE reverses_id IS NOT NULL;

-- The inline rättelse log (BFL 5 kap. 5 §): what was changed on a posted
-- entry, when and by whom. Rows are never changed or removed.
CREATE TABLE journal_rattelser (
    company_id         uuid NOT NULL,
    id                 uuid NOT NULL DEFAULT gen_random_uuid(),
    journal_entry_id   uuid NOT NULL,
    rattelse_type      text NOT NULL CHECK (rattelse_type IN ('metadata', 'lines')),
    old_description    text,
    new_description    text,
    old_entry_date     date,
    new_entry_date     date,
    struck_lines       jsonb,
    added_lines        jsonb,
    actor_type         text NOT NULL,
    actor_id           uuid,
    actor_label        text,
    user_id            uuid,
    source             text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'sie_import')),
    external_signature text,
    created_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id)
);
CREATE INDEX journal_rattelser_entry ON journal_rattelser (company_id, journal_entry_id, created_at DESC);

CREATE TABLE journal_lines (
    company_id            uuid NOT NULL,
    journal_entry_id      uuid NOT NULL,
    id                    uuid NOT NULL DEFAULT gen_random_uuid(),
    sort_order            integer NOT NULL CHECK (sort_order >= 0),
    account_number        text NOT NULL,
    debit_amount          numeric(18, 2) NOT NULL DEFAULT 0 CHECK (debit_amount >= 0),
    credit_amount         numeric(18, 2) NOT NULL DEFAULT 0 CHECK (credit_amount >= 0),
    line_description      text CHECK (length(line_description) BETWEEN 1 AND 500),
    currency              text CHECK (currency ~ '^[A-Z]{3}$'),
    amount_in_currency    numeric(18, 2),
    exchange_rate         numeric(18, 6) CHECK (exchange_rate > 0 AND exchange_rate < 100000),
    tax_code              text CHECK (length(tax_code) BETWEEN 1 AND 40),
    dimensions            jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    added_by_rattelse_id  uuid,
    struck_by_rattelse_id uuid,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, account_number) REFERENCES accounts (company_id, account_number),
    FOREIGN KEY (company_id, added_by_rattelse_id) REFERENCES journal_rattelser (company_id, id),
    FOREIGN KEY (company_id, struck_by_rattelse_id) REFERENCES journal_rattelser (company_id, id),
    -- Exactly one side of a line carries an amount.
    CHECK ((debit_amount > 0) <> (credit_amount > 0))
);
CREATE INDEX journal_lines_entry ON journal_lines (company_id, journal_entry_id, sort_order);
CREATE INDEX journal_lines_account ON journal_lines (company_id, account_number);

-- The last voucher number taken per (company, period, series). The row is
-- locked by the posting transaction until it ends, so numbers are handed
-- out in commit order and a rolled-back posting hands its number back.
CREATE TABLE voucher_sequences (
    company_id       uuid NOT NULL,
    fiscal_period_id uuid NOT NULL,
    voucher_series   text NOT NULL,
    last_number      integer NOT NULL CHECK (last_number > 0),
    PRIMARY KEY (company_id, fiscal_period_id, voucher_series),
    FOREIGN KEY (company_id, fiscal_period_id) REFERENCES fiscal_periods (company_id, id)
);

-- The general ledger (huvudbok): one row per posted, unstruck line, kept
-- by the triggers below in report order, so a report over a million lines
-- reads one index range and nothing else.
CREATE TABLE ledger_postings (
    company_id       uuid NOT NULL,
    fiscal_period_id uuid NOT NULL,
    account_number   text NOT NULL,
    entry_date       date NOT NULL,
    voucher_series   text NOT NULL,
    voucher_number   integer NOT NULL,
    line_id          uuid NOT NULL,
    journal_entry_id uuid NOT NULL,
    debit_amount     numeric(18, 2) NOT NULL,
    credit_amount    numeric(18, 2) NOT NULL,
    is_opening       boolean NOT NULL,
    PRIMARY KEY (company_id, fiscal_period_id, account_number, entry_date, voucher_series, voucher_number, line_id)
        INCLUDE (journal_entry_id, debit_amount, credit_amount, is_opening)
);

-- Sums of the postings per account and calendar month, opening balances
-- (the IB verifikat) apart: the trial balance reads these.
CREATE TABLE account_balances (
    company_id       uuid NOT NULL,
    fiscal_period_id uuid NOT NULL,
    account_number   text NOT NULL,
    month            date NOT NULL CHECK (extract(day FROM month) = 1),
    opening_debit    numeric(18, 2) NOT NULL DEFAULT 0,
    opening_credit   numeric(18, 2) NOT NULL DEFAULT 0,
    debit            numeric(18, 2) NOT NULL DEFAULT 0,
    credit           numeric(18, 2) NOT NULL DEFAULT 0,
    PRIMARY KEY (company_id, fiscal_period_id, account_number, month)
);

-- Year-end: the closing entry (bokslutsverifikat) and the opening-balance
-- entry it carried into the next period.
ALTER TABLE fiscal_periods
    ADD COLUMN year_end_entry_id uuid,
    ADD COLUMN year_end_at timestamptz,
    ADD CONSTRAINT fiscal_periods_year_end_entry FOREIGN KEY (company_id, year_end_entry_id)
        REFERENCES journal_entries (company_id, id);

-- Long-running work (year-end, imports): queued by a request, run by a
-- worker in any replica (SKIP LOCKED), resumed after a crash when its
-- lease runs out, polled through GET /api/v1/operations/{id}.
CREATE TABLE operations (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id   uuid NOT NULL REFERENCES companies (id),
    type         text NOT NULL,
    status       text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    params       jsonb NOT NULL DEFAULT '{}',
    actor        jsonb NOT NULL DEFAULT '{}',
    progress     jsonb,
    result       jsonb,
    error        jsonb,
    attempts     integer NOT NULL DEFAULT 0,
    lease_until  timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    completed_at timestamptz,
    CHECK ((status IN ('succeeded', 'failed', 'cancelled')) = (completed_at IS NOT NULL))
);
CREATE INDEX operations_unfinished ON operations (created_at) WHERE status IN ('queued', 'running');
CREATE INDEX operations_company ON operations (company_id, type, created_at DESC);

-- Does date d lie in period p of company c?
-- +goose StatementBegin
CREATE FUNCTION ledger_check_in_period(c uuid, p uuid, d date) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM fiscal_periods WHERE company_id = c AND id = p AND d BETWEEN period_start AND period_end) THEN
        RAISE EXCEPTION 'ENTRY_DATE_OUTSIDE_FISCAL_PERIOD: % is outside period %', d, p USING ERRCODE = 'check_violation';
    END IF;
END $$;
-- +goose StatementEnd

-- May an entry of source type src dated d be posted into period p of
-- company c? Raises PERIOD_LOCKED (the API's code) when not.
-- +goose StatementBegin
CREATE FUNCTION ledger_check_postable(c uuid, p uuid, d date, src text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    per fiscal_periods%ROWTYPE;
    lock_date date;
BEGIN
    -- FOR SHARE: a lock, close or lock-date move waits for the postings
    -- in flight, and postings wait for it.
    SELECT * INTO per FROM fiscal_periods WHERE company_id = c AND id = p FOR SHARE;
    IF d < per.period_start OR d > per.period_end THEN
        RAISE EXCEPTION 'ENTRY_DATE_OUTSIDE_FISCAL_PERIOD: % is outside % – %', d, per.period_start, per.period_end
            USING ERRCODE = 'check_violation';
    END IF;
    IF per.is_closed THEN
        RAISE EXCEPTION 'PERIOD_LOCKED: period % is closed', p USING ERRCODE = 'check_violation';
    END IF;
    IF src IN ('year_end', 'opening_balance') THEN
        RETURN;
    END IF;
    IF per.locked_at IS NOT NULL THEN
        RAISE EXCEPTION 'PERIOD_LOCKED: period % is locked', p USING ERRCODE = 'check_violation';
    END IF;
    SELECT bookkeeping_locked_through INTO lock_date FROM company_settings WHERE company_id = c FOR SHARE;
    IF lock_date IS NOT NULL AND d <= lock_date THEN
        RAISE EXCEPTION 'PERIOD_LOCKED: the books are locked through %', lock_date USING ERRCODE = 'check_violation';
    END IF;
END $$;
-- +goose StatementEnd

-- Adds (sign 1) or removes (sign -1) postings to the month balances.
-- +goose StatementBegin
CREATE FUNCTION ledger_balance(c uuid, p uuid, acct text, d date, opening boolean, debit numeric, credit numeric,
    sign integer) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO account_balances AS b (company_id, fiscal_period_id, account_number, month,
        opening_debit, opening_credit, debit, credit)
    VALUES (c, p, acct, date_trunc('month', d)::date,
        CASE WHEN opening THEN sign * debit ELSE 0 END, CASE WHEN opening THEN sign * credit ELSE 0 END,
        CASE WHEN opening THEN 0 ELSE sign * debit END, CASE WHEN opening THEN 0 ELSE sign * credit END)
    ON CONFLICT (company_id, fiscal_period_id, account_number, month) DO UPDATE SET
        opening_debit = b.opening_debit + EXCLUDED.opening_debit,
        opening_credit = b.opening_credit + EXCLUDED.opening_credit,
        debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit
$$;
-- +goose StatementEnd

-- Before an entry is written: born a draft; posting takes the next voucher
-- number; a posted entry changes only as the rules above allow.
-- +goose StatementBegin
CREATE FUNCTION journal_entry_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    next_number integer;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'journal entries are never deleted; cancel a draft instead' USING ERRCODE = 'restrict_violation';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'draft' OR NEW.voucher_number <> 0 THEN
            RAISE EXCEPTION 'a journal entry is created as a draft and posted afterwards' USING ERRCODE = 'check_violation';
        END IF;
        PERFORM ledger_check_in_period(NEW.company_id, NEW.fiscal_period_id, NEW.entry_date);
        RETURN NEW;
    END IF;
    IF NEW.company_id <> OLD.company_id OR NEW.id <> OLD.id OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'a journal entry keeps its identity' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'cancelled' THEN
        RAISE EXCEPTION 'a cancelled journal entry is final' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'draft' THEN
        IF NEW.status = 'posted' THEN
            PERFORM ledger_check_postable(NEW.company_id, NEW.fiscal_period_id, NEW.entry_date, NEW.source_type);
            INSERT INTO voucher_sequences AS s (company_id, fiscal_period_id, voucher_series, last_number)
            VALUES (NEW.company_id, NEW.fiscal_period_id, NEW.voucher_series, 1)
            ON CONFLICT (company_id, fiscal_period_id, voucher_series) DO UPDATE SET last_number = s.last_number + 1
            RETURNING last_number INTO next_number;
            IF NEW.voucher_number NOT IN (0, next_number) THEN
                RAISE EXCEPTION 'voucher numbers are gapless: the next in %/% is %, not %', NEW.fiscal_period_id,
                    NEW.voucher_series, next_number, NEW.voucher_number USING ERRCODE = 'check_violation';
            END IF;
            NEW.voucher_number := next_number;
            NEW.posted_at := coalesce(NEW.posted_at, now());
        ELSIF NEW.voucher_number <> 0 THEN
            RAISE EXCEPTION 'only posting numbers a journal entry' USING ERRCODE = 'check_violation';
        ELSE
            PERFORM ledger_check_in_period(NEW.company_id, NEW.fiscal_period_id, NEW.entry_date);
        END IF;
        RETURN NEW;
    END IF;
    -- OLD.status = 'posted'
    IF NEW.status <> 'posted' OR NEW.fiscal_period_id <> OLD.fiscal_period_id
       OR NEW.voucher_series <> OLD.voucher_series OR NEW.voucher_number <> OLD.voucher_number
       OR NEW.source_type <> OLD.source_type OR NEW.source_id IS DISTINCT FROM OLD.source_id
       OR NEW.reverses_id IS DISTINCT FROM OLD.reverses_id OR NEW.correction_of_id IS DISTINCT FROM OLD.correction_of_id
       OR NEW.chain_depth <> OLD.chain_depth OR NEW.posted_at <> OLD.posted_at
       OR (OLD.reversed_by_id IS NOT NULL AND NEW.reversed_by_id IS DISTINCT FROM OLD.reversed_by_id) THEN
        RAISE EXCEPTION 'a posted journal entry cannot be changed; use storno or correction'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.description <> OLD.description OR NEW.entry_date <> OLD.entry_date THEN
        IF NOT EXISTS (SELECT 1 FROM journal_rattelser r
                WHERE r.company_id = NEW.company_id AND r.journal_entry_id = NEW.id AND r.created_at = now()
                  AND r.rattelse_type = 'metadata'
                  AND (NEW.description = OLD.description OR r.new_description = NEW.description)
                  AND (NEW.entry_date = OLD.entry_date OR r.new_entry_date = NEW.entry_date)) THEN
            RAISE EXCEPTION 'a posted entry''s description or date changes only through a logged rättelse'
                USING ERRCODE = 'check_violation';
        END IF;
        PERFORM ledger_check_postable(NEW.company_id, NEW.fiscal_period_id, OLD.entry_date, NEW.source_type);
        PERFORM ledger_check_postable(NEW.company_id, NEW.fiscal_period_id, NEW.entry_date, NEW.source_type);
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_entry_guard BEFORE INSERT OR UPDATE OR DELETE ON journal_entries
    FOR EACH ROW EXECUTE FUNCTION journal_entry_guard();

-- After an entry is posted, or its date corrected: the general ledger and
-- the balances follow.
-- +goose StatementBegin
CREATE FUNCTION journal_entry_posted() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    l record;
BEGIN
    IF OLD.status = 'draft' AND NEW.status = 'posted' THEN
        INSERT INTO ledger_postings (company_id, fiscal_period_id, account_number, entry_date, voucher_series,
            voucher_number, line_id, journal_entry_id, debit_amount, credit_amount, is_opening)
        SELECT NEW.company_id, NEW.fiscal_period_id, account_number, NEW.entry_date, NEW.voucher_series,
            NEW.voucher_number, id, NEW.id, debit_amount, credit_amount, NEW.source_type = 'opening_balance'
        FROM journal_lines WHERE company_id = NEW.company_id AND journal_entry_id = NEW.id
            AND struck_by_rattelse_id IS NULL;
        FOR l IN SELECT account_number, sum(debit_amount) AS d, sum(credit_amount) AS cr FROM journal_lines
                WHERE company_id = NEW.company_id AND journal_entry_id = NEW.id AND struck_by_rattelse_id IS NULL
                GROUP BY account_number LOOP
            PERFORM ledger_balance(NEW.company_id, NEW.fiscal_period_id, l.account_number, NEW.entry_date,
                NEW.source_type = 'opening_balance', l.d, l.cr, 1);
        END LOOP;
    ELSIF OLD.status = 'posted' AND NEW.entry_date <> OLD.entry_date THEN
        UPDATE ledger_postings SET entry_date = NEW.entry_date
        WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.fiscal_period_id
          AND entry_date = OLD.entry_date AND journal_entry_id = NEW.id
          AND account_number IN (SELECT account_number FROM journal_lines
                                 WHERE company_id = NEW.company_id AND journal_entry_id = NEW.id);
        FOR l IN SELECT account_number, sum(debit_amount) AS d, sum(credit_amount) AS cr FROM journal_lines
                WHERE company_id = NEW.company_id AND journal_entry_id = NEW.id AND struck_by_rattelse_id IS NULL
                GROUP BY account_number LOOP
            PERFORM ledger_balance(NEW.company_id, NEW.fiscal_period_id, l.account_number, OLD.entry_date,
                NEW.source_type = 'opening_balance', l.d, l.cr, -1);
            PERFORM ledger_balance(NEW.company_id, NEW.fiscal_period_id, l.account_number, NEW.entry_date,
                NEW.source_type = 'opening_balance', l.d, l.cr, 1);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_entry_posted AFTER UPDATE ON journal_entries
    FOR EACH ROW WHEN (OLD.status <> NEW.status OR OLD.entry_date <> NEW.entry_date)
    EXECUTE FUNCTION journal_entry_posted();

-- Lines: a draft's lines may be replaced; a posted entry's lines are only
-- struck or added by a logged rättelse, which the general ledger follows;
-- a cancelled entry's lines never change.
-- +goose StatementBegin
CREATE FUNCTION journal_line_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    e journal_entries%ROWTYPE;
    r journal_lines%ROWTYPE;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    SELECT * INTO e FROM journal_entries WHERE company_id = r.company_id AND id = r.journal_entry_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'journal line of an unknown entry %', r.journal_entry_id USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND (NEW.company_id <> OLD.company_id OR NEW.journal_entry_id <> OLD.journal_entry_id
                             OR NEW.id <> OLD.id) THEN
        RAISE EXCEPTION 'a journal line keeps its entry' USING ERRCODE = 'check_violation';
    END IF;
    IF e.status = 'draft' THEN
        IF TG_OP <> 'DELETE' AND (NEW.added_by_rattelse_id IS NOT NULL OR NEW.struck_by_rattelse_id IS NOT NULL) THEN
            RAISE EXCEPTION 'a draft''s lines are replaced, not struck' USING ERRCODE = 'check_violation';
        END IF;
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF e.status = 'cancelled' OR TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'the lines of a % journal entry cannot be changed; use storno or correction', e.status
            USING ERRCODE = 'check_violation';
    END IF;
    PERFORM ledger_check_postable(e.company_id, e.fiscal_period_id, e.entry_date, e.source_type);
    IF TG_OP = 'INSERT' THEN
        IF NEW.added_by_rattelse_id IS NULL OR NEW.struck_by_rattelse_id IS NOT NULL THEN
            RAISE EXCEPTION 'lines are added to a posted entry only by a logged rättelse' USING ERRCODE = 'check_violation';
        END IF;
        INSERT INTO ledger_postings (company_id, fiscal_period_id, account_number, entry_date, voucher_series,
            voucher_number, line_id, journal_entry_id, debit_amount, credit_amount, is_opening)
        VALUES (e.company_id, e.fiscal_period_id, NEW.account_number, e.entry_date, e.voucher_series,
            e.voucher_number, NEW.id, e.id, NEW.debit_amount, NEW.credit_amount, e.source_type = 'opening_balance');
        PERFORM ledger_balance(e.company_id, e.fiscal_period_id, NEW.account_number, e.entry_date,
            e.source_type = 'opening_balance', NEW.debit_amount, NEW.credit_amount, 1);
        RETURN NEW;
    END IF;
    -- UPDATE of a posted entry's line: only striking it, once.
    IF OLD.struck_by_rattelse_id IS NOT NULL OR NEW.struck_by_rattelse_id IS NULL
       OR (NEW.sort_order, NEW.account_number, NEW.debit_amount, NEW.credit_amount, NEW.line_description,
           NEW.currency, NEW.amount_in_currency, NEW.exchange_rate, NEW.tax_code, NEW.dimensions,
           NEW.added_by_rattelse_id)
          IS DISTINCT FROM
          (OLD.sort_order, OLD.account_number, OLD.debit_amount, OLD.credit_amount, OLD.line_description,
           OLD.currency, OLD.amount_in_currency, OLD.exchange_rate, OLD.tax_code, OLD.dimensions,
           OLD.added_by_rattelse_id) THEN
        RAISE EXCEPTION 'a posted line is never changed; it can only be struck by a logged rättelse'
            USING ERRCODE = 'check_violation';
    END IF;
    DELETE FROM ledger_postings WHERE company_id = e.company_id AND fiscal_period_id = e.fiscal_period_id
        AND account_number = OLD.account_number AND entry_date = e.entry_date AND voucher_series = e.voucher_series
        AND voucher_number = e.voucher_number AND line_id = OLD.id;
    PERFORM ledger_balance(e.company_id, e.fiscal_period_id, OLD.account_number, e.entry_date,
        e.source_type = 'opening_balance', OLD.debit_amount, OLD.credit_amount, -1);
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_line_guard BEFORE INSERT OR UPDATE OR DELETE ON journal_lines
    FOR EACH ROW EXECUTE FUNCTION journal_line_guard();

-- At commit: every posted entry that was posted or changed in the
-- transaction balances, debits = credits > 0.
-- +goose StatementBegin
CREATE FUNCTION journal_entry_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    c uuid := NEW.company_id;
    e uuid;
    d numeric;
    cr numeric;
BEGIN
    IF TG_TABLE_NAME = 'journal_entries' THEN e := NEW.id; ELSE e := NEW.journal_entry_id; END IF;
    IF NOT EXISTS (SELECT 1 FROM journal_entries WHERE company_id = c AND id = e AND status = 'posted') THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(sum(debit_amount), 0), coalesce(sum(credit_amount), 0) INTO d, cr FROM journal_lines
    WHERE company_id = c AND journal_entry_id = e AND struck_by_rattelse_id IS NULL;
    IF d <> cr OR d = 0 THEN
        RAISE EXCEPTION 'JOURNAL_ENTRY_NOT_BALANCED: entry % has debit % and credit %', e, d, cr
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER journal_entry_balanced AFTER INSERT OR UPDATE ON journal_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.status = 'posted' AND NEW.voucher_number > 0)
    EXECUTE FUNCTION journal_entry_balanced();
CREATE CONSTRAINT TRIGGER journal_lines_balanced AFTER INSERT OR UPDATE ON journal_lines
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.added_by_rattelse_id IS NOT NULL OR NEW.struck_by_rattelse_id IS NOT NULL)
    EXECUTE FUNCTION journal_entry_balanced();

-- The rättelse log and the general ledger are written only forwards.
-- +goose StatementBegin
CREATE FUNCTION ledger_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_rattelser_append_only BEFORE UPDATE OR DELETE ON journal_rattelser
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

-- +goose Down
DROP TABLE operations;
ALTER TABLE fiscal_periods DROP CONSTRAINT fiscal_periods_year_end_entry,
    DROP COLUMN year_end_entry_id, DROP COLUMN year_end_at;
DROP TABLE account_balances, ledger_postings, voucher_sequences, journal_lines, journal_rattelser, journal_entries;
DROP FUNCTION journal_entry_balanced, journal_line_guard, journal_entry_posted, journal_entry_guard,
    ledger_balance, ledger_check_postable, ledger_check_in_period, ledger_append_only;
ALTER TABLE fiscal_periods DROP CONSTRAINT fiscal_periods_company_id_key;
CREATE TABLE journal_entries (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies (id),
    fiscal_period_id uuid NOT NULL REFERENCES fiscal_periods (id),
    voucher_series   text NOT NULL DEFAULT 'A' CHECK (voucher_series ~ '^[A-Z]$'),
    voucher_number   integer NOT NULL DEFAULT 0 CHECK (voucher_number >= 0),
    entry_date       date NOT NULL,
    description      text NOT NULL,
    status           text NOT NULL CHECK (status IN ('draft', 'posted', 'cancelled')),
    source_type      text NOT NULL DEFAULT 'manual',
    source_id        text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'posted') = (voucher_number > 0))
);
CREATE TABLE journal_lines (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    journal_entry_id uuid NOT NULL REFERENCES journal_entries (id),
    company_id       uuid NOT NULL,
    account_number   text NOT NULL,
    debit_amount     numeric(18, 2) NOT NULL DEFAULT 0 CHECK (debit_amount >= 0),
    credit_amount    numeric(18, 2) NOT NULL DEFAULT 0 CHECK (credit_amount >= 0),
    sort_order       integer NOT NULL DEFAULT 0,
    dimensions       jsonb,
    FOREIGN KEY (company_id, account_number) REFERENCES accounts (company_id, account_number),
    CHECK (debit_amount = 0 OR credit_amount = 0)
);
