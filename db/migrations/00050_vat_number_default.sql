-- The VAT number a company is registered under (issue 47): SE, its
-- organisationsnummer (a sole trader's personnummer) in 10 digits, and
-- 01. A VAT-registered company created without one now gets it at
-- create (company.New) and whenever the tax profile or settings leave it
-- without one (company.checkVATNumber); this gives it to those created
-- before. Every org_number here passed its Luhn check at create.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
UPDATE company_settings s SET vat_number = 'SE' || d.digits || '01'
FROM (SELECT id, regexp_replace(org_number, '[^0-9]', '', 'g') AS digits FROM companies) d
WHERE d.id = s.company_id AND s.vat_registered AND s.vat_number IS NULL AND length(d.digits) = 10;

-- +goose Down
-- The numbers stay: they are the companies' own, and a null one would
-- only be given again.
