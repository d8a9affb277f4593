-- Three tables the application role could still change behind the API's
-- back (issue 44): a skattekonto row inside a signed-off period, an SIE
-- import's record of what it did, and the events the outbox sends. Each
-- now refuses what the API refuses, as the books' other tables do.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up

-- What Skatteverket said stays as it said it, and what a sign-off froze
-- stays frozen: a row dated on or before the account's active sign-off
-- is neither deleted nor ignored (the API's 409 SIGNED_OFF). Reopening
-- the sign-off, which the API audits, lifts it.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION skattekonto_transactions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (TG_OP = 'DELETE' OR NEW.is_ignored IS DISTINCT FROM OLD.is_ignored)
       AND EXISTS (SELECT 1 FROM reconciliation_signoffs s
                   WHERE s.company_id = OLD.company_id AND s.account_key = 'skattekonto'
                     AND s.superseded_at IS NULL AND s.reopened_at IS NULL AND s.through_date >= OLD.date) THEN
        RAISE EXCEPTION 'a skattekonto row of a signed-off period stays as it was signed'
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF OLD.source <> 'manual' THEN
            RAISE EXCEPTION 'a skattekonto row from Skatteverket is never deleted' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.amount, NEW.kind, NEW.source, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.amount, OLD.kind, OLD.source, OLD.created_at)
       OR (NOT OLD.upcoming AND (NEW.date, NEW.description, NEW.saldo_after, NEW.upcoming, NEW.row_key)
           IS DISTINCT FROM (OLD.date, OLD.description, OLD.saldo_after, OLD.upcoming, OLD.row_key)) THEN
        RAISE EXCEPTION 'a skattekonto row keeps what Skatteverket said' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- An SIE import is the record of what was booked from a file and how it
-- was undone: kept for good (no DELETE, no TRUNCATE), its file, options
-- and starter never change, and it moves only as the importer moves it:
--   queued    -> running, completed, paused, failed (a resumed run
--                stays queued to the end)
--   running   -> completed, paused, failed
--   paused    -> queued (resume), undoing (undo), undone (superseded)
--   completed -> undoing, undone (superseded)
--   undoing   -> undone
-- failed and undone are final. What the run found (summary, result,
-- errors, warnings, its year, completed_at) is written while it is
-- queued or running and then stays; the checkpoint moves while a run or
-- an undo is under way; undone_at is stamped once, on the way to undone.
-- +goose StatementBegin
CREATE FUNCTION sie_imports_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.company_id, NEW.id, NEW.file_sha256, NEW.filename, NEW.options, NEW.fingerprint, NEW.job_version,
        NEW.supersedes_import_id, NEW.started_by_user_id, NEW.started_by_key_id, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.file_sha256, OLD.filename, OLD.options, OLD.fingerprint,
        OLD.job_version, OLD.supersedes_import_id, OLD.started_by_user_id, OLD.started_by_key_id, OLD.created_at) THEN
        RAISE EXCEPTION 'an SIE import keeps its file, options and starter' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.state IN ('failed', 'undone')
       OR NEW.state <> OLD.state AND NOT (
           OLD.state = 'queued' AND NEW.state IN ('running', 'completed', 'paused', 'failed')
        OR OLD.state = 'running' AND NEW.state IN ('completed', 'paused', 'failed')
        OR OLD.state = 'paused' AND NEW.state IN ('queued', 'undoing', 'undone')
        OR OLD.state = 'completed' AND NEW.state IN ('undoing', 'undone')
        OR OLD.state = 'undoing' AND NEW.state = 'undone') THEN
        RAISE EXCEPTION 'an SIE import does not go from % to %', OLD.state, NEW.state USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.state NOT IN ('queued', 'running')
       AND (NEW.summary, NEW.result, NEW.errors, NEW.warnings, NEW.fiscal_period_id, NEW.completed_at)
           IS DISTINCT FROM (OLD.summary, OLD.result, OLD.errors, OLD.warnings, OLD.fiscal_period_id, OLD.completed_at)
       OR OLD.state NOT IN ('queued', 'running', 'undoing') AND NEW.checkpoint IS DISTINCT FROM OLD.checkpoint
       OR NEW.undone_at IS DISTINCT FROM OLD.undone_at AND (NEW.state <> 'undone' OR NEW.undone_at IS NULL) THEN
        RAISE EXCEPTION 'an SIE import keeps what its run found' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER sie_imports_guard BEFORE UPDATE ON sie_imports
    FOR EACH ROW EXECUTE FUNCTION sie_imports_guard();
REVOKE DELETE ON sie_imports FROM kontera_app;
CREATE TRIGGER sie_imports_no_truncate BEFORE TRUNCATE ON sie_imports
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- An event is what happened, as it was written in the change's own
-- transaction: the dispatcher stamps it once (dispatched_at, feed_seq)
-- and nothing else of it ever changes; only a dispatched one is pruned
-- (TRUNCATE was refused already).
-- +goose StatementBegin
CREATE FUNCTION events_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.dispatched_at IS NULL THEN
            RAISE EXCEPTION 'an event is sent before it is pruned' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.type, NEW.payload, NEW.api_version, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.type, OLD.payload, OLD.api_version, OLD.created_at)
       OR OLD.dispatched_at IS NOT NULL OR NEW.dispatched_at IS NULL OR NEW.feed_seq IS NULL THEN
        RAISE EXCEPTION 'an event is written once and stamped dispatched once' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER events_guard BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_guard();

-- +goose Down
DROP TRIGGER events_guard ON events;
DROP FUNCTION events_guard();
DROP TRIGGER sie_imports_no_truncate ON sie_imports;
GRANT DELETE ON sie_imports TO kontera_app;
DROP TRIGGER sie_imports_guard ON sie_imports;
DROP FUNCTION sie_imports_guard();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION skattekonto_transactions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.source <> 'manual' THEN
            RAISE EXCEPTION 'a skattekonto row from Skatteverket is never deleted' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.amount, NEW.kind, NEW.source, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.amount, OLD.kind, OLD.source, OLD.created_at)
       OR (NOT OLD.upcoming AND (NEW.date, NEW.description, NEW.saldo_after, NEW.upcoming, NEW.row_key)
           IS DISTINCT FROM (OLD.date, OLD.description, OLD.saldo_after, OLD.upcoming, OLD.row_key)) THEN
        RAISE EXCEPTION 'a skattekonto row keeps what Skatteverket said' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
