-- ROT and RUT on customer invoices (issue 17). Skatteverket pays the
-- deduction to the company (1513) on the customer's behalf; what it needs
-- to know of the home is kept with the invoice, the personnummer stays
-- sealed with the customer. rot_deduction is the ROT part of
-- deduction_total (the rest is RUT): the yearly ceilings are reckoned on
-- it. Like every other fact of an invoice they are fixed once it leaves
-- draft, so the guard now names them.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE invoices
    ADD COLUMN rot_deduction numeric(18, 2) NOT NULL DEFAULT 0,
    ADD COLUMN deduction_housing_designation text CHECK (octet_length(deduction_housing_designation) BETWEEN 1 AND 100),
    ADD COLUMN deduction_apartment_number text CHECK (octet_length(deduction_apartment_number) BETWEEN 1 AND 20),
    ADD COLUMN deduction_brf_org_number text CHECK (deduction_brf_org_number ~ '^[0-9]{6}-?[0-9]{4}$'),
    ADD CONSTRAINT invoices_rot_deduction_check
        CHECK (sign(rot_deduction) * sign(deduction_total) >= 0 AND abs(rot_deduction) <= abs(deduction_total));

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
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT (OLD.status, NEW.status) IN (
            ('draft', 'sent'), ('draft', 'cancelled'),
            ('sent', 'partially_paid'), ('sent', 'paid'), ('partially_paid', 'paid'),
            ('sent', 'credited'), ('partially_paid', 'credited'), ('paid', 'credited')) THEN
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
    END IF;
    RETURN NEW;
END $$;

-- +goose StatementEnd

-- +goose Down
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
            NEW.default_dimensions, NEW.booking_deferred, NEW.sent_at, NEW.cancelled_at)
       IS DISTINCT FROM (OLD.customer_name, OLD.invoice_date, OLD.due_date, OLD.delivery_date, OLD.valid_until,
            OLD.exchange_rate, OLD.vat_treatment, OLD.vat_treatment_override, OLD.delivery_country, OLD.ore_rounding,
            OLD.subtotal, OLD.vat_amount, OLD.rounding_amount, OLD.total, OLD.deduction_total, OLD.total_sek,
            OLD.ocr_reference, OLD.your_reference, OLD.our_reference, OLD.invoice_marking, OLD.notes,
            OLD.default_dimensions, OLD.booking_deferred, OLD.sent_at, OLD.cancelled_at) THEN
        RAISE EXCEPTION 'INVOICE_UPDATE_NOT_DRAFT: an issued invoice is not changed; credit it'
            USING ERRCODE = 'restrict_violation', DETAIL = json_build_object('invoice_id', OLD.id, 'status', OLD.status)::text;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT (OLD.status, NEW.status) IN (
            ('draft', 'sent'), ('draft', 'cancelled'),
            ('sent', 'partially_paid'), ('sent', 'paid'), ('partially_paid', 'paid'),
            ('sent', 'credited'), ('partially_paid', 'credited'), ('paid', 'credited')) THEN
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
    END IF;
    RETURN NEW;
END $$;

-- +goose StatementEnd
ALTER TABLE invoices DROP CONSTRAINT invoices_rot_deduction_check, DROP COLUMN deduction_brf_org_number,
    DROP COLUMN deduction_apartment_number, DROP COLUMN deduction_housing_designation, DROP COLUMN rot_deduction;
