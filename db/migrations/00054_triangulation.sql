-- Trepartshandel (issue 47): a sale as the middle party, goods shipped
-- from another EU state straight to the buyer in a third, is its own
-- treatment: revenue on 3107 (Kontera's account for ruta 38, which BAS
-- leaves to the company), the EU sales list's triangulation column.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE invoices DROP CONSTRAINT invoices_vat_treatment_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_vat_treatment_check CHECK (vat_treatment IN
    ('standard', 'eu_services', 'eu_goods', 'export_goods', 'export_services', 'eu_triangulation'));
ALTER TABLE invoices DROP CONSTRAINT invoices_buyer_vat_number_validated_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_buyer_vat_number_validated_check
    CHECK ((buyer_vat_number_validated IS NOT NULL) = (vat_treatment IN ('eu_services', 'eu_goods', 'eu_triangulation')));

-- +goose Down
ALTER TABLE invoices DROP CONSTRAINT invoices_buyer_vat_number_validated_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_buyer_vat_number_validated_check
    CHECK ((buyer_vat_number_validated IS NOT NULL) = (vat_treatment IN ('eu_services', 'eu_goods')));
ALTER TABLE invoices DROP CONSTRAINT invoices_vat_treatment_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_vat_treatment_check CHECK (vat_treatment IN
    ('standard', 'eu_services', 'eu_goods', 'export_goods', 'export_services'));
