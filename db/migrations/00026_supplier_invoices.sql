-- Supplier invoices (issue 19): leverantörsfakturor and the supplier's
-- credit notes, their lines and their payments.
--
-- An invoice is registered whole: its supplier, arrival number, amounts,
-- lines and currency never change after. What moves is its state, along
-- the edges of 000 "Supplier invoice status"; the verifikat of its
-- registration is named once (at create, or by book when deferred); what
-- has been paid follows its payments, which are written forwards and
-- never changed or removed. Arrival numbers (ankomstnummer) are the
-- company's, gapless: taken from company_settings.next_arrival_number in
-- the create's transaction, so a rollback gives the number back.
--
-- Overdue is not stored: open, due before today (Europe/Stockholm) with
-- something left to pay (supplier_invoices_overdue).
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE supplier_invoices (
    company_id              uuid          NOT NULL REFERENCES companies (id),
    id                      uuid          NOT NULL DEFAULT gen_random_uuid(),
    supplier_id             uuid          NOT NULL,
    supplier_name           text          NOT NULL CHECK (length(btrim(supplier_name)) BETWEEN 1 AND 200),
    arrival_number          integer       NOT NULL CHECK (arrival_number BETWEEN 1 AND 999999999),
    supplier_invoice_number text          NOT NULL CHECK (length(btrim(supplier_invoice_number)) BETWEEN 1 AND 100),
    is_credit_note          boolean       NOT NULL DEFAULT false,
    credited_invoice_id     uuid,
    status                  text          NOT NULL DEFAULT 'registered' CHECK (status IN
                                              ('registered', 'approved', 'partially_paid', 'paid', 'disputed', 'credited', 'reversed')),
    invoice_date            date          NOT NULL,
    due_date                date          NOT NULL,
    received_date           date          NOT NULL,
    delivery_date           date,
    currency                text          NOT NULL CHECK (currency IN ('SEK', 'EUR', 'USD', 'GBP', 'NOK', 'DKK', 'CHF')),
    exchange_rate           numeric(12, 6) CHECK (exchange_rate > 0 AND exchange_rate < 100000),
    vat_treatment           text          NOT NULL CHECK (vat_treatment IN
                                              ('standard_25', 'reduced_12', 'reduced_6', 'reverse_charge', 'export', 'exempt')),
    reverse_charge          boolean       NOT NULL,
    payment_reference       text          CHECK (octet_length(payment_reference) <= 100),
    notes                   text          CHECK (octet_length(notes) <= 4000),
    ore_rounding            boolean       NOT NULL DEFAULT false,
    subtotal                numeric(18, 2) NOT NULL,
    vat_amount              numeric(18, 2) NOT NULL,
    rounding_amount         numeric(18, 2) NOT NULL DEFAULT 0 CHECK (abs(rounding_amount) <= 0.50),
    total                   numeric(18, 2) NOT NULL,
    total_sek               numeric(18, 2) NOT NULL,
    paid_amount             numeric(18, 2) NOT NULL DEFAULT 0,
    paid_booked_sek         numeric(18, 2) NOT NULL DEFAULT 0,
    cash_method             boolean       NOT NULL,
    booking_deferred        boolean       NOT NULL DEFAULT false,
    registration_journal_entry_id uuid,
    payment_journal_entry_id uuid,
    document_id             uuid,
    inbox_item_id           uuid,
    paid_with_private_funds boolean       NOT NULL DEFAULT false,
    employee_id             uuid,
    claimant_name           text          CHECK (octet_length(claimant_name) <= 200),
    default_dimensions      jsonb         NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(default_dimensions) = 'object'),
    approved_at             timestamptz,
    bank_entered_at         timestamptz,
    paid_at                 date,
    created_at              timestamptz   NOT NULL DEFAULT now(),
    updated_at              timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, supplier_id) REFERENCES suppliers (company_id, id),
    FOREIGN KEY (company_id, credited_invoice_id) REFERENCES supplier_invoices (company_id, id),
    FOREIGN KEY (company_id, document_id) REFERENCES documents (company_id, id),
    -- Named before they are posted (the engine writes its rows first and
    -- posts last); checked at commit.
    FOREIGN KEY (company_id, registration_journal_entry_id) REFERENCES journal_entries (company_id, id)
        DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (company_id, payment_journal_entry_id) REFERENCES journal_entries (company_id, id)
        DEFERRABLE INITIALLY DEFERRED,
    UNIQUE (company_id, arrival_number),
    -- A supplier's number is registered once; a credit note once per
    -- invoice; a document is underlag of one supplier invoice.
    UNIQUE (company_id, supplier_id, is_credit_note, supplier_invoice_number),
    UNIQUE (company_id, credited_invoice_id),
    UNIQUE (company_id, document_id),
    CHECK (due_date >= invoice_date),
    CHECK (currency <> 'SEK' OR (exchange_rate IS NULL AND total_sek = total)),
    CHECK (currency = 'SEK' OR exchange_rate IS NOT NULL),
    CHECK (ore_rounding OR rounding_amount = 0),
    CHECK (subtotal + vat_amount + rounding_amount = total),
    CHECK (reverse_charge = (vat_treatment = 'reverse_charge')),
    CHECK (NOT reverse_charge OR vat_amount = 0),
    CHECK (is_credit_note = (credited_invoice_id IS NOT NULL)),
    -- A credit note's amounts are negative, an invoice's positive; what
    -- is paid has the sign of the total and is no more than it.
    CHECK (CASE WHEN is_credit_note THEN total < 0 ELSE total > 0 END),
    CHECK (sign(paid_amount) * sign(total) >= 0 AND abs(paid_amount) <= abs(total)),
    CHECK (NOT (cash_method AND booking_deferred)),
    CHECK (NOT cash_method OR registration_journal_entry_id IS NULL),
    CHECK (NOT paid_with_private_funds OR NOT reverse_charge),
    CHECK (employee_id IS NULL OR paid_with_private_funds)
);
CREATE INDEX supplier_invoices_created ON supplier_invoices (company_id, created_at DESC, id);
CREATE INDEX supplier_invoices_supplier ON supplier_invoices (company_id, supplier_id, created_at DESC);

