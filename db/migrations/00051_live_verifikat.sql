-- An invoice follows its verifikat when it is corrected or redated, and
-- a supplier payment can be undone after its invoice was (issue 47). Rättelse and redate reverse a verifikat and post its
-- replacement (correction_of_id naming it); the customer or supplier
-- invoice booked by it named the reversed one until now. The guards that
-- keep an invoice's verifikat from changing now let it move to the
-- replacement of the one it names, and to nothing else.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- The invoices a verifikat booked, found by it when it is replaced.
CREATE INDEX invoices_entry ON invoices (company_id, journal_entry_id) WHERE journal_entry_id IS NOT NULL;
CREATE INDEX supplier_invoices_registration ON supplier_invoices (company_id, registration_journal_entry_id)
    WHERE registration_journal_entry_id IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION journal_entry_replaces(company uuid, replacement uuid, original uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM journal_entries e WHERE e.company_id = company AND e.id = replacement
                   AND e.correction_of_id = original AND e.status = 'posted')
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION supplier_invoices_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    paid_fields CONSTANT text[] := ARRAY['paid_amount', 'paid_booked_sek', 'paid_at', 'payment_journal_entry_id', 'updated_at'];
    paid numeric(18, 2);
    booked numeric(18, 2);
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.registration_journal_entry_id IS NOT NULL OR OLD.paid_amount <> 0 OR OLD.is_credit_note
           OR OLD.status NOT IN ('registered', 'approved')
           OR EXISTS (SELECT 1 FROM supplier_invoice_accruals WHERE company_id = OLD.company_id
                      AND supplier_invoice_id = OLD.id) THEN
            RAISE EXCEPTION 'SI_DELETE_HAS_BOOKING: a booked, paid or credited supplier invoice stays'
                USING ERRCODE = 'restrict_violation',
                      DETAIL = json_build_object('supplier_invoice_id', OLD.id, 'status', OLD.status)::text;
        END IF;
        RETURN OLD;
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'registered' OR NEW.paid_amount <> 0 OR NEW.paid_booked_sek <> 0 THEN
            RAISE EXCEPTION 'a supplier invoice is registered unpaid; its payments pay it' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.supplier_id, NEW.supplier_name, NEW.arrival_number, NEW.is_credit_note,
            NEW.credited_invoice_id, NEW.currency, NEW.exchange_rate, NEW.vat_treatment, NEW.reverse_charge,
            NEW.ore_rounding, NEW.subtotal, NEW.vat_amount, NEW.rounding_amount, NEW.total, NEW.total_sek,
            NEW.cash_method, NEW.booking_deferred, NEW.paid_with_private_funds, NEW.employee_id, NEW.claimant_name,
            NEW.default_dimensions, NEW.document_id, NEW.received_date, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.supplier_id, OLD.supplier_name, OLD.arrival_number, OLD.is_credit_note,
            OLD.credited_invoice_id, OLD.currency, OLD.exchange_rate, OLD.vat_treatment, OLD.reverse_charge,
            OLD.ore_rounding, OLD.subtotal, OLD.vat_amount, OLD.rounding_amount, OLD.total, OLD.total_sek,
            OLD.cash_method, OLD.booking_deferred, OLD.paid_with_private_funds, OLD.employee_id, OLD.claimant_name,
            OLD.default_dimensions, OLD.document_id, OLD.received_date, OLD.created_at)
       OR (OLD.registration_journal_entry_id IS NOT NULL
           AND NEW.registration_journal_entry_id IS DISTINCT FROM OLD.registration_journal_entry_id
           AND NOT journal_entry_replaces(NEW.company_id, NEW.registration_journal_entry_id,
                                          OLD.registration_journal_entry_id)) THEN
        RAISE EXCEPTION 'a supplier invoice''s identity, amounts and verifikat never change' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.registration_journal_entry_id IS NOT NULL
       AND (NEW.invoice_date, NEW.supplier_invoice_number) IS DISTINCT FROM (OLD.invoice_date, OLD.supplier_invoice_number) THEN
        RAISE EXCEPTION 'SI_EDIT_VERIFIKAT_LOCKED: the date and number of a booked supplier invoice are its verifikat''s'
            USING ERRCODE = 'restrict_violation', DETAIL = json_build_object('supplier_invoice_id', OLD.id)::text;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT supplier_invoices_moves(OLD.status, NEW.status) THEN
        RAISE EXCEPTION 'a supplier invoice does not move from % to %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    -- A payment of it may still be undone (its verifikat stornoed): what
    -- is paid follows the payments, and the invoice stays reversed.
    IF OLD.status IN ('reversed') AND to_jsonb(NEW) - paid_fields IS DISTINCT FROM to_jsonb(OLD) - paid_fields THEN
        RAISE EXCEPTION 'a reversed supplier invoice stays as it is' USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.paid_amount, NEW.paid_booked_sek) IS DISTINCT FROM (OLD.paid_amount, OLD.paid_booked_sek)
       OR NEW.status IS DISTINCT FROM OLD.status THEN
        SELECT coalesce(sum(amount), 0), coalesce(sum(booked_sek), 0) INTO paid, booked FROM supplier_invoice_payments
        WHERE company_id = NEW.company_id AND supplier_invoice_id = NEW.id;
        IF (NEW.paid_amount, NEW.paid_booked_sek) IS DISTINCT FROM (paid, booked) THEN
            RAISE EXCEPTION 'what is paid follows the payments (%, not %)', paid, NEW.paid_amount
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status IN ('registered', 'approved', 'partially_paid', 'paid') AND (NEW.status = 'paid') <> (paid = NEW.total) THEN
            RAISE EXCEPTION 'a supplier invoice with % of % paid is not %', paid, NEW.total, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status = 'partially_paid' AND paid = 0 THEN
            RAISE EXCEPTION 'nothing is paid of it' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;
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
       OR (OLD.journal_entry_id IS NOT NULL AND NEW.journal_entry_id IS DISTINCT FROM OLD.journal_entry_id
           AND NOT journal_entry_replaces(NEW.company_id, NEW.journal_entry_id, OLD.journal_entry_id)) THEN
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

