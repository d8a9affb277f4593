-- The invoice inbox (issue 19): documents that came in to be booked, as
-- uploads (upload_source email or api, not yet underlag) or as e-mail to
-- the company's inbound address, each read for what it says. An item is
-- converted into a supplier invoice once, stamped as the underlag of a
-- verifikat once, or discarded while neither; its reading may be
-- corrected, its supplier matched. inbox_messages remembers the
-- Message-IDs taken, so a message delivered twice adds nothing.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE inbox_items (
    company_id                  uuid        NOT NULL REFERENCES companies (id),
    id                          uuid        NOT NULL,
    status                      text        NOT NULL CHECK (status IN ('received', 'error')),
    source                      text        NOT NULL CHECK (source IN ('email', 'upload', 'api')),
    document_id                 uuid,
    file_name                   text        CHECK (octet_length(file_name) <= 1000),
    kind_hint                   text        NOT NULL DEFAULT 'unknown'
                                            CHECK (kind_hint IN ('invoice', 'credit_note', 'receipt', 'unknown')),
    vendor_name                 text        CHECK (octet_length(vendor_name) <= 1000),
    amount                      numeric(18, 2),
    currency                    text        CHECK (currency IN ('SEK', 'EUR', 'USD', 'GBP', 'NOK', 'DKK', 'CHF')),
    invoice_date                date,
    extracted_data              jsonb       CHECK (jsonb_typeof(extracted_data) = 'object'),
    extraction_skipped          boolean     NOT NULL DEFAULT false,
    matched_supplier_id         uuid,
    matched_transaction_id      uuid,
    created_supplier_invoice_id uuid,
    created_journal_entry_id    uuid,
    email_from                  text        CHECK (octet_length(email_from) <= 1000),
    email_subject               text        CHECK (octet_length(email_subject) <= 2000),
    email_received_at           timestamptz,
    email_body_text             text        CHECK (octet_length(email_body_text) <= 400000),
    email_message_id            text        CHECK (octet_length(email_message_id) <= 1000),
    error_message               text        CHECK (octet_length(error_message) <= 2000),
    created_at                  timestamptz NOT NULL DEFAULT now(),
    updated_at                  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    -- A document deleted takes its item along (the item's guard keeps
    -- one something came of, and with it the document).
    FOREIGN KEY (company_id, document_id) REFERENCES documents (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, matched_supplier_id) REFERENCES suppliers (company_id, id),
    FOREIGN KEY (company_id, created_supplier_invoice_id) REFERENCES supplier_invoices (company_id, id)
        DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (company_id, created_journal_entry_id) REFERENCES journal_entries (company_id, id)
        DEFERRABLE INITIALLY DEFERRED,
    UNIQUE (company_id, document_id),
    CHECK ((status = 'error') = (error_message IS NOT NULL)),
    CHECK (status = 'error' OR document_id IS NOT NULL)
);
CREATE INDEX inbox_items_created ON inbox_items (company_id, created_at DESC, id);

CREATE TABLE inbox_messages (
    company_id  uuid        NOT NULL REFERENCES companies (id),
    message_id  text        NOT NULL CHECK (octet_length(message_id) BETWEEN 1 AND 1000),
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, message_id)
);
REVOKE UPDATE, DELETE ON inbox_messages FROM kontera_app;

-- An item is converted or stamped once; what it came as (its source,
-- document and e-mail) never changes; one converted, stamped or booked
-- stays.
-- +goose StatementBegin
CREATE FUNCTION inbox_items_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.created_supplier_invoice_id IS NOT NULL OR OLD.created_journal_entry_id IS NOT NULL
           OR EXISTS (SELECT 1 FROM documents d WHERE d.company_id = OLD.company_id AND d.id = OLD.document_id
                      AND d.journal_entry_id IS NOT NULL) THEN
            RAISE EXCEPTION 'a converted, stamped or booked inbox item stays' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.source, NEW.document_id, NEW.file_name, NEW.email_from, NEW.email_subject,
            NEW.email_received_at, NEW.email_body_text, NEW.email_message_id, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.source, OLD.document_id, OLD.file_name, OLD.email_from,
            OLD.email_subject, OLD.email_received_at, OLD.email_body_text, OLD.email_message_id, OLD.created_at)
       OR (OLD.created_supplier_invoice_id IS NOT NULL
           AND NEW.created_supplier_invoice_id IS DISTINCT FROM OLD.created_supplier_invoice_id)
       OR (OLD.created_journal_entry_id IS NOT NULL
           AND NEW.created_journal_entry_id IS DISTINCT FROM OLD.created_journal_entry_id) THEN
        RAISE EXCEPTION 'what an inbox item came as, and what it became, never change' USING ERRCODE = 'check_violation';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER inbox_items_guard BEFORE UPDATE OR DELETE ON inbox_items
    FOR EACH ROW EXECUTE FUNCTION inbox_items_guard();
CREATE TRIGGER inbox_items_no_truncate BEFORE TRUNCATE ON inbox_items
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- +goose Down
DROP TABLE inbox_messages;
DROP TABLE inbox_items;
DROP FUNCTION inbox_items_guard();
