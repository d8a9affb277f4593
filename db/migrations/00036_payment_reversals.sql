-- Payments undone (issue 21). A payment's verifikat stornoed through the
-- ledger (uncategorize of a bank match, or reverse on the journal entry)
-- undoes the payment: the payments tables stay append-only, so the undoing
-- is a row of its own, the original's amounts negated, naming it
-- (reverses_id, once each). What is paid follows the payments as before,
-- and the invoice moves back: paid to partially paid or open.
--
-- The bank's matches settle several invoices in one verifikat
-- (match-batch): a payment row names that verifikat, and a storno of it
-- undoes every payment it booked.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE invoice_payments ADD COLUMN reverses_id uuid,
    ADD FOREIGN KEY (company_id, reverses_id) REFERENCES invoice_payments (company_id, id),
    ADD CONSTRAINT invoice_payments_reverses_once UNIQUE (company_id, reverses_id);
CREATE INDEX invoice_payments_entry ON invoice_payments (company_id, journal_entry_id) WHERE journal_entry_id IS NOT NULL;

ALTER TABLE supplier_invoice_payments ADD COLUMN reverses_id uuid,
    ADD FOREIGN KEY (company_id, reverses_id) REFERENCES supplier_invoice_payments (company_id, id),
    ADD CONSTRAINT supplier_invoice_payments_reverses_once UNIQUE (company_id, reverses_id);
CREATE INDEX supplier_invoice_payments_entry ON supplier_invoice_payments (company_id, journal_entry_id)
    WHERE journal_entry_id IS NOT NULL;

