-- A bulk door into the ledger (issue 23): ledger.PostBatch inserts
-- thousands of verifikationer born posted in a few statements, and the
-- database checks them as a set. The rules are the single path's; only
-- their shape changes:
--   * an entry is inserted as a draft (row guard, as before) or born
--     posted; born entries are checked by a statement trigger with the
--     inserted rows as a transition table: dates, period and lock date
--     by each (period, source)'s first and last date, numbers unique and above
--     the series' last (without gaps unless the file's own numbers of an
--     import), voucher_sequences moved once per series;
--   * lines are checked and booked by a statement trigger too: one
--     INSERT into ledger_postings and one grouped upsert of
--     account_balances per statement, instead of a trigger per line;
--     a posted entry takes lines only in the transaction that posted it,
--     or from a logged rättelse;
--   * that every born entry balances is checked at commit, once per
--     statement: a row in ledger_batch_checks, which nothing but these
--     triggers writes, carries a deferred constraint trigger.
-- Imports keep the file's voucher series (1-10 characters); API writes
-- keep one letter, as their request schemas say.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_voucher_series_check,
    ADD CONSTRAINT journal_entries_voucher_series_check
        CHECK (voucher_series ~ '^[^[:space:][:cntrl:]]{1,10}$');

CREATE TABLE ledger_batch_checks (
    company_id uuid NOT NULL,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    entry_ids  uuid[] NOT NULL,
    PRIMARY KEY (company_id, id)
);
REVOKE ALL ON ledger_batch_checks FROM kontera_app;
CREATE TRIGGER ledger_batch_checks_derived BEFORE INSERT OR UPDATE OR DELETE ON ledger_batch_checks
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_derived_guard();

-- The row guard keeps drafts; born entries are the statement trigger's.
DROP TRIGGER journal_entry_guard ON journal_entries;
CREATE TRIGGER journal_entry_guard BEFORE UPDATE OR DELETE ON journal_entries
    FOR EACH ROW EXECUTE FUNCTION journal_entry_guard();
CREATE TRIGGER journal_entry_guard_insert BEFORE INSERT ON journal_entries
    FOR EACH ROW WHEN (NEW.status <> 'posted') EXECUTE FUNCTION journal_entry_guard();

-- Posting a draft changes its balance; a born entry's is checked per
-- statement; nothing else on an entry row moves money.
DROP TRIGGER journal_entry_balanced ON journal_entries;
CREATE CONSTRAINT TRIGGER journal_entry_balanced AFTER UPDATE ON journal_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.status = 'draft' AND NEW.status = 'posted')
    EXECUTE FUNCTION journal_entry_balanced();

-- +goose StatementBegin
CREATE FUNCTION journal_entries_born() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    r record;
    last integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM born WHERE status = 'posted') THEN
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 FROM born WHERE status = 'posted'
               AND (posted_at <> now() OR reversed_by_id IS NOT NULL OR correction_of_id IS NOT NULL)) THEN
        RAISE EXCEPTION 'an entry born posted is posted now, and is neither reversed nor a correction'
            USING ERRCODE = 'check_violation';
    END IF;
    -- The single path's check for each date; its rules are bounds (the
    -- period's span, the lock date) and per-period states, so the first
    -- and last date of each period and source decide for every date.
    FOR r IN SELECT company_id, fiscal_period_id, source_type, min(entry_date) AS first, max(entry_date) AS last
             FROM born WHERE status = 'posted' GROUP BY 1, 2, 3 LOOP
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.first, r.source_type);
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.last, r.source_type);
    END LOOP;
    FOR r IN SELECT company_id, fiscal_period_id, voucher_series, min(voucher_number) AS lo,
                    max(voucher_number) AS hi, count(*) AS n, bool_and(source_type = 'import') AS imported
             FROM born WHERE status = 'posted' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
        LOOP
            SELECT last_number INTO last FROM voucher_sequences
            WHERE company_id = r.company_id AND fiscal_period_id = r.fiscal_period_id
              AND voucher_series = r.voucher_series FOR UPDATE;
            EXIT WHEN FOUND;
            INSERT INTO voucher_sequences (company_id, fiscal_period_id, voucher_series, last_number)
            VALUES (r.company_id, r.fiscal_period_id, r.voucher_series, r.hi)
            ON CONFLICT DO NOTHING;
            IF FOUND THEN
                last := 0;
                EXIT;
            END IF;
        END LOOP;
        IF r.lo <= last THEN
            RAISE EXCEPTION 'voucher numbers only grow: % in %/% is not above the last number %', r.lo,
                r.fiscal_period_id, r.voucher_series, last USING ERRCODE = 'check_violation';
        END IF;
        IF NOT r.imported AND (r.lo <> last + 1 OR r.hi - r.lo + 1 <> r.n) THEN
            RAISE EXCEPTION 'voucher numbers are gapless: % to % in %/% do not follow % without a gap', r.lo, r.hi,
                r.fiscal_period_id, r.voucher_series, last USING ERRCODE = 'check_violation';
        END IF;
        IF last > 0 THEN
            UPDATE voucher_sequences SET last_number = r.hi
            WHERE company_id = r.company_id AND fiscal_period_id = r.fiscal_period_id
              AND voucher_series = r.voucher_series;
        END IF;
    END LOOP;
    INSERT INTO ledger_batch_checks (company_id, entry_ids)
    SELECT company_id, array_agg(id) FROM born WHERE status = 'posted' GROUP BY company_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_entries_born AFTER INSERT ON journal_entries
    REFERENCING NEW TABLE AS born FOR EACH STATEMENT EXECUTE FUNCTION journal_entries_born();

