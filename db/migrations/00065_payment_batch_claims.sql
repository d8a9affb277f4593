-- Expense claims in payment batches (issue 50): an employee's claim owed
-- is paid to the bank account the employee is paid salary to, in the
-- same pain.001 file as the supplier invoices. A claim is reserved by one
-- batch at a time, as an invoice is; the bank's debit, matched from the
-- statement, pays it out.
--
-- Online: safe. A new table; nothing existing is rewritten or locked.

-- +goose Up
CREATE TABLE supplier_payment_batch_claims (
    company_id       uuid           NOT NULL,
    batch_id         uuid           NOT NULL,
    expense_claim_id uuid           NOT NULL,
    seq              integer        NOT NULL CHECK (seq >= 1),
    claimant_name    text           NOT NULL,
    reference        text           NOT NULL,
    end_to_end_id    text           NOT NULL CHECK (char_length(end_to_end_id) BETWEEN 1 AND 35),
    amount           numeric(14, 2) NOT NULL CHECK (amount > 0),
    currency         text           NOT NULL CHECK (currency = 'SEK'),
    released_at      timestamptz,
    PRIMARY KEY (company_id, batch_id, expense_claim_id),
    FOREIGN KEY (company_id, batch_id) REFERENCES supplier_payment_batches (company_id, id),
    FOREIGN KEY (company_id, expense_claim_id) REFERENCES expense_claims (company_id, id)
);
-- A claim is reserved by one batch at a time.
CREATE UNIQUE INDEX supplier_payment_batch_claims_reserved ON supplier_payment_batch_claims (company_id, expense_claim_id)
    WHERE released_at IS NULL;
CREATE TRIGGER supplier_payment_batch_claims_guard BEFORE UPDATE OR DELETE ON supplier_payment_batch_claims
    FOR EACH ROW EXECUTE FUNCTION supplier_payment_batches_guard();
CREATE TRIGGER supplier_payment_batch_claims_no_truncate BEFORE TRUNCATE ON supplier_payment_batch_claims
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON supplier_payment_batch_claims FROM kontera_app;

-- +goose Down
DROP TABLE IF EXISTS supplier_payment_batch_claims;
