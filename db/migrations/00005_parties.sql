-- Customers and suppliers, and the parties (legal entities) behind them.
--
-- A party is the one legal entity a company may meet both as customer and
-- as supplier: it is found by its Swedish organisationsnummer, or by its
-- VAT number when it has none. Private individuals have no party.
--
-- A customer's personnummer is kept sealed (AES-256-GCM, the key outside
-- the database) with only its last four digits in clear, which is what
-- every response shows anyway.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE parties (
    company_id  uuid NOT NULL REFERENCES companies (id),
    id          uuid NOT NULL DEFAULT gen_random_uuid(),
    identity    text NOT NULL CHECK (identity ~ '^(org|vat):.+'),
    legal_name  text NOT NULL CHECK (length(legal_name) BETWEEN 1 AND 200),
    org_number  text,
    vat_number  text,
    country     text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, identity)
);

CREATE TABLE customers (
    company_id                  uuid NOT NULL REFERENCES companies (id),
    id                          uuid NOT NULL,
    name                        text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    customer_type               text NOT NULL CHECK (customer_type IN
                                    ('individual', 'swedish_business', 'eu_business', 'non_eu_business')),
    customer_number             text,
    contact_person              text,
    email                       text,
    phone                       text,
    invoice_email_cc_addresses  text[],
    invoice_email_bcc_addresses text[],
    address_line1               text,
    address_line2               text,
    postal_code                 text,
    city                        text,
    country                     text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
    org_number                  text,
    vat_number                  text,
    vat_number_validated        boolean NOT NULL DEFAULT false,
    personal_number_sealed      bytea,
    personal_number_last4       text CHECK (personal_number_last4 ~ '^[0-9]{4}$'),
    language                    text NOT NULL CHECK (language IN ('sv', 'en')),
    default_payment_terms       integer NOT NULL CHECK (default_payment_terms BETWEEN 0 AND 365),
    notes                       text,
    party_id                    uuid,
    -- Search keys written by Kontera: the name case-folded in Go (the
    -- database's locale may fold only ASCII, and Swedish names are not
    -- ASCII), the organisation number without separators.
    search_name                 text NOT NULL,
    org_key                     text,
    archived_at                 timestamptz,
    -- clock_timestamp, not now(): the customers of one bulk create list in
    -- the order they were sent.
    created_at                  timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at                  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, party_id) REFERENCES parties (company_id, id),
    CHECK ((personal_number_sealed IS NULL) = (personal_number_last4 IS NULL)),
    CHECK (personal_number_sealed IS NULL OR customer_type = 'individual'),
    CHECK (customer_type <> 'individual' OR party_id IS NULL)
);

-- org_number is unique within a company, archived customers included: a
-- client that meets the 409 un-archives the customer it names instead.
CREATE UNIQUE INDEX customers_org_number ON customers (company_id, org_number) WHERE org_number IS NOT NULL;
CREATE INDEX customers_created ON customers (company_id, created_at, id);
CREATE INDEX customers_party ON customers (company_id, party_id) WHERE party_id IS NOT NULL;
CREATE INDEX customers_org_key ON customers (company_id, org_key text_pattern_ops) WHERE org_key IS NOT NULL;

CREATE TABLE suppliers (
    company_id              uuid NOT NULL REFERENCES companies (id),
    id                      uuid NOT NULL,
    name                    text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    supplier_type           text NOT NULL CHECK (supplier_type IN
                                ('swedish_business', 'eu_business', 'non_eu_business')),
    email                   text,
    phone                   text,
    address_line1           text,
    address_line2           text,
    postal_code             text,
    city                    text,
    country                 text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
    org_number              text,
    vat_number              text,
    bankgiro                text,
    plusgiro                text,
    bank_account            text,
    iban                    text,
    bic                     text,
    clearing_number         text,
    account_number          text,
    default_expense_account text,
    default_payment_terms   integer NOT NULL CHECK (default_payment_terms BETWEEN 0 AND 365),
    default_currency        text NOT NULL CHECK (default_currency IN ('SEK', 'EUR', 'USD', 'GBP', 'NOK', 'DKK', 'CHF')),
    notes                   text,
    party_id                uuid,
    search_name             text NOT NULL,
    org_key                 text,
    archived_at             timestamptz,
    created_at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, party_id) REFERENCES parties (company_id, id),
    -- default_expense_account is checked against the chart on write but is
    -- no foreign key: it is a suggestion, and must not stop the chart from
    -- deleting an unused account.
    CHECK (default_expense_account ~ '^[0-9]{4}$')
);

CREATE UNIQUE INDEX suppliers_org_number ON suppliers (company_id, org_number) WHERE org_number IS NOT NULL;
CREATE INDEX suppliers_created ON suppliers (company_id, created_at, id);
CREATE INDEX suppliers_party ON suppliers (company_id, party_id) WHERE party_id IS NOT NULL;
CREATE INDEX suppliers_org_key ON suppliers (company_id, org_key text_pattern_ops) WHERE org_key IS NOT NULL;

-- +goose Down
DROP TABLE suppliers;
DROP TABLE customers;
DROP TABLE parties;