-- At commit, once per statement that bore entries: each balances,
-- debits = credits > 0.
-- +goose StatementBegin
CREATE FUNCTION ledger_batch_balanced() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    bad record;
BEGIN
    SELECT x.id, coalesce(sum(l.debit_amount), 0) AS d, coalesce(sum(l.credit_amount), 0) AS cr INTO bad
    FROM unnest(NEW.entry_ids) AS x (id)
    LEFT JOIN journal_lines l ON l.company_id = NEW.company_id AND l.journal_entry_id = x.id
        AND l.struck_by_rattelse_id IS NULL
    GROUP BY x.id
    HAVING coalesce(sum(l.debit_amount), 0) <> coalesce(sum(l.credit_amount), 0) OR coalesce(sum(l.debit_amount), 0) = 0
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'JOURNAL_ENTRY_NOT_BALANCED: entry % has debit % and credit %', bad.id, bad.d, bad.cr
            USING ERRCODE = 'check_violation';
    END IF;
    DELETE FROM ledger_batch_checks WHERE company_id = NEW.company_id AND id = NEW.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER ledger_batch_balanced AFTER INSERT ON ledger_batch_checks
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_batch_balanced();

-- Lines: the row guard keeps changes and deletions; insertions are
-- checked and booked per statement.
DROP TRIGGER journal_line_guard ON journal_lines;
CREATE TRIGGER journal_line_guard BEFORE UPDATE OR DELETE ON journal_lines
    FOR EACH ROW EXECUTE FUNCTION journal_line_guard();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION journal_line_guard() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
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
        ledger_kind(e.source_type), OLD.debit_amount, OLD.credit_amount, -1);
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION journal_lines_added() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    r record;
    bad record;
