-- A schema ready to be distributed by company (Citus: company-owned
-- tables distributed and co-located on company_id; users, keys and
-- catalogues as reference tables). Every table with a company_id has it
-- first in its primary key, in every unique constraint, and in every
-- foreign key to another company-owned table, so that a company's rows
-- and everything they point at live on one shard. db/shape_test.go keeps
-- later tables to it. The data stays as it is; only keys change.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- Fiscal periods: keyed by (company_id, id), their chain and the tax
-- deadlines pointing at them through the company too. The unique
-- (company_id, id) of 00003 stays: the ledger's foreign keys use it.
ALTER TABLE fiscal_periods DROP CONSTRAINT fiscal_periods_previous_period_id_fkey;
ALTER TABLE tax_deadlines DROP CONSTRAINT tax_deadlines_fiscal_period_id_fkey;
ALTER TABLE fiscal_periods DROP CONSTRAINT fiscal_periods_pkey;
ALTER TABLE fiscal_periods ADD PRIMARY KEY (company_id, id);
ALTER TABLE fiscal_periods ADD CONSTRAINT fiscal_periods_previous
    FOREIGN KEY (company_id, previous_period_id) REFERENCES fiscal_periods (company_id, id);
ALTER TABLE tax_deadlines DROP CONSTRAINT tax_deadlines_pkey;
ALTER TABLE tax_deadlines ADD PRIMARY KEY (company_id, id);
ALTER TABLE tax_deadlines ADD CONSTRAINT tax_deadlines_period
    FOREIGN KEY (company_id, fiscal_period_id) REFERENCES fiscal_periods (company_id, id);

ALTER TABLE vat_filings DROP CONSTRAINT vat_filings_pkey;
ALTER TABLE vat_filings ADD PRIMARY KEY (company_id, id);

-- Operations are polled by id alone (GET /api/v1/operations/{id}): a
-- plain index serves it; uniqueness comes with the company.
ALTER TABLE operations DROP CONSTRAINT operations_pkey;
ALTER TABLE operations ADD PRIMARY KEY (company_id, id);
CREATE INDEX operations_id ON operations (id);

-- A key's reach: read by key (the guard) and by company.
ALTER TABLE api_key_companies DROP CONSTRAINT api_key_companies_pkey;
ALTER TABLE api_key_companies ADD PRIMARY KEY (company_id, api_key_id);
CREATE INDEX api_key_companies_key ON api_key_companies (api_key_id);

-- +goose Down
DROP INDEX api_key_companies_key;
ALTER TABLE api_key_companies DROP CONSTRAINT api_key_companies_pkey;
ALTER TABLE api_key_companies ADD PRIMARY KEY (api_key_id, company_id);
DROP INDEX operations_id;
ALTER TABLE operations DROP CONSTRAINT operations_pkey;
ALTER TABLE operations ADD PRIMARY KEY (id);
ALTER TABLE vat_filings DROP CONSTRAINT vat_filings_pkey;
ALTER TABLE vat_filings ADD PRIMARY KEY (id);
ALTER TABLE tax_deadlines DROP CONSTRAINT tax_deadlines_period;
ALTER TABLE tax_deadlines DROP CONSTRAINT tax_deadlines_pkey;
ALTER TABLE tax_deadlines ADD PRIMARY KEY (id);
ALTER TABLE fiscal_periods DROP CONSTRAINT fiscal_periods_previous;
ALTER TABLE fiscal_periods DROP CONSTRAINT fiscal_periods_pkey;
ALTER TABLE fiscal_periods ADD PRIMARY KEY (id);
ALTER TABLE fiscal_periods ADD CONSTRAINT fiscal_periods_previous_period_id_fkey
    FOREIGN KEY (previous_period_id) REFERENCES fiscal_periods (id);
ALTER TABLE tax_deadlines ADD CONSTRAINT tax_deadlines_fiscal_period_id_fkey
    FOREIGN KEY (fiscal_period_id) REFERENCES fiscal_periods (id);
