-- Credit notes (issue 17). A credit note settles what its original still
-- had to be paid at once: that offset is a row of the credit note's
-- payments (source credit_note), booked by the credit note's own
-- verifikat and on no account of its own. What is left on the credit
-- note is what the customer had paid: refunded by a payment of the
-- credit note.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE invoice_payments DROP CONSTRAINT invoice_payments_source_check;
ALTER TABLE invoice_payments ADD CONSTRAINT invoice_payments_source_check
    CHECK (source IN ('manual', 'bank', 'rot_rut_payout', 'credit_note'));
ALTER TABLE invoice_payments ALTER COLUMN account_number DROP NOT NULL;
ALTER TABLE invoice_payments ADD CONSTRAINT invoice_payments_account_check
    CHECK ((account_number IS NULL) = (source = 'credit_note'));

-- +goose Down
ALTER TABLE invoice_payments DROP CONSTRAINT invoice_payments_account_check;
ALTER TABLE invoice_payments ALTER COLUMN account_number SET NOT NULL;
ALTER TABLE invoice_payments DROP CONSTRAINT invoice_payments_source_check;
ALTER TABLE invoice_payments ADD CONSTRAINT invoice_payments_source_check
    CHECK (source IN ('manual', 'bank', 'rot_rut_payout'));