CREATE TABLE supplier_invoice_items (
    company_id              uuid          NOT NULL,
    supplier_invoice_id     uuid          NOT NULL,
    id                      uuid          NOT NULL DEFAULT gen_random_uuid(),
    sort_order              integer       NOT NULL CHECK (sort_order BETWEEN 0 AND 999),
    description             text          NOT NULL CHECK (octet_length(description) BETWEEN 1 AND 1000),
    account_number          text          NOT NULL CHECK (account_number ~ '^[1-8][0-9]{3}$'),
    amount                  numeric(18, 2) NOT NULL CHECK (amount <> 0),
    vat_rate                numeric(3, 2) NOT NULL CHECK (vat_rate IN (0, 0.06, 0.12, 0.25)),
    vat_amount              numeric(18, 2) NOT NULL CHECK (sign(vat_amount) * sign(amount) >= 0),
    apply_slp               boolean       NOT NULL DEFAULT false CHECK (NOT apply_slp OR account_number LIKE '741_'),
    dimensions              jsonb         NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    accrual_period_start    date,
    accrual_period_end      date,
    accrual_balance_account text          CHECK (accrual_balance_account ~ '^17[0-9]{2}$'),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, supplier_invoice_id, sort_order),
    FOREIGN KEY (company_id, supplier_invoice_id) REFERENCES supplier_invoices (company_id, id) ON DELETE CASCADE,
    CHECK ((accrual_period_start IS NULL) = (accrual_period_end IS NULL)),
    CHECK ((accrual_period_start IS NULL) = (accrual_balance_account IS NULL)),
    CHECK (accrual_period_end >= accrual_period_start)
);

CREATE TABLE supplier_invoice_payments (
    company_id          uuid          NOT NULL,
    supplier_invoice_id uuid          NOT NULL,
    id                  uuid          NOT NULL DEFAULT gen_random_uuid(),
    payment_date        date          NOT NULL,
    amount              numeric(18, 2) NOT NULL CHECK (amount <> 0),
    amount_sek          numeric(18, 2) NOT NULL,
    booked_sek          numeric(18, 2) NOT NULL,
    exchange_rate       numeric(12, 6) CHECK (exchange_rate > 0 AND exchange_rate < 100000),
    account_number      text          NOT NULL,
    source              text          NOT NULL CHECK (source IN ('manual', 'bank', 'private')),
    notes               text          CHECK (octet_length(notes) <= 1000),
    journal_entry_id    uuid,
    created_at          timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, supplier_invoice_id) REFERENCES supplier_invoices (company_id, id),
    FOREIGN KEY (company_id, account_number) REFERENCES accounts (company_id, account_number),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id) DEFERRABLE INITIALLY DEFERRED,
    CHECK (sign(amount_sek) * sign(amount) >= 0 AND sign(booked_sek) * sign(amount) >= 0)
);
CREATE INDEX supplier_invoice_payments_invoice ON supplier_invoice_payments (company_id, supplier_invoice_id, created_at);

