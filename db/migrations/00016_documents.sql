-- The write-once archive of underlag (issue 16).
--
-- A document row describes bytes kept in the blob store under
-- storage_key (<company_id>/<ab>/<sha256>); the bytes and their
-- description never change. A new version is a new row: it supersedes the
-- current one, which keeps everything and only learns who superseded it.
--
-- A document is *linked* while it is the current version and underlag of
-- a posted verifikat (documents_linked): derived, so a draft's underlag
-- becomes linked when the draft is posted, with no write here on the
-- posting's path. A linked row is never deleted, and its link moves only
-- to the correction of its verifikat (correct and redate), the one move
-- the ledger makes. retention_until (BFL 7 kap. 2 §) is stamped by the
-- database whenever a row is written while linked or as it stops being
-- (superseded), and only ever moves later; no row is deleted before it.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE documents (
    company_id            uuid        NOT NULL REFERENCES companies (id),
    id                    uuid        NOT NULL DEFAULT gen_random_uuid(),
    file_name             text        NOT NULL CHECK (octet_length(file_name) BETWEEN 1 AND 255
                                                      AND file_name !~ '[[:cntrl:]/\\]'),
    mime_type             text        CHECK (octet_length(mime_type) BETWEEN 1 AND 255),
    file_size_bytes       bigint      NOT NULL CHECK (file_size_bytes BETWEEN 1 AND 10485760),
    sha256_hash           text        NOT NULL CHECK (sha256_hash ~ '^[0-9a-f]{64}$'),
    storage_key           text        NOT NULL,
    version               integer     NOT NULL DEFAULT 1 CHECK (version BETWEEN 1 AND 100000),
    original_id           uuid,
    superseded_by_id      uuid,
    is_current_version    boolean     NOT NULL DEFAULT true,
    upload_source         text        NOT NULL CHECK (upload_source IN
                                          ('file_upload', 'camera', 'email', 'e_invoice', 'scan', 'api', 'system')),
    journal_entry_id      uuid,
    journal_entry_line_id uuid,
    inbox_item_id         uuid,
    digitization_date     date,
    retention_until       date,
    created_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, original_id) REFERENCES documents (company_id, id),
    FOREIGN KEY (company_id, superseded_by_id) REFERENCES documents (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, journal_entry_line_id) REFERENCES journal_lines (company_id, id),
    CHECK (storage_key = company_id::text || '/' || left(sha256_hash, 2) || '/' || sha256_hash),
    CHECK (is_current_version = (superseded_by_id IS NULL)),
    CHECK ((version = 1) = (original_id IS NULL)),
    CHECK (journal_entry_line_id IS NULL OR journal_entry_id IS NOT NULL),
    -- One row per version of a document: the versions form a line.
    UNIQUE (company_id, original_id, version),
    UNIQUE (company_id, superseded_by_id)
);
-- The list, newest upload first; the underlag of an entry; the rows that
-- share a blob (duplicates, and whether a blob may go).
CREATE INDEX documents_created ON documents (company_id, created_at DESC, id);
CREATE INDEX documents_entry ON documents (company_id, journal_entry_id) WHERE journal_entry_id IS NOT NULL;
CREATE INDEX documents_hash ON documents (company_id, sha256_hash);

-- The last day underlag of a verifikat in a fiscal year ending on
-- period_end is kept: 31 December of the seventh year after the calendar
-- year in which the fiscal year ends (BFL 7 kap. 2 §).
-- +goose StatementBegin
CREATE FUNCTION documents_retention_until(period_end date) RETURNS date
LANGUAGE sql IMMUTABLE AS $$
    SELECT make_date(extract(year FROM period_end)::int + 7, 12, 31)
$$;
-- +goose StatementEnd

