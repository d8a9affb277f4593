-- The year-end's adjustments (issue 46): the cash-method cut-off of the
-- open invoices and the currency revaluation are booked on the last day of
-- a locked year, like its closing entry.
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
    -- A locked period takes what the year-end writes (the closing entry,
    -- the cash-method cut-off and the currency revaluation, the next
    -- year's opening balance and appropriation), and the accrued months
    -- the year-end of that very period releases before its closing entry
    -- (ledger.Store.RunYearEnd with release_accruals), named for the
    -- transaction by kontera.year_end_release.
    IF per.locked_at IS NOT NULL AND src NOT IN ('year_end', 'opening_balance', 'result_appropriation',
                                                 'cash_method_cutoff', 'currency_revaluation')
       AND NOT (src = 'accrual' AND current_setting('kontera.year_end_release', true) = p::text) THEN
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
    -- A locked period takes what the year-end writes, and the accrued
    -- months the year-end of that very period releases before its closing
    -- entry (ledger.Store.RunYearEnd with release_accruals), named for the
    -- transaction by kontera.year_end_release.
    IF per.locked_at IS NOT NULL AND src NOT IN ('year_end', 'opening_balance', 'result_appropriation')
       AND NOT (src = 'accrual' AND current_setting('kontera.year_end_release', true) = p::text) THEN
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
