-- Books that stay continuous (ÅRL 2 kap. 4 §: a year opens with the
-- balances the year before closed with), kept by the database as well as
-- by the ledger:
--   * a year closes only with its result in equity and the next year's
--     opening balance equal, account by account, to its closing balance;
--   * once a year is closed nothing reaches it: no posting, no storno or
--     correction of its entries (whatever date is asked), and no change to
--     the opening balance (or the result appropriation) of the year after;
--   * the year-end and opening-balance entries respect the company's lock
--     date like every other posting;
--   * a storno mirrors the entry it reverses, is not dated before it, and
--     the link back (reversed_by_id) is set by the database when the
--     storno is posted, never by hand;
--   * a period's bounds never move past the entries posted in it;
--   * month balances keep the closing entry apart (so reports can show
--     the result before and after it), are wide enough that no reachable
--     sum overflows, and no account's balance passes 999 999 999 999.99.
-- Refusals name the API's catalogue code first and carry their details as
-- JSON in the error's DETAIL, which the ledger turns into the answer.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE account_balances
    ALTER COLUMN opening_debit TYPE numeric(28, 2),
    ALTER COLUMN opening_credit TYPE numeric(28, 2),
    ALTER COLUMN debit TYPE numeric(28, 2),
    ALTER COLUMN credit TYPE numeric(28, 2),
    ADD COLUMN closing_debit numeric(28, 2) NOT NULL DEFAULT 0,
    ADD COLUMN closing_credit numeric(28, 2) NOT NULL DEFAULT 0;

-- The closing entries posted so far move from the period's turnover to
-- their own columns.
UPDATE account_balances b SET debit = b.debit - y.d, credit = b.credit - y.c, closing_debit = y.d, closing_credit = y.c
FROM (SELECT p.company_id, p.fiscal_period_id, p.account_number, date_trunc('month', p.entry_date)::date AS month,
             sum(p.debit_amount) AS d, sum(p.credit_amount) AS c
      FROM ledger_postings p JOIN journal_entries e ON e.company_id = p.company_id AND e.id = p.journal_entry_id
      WHERE e.source_type = 'year_end' GROUP BY 1, 2, 3, 4) y
WHERE b.company_id = y.company_id AND b.fiscal_period_id = y.fiscal_period_id
  AND b.account_number = y.account_number AND b.month = y.month;

-- One correction per original, as one storno per original.
CREATE UNIQUE INDEX journal_entries_one_correction ON journal_entries (company_id, correction_of_id)
    WHERE correction_of_id IS NOT NULL;

