-- Expense claims (utlägg, issue 50): what an employee or the owner paid
-- for the company out of their own pocket, booked when registered (the
-- cost and its input VAT against what the company owes them: 2820 an
-- employee, 2893 an aktiebolag's owner, 2018 an enskild firma's, 2890 a
-- förening's member) and paid back in payouts: several claims, one
-- verifikat debiting what was owed against a cash account.
--
-- A claim is registered, then paid or deleted (its verifikat stornoed);
-- what it says never changes. A paid claim changes only back to
-- registered when its payout's verifikat is stornoed; its verifikat only
-- to a rättelse of it. A payout is never changed but to record its
-- storno or its rättelse. Nothing is removed.
--
-- Online: safe. New tables and functions; nothing existing is rewritten
-- or locked.

-- +goose Up
CREATE TABLE expense_payouts (
    company_id           uuid           NOT NULL REFERENCES companies (id),
    id                   uuid           NOT NULL,
    payout_date          date           NOT NULL,
    cash_account         text           NOT NULL CHECK (cash_account ~ '^19[0-9]{2}$'),
    total_sek            numeric(14, 2) NOT NULL CHECK (total_sek > 0),
    claim_count          integer        NOT NULL CHECK (claim_count BETWEEN 1 AND 500),
    journal_entry_id     uuid           NOT NULL,
    notes                text           CHECK (char_length(notes) <= 2000),
    reversed_by_entry_id uuid,
    created_at           timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, reversed_by_entry_id) REFERENCES journal_entries (company_id, id)
);

CREATE TABLE expense_claims (
    company_id         uuid           NOT NULL REFERENCES companies (id),
    id                 uuid           NOT NULL,
    employee_id        uuid,
    claimant_name      text           NOT NULL CHECK (length(btrim(claimant_name)) BETWEEN 1 AND 200),
    description        text           NOT NULL CHECK (length(btrim(description)) BETWEEN 1 AND 500),
    expense_date       date           NOT NULL,
    currency           text           NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    amount_in_currency numeric(14, 2) NOT NULL CHECK (amount_in_currency > 0),
    vat_in_currency    numeric(14, 2) NOT NULL DEFAULT 0 CHECK (vat_in_currency >= 0 AND vat_in_currency < amount_in_currency),
    exchange_rate      numeric(14, 6) CHECK (exchange_rate > 0),
    amount_sek         numeric(14, 2) NOT NULL CHECK (amount_sek > 0),
    vat_sek            numeric(14, 2) NOT NULL CHECK (vat_sek >= 0 AND vat_sek < amount_sek),
    expense_account    text           NOT NULL CHECK (expense_account ~ '^[4-8][0-9]{3}$'),
    liability_account  text           NOT NULL CHECK (liability_account IN ('2820', '2893', '2018', '2890')),
    document_id        uuid,
    inbox_item_id      uuid,
    dimensions         jsonb          NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    status             text           NOT NULL DEFAULT 'registered' CHECK (status IN ('registered', 'paid', 'deleted')),
    journal_entry_id   uuid           NOT NULL,
    reversal_entry_id  uuid,
    payout_id          uuid,
    paid_at            timestamptz,
    created_at         timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, employee_id) REFERENCES employees (company_id, id),
    FOREIGN KEY (company_id, document_id) REFERENCES documents (company_id, id),
    FOREIGN KEY (company_id, inbox_item_id) REFERENCES inbox_items (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, reversal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, payout_id) REFERENCES expense_payouts (company_id, id),
    CHECK ((currency = 'SEK') = (exchange_rate IS NULL)),
    CHECK ((status = 'paid') = (payout_id IS NOT NULL AND paid_at IS NOT NULL)),
    CHECK ((status = 'deleted') = (reversal_entry_id IS NOT NULL))
);
CREATE INDEX expense_claims_list ON expense_claims (company_id, created_at DESC, id);
CREATE INDEX expense_claims_entry ON expense_claims (company_id, journal_entry_id);
CREATE INDEX expense_claims_payout ON expense_claims (company_id, payout_id) WHERE payout_id IS NOT NULL;
CREATE INDEX expense_payouts_entry ON expense_payouts (company_id, journal_entry_id);