BEGIN
    -- A draft's lines (the common case) need only one look.
    IF NOT EXISTS (SELECT 1 FROM added a JOIN journal_entries e ON e.company_id = a.company_id AND e.id = a.journal_entry_id
                   WHERE e.status <> 'draft') THEN
        IF EXISTS (SELECT 1 FROM added WHERE added_by_rattelse_id IS NOT NULL OR struck_by_rattelse_id IS NOT NULL) THEN
            RAISE EXCEPTION 'a draft''s lines are replaced, not struck' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
    END IF;
    -- The entries the lines belong to, read once.
    CREATE TEMP TABLE IF NOT EXISTS ledger_lines_entries (company_id uuid, id uuid, fiscal_period_id uuid,
        voucher_series text, voucher_number integer, entry_date date, status text, source_type text,
        posted_at timestamptz, reverses_id uuid, PRIMARY KEY (company_id, id)) ON COMMIT DELETE ROWS;
    DELETE FROM ledger_lines_entries;
    INSERT INTO ledger_lines_entries
    SELECT e.company_id, e.id, e.fiscal_period_id, e.voucher_series, e.voucher_number, e.entry_date, e.status,
        e.source_type, e.posted_at, e.reverses_id
    FROM journal_entries e
    WHERE (e.company_id, e.id) IN (SELECT DISTINCT company_id, journal_entry_id FROM added);

    SELECT e.status INTO bad
    FROM added a JOIN ledger_lines_entries e ON e.company_id = a.company_id AND e.id = a.journal_entry_id
    WHERE e.status = 'cancelled'
       OR e.status = 'draft' AND (a.added_by_rattelse_id IS NOT NULL OR a.struck_by_rattelse_id IS NOT NULL)
       OR e.status = 'posted' AND (a.struck_by_rattelse_id IS NOT NULL
                                   OR a.added_by_rattelse_id IS NULL AND e.posted_at <> now())
    LIMIT 1;
    IF FOUND THEN
        IF bad.status = 'cancelled' THEN
            RAISE EXCEPTION 'the lines of a cancelled journal entry cannot be changed; use storno or correction'
                USING ERRCODE = 'check_violation';
        ELSIF bad.status = 'draft' THEN
            RAISE EXCEPTION 'a draft''s lines are replaced, not struck' USING ERRCODE = 'check_violation';
        END IF;
        RAISE EXCEPTION 'lines are added to a posted entry only by a logged rättelse' USING ERRCODE = 'check_violation';
    END IF;

    FOR r IN SELECT company_id, fiscal_period_id, source_type, min(entry_date) AS first, max(entry_date) AS last
             FROM ledger_lines_entries WHERE status = 'posted' GROUP BY 1, 2, 3 LOOP
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.first, r.source_type);
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.last, r.source_type);
    END LOOP;

    -- A storno born here books exactly the lines of the entry it
    -- reverses, on the other side, which is then marked reversed.
    IF EXISTS (SELECT 1 FROM ledger_lines_entries WHERE status = 'posted' AND reverses_id IS NOT NULL
               AND posted_at = now()) THEN
        PERFORM ledger_check_stornos();
    END IF;

    INSERT INTO ledger_postings (company_id, fiscal_period_id, account_number, entry_date, voucher_series,
        voucher_number, line_id, journal_entry_id, debit_amount, credit_amount, is_opening)
    SELECT e.company_id, e.fiscal_period_id, a.account_number, e.entry_date, e.voucher_series, e.voucher_number,
        a.id, e.id, a.debit_amount, a.credit_amount, e.source_type = 'opening_balance'
    FROM added a JOIN ledger_lines_entries e ON e.company_id = a.company_id AND e.id = a.journal_entry_id
    WHERE e.status = 'posted';

    INSERT INTO account_balances AS b (company_id, fiscal_period_id, account_number, month,
        opening_debit, opening_credit, debit, credit, closing_debit, closing_credit)
    SELECT e.company_id, e.fiscal_period_id, a.account_number, date_trunc('month', e.entry_date)::date,
        coalesce(sum(a.debit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'opening'), 0),
        coalesce(sum(a.credit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'opening'), 0),
        coalesce(sum(a.debit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'period'), 0),
        coalesce(sum(a.credit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'period'), 0),
        coalesce(sum(a.debit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'closing'), 0),
        coalesce(sum(a.credit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'closing'), 0)
    FROM added a JOIN ledger_lines_entries e ON e.company_id = a.company_id AND e.id = a.journal_entry_id
    WHERE e.status = 'posted'
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (company_id, fiscal_period_id, account_number, month) DO UPDATE SET
        opening_debit = b.opening_debit + EXCLUDED.opening_debit,
        opening_credit = b.opening_credit + EXCLUDED.opening_credit,
        debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit,
        closing_debit = b.closing_debit + EXCLUDED.closing_debit,
        closing_credit = b.closing_credit + EXCLUDED.closing_credit;

    SELECT b.account_number, sum(b.opening_debit - b.opening_credit + b.debit - b.credit
                                 + b.closing_debit - b.closing_credit) AS bal INTO bad
    FROM account_balances b
    WHERE (b.company_id, b.fiscal_period_id, b.account_number) IN (
        SELECT DISTINCT e.company_id, e.fiscal_period_id, a.account_number
        FROM added a JOIN ledger_lines_entries e ON e.company_id = a.company_id AND e.id = a.journal_entry_id
        WHERE e.status = 'posted')
    GROUP BY b.company_id, b.fiscal_period_id, b.account_number
    HAVING abs(sum(b.opening_debit - b.opening_credit + b.debit - b.credit + b.closing_debit - b.closing_credit))
        > 999999999999.99
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ACCOUNT_BALANCE_OUT_OF_RANGE: account % would reach %', bad.account_number, bad.bal
            USING ERRCODE = 'check_violation',
                  DETAIL = json_build_object('account_number', bad.account_number, 'balance', bad.bal,
                      'max_balance', 999999999999.99, 'field', 'lines')::text;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- The stornos among the entries of the lines just added
