-- Bank transactions: the guard on updates runs once per statement over
-- its transition tables (issue 51), not once per row. A bank run links
-- tens of thousands of transactions in one UPDATE; the row trigger ran
-- its PL/pgSQL for each.
--
-- The rules are those of 00033: a transaction keeps what the bank said
-- (its key, date, amount, currency, external id, source, original text
-- and creation), keeps its history (was_booked never goes back), and a
-- booked one stays on its account. Transition tables do not pair an old
-- row with its new one: both are grouped by key, and a key with other
-- than one old row and one new (a key changed) is refused.
--
-- Deletes keep their row trigger (a delete is one transaction at a time),
-- and bank_transactions_guard keeps only the rule on deletes: the rules on
-- updates live in one place, the statement trigger.
--
-- Online: safe. Triggers swapped in one short transaction.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION bank_transactions_guard_updates() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    said boolean;
    history boolean;
    moved boolean;
BEGIN
    -- One pass over both tables grouped by key: the plan of a join of two
    -- transition tables is made once per session, for the first
    -- statement's size, and a nested loop over tens of thousands of rows
    -- is quadratic; a grouping is not.
    SELECT coalesce(bool_or(g.said), false), coalesce(bool_or(g.history), false), coalesce(bool_or(g.moved), false)
    INTO said, history, moved
    FROM (
        SELECT count(*) FILTER (WHERE x.was) <> count(*) FILTER (WHERE NOT x.was)
                   OR count(DISTINCT ROW(x.date, x.amount, x.currency, x.external_id, x.import_source,
                       x.original_description, x.created_at)) > 1 AS said,
               bool_or(x.was AND x.was_booked) AND bool_or(NOT x.was AND NOT x.was_booked) AS history,
               bool_or(x.was AND x.journal_entry_id IS NOT NULL) AND bool_or(NOT x.was AND x.journal_entry_id IS NOT NULL)
                   AND count(DISTINCT ROW(x.ledger_account, x.cash_account_id)) > 1 AS moved
        FROM (
            SELECT true AS was, o.company_id, o.id, o.date, o.amount, o.currency, o.external_id, o.import_source,
                o.original_description, o.created_at, o.was_booked, o.journal_entry_id, o.ledger_account, o.cash_account_id
            FROM old_rows o
            UNION ALL
            SELECT false, n.company_id, n.id, n.date, n.amount, n.currency, n.external_id, n.import_source,
                n.original_description, n.created_at, n.was_booked, n.journal_entry_id, n.ledger_account, n.cash_account_id
            FROM new_rows n) x
        GROUP BY x.company_id, x.id) g;
    IF said THEN
        RAISE EXCEPTION 'a bank transaction keeps what the bank said' USING ERRCODE = 'check_violation';
    END IF;
    IF history THEN
        RAISE EXCEPTION 'a bank transaction keeps its history' USING ERRCODE = 'check_violation';
    END IF;
    IF moved THEN
        RAISE EXCEPTION 'a booked bank transaction stays on its account' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION bank_transactions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.journal_entry_id IS NOT NULL OR OLD.was_booked THEN
        RAISE EXCEPTION 'a bank transaction booked once is never deleted' USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN OLD;
END $$;
-- +goose StatementEnd
DROP TRIGGER bank_transactions_guard ON bank_transactions;
CREATE TRIGGER bank_transactions_guard BEFORE DELETE ON bank_transactions
    FOR EACH ROW EXECUTE FUNCTION bank_transactions_guard();
CREATE TRIGGER bank_transactions_guard_updates AFTER UPDATE ON bank_transactions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bank_transactions_guard_updates();

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION bank_transactions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.journal_entry_id IS NOT NULL OR OLD.was_booked THEN
            RAISE EXCEPTION 'a bank transaction booked once is never deleted' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.date, NEW.amount, NEW.currency, NEW.external_id, NEW.import_source,
            NEW.original_description, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.date, OLD.amount, OLD.currency, OLD.external_id,
            OLD.import_source, OLD.original_description, OLD.created_at) THEN
        RAISE EXCEPTION 'a bank transaction keeps what the bank said' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.was_booked AND NOT NEW.was_booked THEN
        RAISE EXCEPTION 'a bank transaction keeps its history' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.journal_entry_id IS NOT NULL AND NEW.journal_entry_id IS NOT NULL
       AND (NEW.ledger_account, NEW.cash_account_id) IS DISTINCT FROM (OLD.ledger_account, OLD.cash_account_id) THEN
        RAISE EXCEPTION 'a booked bank transaction stays on its account' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
DROP TRIGGER bank_transactions_guard_updates ON bank_transactions;
DROP TRIGGER bank_transactions_guard ON bank_transactions;
CREATE TRIGGER bank_transactions_guard BEFORE UPDATE OR DELETE ON bank_transactions
    FOR EACH ROW EXECUTE FUNCTION bank_transactions_guard();
DROP FUNCTION bank_transactions_guard_updates();
