-- Reverse charge for an EU buyer whose VAT number VIES has not validated
-- (issue 47): asked for in so many words, the invoice records that the
-- number was not validated, the seller's responsibility, as issued.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE invoices ADD COLUMN buyer_vat_number_validated boolean;
-- Until now reverse charge was granted only on a validated number.
UPDATE invoices SET buyer_vat_number_validated = true WHERE vat_treatment IN ('eu_services', 'eu_goods');
ALTER TABLE invoices ADD CONSTRAINT invoices_buyer_vat_number_validated_check
    CHECK ((buyer_vat_number_validated IS NOT NULL) = (vat_treatment IN ('eu_services', 'eu_goods')));

-- Once issued, the record stands, as everything invoices_guard holds
-- does: a trigger of its own rather than another copy of that guard.
-- +goose StatementBegin
CREATE FUNCTION invoices_buyer_vat_fixed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'INVOICE_UPDATE_NOT_DRAFT: an issued invoice is not changed; credit it'
        USING ERRCODE = 'restrict_violation', DETAIL = json_build_object('invoice_id', OLD.id, 'status', OLD.status)::text;
END $$;
-- +goose StatementEnd
CREATE TRIGGER invoices_buyer_vat_fixed BEFORE UPDATE OF buyer_vat_number_validated ON invoices
    FOR EACH ROW WHEN (OLD.status <> 'draft' AND NEW.buyer_vat_number_validated IS DISTINCT FROM OLD.buyer_vat_number_validated)
    EXECUTE FUNCTION invoices_buyer_vat_fixed();

-- +goose Down
DROP TRIGGER invoices_buyer_vat_fixed ON invoices;
DROP FUNCTION invoices_buyer_vat_fixed();
ALTER TABLE invoices DROP COLUMN buyer_vat_number_validated;