-- Is d the current underlag of a posted verifikat? Then the retention
-- date its verifikat's fiscal year gives, else NULL.
-- +goose StatementBegin
CREATE FUNCTION documents_linked_until(d documents) RETURNS date
LANGUAGE sql STABLE AS $$
    SELECT documents_retention_until(p.period_end)
    FROM journal_entries e JOIN fiscal_periods p ON p.company_id = e.company_id AND p.id = e.fiscal_period_id
    WHERE d.is_current_version AND e.company_id = d.company_id AND e.id = d.journal_entry_id AND e.status = 'posted'
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION documents_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    linked_until date;
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.journal_entry_id IS NOT NULL THEN
        -- Wait for a posting of the entry in flight, and hold it off until
        -- this change is done: whether the document is linked is then
        -- what it will be, not what it was before that posting committed.
        PERFORM 1 FROM journal_entries WHERE company_id = OLD.company_id AND id = OLD.journal_entry_id FOR SHARE;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF documents_linked_until(OLD) IS NOT NULL THEN
            RAISE EXCEPTION 'CONFLICT: the document is underlag of a posted verifikat and is kept'
                USING ERRCODE = 'restrict_violation',
                      DETAIL = json_build_object('reason', 'linked', 'document_id', OLD.id,
                          'journal_entry_id', OLD.journal_entry_id)::text;
        END IF;
        IF OLD.retention_until >= current_date THEN
            RAISE EXCEPTION 'CONFLICT: the document is kept until %', OLD.retention_until
                USING ERRCODE = 'restrict_violation',
                      DETAIL = json_build_object('reason', 'retention', 'document_id', OLD.id,
                          'retention_until', OLD.retention_until)::text;
        END IF;
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.company_id <> OLD.company_id OR NEW.id <> OLD.id OR NEW.file_name <> OLD.file_name
           OR NEW.mime_type IS DISTINCT FROM OLD.mime_type OR NEW.file_size_bytes <> OLD.file_size_bytes
           OR NEW.sha256_hash <> OLD.sha256_hash OR NEW.storage_key <> OLD.storage_key OR NEW.version <> OLD.version
           OR NEW.original_id IS DISTINCT FROM OLD.original_id OR NEW.upload_source <> OLD.upload_source
           OR NEW.digitization_date IS DISTINCT FROM OLD.digitization_date OR NEW.created_at <> OLD.created_at THEN
            RAISE EXCEPTION 'a document''s bytes and what describes them never change; upload a new version'
                USING ERRCODE = 'check_violation';
        END IF;
        IF OLD.superseded_by_id IS NOT NULL AND NEW.superseded_by_id IS DISTINCT FROM OLD.superseded_by_id THEN
            RAISE EXCEPTION 'a superseded version stays superseded' USING ERRCODE = 'check_violation';
        END IF;
        IF OLD.retention_until IS NOT NULL AND (NEW.retention_until IS NULL OR NEW.retention_until < OLD.retention_until) THEN
            RAISE EXCEPTION 'a document''s retention is never shortened' USING ERRCODE = 'check_violation';
        END IF;
        IF (NEW.journal_entry_id, NEW.journal_entry_line_id, NEW.inbox_item_id)
           IS DISTINCT FROM (OLD.journal_entry_id, OLD.journal_entry_line_id, OLD.inbox_item_id) THEN
            IF NOT OLD.is_current_version THEN
                RAISE EXCEPTION 'a superseded version is not linked anew' USING ERRCODE = 'check_violation';
            END IF;
            linked_until := documents_linked_until(OLD);
            IF linked_until IS NOT NULL AND (NEW.journal_entry_id IS NOT DISTINCT FROM OLD.journal_entry_id
               OR NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.company_id = NEW.company_id
                   AND e.id = NEW.journal_entry_id AND e.correction_of_id = OLD.journal_entry_id)) THEN
                RAISE EXCEPTION 'DOC_ATTACH_OTHER_VERIFIKAT: underlag of a posted verifikat moves only to its correction'
                    USING ERRCODE = 'restrict_violation',
                          DETAIL = json_build_object('document_id', OLD.id, 'journal_entry_id', OLD.journal_entry_id)::text;
            END IF;
            -- Leaving a posted verifikat for its correction: kept at least
            -- as long as the verifikat it left.
            NEW.retention_until := greatest(NEW.retention_until, linked_until);
        END IF;
        IF OLD.is_current_version AND NOT NEW.is_current_version THEN
            -- Superseded: no longer linked, still kept as long as it was.
            NEW.retention_until := greatest(NEW.retention_until, documents_linked_until(OLD));
        END IF;
    END IF;
    IF NEW.journal_entry_line_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM journal_lines l
            WHERE l.company_id = NEW.company_id AND l.id = NEW.journal_entry_line_id
              AND l.journal_entry_id = NEW.journal_entry_id) THEN
        RAISE EXCEPTION 'VALIDATION_ERROR: the line is not a line of the entry'
            USING ERRCODE = 'check_violation', DETAIL = json_build_object('field', 'journal_entry_line_id')::text;
    END IF;
    NEW.retention_until := greatest(NEW.retention_until, documents_linked_until(NEW));
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER documents_guard BEFORE INSERT OR UPDATE OR DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION documents_guard();
CREATE TRIGGER documents_no_truncate BEFORE TRUNCATE ON documents
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- +goose Down
DROP TRIGGER documents_guard ON documents;
DROP FUNCTION documents_guard();
DROP FUNCTION documents_linked_until(documents);
DROP TABLE documents;
DROP FUNCTION documents_retention_until(date);
