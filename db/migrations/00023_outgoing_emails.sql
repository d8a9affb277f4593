-- Invoices out of the door (issue 18), part two: the mail outbox. A send
-- writes its e-mail here in the transaction that issues the invoice;
-- workers claim due rows after the commit (SKIP LOCKED) and record what
-- the mail server said. What was written to be sent never changes: the
-- addresses, the texts and the Message-ID a retry reuses. A sent or
-- dropped e-mail is final; a failed one may be queued again by hand.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE outgoing_emails (
    company_id      uuid        NOT NULL REFERENCES companies (id),
    id              uuid        NOT NULL,
    invoice_id      uuid,
    kind            text        NOT NULL CHECK (kind IN ('invoice', 'reminder')),
    reminder_level  integer     CHECK (reminder_level BETWEEN 1 AND 3),
    status          text        NOT NULL DEFAULT 'queued'
                                CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'dropped')),
    from_name       text        NOT NULL CHECK (octet_length(from_name) <= 300),
    reply_to        text        CHECK (octet_length(reply_to) <= 320),
    to_address      text        NOT NULL CHECK (octet_length(to_address) <= 320),
    cc              text[]      NOT NULL DEFAULT '{}' CHECK (cardinality(cc) <= 50),
    bcc             text[]      NOT NULL DEFAULT '{}' CHECK (cardinality(bcc) <= 50),
    subject         text        NOT NULL CHECK (octet_length(subject) <= 998),
    body            text        NOT NULL CHECK (octet_length(body) <= 100000),
    message_id      text        NOT NULL CHECK (octet_length(message_id) <= 400),
    transport       text,
    attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error      text        CHECK (octet_length(last_error) <= 2000),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    CHECK ((kind = 'reminder') = (reminder_level IS NOT NULL)),
    CHECK ((status IN ('sent', 'dropped')) = (sent_at IS NOT NULL))
);
-- What the workers look for: e-mails due, and sends whose worker died.
CREATE INDEX outgoing_emails_due ON outgoing_emails (next_attempt_at) WHERE status IN ('queued', 'sending');
CREATE INDEX outgoing_emails_invoice ON outgoing_emails (company_id, invoice_id, created_at);

-- +goose StatementBegin
CREATE FUNCTION outgoing_emails_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.company_id, NEW.id, NEW.invoice_id, NEW.kind, NEW.reminder_level, NEW.from_name, NEW.reply_to,
            NEW.to_address, NEW.cc, NEW.bcc, NEW.subject, NEW.body, NEW.message_id, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.invoice_id, OLD.kind, OLD.reminder_level, OLD.from_name,
            OLD.reply_to, OLD.to_address, OLD.cc, OLD.bcc, OLD.subject, OLD.body, OLD.message_id, OLD.created_at) THEN
        RAISE EXCEPTION 'an e-mail is sent as it was written' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status IN ('sent', 'dropped') OR NOT (OLD.status, NEW.status) IN (
            ('queued', 'queued'), ('queued', 'sending'), ('sending', 'sending'), ('sending', 'queued'),
            ('sending', 'sent'), ('sending', 'failed'), ('sending', 'dropped'), ('failed', 'queued')) THEN
        RAISE EXCEPTION 'an e-mail does not move from % to %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER outgoing_emails_guard BEFORE UPDATE ON outgoing_emails
    FOR EACH ROW EXECUTE FUNCTION outgoing_emails_guard();
CREATE TRIGGER outgoing_emails_no_truncate BEFORE TRUNCATE ON outgoing_emails
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON outgoing_emails FROM kontera_app;

-- +goose Down
DROP TABLE outgoing_emails;
DROP FUNCTION outgoing_emails_guard();