-- Is the supplier invoice overdue on day today: open, due before it,
-- with something left to pay?
-- +goose StatementBegin
CREATE FUNCTION supplier_invoices_overdue(status text, due_date date, total numeric, paid_amount numeric, today date)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT status IN ('registered', 'approved', 'partially_paid') AND due_date < today AND total - paid_amount <> 0
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION supplier_invoices_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    paid numeric(18, 2);
    booked numeric(18, 2);
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.registration_journal_entry_id IS NOT NULL OR OLD.paid_amount <> 0 OR OLD.is_credit_note
           OR OLD.status NOT IN ('registered', 'approved') THEN
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
    IF NEW.status IS DISTINCT FROM OLD.status AND NOT (OLD.status, NEW.status) IN (
            ('registered', 'approved'), ('registered', 'partially_paid'), ('registered', 'paid'),
            ('approved', 'partially_paid'), ('approved', 'paid'), ('partially_paid', 'paid'),
            ('registered', 'disputed'), ('approved', 'disputed'), ('partially_paid', 'disputed'),
            ('disputed', 'registered'), ('disputed', 'approved'), ('disputed', 'partially_paid'),
            ('registered', 'credited'), ('approved', 'credited'), ('partially_paid', 'credited'), ('paid', 'credited'),
            ('disputed', 'credited'), ('credited', 'registered'), ('credited', 'approved'),
            ('credited', 'partially_paid'), ('credited', 'paid'), ('registered', 'reversed'), ('approved', 'reversed'),
            ('paid', 'reversed')) THEN
        RAISE EXCEPTION 'a supplier invoice does not move from % to %', OLD.status, NEW.status USING ERRCODE = 'check_violation';
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

CREATE TRIGGER supplier_invoices_guard BEFORE INSERT OR UPDATE OR DELETE ON supplier_invoices
    FOR EACH ROW EXECUTE FUNCTION supplier_invoices_guard();

-- Lines are written with their invoice and never change: a wrong
-- account is corrected in the verifikat (rättelse), not here.
-- +goose StatementBegin
CREATE FUNCTION supplier_invoice_items_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM supplier_invoices
            WHERE company_id = OLD.company_id AND id = OLD.supplier_invoice_id) THEN
        RETURN OLD; -- the invoice is being deleted: its lines go with it
    END IF;
    IF TG_OP = 'UPDATE' AND (NEW.company_id, NEW.supplier_invoice_id, NEW.id, NEW.sort_order, NEW.description, NEW.amount,
            NEW.vat_rate, NEW.vat_amount, NEW.apply_slp, NEW.dimensions, NEW.accrual_period_start, NEW.accrual_period_end,
            NEW.accrual_balance_account)
       IS NOT DISTINCT FROM (OLD.company_id, OLD.supplier_invoice_id, OLD.id, OLD.sort_order, OLD.description, OLD.amount,
            OLD.vat_rate, OLD.vat_amount, OLD.apply_slp, OLD.dimensions, OLD.accrual_period_start, OLD.accrual_period_end,
            OLD.accrual_balance_account) THEN
        RETURN NEW; -- only the account moves, with its verifikat's rättelse
    END IF;
    RAISE EXCEPTION 'the lines of a supplier invoice never change' USING ERRCODE = 'restrict_violation';
END $$;
-- +goose StatementEnd

CREATE TRIGGER supplier_invoice_items_guard BEFORE UPDATE OR DELETE ON supplier_invoice_items
    FOR EACH ROW EXECUTE FUNCTION supplier_invoice_items_guard();

-- A payment is of an invoice standing open, in the sign of its total.
-- +goose StatementBegin
CREATE FUNCTION supplier_invoice_payments_guard() RETURNS trigger
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

CREATE TRIGGER supplier_invoice_payments_guard BEFORE INSERT ON supplier_invoice_payments
    FOR EACH ROW EXECUTE FUNCTION supplier_invoice_payments_guard();

REVOKE UPDATE, DELETE ON supplier_invoice_payments FROM kontera_app;

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['supplier_invoices', 'supplier_invoice_items', 'supplier_invoice_payments'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate()',
            t || '_no_truncate', t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE supplier_invoice_payments, supplier_invoice_items, supplier_invoices;
DROP FUNCTION supplier_invoice_payments_guard();
DROP FUNCTION supplier_invoice_items_guard();
DROP FUNCTION supplier_invoices_guard();
DROP FUNCTION supplier_invoices_overdue(text, date, numeric, numeric, date);