-- +goose StatementBegin
CREATE FUNCTION expense_claims_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'an expense claim is never removed: delete it through the API, which stornoes it'
            USING ERRCODE = 'check_violation';
    END IF;
    IF (to_jsonb(NEW) - ARRAY['status', 'payout_id', 'paid_at', 'reversal_entry_id', 'journal_entry_id'])
       IS DISTINCT FROM (to_jsonb(OLD) - ARRAY['status', 'payout_id', 'paid_at', 'reversal_entry_id', 'journal_entry_id']) THEN
        RAISE EXCEPTION 'an expense claim says what it said when registered' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.journal_entry_id IS DISTINCT FROM OLD.journal_entry_id AND NOT EXISTS (SELECT 1 FROM journal_entries e
            WHERE e.company_id = NEW.company_id AND e.id = NEW.journal_entry_id
              AND e.correction_of_id = OLD.journal_entry_id) THEN
        RAISE EXCEPTION 'an expense claim''s verifikat is replaced only by a rättelse of it' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status OR NEW.payout_id IS DISTINCT FROM OLD.payout_id
       OR NEW.paid_at IS DISTINCT FROM OLD.paid_at OR NEW.reversal_entry_id IS DISTINCT FROM OLD.reversal_entry_id THEN
        IF NOT ((OLD.status = 'registered' AND NEW.status IN ('paid', 'deleted'))
                OR (OLD.status = 'paid' AND NEW.status = 'registered' AND NEW.payout_id IS NULL AND EXISTS (
                    SELECT 1 FROM expense_payouts p WHERE p.company_id = OLD.company_id AND p.id = OLD.payout_id
                      AND p.reversed_by_entry_id IS NOT NULL))) THEN
            RAISE EXCEPTION 'EXPENSE_CLAIM_ALREADY_PAID: a % expense claim does not become %', OLD.status, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER expense_claims_guard BEFORE UPDATE OR DELETE ON expense_claims
    FOR EACH ROW EXECUTE FUNCTION expense_claims_guard();

-- +goose StatementBegin
CREATE FUNCTION expense_payouts_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR OLD.reversed_by_entry_id IS NOT NULL
       OR (to_jsonb(NEW) - ARRAY['reversed_by_entry_id', 'journal_entry_id'])
          IS DISTINCT FROM (to_jsonb(OLD) - ARRAY['reversed_by_entry_id', 'journal_entry_id']) THEN
        RAISE EXCEPTION 'a payout is never changed or removed; its verifikat is stornoed' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.journal_entry_id IS DISTINCT FROM OLD.journal_entry_id AND NOT EXISTS (SELECT 1 FROM journal_entries e
            WHERE e.company_id = NEW.company_id AND e.id = NEW.journal_entry_id
              AND e.correction_of_id = OLD.journal_entry_id) THEN
        RAISE EXCEPTION 'a payout''s verifikat is replaced only by a rättelse of it' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER expense_payouts_guard BEFORE UPDATE OR DELETE ON expense_payouts
    FOR EACH ROW EXECUTE FUNCTION expense_payouts_guard();
CREATE TRIGGER expense_claims_no_truncate BEFORE TRUNCATE ON expense_claims
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
CREATE TRIGGER expense_payouts_no_truncate BEFORE TRUNCATE ON expense_payouts
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON expense_claims, expense_payouts FROM kontera_app;

-- +goose Down
DROP TABLE IF EXISTS expense_claims;
DROP TABLE IF EXISTS expense_payouts;
DROP FUNCTION IF EXISTS expense_claims_guard();
DROP FUNCTION IF EXISTS expense_payouts_guard();
