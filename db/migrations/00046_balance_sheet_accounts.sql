-- Where an account stands, one rule for the year-end guards (issue 45).
-- The result of a year is every account off the balance sheet: classes
-- 3-8 and the internal accounts of classes 0 and 9 the chart holds as
-- revenue or expense (an SIE file's 9999 obs-konto, kept as its own
-- account by an import); a year closes only with all of it carried to
-- equity, as the year-end's closing entry (ledger) does.
--
-- An SIE file may also declare an account of classes 3-8 an asset or a
-- liability (#KTYP T or S); an import keeps it so, and its balances then
-- carry from year to year like those of classes 1-2. type_from_file
-- marks such an account: the one exception to the rule that an account's
-- type fits its class, which every other write path still keeps.
-- on_balance_sheet is the rule Go's ledger.Sheet holds: classes 1-2 and
-- those accounts stand on the balance sheet, everything else is the
-- result. The close guard (as in 00007 but for that result) and the
-- continuity of accounts and of dimensions ask it instead of the class.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE accounts ADD COLUMN type_from_file boolean NOT NULL DEFAULT false;
ALTER TABLE accounts DROP CONSTRAINT accounts_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_type_fits_class CHECK (CASE
    WHEN type_from_file THEN left(account_number, 1) BETWEEN '3' AND '8' AND account_type IN ('asset', 'liability')
    ELSE CASE left(account_number, 1)
        WHEN '1' THEN account_type = 'asset'
        WHEN '2' THEN account_type IN ('equity', 'untaxed_reserves', 'liability')
        WHEN '3' THEN account_type = 'revenue'
        WHEN '4' THEN account_type = 'expense'
        WHEN '5' THEN account_type = 'expense'
        WHEN '6' THEN account_type = 'expense'
        WHEN '7' THEN account_type = 'expense'
        ELSE account_type IN ('revenue', 'expense') END END);

-- +goose StatementBegin
CREATE FUNCTION on_balance_sheet(c uuid, n text) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT left(n, 1) IN ('1', '2') OR EXISTS (
        SELECT 1 FROM accounts a WHERE a.company_id = c AND a.account_number = n AND a.type_from_file
          AND a.account_type IN ('asset', 'equity', 'liability', 'untaxed_reserves'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_continuity(c uuid, p uuid)
RETURNS TABLE (account_number text, closing_balance numeric, next_opening_balance numeric)
LANGUAGE sql STABLE AS $$
    WITH nxt AS (
        SELECT n.id FROM fiscal_periods n JOIN fiscal_periods cur ON cur.company_id = n.company_id
        WHERE cur.company_id = c AND cur.id = p AND n.period_start = cur.period_end + 1),
    ub AS (
        SELECT b.account_number, sum(b.opening_debit - b.opening_credit + b.debit - b.credit
                                     + b.closing_debit - b.closing_credit) AS bal
        FROM account_balances b WHERE b.company_id = c AND b.fiscal_period_id = p AND on_balance_sheet(c, b.account_number)
        GROUP BY 1),
    ib AS (
        SELECT b.account_number, sum(b.opening_debit - b.opening_credit) AS bal
        FROM account_balances b WHERE b.company_id = c AND b.fiscal_period_id = (SELECT id FROM nxt)
          AND on_balance_sheet(c, b.account_number)
        GROUP BY 1)
    SELECT coalesce(ub.account_number, ib.account_number), coalesce(ub.bal, 0), coalesce(ib.bal, 0)
    FROM ub FULL JOIN ib ON ib.account_number = ub.account_number
    WHERE coalesce(ub.bal, 0) <> 0 OR coalesce(ib.bal, 0) <> 0
    ORDER BY 1
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_dimension_balances(c uuid, p uuid, opening_only boolean)
RETURNS TABLE (account_number text, dimensions jsonb, balance numeric)
LANGUAGE sql STABLE AS $$
    WITH carried AS (SELECT sie_dim_no::text AS k FROM dimensions WHERE company_id = c AND NOT resets_annually)
    SELECT l.account_number,
           coalesce((SELECT jsonb_object_agg(x.key, x.value) FROM jsonb_each(l.dimensions) x
                     WHERE x.key IN (SELECT k FROM carried)), '{}'::jsonb) AS tags,
           sum(l.debit_amount - l.credit_amount)
    FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
    WHERE e.company_id = c AND e.fiscal_period_id = p AND e.status = 'posted' AND l.struck_by_rattelse_id IS NULL
      AND on_balance_sheet(c, l.account_number) AND (NOT opening_only OR e.source_type = 'opening_balance')
    GROUP BY 1, 2
    HAVING sum(l.debit_amount - l.credit_amount) <> 0
$$;
-- +goose StatementEnd

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
        WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.id AND NOT on_balance_sheet(company_id, account_number);
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_continuity(c uuid, p uuid)
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_dimension_balances(c uuid, p uuid, opening_only boolean)
RETURNS TABLE (account_number text, dimensions jsonb, balance numeric)
LANGUAGE sql STABLE AS $$
    WITH carried AS (SELECT sie_dim_no::text AS k FROM dimensions WHERE company_id = c AND NOT resets_annually)
    SELECT l.account_number,
           coalesce((SELECT jsonb_object_agg(x.key, x.value) FROM jsonb_each(l.dimensions) x
                     WHERE x.key IN (SELECT k FROM carried)), '{}'::jsonb) AS tags,
           sum(l.debit_amount - l.credit_amount)
    FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
    WHERE e.company_id = c AND e.fiscal_period_id = p AND e.status = 'posted' AND l.struck_by_rattelse_id IS NULL
      AND left(l.account_number, 1) IN ('1', '2') AND (NOT opening_only OR e.source_type = 'opening_balance')
    GROUP BY 1, 2
    HAVING sum(l.debit_amount - l.credit_amount) <> 0
$$;
-- +goose StatementEnd

DROP FUNCTION on_balance_sheet(uuid, text);
ALTER TABLE accounts DROP CONSTRAINT accounts_type_fits_class;
ALTER TABLE accounts ADD CONSTRAINT accounts_check CHECK (CASE left(account_number, 1)
        WHEN '1' THEN account_type = 'asset'
        WHEN '2' THEN account_type IN ('equity', 'untaxed_reserves', 'liability')
        WHEN '3' THEN account_type = 'revenue'
        WHEN '4' THEN account_type = 'expense'
        WHEN '5' THEN account_type = 'expense'
        WHEN '6' THEN account_type = 'expense'
        WHEN '7' THEN account_type = 'expense'
        ELSE account_type IN ('revenue', 'expense') END);
ALTER TABLE accounts DROP COLUMN type_from_file;
