-- Customer invoices (issue 17): quotes, proformas, delivery notes,
-- invoices and credit notes, their lines and their payments.
--
-- A draft is the invoicing package's to change. Once an invoice leaves
-- draft (issued, or cancelled as a numbered draft: makulering) what it
-- says is fixed: its number, customer, dates, currency, lines and
-- amounts never change again; only its state moves, along the edges of
-- 000 "Customer invoice status", its verifikat is named once (a deferred
-- booking), and what has been paid follows its payments, which are
-- written forwards and never changed or removed. A credit note is an
-- invoice of its own, with the amounts negated, naming what it credits.
--
-- Overdue is not stored: it is sent or partially paid, due before today
-- (Europe/Stockholm) with something left to pay (invoices_overdue).
-- Expired quotes are derived the same way (invoices_quote_expired).
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE invoices (
    company_id          uuid          NOT NULL REFERENCES companies (id),
    id                  uuid          NOT NULL DEFAULT gen_random_uuid(),
    document_type       text          NOT NULL CHECK (document_type IN ('invoice', 'proforma', 'delivery_note', 'quote')),
    invoice_number      text          CHECK (octet_length(invoice_number) BETWEEN 1 AND 64),
    customer_id         uuid          NOT NULL,
    customer_name       text          NOT NULL CHECK (length(btrim(customer_name)) BETWEEN 1 AND 200),
    status              text          NOT NULL DEFAULT 'draft' CHECK (status IN
                                          ('draft', 'sent', 'partially_paid', 'paid', 'cancelled', 'credited')),
    invoice_date        date          NOT NULL,
    due_date            date          NOT NULL,
    delivery_date       date,
    valid_until         date,
    quote_status        text          CHECK (quote_status IN ('open', 'accepted', 'declined')),
    quote_decided_at    timestamptz,
    currency            text          NOT NULL CHECK (currency IN ('SEK', 'EUR', 'USD', 'GBP', 'NOK', 'DKK', 'CHF')),
    exchange_rate       numeric(12, 6) CHECK (exchange_rate > 0 AND exchange_rate < 100000),
    vat_treatment       text          NOT NULL CHECK (vat_treatment IN
                                          ('standard', 'eu_services', 'eu_goods', 'export_goods', 'export_services')),
    vat_treatment_override boolean    NOT NULL DEFAULT false,
    delivery_country    text          CHECK (delivery_country ~ '^[A-Z]{2}$'),
    ore_rounding        boolean       NOT NULL DEFAULT false,
    subtotal            numeric(18, 2) NOT NULL,
    vat_amount          numeric(18, 2) NOT NULL,
    rounding_amount     numeric(18, 2) NOT NULL DEFAULT 0 CHECK (abs(rounding_amount) <= 0.50),
    total               numeric(18, 2) NOT NULL,
    deduction_total     numeric(18, 2) NOT NULL DEFAULT 0,
    paid_amount         numeric(18, 2) NOT NULL DEFAULT 0,
    total_sek           numeric(18, 2),
    ocr_reference       text          CHECK (ocr_reference ~ '^[0-9]{2,25}$'),
    your_reference      text          CHECK (octet_length(your_reference) <= 200),
    our_reference       text          CHECK (octet_length(our_reference) <= 200),
    invoice_marking     text          CHECK (octet_length(invoice_marking) <= 200),
    notes               text          CHECK (octet_length(notes) <= 4000),
    default_dimensions  jsonb         NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(default_dimensions) = 'object'),
    booking_deferred    boolean       NOT NULL DEFAULT false,
    journal_entry_id    uuid,
    credited_invoice_id uuid,
    source_quote_id     uuid,
    sent_at             timestamptz,
    paid_at             date,
    cancelled_at        timestamptz,
    created_at          timestamptz   NOT NULL DEFAULT now(),
    updated_at          timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, credited_invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, source_quote_id) REFERENCES invoices (company_id, id),
    -- Numbers are the company's, once each; an invoice is credited once
    -- (whole) and a quote invoiced once.
    UNIQUE (company_id, invoice_number),
    UNIQUE (company_id, credited_invoice_id),
    UNIQUE (company_id, source_quote_id),
    CHECK (due_date >= invoice_date),
    CHECK ((document_type = 'quote') = (quote_status IS NOT NULL)),
    CHECK (document_type <> 'quote' OR valid_until IS NOT NULL),
    CHECK (quote_decided_at IS NULL OR quote_status IN ('accepted', 'declined')),
    -- Quotes and delivery notes are never issued, booked or paid.
    CHECK (document_type IN ('invoice', 'proforma') OR status IN ('draft', 'cancelled')),
    CHECK (credited_invoice_id IS NULL OR document_type = 'invoice'),
    CHECK (status = 'draft' OR invoice_number IS NOT NULL),
    CHECK (status <> 'cancelled' OR cancelled_at IS NOT NULL),
    CHECK (currency <> 'SEK' OR exchange_rate IS NULL),
    CHECK (status IN ('draft', 'cancelled') OR document_type <> 'invoice' OR currency = 'SEK' OR exchange_rate IS NOT NULL),
    CHECK (subtotal + vat_amount + rounding_amount = total),
    -- A credit note's amounts are its original's negated: every amount
    -- of an invoice has the sign of its total, and what has been paid
    -- (or refunded) is no more than what is owed.
    CHECK (sign(subtotal) * sign(total) >= 0 AND sign(deduction_total) * sign(total) >= 0
           AND sign(paid_amount) * sign(total) >= 0),
    CHECK (abs(deduction_total) <= abs(total) AND abs(paid_amount) <= abs(total - deduction_total)),
    CHECK (credited_invoice_id IS NOT NULL OR total >= 0),
    CHECK (journal_entry_id IS NULL OR status NOT IN ('draft', 'cancelled'))
);
-- The list, newest first; a customer's invoices (the list's filter, and
-- the open ones that hold the customer).
CREATE INDEX invoices_created ON invoices (company_id, created_at DESC, id);
CREATE INDEX invoices_customer ON invoices (company_id, customer_id, created_at DESC);

