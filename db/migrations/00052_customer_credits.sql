-- Customer credits and short payments (issue 47): money a customer paid beyond what an
-- invoice asked is the customer's, a debt kept on 2420 (förskott från
-- kunder) until it is applied to a later invoice of theirs or paid back.
-- It is kept off 1510: a debt to a customer is not netted against what
-- customers owe (årsredovisningslagen 2 kap. 4 § 6, kvittningsförbud),
-- and the kundreskontra stays equal to 1510. Each credit and each use of
-- it is a row written forwards only, with the verifikat that booked it.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE customer_credits (
    company_id       uuid           NOT NULL,
    id               uuid           NOT NULL,
    customer_id      uuid           NOT NULL,
    invoice_id       uuid           NOT NULL, -- the invoice the money was paid for
    currency         text           NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    amount           numeric(18, 2) NOT NULL CHECK (amount > 0),     -- in currency
    amount_sek       numeric(18, 2) NOT NULL CHECK (amount_sek > 0), -- what 2420 was credited
    credit_date      date           NOT NULL,
    journal_entry_id uuid           NOT NULL,
    created_at       timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id) DEFERRABLE INITIALLY DEFERRED,
    CHECK (currency <> 'SEK' OR amount = amount_sek)
);
CREATE INDEX customer_credits_customer ON customer_credits (company_id, customer_id, created_at);
CREATE INDEX customer_credits_entry ON customer_credits (company_id, journal_entry_id);

-- A use takes part of a credit: applied to an invoice, refunded from a
-- cash account, or reversed with the verifikat that made the credit; a
-- restoring row (negative) gives back a use whose verifikat was stornoed.
CREATE TABLE customer_credit_uses (
    company_id       uuid           NOT NULL,
    id               uuid           NOT NULL,
    credit_id        uuid           NOT NULL,
    kind             text           NOT NULL CHECK (kind IN ('applied', 'refunded', 'reversed', 'restored')),
    invoice_id       uuid,          -- applied to
    account_number   text CHECK (account_number ~ '^[0-9]{4}$'), -- refunded from
    amount           numeric(18, 2) NOT NULL,
    amount_sek       numeric(18, 2) NOT NULL,
    use_date         date           NOT NULL,
    journal_entry_id uuid           NOT NULL,
    reverses_id      uuid,
    created_at       timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, credit_id) REFERENCES customer_credits (company_id, id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, reverses_id) REFERENCES customer_credit_uses (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id) DEFERRABLE INITIALLY DEFERRED,
    CHECK ((kind = 'applied') = (invoice_id IS NOT NULL)),
    CHECK ((kind = 'refunded') = (account_number IS NOT NULL)),
    CHECK ((kind = 'restored') = (reverses_id IS NOT NULL)),
    CHECK (CASE WHEN kind = 'restored' THEN amount < 0 AND amount_sek <= 0 ELSE amount > 0 AND amount_sek >= 0 END)
);
CREATE INDEX customer_credit_uses_credit ON customer_credit_uses (company_id, credit_id, created_at);
CREATE INDEX customer_credit_uses_entry ON customer_credit_uses (company_id, journal_entry_id);
CREATE UNIQUE INDEX customer_credit_uses_restored ON customer_credit_uses (company_id, reverses_id) WHERE reverses_id IS NOT NULL;

-- What is used of a credit never passes what it holds, in the currency
-- and in kronor; what takes the last of it takes the last krona too, so
-- 2420 is left with nothing of it. A restoring row gives back exactly a
-- use of the same credit.
-- +goose StatementBegin
CREATE FUNCTION customer_credit_uses_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    c record;
    used numeric(18, 2);
    used_sek numeric(18, 2);
    o record;
BEGIN
    SELECT amount, amount_sek INTO c FROM customer_credits WHERE company_id = NEW.company_id AND id = NEW.credit_id FOR UPDATE;
    IF NEW.kind = 'restored' THEN
        SELECT credit_id, amount, amount_sek, kind INTO o FROM customer_credit_uses
        WHERE company_id = NEW.company_id AND id = NEW.reverses_id;
        IF o.credit_id <> NEW.credit_id OR o.kind NOT IN ('applied', 'refunded')
           OR (NEW.amount, NEW.amount_sek) IS DISTINCT FROM (-o.amount, -o.amount_sek) THEN
            RAISE EXCEPTION 'a restoring row gives back a use of the same credit' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    SELECT coalesce(sum(amount), 0) + NEW.amount, coalesce(sum(amount_sek), 0) + NEW.amount_sek INTO used, used_sek
    FROM customer_credit_uses WHERE company_id = NEW.company_id AND credit_id = NEW.credit_id;
    IF used > c.amount OR used_sek > c.amount_sek OR (used = c.amount) <> (used_sek = c.amount_sek) THEN
        RAISE EXCEPTION 'CUSTOMER_CREDIT_EXCEEDED: a credit of % (% kr) cannot give % (% kr)', c.amount, c.amount_sek, used, used_sek
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER customer_credit_uses_guard BEFORE INSERT ON customer_credit_uses
    FOR EACH ROW EXECUTE FUNCTION customer_credit_uses_guard();

-- A credit's row is locked (FOR UPDATE) while a use of it is written, so
-- the application keeps UPDATE on it; the trigger refuses every change.
-- +goose StatementBegin
CREATE FUNCTION customer_credits_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a customer credit is never changed; its uses take from it' USING ERRCODE = 'check_violation';
END $$;
-- +goose StatementEnd
CREATE TRIGGER customer_credits_guard BEFORE UPDATE OR DELETE ON customer_credits
    FOR EACH ROW EXECUTE FUNCTION customer_credits_guard();
REVOKE DELETE ON customer_credits FROM kontera_app;
REVOKE UPDATE, DELETE ON customer_credit_uses FROM kontera_app;
CREATE TRIGGER customer_credits_no_truncate BEFORE TRUNCATE ON customer_credits
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
CREATE TRIGGER customer_credit_uses_no_truncate BEFORE TRUNCATE ON customer_credit_uses
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- A payment from a customer's credit is a payment of the invoice.
ALTER TABLE invoice_payments DROP CONSTRAINT invoice_payments_source_check;
ALTER TABLE invoice_payments ADD CONSTRAINT invoice_payments_source_check
    CHECK (source IN ('manual', 'bank', 'rot_rut_payout', 'credit_note', 'customer_credit'));

-- A payment short of an invoice by at most this many kronor closes it,
-- the difference written off (3740 below a krona, else 6570); null is 0.
ALTER TABLE company_settings ADD COLUMN short_payment_write_off_limit numeric(18, 2)
    CHECK (short_payment_write_off_limit >= 0 AND short_payment_write_off_limit <= 10000);

-- +goose Down
ALTER TABLE company_settings DROP COLUMN short_payment_write_off_limit;
ALTER TABLE invoice_payments DROP CONSTRAINT invoice_payments_source_check;
ALTER TABLE invoice_payments ADD CONSTRAINT invoice_payments_source_check
    CHECK (source IN ('manual', 'bank', 'rot_rut_payout', 'credit_note'));
DROP TABLE customer_credit_uses, customer_credits;
DROP FUNCTION customer_credit_uses_guard(), customer_credits_guard();