-- The storno of a supplier payment after its invoice's registration was
-- stornoed undoes the payment: the invoice stays reversed, and nothing
-- is left paid of it.
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
           OR i.status NOT IN ('partially_paid', 'paid', 'reversed') THEN
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION supplier_invoices_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    paid numeric(18, 2);
    booked numeric(18, 2);
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.registration_journal_entry_id IS NOT NULL OR OLD.paid_amount <> 0 OR OLD.is_credit_note
           OR OLD.status NOT IN ('registered', 'approved')
           OR EXISTS (SELECT 1 FROM supplier_invoice_accruals WHERE company_id = OLD.company_id
                      AND supplier_invoice_id = OLD.id) THEN
            RAISE EXCEPTION 'SI_DELETE_HAS_BOOKING: a booked, paid or credited supplier invoice stays'
                USING ERRCODE = 'restrict_violation',
                      DETAIL = json_build_object('supplier_invoice_id', OLD.id, 'status', OLD.status)::text;
        END IF;
        RETURN OLD;
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'registered' OR NEW.paid_amount <> 0 OR NEW.paid_booked_sek <> 0 THEN
            RAISE EXCEPTION 'a supplier invoice is registered unpaid; its payments pay it' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.company_id, NEW.id, NEW.supplier_id, NEW.supplier_name, NEW.arrival_number, NEW.is_credit_note,
            NEW.credited_invoice_id, NEW.currency, NEW.exchange_rate, NEW.vat_treatment, NEW.reverse_charge,
            NEW.ore_rounding, NEW.subtotal, NEW.vat_amount, NEW.rounding_amount, NEW.total, NEW.total_sek,
            NEW.cash_method, NEW.booking_deferred, NEW.paid_with_private_funds, NEW.employee_id, NEW.claimant_name,
            NEW.default_dimensions, NEW.document_id, NEW.received_date, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.supplier_id, OLD.supplier_name, OLD.arrival_number, OLD.is_credit_note,
            OLD.credited_invoice_id, OLD.currency, OLD.exchange_rate, OLD.vat_treatment, OLD.reverse_charge,
            OLD.ore_rounding, OLD.subtotal, OLD.vat_amount, OLD.rounding_amount, OLD.total, OLD.total_sek,
            OLD.cash_method, OLD.booking_deferred, OLD.paid_with_private_funds, OLD.employee_id, OLD.claimant_name,
            OLD.default_dimensions, OLD.document_id, OLD.received_date, OLD.created_at)
       OR (OLD.registration_journal_entry_id IS NOT NULL
           AND NEW.registration_journal_entry_id IS DISTINCT FROM OLD.registration_journal_entry_id) THEN
        RAISE EXCEPTION 'a supplier invoice''s identity, amounts and verifikat never change' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.registration_journal_entry_id IS NOT NULL
       AND (NEW.invoice_date, NEW.supplier_invoice_number) IS DISTINCT FROM (OLD.invoice_date, OLD.supplier_invoice_number) THEN
        RAISE EXCEPTION 'SI_EDIT_VERIFIKAT_LOCKED: the date and number of a booked supplier invoice are its verifikat''s'
            USING ERRCODE = 'restrict_violation', DETAIL = json_build_object('supplier_invoice_id', OLD.id)::text;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT supplier_invoices_moves(OLD.status, NEW.status) THEN
        RAISE EXCEPTION 'a supplier invoice does not move from % to %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status IN ('reversed') AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'a reversed supplier invoice stays as it is' USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.paid_amount, NEW.paid_booked_sek) IS DISTINCT FROM (OLD.paid_amount, OLD.paid_booked_sek)
       OR NEW.status IS DISTINCT FROM OLD.status THEN
        SELECT coalesce(sum(amount), 0), coalesce(sum(booked_sek), 0) INTO paid, booked FROM supplier_invoice_payments
        WHERE company_id = NEW.company_id AND supplier_invoice_id = NEW.id;
        IF (NEW.paid_amount, NEW.paid_booked_sek) IS DISTINCT FROM (paid, booked) THEN
            RAISE EXCEPTION 'what is paid follows the payments (%, not %)', paid, NEW.paid_amount
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status IN ('registered', 'approved', 'partially_paid', 'paid') AND (NEW.status = 'paid') <> (paid = NEW.total) THEN
            RAISE EXCEPTION 'a supplier invoice with % of % paid is not %', paid, NEW.total, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status = 'partially_paid' AND paid = 0 THEN
            RAISE EXCEPTION 'nothing is paid of it' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;
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

DROP FUNCTION journal_entry_replaces(uuid, uuid, uuid);
DROP INDEX invoices_entry, supplier_invoices_registration;