-- Which column pair of the month balances an entry of source type src
-- books into.
-- +goose StatementBegin
CREATE FUNCTION ledger_kind(src text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE src WHEN 'opening_balance' THEN 'opening' WHEN 'year_end' THEN 'closing' ELSE 'period' END
$$;
-- +goose StatementEnd

-- Adds (sign 1) or removes (sign -1) postings to the month balances, and
-- refuses a balance past what one amount may be.
DROP FUNCTION ledger_balance(uuid, uuid, text, date, boolean, numeric, numeric, integer);
-- +goose StatementBegin
CREATE FUNCTION ledger_balance(c uuid, p uuid, acct text, d date, kind text, dr numeric, cr numeric,
    sign integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    bal numeric;
BEGIN
    INSERT INTO account_balances AS b (company_id, fiscal_period_id, account_number, month,
        opening_debit, opening_credit, debit, credit, closing_debit, closing_credit)
    VALUES (c, p, acct, date_trunc('month', d)::date,
        CASE WHEN kind = 'opening' THEN sign * dr ELSE 0 END, CASE WHEN kind = 'opening' THEN sign * cr ELSE 0 END,
        CASE WHEN kind = 'period' THEN sign * dr ELSE 0 END, CASE WHEN kind = 'period' THEN sign * cr ELSE 0 END,
        CASE WHEN kind = 'closing' THEN sign * dr ELSE 0 END, CASE WHEN kind = 'closing' THEN sign * cr ELSE 0 END)
    ON CONFLICT (company_id, fiscal_period_id, account_number, month) DO UPDATE SET
        opening_debit = b.opening_debit + EXCLUDED.opening_debit,
        opening_credit = b.opening_credit + EXCLUDED.opening_credit,
        debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit,
        closing_debit = b.closing_debit + EXCLUDED.closing_debit,
        closing_credit = b.closing_credit + EXCLUDED.closing_credit;
    IF sign > 0 THEN
        SELECT sum(opening_debit - opening_credit + debit - credit + closing_debit - closing_credit) INTO bal
        FROM account_balances WHERE company_id = c AND fiscal_period_id = p AND account_number = acct;
        IF abs(bal) > 999999999999.99 THEN
            RAISE EXCEPTION 'ACCOUNT_BALANCE_OUT_OF_RANGE: account % would reach %', acct, bal
                USING ERRCODE = 'check_violation',
                      DETAIL = json_build_object('account_number', acct, 'balance', bal,
                          'max_balance', 999999999999.99, 'field', 'lines')::text;
        END IF;
    END IF;
END $$;
-- +goose StatementEnd

-- The closing balances of the company's period p against the opening
-- balances of the year after it, per balance-sheet account (classes 1-2)
-- where either is not zero. The one definition of continuity: the close
-- guard, the ledger's close check and the continuity report read it.
-- +goose StatementBegin
CREATE FUNCTION ledger_continuity(c uuid, p uuid)
RETURNS TABLE (account_number text, closing_balance numeric, next_opening_balance numeric)
LANGUAGE sql STABLE AS $$
    WITH nxt AS (
        SELECT n.id FROM fiscal_periods n JOIN fiscal_periods cur ON cur.company_id = n.company_id
        WHERE cur.company_id = c AND cur.id = p AND n.period_start = cur.period_end + 1),
    ub AS (
        SELECT b.account_number, sum(b.opening_debit - b.opening_credit + b.debit - b.credit
                                     + b.closing_debit - b.closing_credit) AS bal
        FROM account_balances b WHERE b.company_id = c AND b.fiscal_period_id = p AND left(b.account_number, 1) IN ('1', '2')
        GROUP BY 1),
    ib AS (
        SELECT b.account_number, sum(b.opening_debit - b.opening_credit) AS bal
        FROM account_balances b WHERE b.company_id = c AND b.fiscal_period_id = (SELECT id FROM nxt)
          AND left(b.account_number, 1) IN ('1', '2')
        GROUP BY 1)
    SELECT coalesce(ub.account_number, ib.account_number), coalesce(ub.bal, 0), coalesce(ib.bal, 0)
    FROM ub FULL JOIN ib ON ib.account_number = ub.account_number
    WHERE coalesce(ub.bal, 0) <> 0 OR coalesce(ib.bal, 0) <> 0
    ORDER BY 1
$$;
-- +goose StatementEnd

-- May an entry of source type src dated d be posted into period p of
-- company c? A closed period takes nothing; a locked one only what the
-- year-end writes (the closing entry, the next year's opening balance and
-- result appropriation); nothing goes on or before the company's lock
-- date; and the opening balance and result appropriation of a year are
-- fixed once the year before it is closed.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_check_postable(c uuid, p uuid, d date, src text) RETURNS void
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
        RAISE EXCEPTION 'PERIOD_LOCKED: period % is closed', p USING ERRCODE = 'check_violation',
            DETAIL = json_build_object('reason', 'period_closed', 'fiscal_period_id', p)::text;
    END IF;
    IF per.locked_at IS NOT NULL AND src NOT IN ('year_end', 'opening_balance', 'result_appropriation') THEN
        RAISE EXCEPTION 'PERIOD_LOCKED: period % is locked', p USING ERRCODE = 'check_violation',
            DETAIL = json_build_object('reason', 'period_locked', 'fiscal_period_id', p)::text;
    END IF;
    SELECT bookkeeping_locked_through INTO lock_date FROM company_settings WHERE company_id = c FOR SHARE;
    IF lock_date IS NOT NULL AND d <= lock_date THEN
        RAISE EXCEPTION 'PERIOD_LOCKED: the books are locked through %', lock_date USING ERRCODE = 'check_violation',
            DETAIL = json_build_object('reason', 'company_lock_date', 'fiscal_period_id', p,
                'locked_through', lock_date)::text;
    END IF;
    IF src IN ('opening_balance', 'result_appropriation') AND EXISTS (
            SELECT 1 FROM fiscal_periods prev WHERE prev.company_id = c AND prev.period_end = per.period_start - 1
              AND prev.is_closed) THEN
        RAISE EXCEPTION 'OB_PREVIOUS_YEAR_CLOSED: the year before period % is closed', p
            USING ERRCODE = 'check_violation', DETAIL = json_build_object('fiscal_period_id', p)::text;
    END IF;
END $$;
-- +goose StatementEnd

-- Before an entry is written: born a draft; posting takes the next voucher
-- number and checks the links of a storno or correction; a posted entry
-- changes only as the rules of 00003 allow, and its link to the storno
-- that reverses it is set only when that storno is posted.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION journal_entry_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    next_number integer;
    orig journal_entries%ROWTYPE;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'journal entries are never deleted; cancel a draft instead' USING ERRCODE = 'restrict_violation';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'draft' OR NEW.voucher_number <> 0 OR NEW.reversed_by_id IS NOT NULL THEN
            RAISE EXCEPTION 'a journal entry is created as a draft and posted afterwards' USING ERRCODE = 'check_violation';
        END IF;
        PERFORM ledger_check_in_period(NEW.company_id, NEW.fiscal_period_id, NEW.entry_date);
        RETURN NEW;
    END IF;
    IF NEW.company_id <> OLD.company_id OR NEW.id <> OLD.id OR NEW.created_at <> OLD.created_at
       OR NEW.reverses_id IS DISTINCT FROM OLD.reverses_id OR NEW.correction_of_id IS DISTINCT FROM OLD.correction_of_id THEN
        RAISE EXCEPTION 'a journal entry keeps its identity and what it reverses or corrects' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'cancelled' THEN
        RAISE EXCEPTION 'a cancelled journal entry is final' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'draft' THEN
        IF NEW.reversed_by_id IS NOT NULL THEN
            RAISE EXCEPTION 'only a posted entry is reversed' USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status = 'posted' THEN
            PERFORM ledger_check_postable(NEW.company_id, NEW.fiscal_period_id, NEW.entry_date, NEW.source_type);
            PERFORM ledger_check_links(NEW);
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
       OR NEW.chain_depth <> OLD.chain_depth OR NEW.posted_at <> OLD.posted_at
       OR (OLD.reversed_by_id IS NOT NULL AND NEW.reversed_by_id IS DISTINCT FROM OLD.reversed_by_id) THEN
        RAISE EXCEPTION 'a posted journal entry cannot be changed; use storno or correction'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reversed_by_id IS DISTINCT FROM OLD.reversed_by_id THEN
        -- Only journal_entry_posted sets it, as the storno is posted.
        SELECT * INTO orig FROM journal_entries WHERE company_id = NEW.company_id AND id = NEW.reversed_by_id;
        IF pg_trigger_depth() < 2 OR orig.reverses_id IS DISTINCT FROM NEW.id OR orig.status <> 'posted' THEN
            RAISE EXCEPTION 'reversed_by_id is set by the ledger when the storno is posted'
                USING ERRCODE = 'check_violation';
        END IF;
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

-- The links of an entry being posted: a storno reverses a posted,
-- unreversed entry of a year that is not closed, is not dated before it
-- and books exactly its lines on the other side; a correction replaces an
-- entry of a year that is not closed, already reversed.
-- +goose StatementBegin
CREATE FUNCTION ledger_check_links(e journal_entries) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    orig journal_entries%ROWTYPE;
BEGIN
    IF e.reverses_id IS NOT NULL THEN
        SELECT * INTO orig FROM journal_entries WHERE company_id = e.company_id AND id = e.reverses_id FOR UPDATE;
        IF orig.status <> 'posted' OR orig.reversed_by_id IS NOT NULL THEN
            RAISE EXCEPTION 'ENTRY_ALREADY_REVERSED: entry % is not a posted, unreversed entry', e.reverses_id
                USING ERRCODE = 'check_violation', DETAIL = json_build_object('journal_entry_id', e.reverses_id)::text;
        END IF;
        IF e.entry_date < orig.entry_date THEN
            RAISE EXCEPTION 'VALIDATION_ERROR: a storno is not dated before the entry it reverses (%)', orig.entry_date
                USING ERRCODE = 'check_violation',
                      DETAIL = json_build_object('field', 'reversal_date', 'original_entry_date', orig.entry_date)::text;
        END IF;
        PERFORM ledger_check_original_open(orig);
        IF EXISTS (
                (SELECT account_number, debit_amount, credit_amount FROM journal_lines
                 WHERE company_id = e.company_id AND journal_entry_id = e.id AND struck_by_rattelse_id IS NULL
                 EXCEPT ALL
                 SELECT account_number, credit_amount, debit_amount FROM journal_lines
                 WHERE company_id = e.company_id AND journal_entry_id = orig.id AND struck_by_rattelse_id IS NULL)
                UNION ALL
                (SELECT account_number, credit_amount, debit_amount FROM journal_lines
                 WHERE company_id = e.company_id AND journal_entry_id = orig.id AND struck_by_rattelse_id IS NULL
                 EXCEPT ALL
                 SELECT account_number, debit_amount, credit_amount FROM journal_lines
                 WHERE company_id = e.company_id AND journal_entry_id = e.id AND struck_by_rattelse_id IS NULL)) THEN
            RAISE EXCEPTION 'a storno books exactly the lines of the entry it reverses, on the other side'
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    IF e.correction_of_id IS NOT NULL THEN
        SELECT * INTO orig FROM journal_entries WHERE company_id = e.company_id AND id = e.correction_of_id;
        IF orig.status <> 'posted' OR orig.reversed_by_id IS NULL THEN
            RAISE EXCEPTION 'a correction replaces an entry its storno has reversed' USING ERRCODE = 'check_violation';
        END IF;
        PERFORM ledger_check_original_open(orig);
    END IF;
END $$;
-- +goose StatementEnd

-- Nothing reverses or corrects an entry of a closed year.
-- +goose StatementBegin
CREATE FUNCTION ledger_check_original_open(orig journal_entries) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM fiscal_periods WHERE company_id = orig.company_id AND id = orig.fiscal_period_id AND is_closed) THEN
        RAISE EXCEPTION 'PERIOD_LOCKED: entry % belongs to a closed year', orig.id USING ERRCODE = 'check_violation',
            DETAIL = json_build_object('reason', 'original_period_closed', 'fiscal_period_id', orig.fiscal_period_id,
                'journal_entry_id', orig.id)::text;
    END IF;
END $$;
-- +goose StatementEnd

-- After an entry is posted, or its date corrected: the general ledger and
-- the balances follow, and a storno marks the entry it reverses.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION journal_entry_posted() RETURNS trigger
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
                ledger_kind(NEW.source_type), l.d, l.cr, 1);
        END LOOP;
        IF NEW.reverses_id IS NOT NULL THEN
            UPDATE journal_entries SET reversed_by_id = NEW.id, updated_at = now()
            WHERE company_id = NEW.company_id AND id = NEW.reverses_id;
        END IF;
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
                ledger_kind(NEW.source_type), l.d, l.cr, -1);
            PERFORM ledger_balance(NEW.company_id, NEW.fiscal_period_id, l.account_number, NEW.entry_date,
                ledger_kind(NEW.source_type), l.d, l.cr, 1);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Lines: as in 00003, with the month balances kept by kind.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION journal_line_guard() RETURNS trigger
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
            ledger_kind(e.source_type), NEW.debit_amount, NEW.credit_amount, 1);
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
        ledger_kind(e.source_type), OLD.debit_amount, OLD.credit_amount, -1);
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- A period's life, as in 00004, and: its bounds never move past what is
-- posted in it; a year closes only with its result carried to equity and
-- the next year's opening balance equal to its closing balance; a year
-- closed outside Kontera (closed_externally) may be re-opened, one closed
-- here never.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION fiscal_period_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    drafts integer;
    result numeric;
    diffs json;
