-- Postings hold the company's settings row FOR KEY SHARE, not FOR SHARE
-- (issue 19). FOR SHARE made every posting in flight block the UPDATE
-- that takes an invoice's or a supplier invoice's number from the same
-- row, and each such UPDATE block every posting after it: a company's
-- invoices were booked one whole transaction at a time. Every write of
-- the settings takes the row FOR UPDATE first, which KEY SHARE still
-- conflicts with, so a lock-date move and the postings still wait for
-- each other.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
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
    -- FOR KEY SHARE: a lock-date move takes the settings row FOR UPDATE
    -- first (company.Store.SettingsForUpdate), so it still waits for the
    -- postings in flight and they for it; the counters on the row
    -- (next_invoice_number, next_arrival_number) no longer wait for them.
    SELECT bookkeeping_locked_through INTO lock_date FROM company_settings WHERE company_id = c FOR KEY SHARE;
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

-- +goose Down
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
