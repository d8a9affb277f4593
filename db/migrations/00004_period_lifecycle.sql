-- The fiscal period's life (open → locked → closed) kept by the database
-- as well as by the ledger, so that no code path can break it:
--   * a draft is written only where it could be posted: a period that is
--     neither locked nor closed, after the company's lock date (the year-end
--     and opening-balance entries excepted). The period row is taken FOR
--     SHARE, so a lock waits for drafts in flight and sees them;
--   * a period is locked only without drafts, closed only when locked and
--     after its year-end run, and a closed period is final.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION journal_entry_draft_postable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_check_postable(NEW.company_id, NEW.fiscal_period_id, NEW.entry_date, NEW.source_type);
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_entry_draft_postable BEFORE INSERT OR UPDATE ON journal_entries
    FOR EACH ROW WHEN (NEW.status = 'draft')
    EXECUTE FUNCTION journal_entry_draft_postable();

-- +goose StatementBegin
CREATE FUNCTION fiscal_period_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    drafts integer;
BEGIN
    IF OLD.is_closed THEN
        IF NEW.is_closed IS DISTINCT FROM OLD.is_closed OR NEW.locked_at IS DISTINCT FROM OLD.locked_at
           OR NEW.period_start <> OLD.period_start OR NEW.period_end <> OLD.period_end
           OR NEW.year_end_entry_id IS DISTINCT FROM OLD.year_end_entry_id
           OR NEW.year_end_at IS DISTINCT FROM OLD.year_end_at THEN
            RAISE EXCEPTION 'PERIOD_UNLOCK_CLOSED: a closed fiscal period is final' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF OLD.locked_at IS NULL AND NEW.locked_at IS NOT NULL THEN
        SELECT count(*) INTO drafts FROM journal_entries
        WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.id AND status = 'draft';
        IF drafts > 0 THEN
            RAISE EXCEPTION 'PERIOD_LOCK_HAS_DRAFTS: % drafts in period %', drafts, NEW.id
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    IF NEW.is_closed AND NOT NEW.closed_externally AND NEW.year_end_at IS NULL THEN
        RAISE EXCEPTION 'YEAR_END_NOT_RUN: period % is closed only after its year-end', NEW.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER fiscal_period_guard BEFORE UPDATE ON fiscal_periods
    FOR EACH ROW EXECUTE FUNCTION fiscal_period_guard();

ALTER TABLE fiscal_periods ADD CONSTRAINT fiscal_periods_closed_locked CHECK (NOT is_closed OR locked_at IS NOT NULL);

-- The operation a worker retries after a crash is found by its lease.
CREATE INDEX operations_lease ON operations (lease_until) WHERE status = 'running';

-- +goose Down
DROP INDEX operations_lease;
ALTER TABLE fiscal_periods DROP CONSTRAINT fiscal_periods_closed_locked;
DROP TRIGGER fiscal_period_guard ON fiscal_periods;
DROP FUNCTION fiscal_period_guard;
DROP TRIGGER journal_entry_draft_postable ON journal_entries;
DROP FUNCTION journal_entry_draft_postable;
