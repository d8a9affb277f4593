-- Continuity per dimension: where the books tag balance-sheet lines with
-- a dimension that carries over years (a project, dimension 6, or any of
-- the company's own that does not reset annually), the next year opens
-- with the closing balance of every account and value, not only of every
-- account. Dimensions that reset annually (the cost centre, dimension 1)
-- start each year afresh.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- The balances of period p per balance-sheet account and the tags of its
-- lines that carry over years; only the opening-balance entries with
-- opening_only.
-- +goose StatementBegin
CREATE FUNCTION ledger_dimension_balances(c uuid, p uuid, opening_only boolean)
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

-- The closing balances of period p against the opening balances of the
-- year after it, per balance-sheet account and carried tags, where they
-- differ.
-- +goose StatementBegin
CREATE FUNCTION ledger_dimension_breaks(c uuid, p uuid)
RETURNS TABLE (account_number text, dimensions jsonb, closing_balance numeric, next_opening_balance numeric)
LANGUAGE sql STABLE AS $$
    WITH nxt AS (
        SELECT n.id FROM fiscal_periods n JOIN fiscal_periods cur ON cur.company_id = n.company_id
        WHERE cur.company_id = c AND cur.id = p AND n.period_start = cur.period_end + 1),
    ub AS (SELECT * FROM ledger_dimension_balances(c, p, false)),
    ib AS (SELECT * FROM ledger_dimension_balances(c, (SELECT id FROM nxt), true))
    SELECT coalesce(ub.account_number, ib.account_number), coalesce(ub.dimensions, ib.dimensions),
           coalesce(ub.balance, 0), coalesce(ib.balance, 0)
    FROM ub FULL JOIN ib ON ib.account_number = ub.account_number AND ib.dimensions = ub.dimensions
    WHERE coalesce(ub.balance, 0) <> coalesce(ib.balance, 0)
    ORDER BY 1, 2::text
$$;
-- +goose StatementEnd

-- The close guard of 00007, with the per-dimension rule added.
-- +goose StatementBegin
CREATE FUNCTION fiscal_period_dimension_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    diffs json;
BEGIN
    SELECT json_agg(json_build_object('account_number', account_number, 'dimensions', dimensions,
               'closing_balance', closing_balance, 'next_opening_balance', next_opening_balance)) INTO diffs
    FROM ledger_dimension_breaks(NEW.company_id, NEW.id);
    IF diffs IS NOT NULL THEN
        RAISE EXCEPTION 'OPENING_BALANCE_MISMATCH: the next year does not open with the closing balances of period % per dimension', NEW.id
            USING ERRCODE = 'check_violation', DETAIL = json_build_object('accounts', diffs)::text;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER fiscal_period_dimension_guard BEFORE UPDATE ON fiscal_periods
    FOR EACH ROW WHEN (NEW.is_closed AND NOT OLD.is_closed AND NOT NEW.closed_externally)
    EXECUTE FUNCTION fiscal_period_dimension_guard();

-- +goose Down
DROP TRIGGER fiscal_period_dimension_guard ON fiscal_periods;
DROP FUNCTION fiscal_period_dimension_guard();
DROP FUNCTION ledger_dimension_breaks(uuid, uuid);
DROP FUNCTION ledger_dimension_balances(uuid, uuid, boolean);