BEGIN
    IF OLD.is_closed THEN
        IF OLD.closed_externally AND NOT NEW.is_closed AND NOT NEW.closed_externally
           AND NEW.period_start = OLD.period_start AND NEW.period_end = OLD.period_end
           AND NEW.year_end_entry_id IS NOT DISTINCT FROM OLD.year_end_entry_id
           AND NEW.year_end_at IS NOT DISTINCT FROM OLD.year_end_at THEN
            RETURN NEW; -- re-opened: it was closed outside Kontera
        END IF;
        IF NEW.is_closed IS DISTINCT FROM OLD.is_closed OR NEW.locked_at IS DISTINCT FROM OLD.locked_at
           OR NEW.period_start <> OLD.period_start OR NEW.period_end <> OLD.period_end
           OR NEW.closed_externally <> OLD.closed_externally
           OR NEW.year_end_entry_id IS DISTINCT FROM OLD.year_end_entry_id
           OR NEW.year_end_at IS DISTINCT FROM OLD.year_end_at THEN
            RAISE EXCEPTION 'PERIOD_UNLOCK_CLOSED: a closed fiscal period is final' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.period_start <> OLD.period_start OR NEW.period_end <> OLD.period_end) AND EXISTS (
            SELECT 1 FROM journal_entries WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.id
              AND status <> 'cancelled' AND NOT (entry_date BETWEEN NEW.period_start AND NEW.period_end)) THEN
        RAISE EXCEPTION 'FISCAL_PERIOD_HAS_POSTED_ENTRIES: entries of period % lie outside % – %', NEW.id,
            NEW.period_start, NEW.period_end USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.locked_at IS NULL AND NEW.locked_at IS NOT NULL THEN
        SELECT count(*) INTO drafts FROM journal_entries
        WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.id AND status = 'draft';
        IF drafts > 0 THEN
            RAISE EXCEPTION 'PERIOD_LOCK_HAS_DRAFTS: % drafts in period %', drafts, NEW.id
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    IF NEW.is_closed AND NOT NEW.closed_externally THEN
        IF NEW.year_end_at IS NULL THEN
            RAISE EXCEPTION 'YEAR_END_NOT_RUN: period % is closed only after its year-end', NEW.id
                USING ERRCODE = 'check_violation';
        END IF;
        SELECT coalesce(sum(opening_debit - opening_credit + debit - credit + closing_debit - closing_credit), 0)
        INTO result FROM account_balances
        WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.id AND left(account_number, 1) BETWEEN '3' AND '8';
        IF result <> 0 THEN
            RAISE EXCEPTION 'YEAR_END_NOT_RUN: % of the result of period % is not carried to equity', result, NEW.id
                USING ERRCODE = 'check_violation',
                      DETAIL = json_build_object('reason', 'result_changed_after_year_end', 'unclosed_result', -result)::text;
        END IF;
        SELECT json_agg(json_build_object('account_number', account_number, 'closing_balance', closing_balance,
                   'next_opening_balance', next_opening_balance)) INTO diffs
        FROM ledger_continuity(NEW.company_id, NEW.id) WHERE closing_balance <> next_opening_balance;
        IF diffs IS NOT NULL THEN
            RAISE EXCEPTION 'OPENING_BALANCE_MISMATCH: the next year does not open with the closing balances of period %', NEW.id
                USING ERRCODE = 'check_violation', DETAIL = json_build_object('accounts', diffs)::text;
        END IF;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$ BEGIN
    RAISE EXCEPTION 'the continuity rules cannot be migrated down: restore a backup taken before them';
END $$;
-- +goose StatementEnd
