-- Partial credits (issue 46): a credit note's line names the line of the
-- original it credits, so what is left to credit of each line is known.
-- The credit note settles its amount against what the original still has
-- to be paid: a payment of source credit_note on the original.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- An invoice may now have several credit notes, each of a part of it.
ALTER TABLE invoices DROP CONSTRAINT invoices_company_id_credited_invoice_id_key;
CREATE INDEX invoices_credited ON invoices (company_id, credited_invoice_id) WHERE credited_invoice_id IS NOT NULL;
DROP INDEX supplier_invoices_credit_note;
CREATE INDEX supplier_invoices_credited ON supplier_invoices (company_id, credited_invoice_id)
    WHERE credited_invoice_id IS NOT NULL;
ALTER TABLE invoice_items ADD COLUMN credited_item_id uuid,
    ADD FOREIGN KEY (company_id, credited_item_id) REFERENCES invoice_items (company_id, id);
CREATE INDEX invoice_items_credited ON invoice_items (company_id, credited_item_id) WHERE credited_item_id IS NOT NULL;
ALTER TABLE supplier_invoice_items ADD COLUMN credited_item_id uuid,
    ADD FOREIGN KEY (company_id, credited_item_id) REFERENCES supplier_invoice_items (company_id, id);
CREATE INDEX supplier_invoice_items_credited ON supplier_invoice_items (company_id, credited_item_id)
    WHERE credited_item_id IS NOT NULL;

-- +goose Down
ALTER TABLE supplier_invoice_items DROP COLUMN credited_item_id;
DROP INDEX supplier_invoices_credited;
CREATE UNIQUE INDEX supplier_invoices_credit_note ON supplier_invoices (company_id, credited_invoice_id)
    WHERE status <> 'reversed';
ALTER TABLE invoice_items DROP COLUMN credited_item_id;
DROP INDEX invoices_credited;
ALTER TABLE invoices ADD UNIQUE (company_id, credited_invoice_id);