-- (ledger_lines_entries), checked as a set: each reverses a posted,
-- unreversed entry of an open year, is not dated before it, and books
-- its lines on the other side; the originals are then marked reversed.
-- +goose StatementBegin
CREATE FUNCTION ledger_check_stornos() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
    PERFORM 1 FROM journal_entries o JOIN ledger_lines_entries s ON s.company_id = o.company_id AND s.reverses_id = o.id
    WHERE s.status = 'posted' AND s.posted_at = now() ORDER BY o.id FOR UPDATE OF o;
    SELECT o.id, o.status, o.reversed_by_id, o.entry_date, s.entry_date AS storno_date, p.is_closed,
           o.fiscal_period_id INTO bad
    FROM ledger_lines_entries s
    JOIN journal_entries o ON o.company_id = s.company_id AND o.id = s.reverses_id
    JOIN fiscal_periods p ON p.company_id = o.company_id AND p.id = o.fiscal_period_id
    WHERE s.status = 'posted' AND s.posted_at = now()
      AND (o.status <> 'posted' OR o.reversed_by_id IS NOT NULL OR s.entry_date < o.entry_date OR p.is_closed)
    LIMIT 1;
    IF FOUND THEN
        IF bad.status <> 'posted' OR bad.reversed_by_id IS NOT NULL THEN
            RAISE EXCEPTION 'ENTRY_ALREADY_REVERSED: entry % is not a posted, unreversed entry', bad.id
                USING ERRCODE = 'check_violation', DETAIL = json_build_object('journal_entry_id', bad.id)::text;
        ELSIF bad.is_closed THEN
            RAISE EXCEPTION 'PERIOD_LOCKED: entry % belongs to a closed year', bad.id USING ERRCODE = 'check_violation',
                DETAIL = json_build_object('reason', 'original_period_closed', 'fiscal_period_id', bad.fiscal_period_id,
                    'journal_entry_id', bad.id)::text;
        END IF;
        RAISE EXCEPTION 'VALIDATION_ERROR: a storno is not dated before the entry it reverses (%)', bad.entry_date
            USING ERRCODE = 'check_violation',
                  DETAIL = json_build_object('field', 'reversal_date', 'original_entry_date', bad.entry_date)::text;
    END IF;
    IF EXISTS (
            (SELECT s.id, l.account_number, l.debit_amount, l.credit_amount
             FROM ledger_lines_entries s JOIN journal_lines l ON l.company_id = s.company_id AND l.journal_entry_id = s.id
             WHERE s.status = 'posted' AND s.posted_at = now() AND s.reverses_id IS NOT NULL
               AND l.struck_by_rattelse_id IS NULL
             EXCEPT ALL
             SELECT s.id, l.account_number, l.credit_amount, l.debit_amount
             FROM ledger_lines_entries s JOIN journal_lines l ON l.company_id = s.company_id AND l.journal_entry_id = s.reverses_id
             WHERE s.status = 'posted' AND s.posted_at = now() AND s.reverses_id IS NOT NULL
               AND l.struck_by_rattelse_id IS NULL)
            UNION ALL
            (SELECT s.id, l.account_number, l.credit_amount, l.debit_amount
             FROM ledger_lines_entries s JOIN journal_lines l ON l.company_id = s.company_id AND l.journal_entry_id = s.reverses_id
             WHERE s.status = 'posted' AND s.posted_at = now() AND s.reverses_id IS NOT NULL
               AND l.struck_by_rattelse_id IS NULL
             EXCEPT ALL
             SELECT s.id, l.account_number, l.debit_amount, l.credit_amount
             FROM ledger_lines_entries s JOIN journal_lines l ON l.company_id = s.company_id AND l.journal_entry_id = s.id
             WHERE s.status = 'posted' AND s.posted_at = now() AND s.reverses_id IS NOT NULL
               AND l.struck_by_rattelse_id IS NULL)) THEN
        RAISE EXCEPTION 'a storno books exactly the lines of the entry it reverses, on the other side'
            USING ERRCODE = 'check_violation';
    END IF;
    UPDATE journal_entries o SET reversed_by_id = s.id, updated_at = now()
    FROM ledger_lines_entries s
    WHERE s.status = 'posted' AND s.posted_at = now() AND s.reverses_id IS NOT NULL
      AND o.company_id = s.company_id AND o.id = s.reverses_id AND o.reversed_by_id IS NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_lines_added AFTER INSERT ON journal_lines
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_added();

-- +goose Down
DO $$ BEGIN
    RAISE EXCEPTION 'the bulk posting rules cannot be migrated down: restore a backup taken before them';
END $$;