CREATE TABLE invoice_items (
    company_id            uuid          NOT NULL,
    invoice_id            uuid          NOT NULL,
    id                    uuid          NOT NULL DEFAULT gen_random_uuid(),
    sort_order            integer       NOT NULL CHECK (sort_order BETWEEN 0 AND 999),
    line_type             text          NOT NULL DEFAULT 'product' CHECK (line_type IN ('product', 'text')),
    description           text          NOT NULL CHECK (octet_length(description) BETWEEN 1 AND 1000),
    quantity              numeric(18, 4) NOT NULL,
    unit                  text          NOT NULL CHECK (octet_length(unit) BETWEEN 1 AND 20),
    unit_price            numeric(18, 2) NOT NULL,
    discount_percent      numeric(7, 4) NOT NULL DEFAULT 0 CHECK (discount_percent BETWEEN 0 AND 100),
    vat_rate              numeric(3, 2) NOT NULL CHECK (vat_rate IN (0, 0.06, 0.12, 0.25)),
    revenue_account       text,
    deduction_type        text          CHECK (deduction_type IN ('rot', 'rut')),
    labor_hours           numeric(9, 2) CHECK (labor_hours >= 0),
    work_type             text          CHECK (octet_length(work_type) <= 100),
    accrual_period_start  date,
    accrual_period_end    date,
    accrual_balance_account text,
    dimensions            jsonb         NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    net_amount            numeric(18, 2) NOT NULL,
    vat_amount            numeric(18, 2) NOT NULL,
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, invoice_id, sort_order),
    -- The accounts are checked against the chart when the invoice is
    -- booked: a BAS account joins a company's chart when first used.
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id) ON DELETE CASCADE,
    CHECK (revenue_account ~ '^3[0-9]{3}$'),
    CHECK (accrual_balance_account ~ '^29[0-9]{2}$'),
    -- A credit note's lines are its original's with the quantity negated.
    CHECK (quantity <> 0 AND unit_price >= 0 AND sign(net_amount) * sign(quantity) >= 0
           AND sign(vat_amount) * sign(quantity) >= 0),
    CHECK (line_type = 'product' OR (net_amount = 0 AND vat_amount = 0 AND deduction_type IS NULL)),
    CHECK ((accrual_period_start IS NULL) = (accrual_period_end IS NULL)),
    CHECK (accrual_period_end >= accrual_period_start),
    CHECK (accrual_balance_account IS NULL OR accrual_period_start IS NOT NULL)
);

