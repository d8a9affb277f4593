-- Bank (issue 21): bank files imported, kept whole as behandlingshistorik
-- (the bytes and their SHA-256), with what each import did. The worker
-- reads the file from here; undo deletes the import's unbooked rows.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE bank_file_imports (
    company_id      uuid        NOT NULL REFERENCES companies (id),
    id              uuid        NOT NULL DEFAULT gen_random_uuid(),
    operation_id    uuid        NOT NULL,
    file_name       text        NOT NULL CHECK (char_length(file_name) BETWEEN 1 AND 255),
    content         bytea       NOT NULL CHECK (octet_length(content) <= 10485760),
    sha256          text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    encoding        text        NOT NULL,
    format          text        NOT NULL,
    cash_account_id uuid,
    ledger_account  text        NOT NULL CHECK (ledger_account ~ '^19[0-9][0-9]$'),
    status          text        NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'succeeded', 'failed', 'undone')),
    ingested        integer,
    duplicates      integer,
    from_date       date,
    to_date         date,
    note            text        CHECK (char_length(note) <= 1000),
    created_at      timestamptz NOT NULL DEFAULT now(),
    completed_at    timestamptz,
    undone_at       timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, cash_account_id) REFERENCES cash_accounts (company_id, id)
);
REVOKE DELETE ON bank_file_imports FROM kontera_app;
-- The file stays as it came.
-- +goose StatementBegin
CREATE FUNCTION bank_file_imports_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.content, NEW.sha256, NEW.file_name, NEW.company_id, NEW.id) IS DISTINCT FROM
       (OLD.content, OLD.sha256, OLD.file_name, OLD.company_id, OLD.id) THEN
        RAISE EXCEPTION 'an imported bank file is kept as it came' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER bank_file_imports_guard BEFORE UPDATE ON bank_file_imports
    FOR EACH ROW EXECUTE FUNCTION bank_file_imports_guard();
CREATE INDEX bank_transactions_import ON bank_transactions (company_id, bank_file_import_id)
    WHERE bank_file_import_id IS NOT NULL;

-- +goose Down
DROP INDEX bank_transactions_import;
DROP TABLE bank_file_imports;
DROP FUNCTION bank_file_imports_guard();
