-- SIE imports (issue 23): the files, the signed uploads that bring them,
-- and the imports that book them.
--
-- A file's bytes are räkenskapsinformation: kept in the database (every
-- replica sees them), addressed by their SHA-256 per company, in chunks of
-- 1 MiB, written once and never changed or removed by the application.
-- An import remembers its run: state, phase, the checkpoint of the last
-- committed chunk, the checks of pass 1 and the result. The verifikationer
-- an import wrote carry its id (journal_entries.import_id), so its undo
-- and its holds find them without a second list.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE import_files (
    company_id uuid NOT NULL REFERENCES companies (id),
    sha256     text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size       bigint NOT NULL CHECK (size BETWEEN 0 AND 52428800),
    chunks     integer NOT NULL CHECK (chunks >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, sha256)
);
CREATE TABLE import_file_chunks (
    company_id uuid NOT NULL,
    sha256     text NOT NULL,
    seq        integer NOT NULL CHECK (seq >= 0),
    data       bytea NOT NULL CHECK (length(data) BETWEEN 1 AND 1048576),
    PRIMARY KEY (company_id, sha256, seq),
    FOREIGN KEY (company_id, sha256) REFERENCES import_files (company_id, sha256)
);
REVOKE UPDATE, DELETE ON import_files, import_file_chunks FROM kontera_app;
CREATE TRIGGER import_files_no_truncate BEFORE TRUNCATE ON import_files
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
CREATE TRIGGER import_file_chunks_no_truncate BEFORE TRUNCATE ON import_file_chunks
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

CREATE TABLE sie_uploads (
    company_id  uuid NOT NULL REFERENCES companies (id),
    id          uuid NOT NULL DEFAULT gen_random_uuid(),
    filename    text NOT NULL CHECK (length(filename) BETWEEN 1 AND 255),
    size        bigint NOT NULL CHECK (size BETWEEN 1 AND 52428800),
    expires_at  timestamptz NOT NULL,
    sha256      text,
    uploaded_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, sha256) REFERENCES import_files (company_id, sha256),
    CHECK ((sha256 IS NULL) = (uploaded_at IS NULL))
);

CREATE TABLE sie_imports (
    company_id           uuid NOT NULL REFERENCES companies (id),
    id                   uuid NOT NULL DEFAULT gen_random_uuid(),
    state                text NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'failed', 'paused',
                                                        'undoing', 'undone')),
    phase                text CHECK (length(phase) BETWEEN 1 AND 40),
    file_sha256          text NOT NULL,
    filename             text NOT NULL CHECK (length(filename) BETWEEN 1 AND 255),
    options              jsonb NOT NULL CHECK (jsonb_typeof(options) = 'object'),
    -- SHA-256 of the file's bytes and the normalised options: an
    -- identical retry finds the import it repeats.
    fingerprint          text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    fiscal_period_id     uuid,
    operation_id         uuid NOT NULL,
    job_version          integer NOT NULL CHECK (job_version >= 0),
    supersedes_import_id uuid,
    started_by_user_id   uuid,
    started_by_key_id    uuid,
    checkpoint           jsonb CHECK (jsonb_typeof(checkpoint) = 'object'),
    summary              jsonb CHECK (jsonb_typeof(summary) = 'object'),
    result               jsonb CHECK (jsonb_typeof(result) = 'object'),
    errors               jsonb CHECK (jsonb_typeof(errors) = 'array'),
    warnings             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(warnings) = 'array'),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    completed_at         timestamptz,
    undone_at            timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, file_sha256) REFERENCES import_files (company_id, sha256),
    FOREIGN KEY (company_id, fiscal_period_id) REFERENCES fiscal_periods (company_id, id),
    FOREIGN KEY (company_id, supersedes_import_id) REFERENCES sie_imports (company_id, id)
);
CREATE UNIQUE INDEX sie_imports_retry ON sie_imports (company_id, fingerprint) WHERE state <> 'undone';
CREATE INDEX sie_imports_company ON sie_imports (company_id, created_at DESC, id);
CREATE INDEX sie_imports_holding ON sie_imports (company_id, fiscal_period_id)
    WHERE state IN ('queued', 'running', 'paused', 'undoing');

ALTER TABLE journal_entries ADD COLUMN import_id uuid;
CREATE INDEX journal_entries_import ON journal_entries (company_id, import_id, voucher_series, voucher_number)
    WHERE import_id IS NOT NULL;

-- A rättelse says where it came from: the API, or a file's #BTRANS and
-- #RTRANS (source sie_import, with the signature the file gives).
DROP FUNCTION ledger_log_rattelse(uuid, uuid, text, text, date, uuid[], jsonb, text, uuid, text, uuid, text);
-- +goose StatementBegin
CREATE FUNCTION ledger_log_rattelse(c uuid, entry uuid, kind text, new_description text, new_entry_date date,
    struck uuid[], added jsonb, p_actor_type text, p_actor_id uuid, p_actor_label text, p_user_id uuid,
    p_actor_email text, p_source text DEFAULT 'api', p_signature text DEFAULT NULL)
RETURNS journal_rattelser
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    e journal_entries%ROWTYPE;
    out journal_rattelser%ROWTYPE;
    struck_json jsonb;
BEGIN
    SELECT * INTO e FROM journal_entries WHERE company_id = c AND id = entry FOR UPDATE;
    IF NOT FOUND OR e.status <> 'posted' THEN
        RAISE EXCEPTION 'a rättelse corrects a posted entry' USING ERRCODE = 'check_violation';
    END IF;
    IF kind = 'lines' THEN
        SELECT jsonb_agg(jsonb_build_object('id', id, 'account_number', account_number, 'debit_amount', debit_amount,
                   'credit_amount', credit_amount, 'line_description', line_description, 'dimensions', dimensions)
                   ORDER BY sort_order, id)
        INTO struck_json FROM journal_lines
        WHERE company_id = c AND journal_entry_id = entry AND id = ANY(struck) AND struck_by_rattelse_id IS NULL;
        IF coalesce(jsonb_array_length(struck_json), 0) <> coalesce(cardinality(struck), 0) THEN
            RAISE EXCEPTION 'a rättelse strikes current lines of its own entry' USING ERRCODE = 'check_violation';
        END IF;
        INSERT INTO journal_rattelser (company_id, journal_entry_id, rattelse_type, struck_lines, added_lines,
            actor_type, actor_id, actor_label, user_id, actor_email, source, external_signature)
        VALUES (c, entry, 'lines', struck_json, added, p_actor_type, p_actor_id, p_actor_label, p_user_id, p_actor_email,
            p_source, p_signature)
        RETURNING * INTO out;
    ELSIF kind = 'metadata' THEN
        INSERT INTO journal_rattelser (company_id, journal_entry_id, rattelse_type, old_description, new_description,
            old_entry_date, new_entry_date, actor_type, actor_id, actor_label, user_id, actor_email, source,
            external_signature)
        VALUES (c, entry, 'metadata',
            CASE WHEN new_description IS NOT NULL THEN e.description END, new_description,
            CASE WHEN new_entry_date IS NOT NULL THEN e.entry_date END, new_entry_date,
            p_actor_type, p_actor_id, p_actor_label, p_user_id, p_actor_email, p_source, p_signature)
        RETURNING * INTO out;
    ELSE
        RAISE EXCEPTION 'unknown rättelse type %', kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN out;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX journal_entries_import;
ALTER TABLE journal_entries DROP COLUMN import_id;
DROP TABLE sie_imports, sie_uploads, import_file_chunks, import_files;
