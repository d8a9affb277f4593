-- Invoices out of the door (issue 18), part three: payment reminders.
-- A reminder is sent once per invoice and level; its fee (påminnelse-
-- avgift) and interest (dröjsmålsränta) are claims on the customer, not
-- booked when claimed: a payment above what is left of the invoice pays
-- them, booked on 3990 and 8313, and invoice_charge_payments records
-- what of them each payment took. Both tables are append-only.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE invoice_reminders (
    company_id    uuid           NOT NULL,
    invoice_id    uuid           NOT NULL,
    level         integer        NOT NULL CHECK (level BETWEEN 1 AND 3),
    sent_on       date           NOT NULL,
    days_overdue  integer        NOT NULL CHECK (days_overdue >= 0),
    remaining     numeric(18, 2) NOT NULL CHECK (remaining > 0),
    fee           numeric(18, 2) NOT NULL DEFAULT 0 CHECK (fee >= 0 AND fee <= 60),
    interest      numeric(18, 2) NOT NULL DEFAULT 0 CHECK (interest >= 0),
    interest_rate numeric(5, 2)  CHECK (interest_rate >= 0),
    email_id      uuid,
    created_at    timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, invoice_id, level),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, email_id) REFERENCES outgoing_emails (company_id, id)
);

CREATE TABLE invoice_charge_payments (
    company_id uuid           NOT NULL,
    invoice_id uuid           NOT NULL,
    payment_id uuid           NOT NULL,
    fee        numeric(18, 2) NOT NULL CHECK (fee >= 0),
    interest   numeric(18, 2) NOT NULL CHECK (interest >= 0),
    created_at timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, payment_id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, payment_id) REFERENCES invoice_payments (company_id, id),
    CHECK (fee + interest > 0)
);
CREATE INDEX invoice_charge_payments_invoice ON invoice_charge_payments (company_id, invoice_id);

-- +goose StatementBegin
CREATE FUNCTION reminders_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'check_violation';
END $$;
-- +goose StatementEnd

CREATE TRIGGER invoice_reminders_append_only BEFORE UPDATE OR DELETE ON invoice_reminders
    FOR EACH ROW EXECUTE FUNCTION reminders_append_only();
CREATE TRIGGER invoice_charge_payments_append_only BEFORE UPDATE OR DELETE ON invoice_charge_payments
    FOR EACH ROW EXECUTE FUNCTION reminders_append_only();
CREATE TRIGGER invoice_reminders_no_truncate BEFORE TRUNCATE ON invoice_reminders
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
CREATE TRIGGER invoice_charge_payments_no_truncate BEFORE TRUNCATE ON invoice_charge_payments
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE UPDATE, DELETE ON invoice_reminders, invoice_charge_payments FROM kontera_app;

-- +goose Down
DROP TABLE invoice_charge_payments;
DROP TABLE invoice_reminders;
DROP FUNCTION reminders_append_only();
