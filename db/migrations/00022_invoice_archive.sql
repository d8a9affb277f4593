-- Invoices out of the door (issue 18), part one: the archive of what was
-- issued, and the company's logo.
--
-- invoice_archive is both the queue and the record of the documents an
-- issued invoice is archived as: the transaction that issues an invoice
-- writes its row, and after the commit a worker renders the PDF, stores
-- the bytes, writes the document and names it here. A row is archived
-- once; an archived row is never changed or removed, so an invoice's
-- PDF is the one sent.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE invoice_archive (
    company_id  uuid        NOT NULL,
    invoice_id  uuid        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('pdf')),
    document_id uuid,
    attempts    integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error  text,
    run_after   timestamptz NOT NULL DEFAULT now(),
    queued_at   timestamptz NOT NULL DEFAULT now(),
    archived_at timestamptz,
    PRIMARY KEY (company_id, invoice_id, kind),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, document_id) REFERENCES documents (company_id, id),
    CHECK ((document_id IS NULL) = (archived_at IS NULL))
);
-- What the worker looks for: rows not yet archived, oldest first.
CREATE INDEX invoice_archive_pending ON invoice_archive (run_after) WHERE document_id IS NULL;

-- +goose StatementBegin
CREATE FUNCTION invoice_archive_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'an invoice''s archive is kept' USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.company_id, NEW.invoice_id, NEW.kind, NEW.queued_at)
       IS DISTINCT FROM (OLD.company_id, OLD.invoice_id, OLD.kind, OLD.queued_at)
       OR OLD.document_id IS NOT NULL THEN
        RAISE EXCEPTION 'an invoice is archived once, and its archive never changes' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER invoice_archive_guard BEFORE UPDATE OR DELETE ON invoice_archive
    FOR EACH ROW EXECUTE FUNCTION invoice_archive_guard();
CREATE TRIGGER invoice_archive_no_truncate BEFORE TRUNCATE ON invoice_archive
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON invoice_archive FROM kontera_app;

-- The logo the company's documents carry (PUT/DELETE
-- /settings/invoice-logo): PNG or JPEG, at most 512 KB, kept in the row
-- since it is read with every render and is small.
CREATE TABLE company_logos (
    company_id uuid        PRIMARY KEY REFERENCES companies (id),
    mime_type  text        NOT NULL CHECK (mime_type IN ('image/png', 'image/jpeg')),
    bytes      bytea       NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 524288),
    sha256     text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    width      integer     NOT NULL CHECK (width > 0),
    height     integer     NOT NULL CHECK (height > 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE company_logos;
DROP TABLE invoice_archive;
DROP FUNCTION invoice_archive_guard();
