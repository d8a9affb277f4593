-- A sole trader's organisation number is the owner's personnummer, and
-- the VAT number built on it holds it too: both are sealed like a
-- personnummer (AES-256-GCM, the key outside the database). Their columns
-- hold a token instead (seal.Box.Token: a keyed fingerprint and the last
-- four digits), so uniqueness, duplicate checks and the party's identity
-- still work. A personnummer gets a token too, so the audit trail sees
-- it change (changed_fields) without seeing it.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE customers
    ADD COLUMN org_number_sealed bytea,
    ADD COLUMN vat_number_sealed bytea,
    ADD COLUMN personal_number_token text CHECK (personal_number_token ~ '^PP[A-Z2-7]{20}[0-9]{4}$'),
    ADD CONSTRAINT customers_org_number_sealed CHECK (org_number_sealed IS NULL OR org_number ~ '^PN[A-Z2-7]{20}[0-9]{4}$'),
    ADD CONSTRAINT customers_vat_number_sealed CHECK (vat_number_sealed IS NULL OR vat_number ~ '^VN[A-Z2-7]{20}[0-9]{4}$'),
    ADD CONSTRAINT customers_personal_number_token CHECK (personal_number_token IS NULL OR personal_number_sealed IS NOT NULL);
ALTER TABLE suppliers
    ADD COLUMN org_number_sealed bytea,
    ADD COLUMN vat_number_sealed bytea,
    ADD CONSTRAINT suppliers_org_number_sealed CHECK (org_number_sealed IS NULL OR org_number ~ '^PN[A-Z2-7]{20}[0-9]{4}$'),
    ADD CONSTRAINT suppliers_vat_number_sealed CHECK (vat_number_sealed IS NULL OR vat_number ~ '^VN[A-Z2-7]{20}[0-9]{4}$');

-- +goose Down
ALTER TABLE suppliers DROP COLUMN vat_number_sealed, DROP COLUMN org_number_sealed;
ALTER TABLE customers DROP COLUMN personal_number_token, DROP COLUMN vat_number_sealed, DROP COLUMN org_number_sealed;
