-- An invoice, and a payment of one, name their verifikat before it is
-- posted: the invoicing engine writes its own rows first and posts last,
-- so the locks a posting takes (the voucher series, the account balances)
-- are held from the posting to the commit and no longer. The references
-- are checked at commit, when the verifikat is there.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE invoices ALTER CONSTRAINT invoices_company_id_journal_entry_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE invoice_payments ALTER CONSTRAINT invoice_payments_company_id_journal_entry_id_fkey DEFERRABLE INITIALLY DEFERRED;

-- +goose Down
ALTER TABLE invoice_payments ALTER CONSTRAINT invoice_payments_company_id_journal_entry_id_fkey NOT DEFERRABLE;
ALTER TABLE invoices ALTER CONSTRAINT invoices_company_id_journal_entry_id_fkey NOT DEFERRABLE;
