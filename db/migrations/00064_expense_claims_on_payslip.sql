-- An employee's expense claim paid back with the salary (issue 50):
-- marked pay_with_salary when registered, it is put on the payslip of
-- the next salary run calculated for the employee (salary_run_id) as a
-- net addition, and is paid when that run is booked. While on a payslip
-- it is neither deleted nor paid out otherwise; a draft run deleted, or
-- the employee taken off the run, lets it go again, and so does the
-- correction of the booked run that paid it (the claim is owed again and
-- rides on the correction run).
--
-- Online: safe. New nullable columns and a default without a rewrite;
-- the new foreign key and checks are added NOT VALID and validated
-- without blocking writes.

-- +goose Up
ALTER TABLE expense_claims
    ADD COLUMN pay_with_salary boolean NOT NULL DEFAULT false,
    ADD COLUMN salary_run_id uuid;
ALTER TABLE expense_claims
    ADD CONSTRAINT expense_claims_salary_run FOREIGN KEY (company_id, salary_run_id)
        REFERENCES salary_runs (company_id, id) ON DELETE SET NULL (salary_run_id) NOT VALID,
    ADD CONSTRAINT expense_claims_pay_with_salary CHECK (NOT pay_with_salary OR employee_id IS NOT NULL) NOT VALID,
    ADD CONSTRAINT expense_claims_on_payslip CHECK (salary_run_id IS NULL OR pay_with_salary) NOT VALID,
    ADD CONSTRAINT expense_claims_paid CHECK ((status = 'paid') = (paid_at IS NOT NULL
        AND (payout_id IS NOT NULL) <> (salary_run_id IS NOT NULL))) NOT VALID;
ALTER TABLE expense_claims VALIDATE CONSTRAINT expense_claims_salary_run;
ALTER TABLE expense_claims VALIDATE CONSTRAINT expense_claims_pay_with_salary;
ALTER TABLE expense_claims VALIDATE CONSTRAINT expense_claims_on_payslip;
ALTER TABLE expense_claims VALIDATE CONSTRAINT expense_claims_paid;
ALTER TABLE expense_claims DROP CONSTRAINT expense_claims_check3;
CREATE INDEX expense_claims_salary_run ON expense_claims (company_id, salary_run_id) WHERE salary_run_id IS NOT NULL;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION expense_claims_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'an expense claim is never removed: delete it through the API, which stornoes it'
            USING ERRCODE = 'check_violation';
    END IF;
    IF (to_jsonb(NEW) - ARRAY['status', 'payout_id', 'paid_at', 'reversal_entry_id', 'journal_entry_id', 'salary_run_id'])
       IS DISTINCT FROM (to_jsonb(OLD) - ARRAY['status', 'payout_id', 'paid_at', 'reversal_entry_id', 'journal_entry_id',
                                               'salary_run_id']) THEN
        RAISE EXCEPTION 'an expense claim says what it said when registered' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.journal_entry_id IS DISTINCT FROM OLD.journal_entry_id AND NOT EXISTS (SELECT 1 FROM journal_entries e
            WHERE e.company_id = NEW.company_id AND e.id = NEW.journal_entry_id
              AND e.correction_of_id = OLD.journal_entry_id) THEN
        RAISE EXCEPTION 'an expense claim''s verifikat is replaced only by a rättelse of it' USING ERRCODE = 'check_violation';
    END IF;
    -- A claim owed goes on and off a payslip while the run is not booked.
    IF NEW.salary_run_id IS DISTINCT FROM OLD.salary_run_id AND OLD.status = 'registered' AND NEW.status = 'registered'
       AND EXISTS (SELECT 1 FROM salary_runs r WHERE r.company_id = NEW.company_id
                     AND r.id IN (OLD.salary_run_id, NEW.salary_run_id) AND r.status NOT IN ('draft', 'review')) THEN
        RAISE EXCEPTION 'EXPENSE_CLAIM_ON_PAYSLIP: a claim moves on or off a payslip only while its run is a draft or in review'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status OR NEW.payout_id IS DISTINCT FROM OLD.payout_id
       OR NEW.paid_at IS DISTINCT FROM OLD.paid_at OR NEW.reversal_entry_id IS DISTINCT FROM OLD.reversal_entry_id
       OR (OLD.status <> 'registered' AND NEW.salary_run_id IS DISTINCT FROM OLD.salary_run_id) THEN
        IF NOT ((OLD.status = 'registered' AND NEW.status = 'deleted' AND OLD.salary_run_id IS NULL)
                OR (OLD.status = 'registered' AND NEW.status = 'paid' AND NEW.payout_id IS NOT NULL AND OLD.salary_run_id IS NULL)
                OR (OLD.status = 'registered' AND NEW.status = 'paid' AND NEW.salary_run_id = OLD.salary_run_id
                    AND EXISTS (SELECT 1 FROM salary_runs r WHERE r.company_id = NEW.company_id
                                  AND r.id = NEW.salary_run_id AND r.status = 'approved'))
                OR (OLD.status = 'paid' AND NEW.status = 'registered' AND NEW.payout_id IS NULL AND OLD.payout_id IS NOT NULL
                    AND EXISTS (SELECT 1 FROM expense_payouts p WHERE p.company_id = OLD.company_id AND p.id = OLD.payout_id
                                  AND p.reversed_by_entry_id IS NOT NULL))
                OR (OLD.status = 'paid' AND NEW.status = 'registered' AND NEW.salary_run_id IS NULL
                    AND OLD.salary_run_id IS NOT NULL AND EXISTS (SELECT 1 FROM salary_runs r
                        WHERE r.company_id = OLD.company_id AND r.id = OLD.salary_run_id AND r.status = 'corrected'))) THEN
            RAISE EXCEPTION 'EXPENSE_CLAIM_ALREADY_PAID: a % expense claim does not become %', OLD.status, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX IF EXISTS expense_claims_salary_run;
ALTER TABLE expense_claims DROP CONSTRAINT IF EXISTS expense_claims_paid,
    DROP CONSTRAINT IF EXISTS expense_claims_on_payslip, DROP CONSTRAINT IF EXISTS expense_claims_pay_with_salary,
    DROP CONSTRAINT IF EXISTS expense_claims_salary_run, DROP COLUMN IF EXISTS salary_run_id,
    DROP COLUMN IF EXISTS pay_with_salary;
ALTER TABLE expense_claims ADD CONSTRAINT expense_claims_check3
    CHECK ((status = 'paid') = (payout_id IS NOT NULL AND paid_at IS NOT NULL));
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION expense_claims_guard() RETURNS trigger
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