CREATE TABLE invoice_payments (
    company_id       uuid          NOT NULL,
    invoice_id       uuid          NOT NULL,
    id               uuid          NOT NULL DEFAULT gen_random_uuid(),
    payment_date     date          NOT NULL,
    amount           numeric(18, 2) NOT NULL CHECK (amount <> 0),
    amount_sek       numeric(18, 2) NOT NULL,
    exchange_rate    numeric(12, 6) CHECK (exchange_rate > 0 AND exchange_rate < 100000),
    account_number   text          NOT NULL,
    source           text          NOT NULL CHECK (source IN ('manual', 'bank', 'rot_rut_payout')),
    notes            text          CHECK (octet_length(notes) <= 1000),
    journal_entry_id uuid,
    created_at       timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, account_number) REFERENCES accounts (company_id, account_number),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    CHECK (sign(amount_sek) * sign(amount) >= 0)
);
CREATE INDEX invoice_payments_invoice ON invoice_payments (company_id, invoice_id, created_at);

-- The own gapless series of quotes (OF-n), proformas (PF-n) and delivery
-- notes (D-n), numbered at create; invoices take the company's
-- next_invoice_number when issued.
CREATE TABLE invoice_series (
    company_id  uuid    NOT NULL REFERENCES companies (id),
    series      text    NOT NULL CHECK (series IN ('OF', 'PF', 'D')),
    last_number integer NOT NULL CHECK (last_number BETWEEN 1 AND 999999999),
    PRIMARY KEY (company_id, series)
);

-- Is the invoice overdue on day today: sent or partially paid, due before
-- it, with something left to pay?
-- +goose StatementBegin
CREATE FUNCTION invoices_overdue(status text, due_date date, total numeric, deduction_total numeric,
    paid_amount numeric, today date) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT status IN ('sent', 'partially_paid') AND due_date < today AND total - deduction_total - paid_amount <> 0
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION invoices_guard() RETURNS trigger
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

CREATE TRIGGER invoices_guard BEFORE INSERT OR UPDATE OR DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION invoices_guard();

-- A line changes only while its invoice is a draft: a credit note, too,
-- is written as a draft with its lines and then issued.
-- +goose StatementBegin
CREATE FUNCTION invoice_items_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    i record;
BEGIN
    SELECT status INTO i FROM invoices
    WHERE company_id = coalesce(NEW.company_id, OLD.company_id) AND id = coalesce(NEW.invoice_id, OLD.invoice_id);
    IF NOT FOUND THEN
        RETURN coalesce(NEW, OLD); -- the invoice is being deleted: its lines go with it
    END IF;
    IF i.status <> 'draft' THEN
        RAISE EXCEPTION 'INVOICE_UPDATE_NOT_DRAFT: the lines of an issued invoice never change'
            USING ERRCODE = 'restrict_violation', DETAIL = json_build_object('status', i.status)::text;
    END IF;
    IF TG_OP = 'UPDATE' AND (NEW.company_id, NEW.invoice_id, NEW.id) IS DISTINCT FROM (OLD.company_id, OLD.invoice_id, OLD.id) THEN
        RAISE EXCEPTION 'a line stays on its invoice' USING ERRCODE = 'check_violation';
    END IF;
    RETURN coalesce(NEW, OLD);
END $$;
-- +goose StatementEnd

CREATE TRIGGER invoice_items_guard BEFORE INSERT OR UPDATE OR DELETE ON invoice_items
    FOR EACH ROW EXECUTE FUNCTION invoice_items_guard();

-- A payment is of an issued invoice and carries the invoice's sign.
-- +goose StatementBegin
CREATE FUNCTION invoice_payments_guard() RETURNS trigger
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

CREATE TRIGGER invoice_payments_guard BEFORE INSERT ON invoice_payments
    FOR EACH ROW EXECUTE FUNCTION invoice_payments_guard();

-- Series only count up.
-- +goose StatementBegin
CREATE FUNCTION invoice_series_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.last_number <> OLD.last_number + 1 OR (NEW.company_id, NEW.series) IS DISTINCT FROM (OLD.company_id, OLD.series) THEN
        RAISE EXCEPTION 'a series only counts up, one at a time' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER invoice_series_guard BEFORE UPDATE ON invoice_series
    FOR EACH ROW EXECUTE FUNCTION invoice_series_guard();

-- Payments are written forwards only; series are never removed.
REVOKE UPDATE, DELETE ON invoice_payments FROM kontera_app;
REVOKE DELETE ON invoice_series FROM kontera_app;

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['invoices', 'invoice_items', 'invoice_payments', 'invoice_series'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate()',
            t || '_no_truncate', t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE invoice_series, invoice_payments, invoice_items, invoices;
DROP FUNCTION invoice_series_guard();
DROP FUNCTION invoice_payments_guard();
DROP FUNCTION invoice_items_guard();
DROP FUNCTION invoices_guard();
DROP FUNCTION invoices_overdue(text, date, numeric, numeric, numeric, date);
