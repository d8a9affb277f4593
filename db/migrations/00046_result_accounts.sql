-- The result of a year is every account outside the balance sheet:
-- classes 3-8 and the internal accounts of classes 0 and 9 the chart
-- holds as revenue or expense (an SIE file's 9999 obs-konto, kept as its
-- own account by an import, issue 45). A year closes only with all of it
-- carried to equity, as the year-end's closing entry (ledger) now does.
-- fiscal_period_guard as in 00007 but for that sum.

-- +goose Up
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
        WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.id AND left(account_number, 1) NOT IN ('1', '2');
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