-- The moves of an invoice: 00019's, and back from paid or partially paid
-- when a payment is undone (the guard holds the status to what is paid).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION invoices_moves(old_status text, new_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT (old_status, new_status) IN (
        ('draft', 'sent'), ('draft', 'cancelled'),
        ('sent', 'partially_paid'), ('sent', 'paid'), ('partially_paid', 'paid'),
        ('sent', 'credited'), ('partially_paid', 'credited'), ('paid', 'credited'),
        ('paid', 'partially_paid'), ('paid', 'sent'), ('partially_paid', 'sent'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION invoices_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    paid numeric(18, 2);
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.status <> 'draft' OR OLD.invoice_number IS NOT NULL THEN
            RAISE EXCEPTION 'INVOICE_DELETE_NOT_DRAFT: only an unnumbered draft is deleted; a numbered one is cancelled'
                USING ERRCODE = 'restrict_violation',
                      DETAIL = json_build_object('invoice_id', OLD.id, 'status', OLD.status)::text;
        END IF;
        RETURN OLD;
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'draft' THEN
            RAISE EXCEPTION 'an invoice begins as a draft' USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.paid_amount <> 0 THEN
            RAISE EXCEPTION 'what is paid follows the payments' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.document_type, NEW.customer_id, NEW.currency, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.document_type, OLD.customer_id, OLD.currency, OLD.created_at)
       OR NEW.credited_invoice_id IS DISTINCT FROM OLD.credited_invoice_id
       OR (OLD.invoice_number IS NOT NULL AND NEW.invoice_number IS DISTINCT FROM OLD.invoice_number)
       OR (OLD.source_quote_id IS NOT NULL AND NEW.source_quote_id IS DISTINCT FROM OLD.source_quote_id)
       OR (OLD.journal_entry_id IS NOT NULL AND NEW.journal_entry_id IS DISTINCT FROM OLD.journal_entry_id) THEN
        RAISE EXCEPTION 'an invoice''s identity, number and verifikat never change' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'draft' AND (NEW.customer_name, NEW.invoice_date, NEW.due_date, NEW.delivery_date, NEW.valid_until,
            NEW.exchange_rate, NEW.vat_treatment, NEW.vat_treatment_override, NEW.delivery_country, NEW.ore_rounding,
            NEW.subtotal, NEW.vat_amount, NEW.rounding_amount, NEW.total, NEW.deduction_total, NEW.total_sek,
            NEW.ocr_reference, NEW.your_reference, NEW.our_reference, NEW.invoice_marking, NEW.notes,
            NEW.default_dimensions, NEW.booking_deferred, NEW.sent_at, NEW.cancelled_at, NEW.rot_deduction,
            NEW.deduction_housing_designation, NEW.deduction_apartment_number, NEW.deduction_brf_org_number)
       IS DISTINCT FROM (OLD.customer_name, OLD.invoice_date, OLD.due_date, OLD.delivery_date, OLD.valid_until,
            OLD.exchange_rate, OLD.vat_treatment, OLD.vat_treatment_override, OLD.delivery_country, OLD.ore_rounding,
            OLD.subtotal, OLD.vat_amount, OLD.rounding_amount, OLD.total, OLD.deduction_total, OLD.total_sek,
            OLD.ocr_reference, OLD.your_reference, OLD.our_reference, OLD.invoice_marking, OLD.notes,
            OLD.default_dimensions, OLD.booking_deferred, OLD.sent_at, OLD.cancelled_at, OLD.rot_deduction,
            OLD.deduction_housing_designation, OLD.deduction_apartment_number, OLD.deduction_brf_org_number) THEN
        RAISE EXCEPTION 'INVOICE_UPDATE_NOT_DRAFT: an issued invoice is not changed; credit it'
            USING ERRCODE = 'restrict_violation', DETAIL = json_build_object('invoice_id', OLD.id, 'status', OLD.status)::text;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT invoices_moves(OLD.status, NEW.status) THEN
        RAISE EXCEPTION 'an invoice does not move from % to %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.paid_amount IS DISTINCT FROM OLD.paid_amount OR NEW.status IS DISTINCT FROM OLD.status THEN
        SELECT coalesce(sum(amount), 0) INTO paid FROM invoice_payments
        WHERE company_id = NEW.company_id AND invoice_id = NEW.id AND source <> 'rot_rut_payout';
        IF NEW.paid_amount <> paid THEN
            RAISE EXCEPTION 'what is paid follows the payments (%, not %)', paid, NEW.paid_amount
                USING ERRCODE = 'check_violation';
        END IF;
        -- The CASE is in parentheses: PL/pgSQL would take its first THEN
        -- for the IF's.
        IF NEW.status IN ('sent', 'partially_paid', 'paid') AND NEW.status <> (CASE
                WHEN NEW.paid_amount = 0 THEN 'sent' -- nothing paid, or nothing to pay
                WHEN NEW.paid_amount = NEW.total - NEW.deduction_total THEN 'paid'
                ELSE 'partially_paid' END) THEN
            RAISE EXCEPTION 'an invoice with % of % paid is not %', NEW.paid_amount, NEW.total - NEW.deduction_total, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status IN ('sent', 'partially_paid') AND NEW.paid_at IS NOT NULL THEN
            RAISE EXCEPTION 'only a paid invoice has a day it was paid' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- A payment is of an issued invoice and carries the invoice's sign; an
-- undoing is of a payment of the same invoice not yet undone, its amounts
-- negated, while the invoice is not credited.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION invoice_payments_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    i record;
    o record;
BEGIN
    SELECT status, total, document_type INTO i FROM invoices WHERE company_id = NEW.company_id AND id = NEW.invoice_id;
    IF NEW.reverses_id IS NOT NULL THEN
        SELECT invoice_id, amount, amount_sek, source, reverses_id INTO o FROM invoice_payments
        WHERE company_id = NEW.company_id AND id = NEW.reverses_id;
        IF o.invoice_id <> NEW.invoice_id OR o.reverses_id IS NOT NULL OR o.source = 'credit_note'
           OR (NEW.amount, NEW.amount_sek, NEW.source) IS DISTINCT FROM (-o.amount, -o.amount_sek, o.source)
           OR i.status NOT IN ('sent', 'partially_paid', 'paid') THEN
            RAISE EXCEPTION 'an undoing negates a payment of an invoice standing' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF i.document_type <> 'invoice' OR i.status NOT IN ('sent', 'partially_paid', 'paid', 'credited')
       OR sign(NEW.amount) <> sign(i.total) THEN
        RAISE EXCEPTION 'a payment is of an issued invoice, in the sign of its total' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- A supplier invoice moves back from paid or partially paid when a
-- payment is undone: to partially paid, approved or registered.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION supplier_invoices_moves(old_status text, new_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT (old_status, new_status) IN (
        ('registered', 'approved'), ('registered', 'partially_paid'), ('registered', 'paid'),
        ('approved', 'partially_paid'), ('approved', 'paid'), ('partially_paid', 'paid'),
        ('registered', 'disputed'), ('approved', 'disputed'), ('partially_paid', 'disputed'),
        ('disputed', 'registered'), ('disputed', 'approved'), ('disputed', 'partially_paid'),
        ('registered', 'credited'), ('approved', 'credited'), ('partially_paid', 'credited'), ('paid', 'credited'),
        ('disputed', 'credited'), ('credited', 'registered'), ('credited', 'approved'),
        ('credited', 'partially_paid'), ('credited', 'paid'), ('registered', 'reversed'), ('approved', 'reversed'),
        ('partially_paid', 'reversed'), ('paid', 'reversed'), ('disputed', 'reversed'),
        ('paid', 'partially_paid'), ('paid', 'approved'), ('paid', 'registered'),
        ('partially_paid', 'approved'), ('partially_paid', 'registered'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION supplier_invoice_payments_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    i record;
    o record;
BEGIN
    SELECT status, total INTO i FROM supplier_invoices WHERE company_id = NEW.company_id AND id = NEW.supplier_invoice_id;
    IF NEW.reverses_id IS NOT NULL THEN
        SELECT supplier_invoice_id, amount, amount_sek, booked_sek, source, reverses_id INTO o FROM supplier_invoice_payments
        WHERE company_id = NEW.company_id AND id = NEW.reverses_id;
        IF o.supplier_invoice_id <> NEW.supplier_invoice_id OR o.reverses_id IS NOT NULL
           OR o.source IN ('credit_note', 'private')
           OR (NEW.amount, NEW.amount_sek, NEW.booked_sek, NEW.source)
              IS DISTINCT FROM (-o.amount, -o.amount_sek, -o.booked_sek, o.source)
           OR i.status NOT IN ('partially_paid', 'paid') THEN
            RAISE EXCEPTION 'an undoing negates a payment of a supplier invoice standing' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF i.status NOT IN ('registered', 'approved', 'partially_paid') OR sign(NEW.amount) <> sign(i.total) THEN
        RAISE EXCEPTION 'a payment is of an open supplier invoice, in the sign of its total' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose Down
-- The functions are put back as they behaved (invoices_guard keeps asking
-- invoices_moves, which answers 00019's moves).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION invoices_moves(old_status text, new_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT (old_status, new_status) IN (
        ('draft', 'sent'), ('draft', 'cancelled'),
        ('sent', 'partially_paid'), ('sent', 'paid'), ('partially_paid', 'paid'),
        ('sent', 'credited'), ('partially_paid', 'credited'), ('paid', 'credited'))
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION invoice_payments_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    i record;
BEGIN
    SELECT status, total, document_type INTO i FROM invoices WHERE company_id = NEW.company_id AND id = NEW.invoice_id;
    IF i.document_type <> 'invoice' OR i.status NOT IN ('sent', 'partially_paid', 'paid', 'credited')
       OR sign(NEW.amount) <> sign(i.total) THEN
        RAISE EXCEPTION 'a payment is of an issued invoice, in the sign of its total' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION supplier_invoices_moves(old_status text, new_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT (old_status, new_status) IN (
        ('registered', 'approved'), ('registered', 'partially_paid'), ('registered', 'paid'),
        ('approved', 'partially_paid'), ('approved', 'paid'), ('partially_paid', 'paid'),
        ('registered', 'disputed'), ('approved', 'disputed'), ('partially_paid', 'disputed'),
        ('disputed', 'registered'), ('disputed', 'approved'), ('disputed', 'partially_paid'),
        ('registered', 'credited'), ('approved', 'credited'), ('partially_paid', 'credited'), ('paid', 'credited'),
        ('disputed', 'credited'), ('credited', 'registered'), ('credited', 'approved'),
        ('credited', 'partially_paid'), ('credited', 'paid'), ('registered', 'reversed'), ('approved', 'reversed'),
        ('partially_paid', 'reversed'), ('paid', 'reversed'), ('disputed', 'reversed'))
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION supplier_invoice_payments_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    i record;
BEGIN
    SELECT status, total INTO i FROM supplier_invoices WHERE company_id = NEW.company_id AND id = NEW.supplier_invoice_id;
    IF i.status NOT IN ('registered', 'approved', 'partially_paid') OR sign(NEW.amount) <> sign(i.total) THEN
        RAISE EXCEPTION 'a payment is of an open supplier invoice, in the sign of its total' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
DROP INDEX supplier_invoice_payments_entry, invoice_payments_entry;
ALTER TABLE supplier_invoice_payments DROP COLUMN reverses_id;
ALTER TABLE invoice_payments DROP COLUMN reverses_id;
