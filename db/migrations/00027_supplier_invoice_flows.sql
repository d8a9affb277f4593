-- Supplier invoices' later life (issue 19): credit notes and their undoing,
-- disputes, prepaid costs released month by month, and the exchange rates
-- foreign invoices are registered at.
--
-- A credit note settles what its original still owed at once: a payment
-- row of source credit_note on the credit note, on no account and with no
-- verifikat of its own (the credit verifikat books it). What the original
-- had been paid stays on the credit note, as money the supplier owes back.
-- An undone credit note is reversed, whatever of it had been settled.
--
-- A line with an accrual period was debited to a 17xx account when its
-- invoice was booked; supplier_invoice_accruals is the schedule that
-- moves it to cost, one row a month: released once (a verifikat), or
-- cancelled once by a credit note, and brought back if that credit note
-- is undone.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE supplier_invoice_payments DROP CONSTRAINT supplier_invoice_payments_source_check;
ALTER TABLE supplier_invoice_payments ADD CONSTRAINT supplier_invoice_payments_source_check
    CHECK (source IN ('manual', 'bank', 'private', 'credit_note'));
ALTER TABLE supplier_invoice_payments ALTER COLUMN account_number DROP NOT NULL;
ALTER TABLE supplier_invoice_payments ADD CHECK ((source = 'credit_note') = (account_number IS NULL));
ALTER TABLE supplier_invoices ADD COLUMN disputed_from text CHECK (disputed_from IN ('registered', 'approved', 'partially_paid'));
ALTER TABLE supplier_invoices ADD CHECK ((status = 'disputed') = (disputed_from IS NOT NULL));

-- A reversed invoice or credit note no longer holds its number, nor its
-- original: the invoice may be registered again, credited again.
-- (The constraints' names were cut to PostgreSQL's 63 bytes: found by
-- what they hold.)
-- +goose StatementBegin
DO $$
DECLARE
    c text;
BEGIN
    FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'supplier_invoices'::regclass AND contype = 'u'
            AND (pg_get_constraintdef(oid) LIKE '%supplier_invoice_number%' OR pg_get_constraintdef(oid) LIKE '%credited_invoice_id%') LOOP
        EXECUTE format('ALTER TABLE supplier_invoices DROP CONSTRAINT %I', c);
    END LOOP;
END $$;
-- +goose StatementEnd
CREATE UNIQUE INDEX supplier_invoices_number ON supplier_invoices (company_id, supplier_id, is_credit_note, supplier_invoice_number)
    WHERE status <> 'reversed';
CREATE UNIQUE INDEX supplier_invoices_credit_note ON supplier_invoices (company_id, credited_invoice_id)
    WHERE status <> 'reversed';

-- The state machine of 00026, with a partially settled credit note (or a
-- partially paid invoice whose registration is stornoed) reversible too.
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

CREATE TABLE supplier_invoice_accruals (
    company_id          uuid           NOT NULL,
    supplier_invoice_id uuid           NOT NULL,
    item_id             uuid           NOT NULL,
    month               date           NOT NULL CHECK (extract(day FROM month) = 1),
    release_date        date           NOT NULL,
    amount              numeric(18, 2) NOT NULL CHECK (amount <> 0),
    balance_account     text           NOT NULL CHECK (balance_account ~ '^17[0-9]{2}$'),
    journal_entry_id    uuid,
    cancelled_by        uuid,
    PRIMARY KEY (company_id, item_id, month),
    FOREIGN KEY (company_id, supplier_invoice_id) REFERENCES supplier_invoices (company_id, id),
    FOREIGN KEY (company_id, item_id) REFERENCES supplier_invoice_items (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id) DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (company_id, cancelled_by) REFERENCES supplier_invoices (company_id, id),
    CHECK (NOT (cancelled_by IS NOT NULL AND journal_entry_id IS NOT NULL))
);
CREATE INDEX supplier_invoice_accruals_due ON supplier_invoice_accruals (release_date, company_id)
    WHERE journal_entry_id IS NULL AND cancelled_by IS NULL;
CREATE INDEX supplier_invoice_accruals_invoice ON supplier_invoice_accruals (company_id, supplier_invoice_id);

-- A month is released once; cancelled by a credit note, and brought back
-- only when that credit note is undone; otherwise never changed.
-- +goose StatementBegin
CREATE FUNCTION supplier_invoice_accruals_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.company_id, NEW.supplier_invoice_id, NEW.item_id, NEW.month, NEW.release_date, NEW.amount, NEW.balance_account)
       IS DISTINCT FROM (OLD.company_id, OLD.supplier_invoice_id, OLD.item_id, OLD.month, OLD.release_date, OLD.amount,
            OLD.balance_account)
       OR OLD.journal_entry_id IS NOT NULL
       OR (OLD.cancelled_by IS NOT NULL AND NEW.cancelled_by IS NOT NULL)
       OR (OLD.cancelled_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM supplier_invoices c
            WHERE c.company_id = OLD.company_id AND c.id = OLD.cancelled_by AND c.status = 'reversed')) THEN
        RAISE EXCEPTION 'an accrual month is released or cancelled once, and is otherwise never changed'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER supplier_invoice_accruals_guard BEFORE UPDATE ON supplier_invoice_accruals
    FOR EACH ROW EXECUTE FUNCTION supplier_invoice_accruals_guard();
CREATE TRIGGER supplier_invoice_accruals_no_truncate BEFORE TRUNCATE ON supplier_invoice_accruals
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON supplier_invoice_accruals FROM kontera_app;

-- Exchange rates: SEK per one unit of a currency on a day, as the
-- Riksbank published it (or an operator loaded it). A day's rate, once
-- known, is kept: what was booked at it can always be explained.
CREATE TABLE fx_rates (
    currency   text           NOT NULL CHECK (currency IN ('EUR', 'USD', 'GBP', 'NOK', 'DKK', 'CHF')),
    day        date           NOT NULL,
    rate       numeric(12, 6) NOT NULL CHECK (rate > 0 AND rate < 100000),
    source     text           NOT NULL CHECK (source IN ('riksbank', 'file')),
    fetched_at timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (currency, day)
);
REVOKE UPDATE, DELETE ON fx_rates FROM kontera_app;
CREATE TRIGGER fx_rates_no_truncate BEFORE TRUNCATE ON fx_rates
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- +goose Down
DROP TABLE fx_rates;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION supplier_invoices_guard() RETURNS trigger
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
DROP TABLE supplier_invoice_accruals;
DROP FUNCTION supplier_invoice_accruals_guard();
ALTER TABLE supplier_invoices DROP COLUMN disputed_from;
DROP FUNCTION supplier_invoices_moves(text, text);
DROP INDEX supplier_invoices_number, supplier_invoices_credit_note;
ALTER TABLE supplier_invoices ADD UNIQUE (company_id, supplier_id, is_credit_note, supplier_invoice_number),
    ADD UNIQUE (company_id, credited_invoice_id);
ALTER TABLE supplier_invoice_payments DROP CONSTRAINT supplier_invoice_payments_source_check;
ALTER TABLE supplier_invoice_payments ADD CONSTRAINT supplier_invoice_payments_source_check
    CHECK (source IN ('manual', 'bank', 'private'));
