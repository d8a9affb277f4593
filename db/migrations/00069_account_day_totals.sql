-- The general ledger's turnover per account and day (issue 51), beside
-- the month balances: a report over a window that cuts a month (an
-- income statement from the 10th, the kpi's position to today) sums at
-- most 31 rows of an account for that month, rather than every posting.
--
-- account_day_totals is derived like account_balances: kept by statement
-- triggers on ledger_postings (every posting, strike and date correction
-- goes through it), by kind as the month balances keep it (ledger_kind:
-- the year-end's closing entry apart; the opening balance not at all),
-- written by nothing else.
--
-- A fiscal year whose postings were made before this migration is
-- listed in account_day_totals_pending until the backfill has summed it;
-- a reader sums the postings themselves for such a year.
--
-- Online: safe. New tables and triggers. The backfill takes one fiscal
-- year at a time, in a transaction of its own: it holds that year's row
-- (FOR UPDATE, which a posting's check waits on for the moment), drops
-- what the triggers summed of the year so far, sums the year's postings
-- and commits. A posting into that year waits for one year's sum (about
-- a second per million lines); interrupted, it leaves years pending,
-- which readers read as before and the next run sums.

-- +goose NO TRANSACTION
-- +goose Up
CREATE TABLE IF NOT EXISTS account_day_totals (
    company_id       uuid NOT NULL,
    fiscal_period_id uuid NOT NULL,
    account_number   text NOT NULL,
    day              date NOT NULL,
    debit            numeric(18, 2) NOT NULL DEFAULT 0,
    credit           numeric(18, 2) NOT NULL DEFAULT 0,
    closing_debit    numeric(18, 2) NOT NULL DEFAULT 0,
    closing_credit   numeric(18, 2) NOT NULL DEFAULT 0,
    PRIMARY KEY (company_id, fiscal_period_id, account_number, day)
        INCLUDE (debit, credit, closing_debit, closing_credit)
);
CREATE TABLE IF NOT EXISTS account_day_totals_pending (
    company_id       uuid NOT NULL,
    fiscal_period_id uuid NOT NULL,
    PRIMARY KEY (company_id, fiscal_period_id)
);
REVOKE INSERT, UPDATE, DELETE ON account_day_totals, account_day_totals_pending FROM kontera_app;
DROP TRIGGER IF EXISTS account_day_totals_derived ON account_day_totals;
CREATE TRIGGER account_day_totals_derived BEFORE INSERT OR UPDATE OR DELETE ON account_day_totals
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_derived_guard();
DROP TRIGGER IF EXISTS account_day_totals_no_truncate ON account_day_totals;
CREATE TRIGGER account_day_totals_no_truncate BEFORE TRUNCATE ON account_day_totals
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- Adds the postings of moved to the day totals, or, with the argument
-- -1, takes them away: an insert adds, a delete takes away, an update
-- (a corrected date) does both.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_day_totals() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    sign integer := TG_ARGV[0]::integer;
BEGIN
    INSERT INTO account_day_totals AS t (company_id, fiscal_period_id, account_number, day,
        debit, credit, closing_debit, closing_credit)
    SELECT p.company_id, p.fiscal_period_id, p.account_number, p.entry_date,
        sign * coalesce(sum(p.debit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'period'), 0),
        sign * coalesce(sum(p.credit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'period'), 0),
        sign * coalesce(sum(p.debit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'closing'), 0),
        sign * coalesce(sum(p.credit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'closing'), 0)
    FROM moved p JOIN journal_entries e ON e.company_id = p.company_id AND e.id = p.journal_entry_id
    WHERE NOT p.is_opening
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (company_id, fiscal_period_id, account_number, day) DO UPDATE SET
        debit = t.debit + EXCLUDED.debit, credit = t.credit + EXCLUDED.credit,
        closing_debit = t.closing_debit + EXCLUDED.closing_debit,
        closing_credit = t.closing_credit + EXCLUDED.closing_credit;
    RETURN NULL;
END $$;
-- +goose StatementEnd

DROP TRIGGER IF EXISTS ledger_postings_days_came ON ledger_postings;
CREATE TRIGGER ledger_postings_days_came AFTER INSERT ON ledger_postings
    REFERENCING NEW TABLE AS moved FOR EACH STATEMENT EXECUTE FUNCTION ledger_day_totals('1');
DROP TRIGGER IF EXISTS ledger_postings_days_gone ON ledger_postings;
CREATE TRIGGER ledger_postings_days_gone AFTER DELETE ON ledger_postings
    REFERENCING OLD TABLE AS moved FOR EACH STATEMENT EXECUTE FUNCTION ledger_day_totals('-1');
DROP TRIGGER IF EXISTS ledger_postings_days_moved_from ON ledger_postings;
CREATE TRIGGER ledger_postings_days_moved_from AFTER UPDATE ON ledger_postings
    REFERENCING OLD TABLE AS moved FOR EACH STATEMENT EXECUTE FUNCTION ledger_day_totals('-1');
DROP TRIGGER IF EXISTS ledger_postings_days_moved_to ON ledger_postings;
CREATE TRIGGER ledger_postings_days_moved_to AFTER UPDATE ON ledger_postings
    REFERENCING NEW TABLE AS moved FOR EACH STATEMENT EXECUTE FUNCTION ledger_day_totals('1');

-- Every year that may hold postings from before the triggers; a year
-- made after them is summed from its first posting.
INSERT INTO account_day_totals_pending (company_id, fiscal_period_id)
SELECT company_id, id FROM fiscal_periods ON CONFLICT DO NOTHING;

-- The backfill, one year per transaction. The derived tables take
-- changes only from inside a trigger (ledger_derived_guard), so each
-- year is summed by a trigger on a scratch table.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION account_day_totals_backfill() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- The year's row first: a posting's check holds it FOR SHARE, so no
    -- posting into the year runs while it is summed.
    PERFORM 1 FROM fiscal_periods WHERE company_id = NEW.company_id AND id = NEW.fiscal_period_id FOR UPDATE;
    DELETE FROM account_day_totals WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.fiscal_period_id;
    INSERT INTO account_day_totals (company_id, fiscal_period_id, account_number, day,
        debit, credit, closing_debit, closing_credit)
    SELECT p.company_id, p.fiscal_period_id, p.account_number, p.entry_date,
        coalesce(sum(p.debit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'period'), 0),
        coalesce(sum(p.credit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'period'), 0),
        coalesce(sum(p.debit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'closing'), 0),
        coalesce(sum(p.credit_amount) FILTER (WHERE ledger_kind(e.source_type) = 'closing'), 0)
    FROM ledger_postings p JOIN journal_entries e ON e.company_id = p.company_id AND e.id = p.journal_entry_id
    WHERE p.company_id = NEW.company_id AND p.fiscal_period_id = NEW.fiscal_period_id AND NOT p.is_opening
    GROUP BY 1, 2, 3, 4;
    DELETE FROM account_day_totals_pending WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.fiscal_period_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    r record;
BEGIN
    CREATE TEMP TABLE account_day_totals_to_sum (company_id uuid, fiscal_period_id uuid);
    CREATE TRIGGER sum_days AFTER INSERT ON account_day_totals_to_sum
        FOR EACH ROW EXECUTE FUNCTION account_day_totals_backfill();
    COMMIT;
    FOR r IN SELECT company_id, fiscal_period_id FROM account_day_totals_pending LOOP
        INSERT INTO account_day_totals_to_sum VALUES (r.company_id, r.fiscal_period_id);
        COMMIT;
    END LOOP;
    DROP TABLE account_day_totals_to_sum;
END $$;
-- +goose StatementEnd

DROP FUNCTION account_day_totals_backfill();

-- +goose Down
DROP TRIGGER IF EXISTS ledger_postings_days_came ON ledger_postings;
DROP TRIGGER IF EXISTS ledger_postings_days_gone ON ledger_postings;
DROP TRIGGER IF EXISTS ledger_postings_days_moved_from ON ledger_postings;
DROP TRIGGER IF EXISTS ledger_postings_days_moved_to ON ledger_postings;
DROP FUNCTION IF EXISTS ledger_day_totals();
DROP TABLE IF EXISTS account_day_totals, account_day_totals_pending;
