-- Invoices out of the door (issue 18), part four: Peppol e-invoices.
--
-- A customer's Peppol participant identifier, scheme:value (0007
-- organisationsnummer, 0088 GLN, 9955 Swedish VAT number); null falls
-- back to 0007:<org number> for a Swedish business.
--
-- peppol_deliveries is both the queue and the record of what was sent
-- over Peppol: send-peppol archives the UBL document and writes its row
-- in the transaction that issues the invoice; after the commit a worker
-- submits it to the access point and follows it: queued → submitted →
-- delivered | rejected | failed. failed with a next_attempt_at is tried
-- again; without one it is final. What was sent (document, sender,
-- receiver) never changes, and a row is never removed.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE customers ADD COLUMN peppol_id text
    CHECK (peppol_id ~ '^(0007:[0-9]{10}|0088:[0-9]{13}|9955:SE[0-9]{12})$');

CREATE TABLE peppol_deliveries (
    company_id      uuid        NOT NULL REFERENCES companies (id),
    id              uuid        NOT NULL,
    invoice_id      uuid        NOT NULL,
    document_id     uuid        NOT NULL,
    status          text        NOT NULL DEFAULT 'queued'
                                CHECK (status IN ('queued', 'submitted', 'delivered', 'rejected', 'failed')),
    provider        text        NOT NULL CHECK (octet_length(provider) <= 50),
    sender          text        NOT NULL CHECK (octet_length(sender) <= 100),
    receiver        text        NOT NULL CHECK (octet_length(receiver) <= 100),
    document_type   text        NOT NULL CHECK (document_type IN ('invoice', 'credit_note')),
    transmission_id text        CHECK (octet_length(transmission_id) <= 200),
    attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    error_code      text        CHECK (error_code IN ('PEPPOL_SUBMISSION_REJECTED', 'PEPPOL_SUBMISSION_FAILED')),
    error_message   text        CHECK (octet_length(error_message) <= 2000),
    next_attempt_at timestamptz DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now(),
    submitted_at    timestamptz,
    delivered_at    timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, document_id) REFERENCES documents (company_id, id),
    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
    CHECK (status NOT IN ('delivered', 'rejected') OR next_attempt_at IS NULL)
);
-- One delivery under way or done per invoice: a rejected or finally
-- failed one may be followed by another.
CREATE UNIQUE INDEX peppol_deliveries_live ON peppol_deliveries (company_id, invoice_id)
    WHERE status IN ('queued', 'submitted', 'delivered') OR (status = 'failed' AND next_attempt_at IS NOT NULL);
-- What the worker looks for.
CREATE INDEX peppol_deliveries_due ON peppol_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX peppol_deliveries_invoice ON peppol_deliveries (company_id, invoice_id, created_at);

-- +goose StatementBegin
CREATE FUNCTION peppol_deliveries_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'an e-invoice delivery is kept' USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.company_id, NEW.id, NEW.invoice_id, NEW.document_id, NEW.provider, NEW.sender, NEW.receiver,
            NEW.document_type, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.invoice_id, OLD.document_id, OLD.provider, OLD.sender,
            OLD.receiver, OLD.document_type, OLD.created_at) THEN
        RAISE EXCEPTION 'an e-invoice is delivered as it was sent' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status IN ('delivered', 'rejected') OR (OLD.status = 'failed' AND OLD.next_attempt_at IS NULL)
       OR NOT (OLD.status, NEW.status) IN (
            ('queued', 'queued'), ('queued', 'submitted'), ('queued', 'rejected'), ('queued', 'failed'),
            ('failed', 'failed'), ('failed', 'submitted'), ('failed', 'rejected'),
            ('submitted', 'submitted'), ('submitted', 'delivered'), ('submitted', 'rejected'), ('submitted', 'failed')) THEN
        RAISE EXCEPTION 'an e-invoice delivery does not move from % to %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER peppol_deliveries_guard BEFORE UPDATE OR DELETE ON peppol_deliveries
    FOR EACH ROW EXECUTE FUNCTION peppol_deliveries_guard();
CREATE TRIGGER peppol_deliveries_no_truncate BEFORE TRUNCATE ON peppol_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON peppol_deliveries FROM kontera_app;

-- +goose Down
DROP TABLE peppol_deliveries;
DROP FUNCTION peppol_deliveries_guard();
ALTER TABLE customers DROP COLUMN peppol_id;
