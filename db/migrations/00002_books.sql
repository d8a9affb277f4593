-- The books of a company: its settings, its chart of accounts, its fiscal
-- periods, its tax deadlines, its capabilities (the trial), the VAT periods
-- filed, and the journal tables the ledger posts into.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS btree_gist;

-- One row per company: the settings read model of the API, column for
-- column. A column never set reads null, not a default.
CREATE TABLE company_settings (
    company_id                              uuid PRIMARY KEY REFERENCES companies (id),
    onboarding_complete                     boolean,
    address_line1                           text,
    address_line2                           text,
    postal_code                             text,
    city                                    text,
    registered_office                       text,
    country                                 text,
    phone                                   text,
    email                                   text,
    website                                 text,
    contact_person                          text,
    tax_contact_name                        text,
    tax_contact_phone                       text,
    tax_contact_email                       text,
    bank_name                               text,
    clearing_number                         text,
    account_number                          text,
    bankgiro                                text,
    plusgiro                                text,
    swish                                   text,
    iban                                    text,
    bic                                     text,
    invoice_prefix                          text,
    invoice_default_notes                   text,
    invoice_company_name_position           text CHECK (invoice_company_name_position IN ('header', 'footer')),
    invoice_late_fee_text                   text,
    invoice_credit_terms_text               text,
    invoice_email_reply_to                  text,
    invoice_primary_color                   text,
    invoice_accent_color                    text,
    invoice_font_family                     text CHECK (invoice_font_family IN ('Helvetica', 'Times-Roman', 'Courier', 'Source Sans 3', 'Source Serif 4', 'Custom')),
    invoice_header_text                     text,
    invoice_footer_text                     text,
    invoice_qr_mode                         text CHECK (invoice_qr_mode IN ('auto', 'bank_app', 'swish', 'payment_link', 'none')),
    vat_number                              text,
    moms_period                             text CHECK (moms_period IN ('monthly', 'quarterly', 'yearly')),
    vat_filing_method                       text CHECK (vat_filing_method IN ('electronic', 'paper')),
    periodisk_sammanstallning_period        text CHECK (periodisk_sammanstallning_period IN ('monthly', 'quarterly')),
    periodisk_sammanstallning_filing_method text CHECK (periodisk_sammanstallning_filing_method IN ('electronic', 'paper')),
    accounting_method                       text NOT NULL CHECK (accounting_method IN ('accrual', 'cash')),
    bookkeeping_locked_through              date,
    default_voucher_series                  text,
    sector_slug                             text,
    salary_vacation_year_basis              text CHECK (salary_vacation_year_basis IN ('calendar', 'statutory_apr_mar')),
    ore_rounding                            boolean,
    invoice_show_ocr                        boolean,
    invoice_show_bankgiro                   boolean,
    invoice_show_plusgiro                   boolean,
    invoice_show_swish                      boolean,
    invoice_show_payment_qr                 boolean,
    invoice_show_logo                       boolean,
    invoice_show_company_name               boolean,
    invoice_payment_links_enabled           boolean,
    send_invoice_reminders                  boolean,
    reminder_fee_enabled                    boolean,
    dimensions_enabled                      boolean,
    mileage_enabled                         boolean,
    sales_orders_enabled                    boolean,
    quotes_enabled                          boolean,
    proforma_enabled                        boolean,
    recurring_invoices_enabled              boolean,
    self_billing_enabled                    boolean,
    f_skatt                                 boolean NOT NULL,
    vat_registered                          boolean NOT NULL,
    vat_taxable_base_over_40m               boolean,
    vat_has_eu_trade                        boolean,
    periodisk_sammanstallning_enabled       boolean,
    kontrolluppgifter_enabled               boolean,
    rot_rut_enabled                         boolean,
    oss_enabled                             boolean,
    ioss_enabled                            boolean,
    intrastat_enabled                       boolean,
    punktskatt_enabled                      boolean,
    fyllnadsinbetalning_enabled             boolean,
    pays_salaries                           boolean,
    employer_registered                     boolean,
    employer_seasonal                       boolean,
    defer_invoice_booking                   boolean,
    next_invoice_number                     integer CHECK (next_invoice_number >= 1 AND next_invoice_number <= 999999999),
    next_arrival_number                     integer CHECK (next_arrival_number >= 1 AND next_arrival_number <= 999999999),
    invoice_default_days                    integer CHECK (invoice_default_days >= 0 AND invoice_default_days <= 365),
    reminder_days_level_1                   integer CHECK (reminder_days_level_1 >= 1 AND reminder_days_level_1 <= 365),
    reminder_days_level_2                   integer CHECK (reminder_days_level_2 >= 1 AND reminder_days_level_2 <= 365),
    reminder_days_level_3                   integer CHECK (reminder_days_level_3 >= 1 AND reminder_days_level_3 <= 365),
    reminder_fee_amount                     numeric(18,2) CHECK (reminder_fee_amount >= 0),
    reminder_interest_rate_override         numeric(5,2),
    fiscal_year_start_month                 smallint NOT NULL CHECK (fiscal_year_start_month >= 1 AND fiscal_year_start_month <= 12),
    preliminary_tax_monthly                 numeric(18,2) CHECK (preliminary_tax_monthly >= 0),
    aktiekapital                            numeric(18,2) CHECK (aktiekapital >= 0),
    antal_aktier                            bigint CHECK (antal_aktier >= 1),
    auto_lock_period_days                   integer CHECK (auto_lock_period_days >= 1 AND auto_lock_period_days <= 3650),
    invoice_payment_accounts                jsonb,
    invoice_email_texts                     jsonb,
    invoice_email_cc_addresses              jsonb,
    invoice_email_bcc_addresses             jsonb,
    reminder_text_overrides                 jsonb,
    default_voucher_series_per_source_type  jsonb,
    voucher_series_labels                   jsonb,
    updated_at                              timestamptz NOT NULL DEFAULT now(),
    CHECK (NOT vat_registered OR moms_period IS NOT NULL),
    CHECK (NOT vat_taxable_base_over_40m OR moms_period = 'monthly'),
    CHECK ((aktiekapital IS NULL) = (antal_aktier IS NULL))
);

-- The settings moved out of companies, which keeps the legal identity.
INSERT INTO company_settings (company_id, vat_registered, moms_period, accounting_method, f_skatt,
    fiscal_year_start_month, address_line1, postal_code, city)
SELECT id, vat_registered, moms_period, accounting_method, f_skatt, fiscal_year_start_month, address_line1,
    postal_code, city
FROM companies;
ALTER TABLE companies
    DROP COLUMN vat_registered, DROP COLUMN moms_period, DROP COLUMN accounting_method, DROP COLUMN f_skatt,
    DROP COLUMN fiscal_year_start_month, DROP COLUMN address_line1, DROP COLUMN postal_code, DROP COLUMN city;

-- The chart of accounts (kontoplan) of each company. The account's type
-- must fit its class, here as in Go, so no write path can store a revenue
-- account in class 1.
CREATE TABLE accounts (
    company_id            uuid NOT NULL REFERENCES companies (id),
    account_number        text NOT NULL CHECK (account_number ~ '^[0-9]{4}$'),
    account_name          text NOT NULL CHECK (length(account_name) BETWEEN 1 AND 200),
    account_type          text NOT NULL CHECK (account_type IN
                              ('asset', 'equity', 'liability', 'untaxed_reserves', 'revenue', 'expense')),
    normal_balance        text NOT NULL CHECK (normal_balance IN ('debit', 'credit')),
    is_bas                boolean NOT NULL,
    is_system_account     boolean NOT NULL DEFAULT false,
    is_active             boolean NOT NULL DEFAULT true,
    description           text,
    default_vat_rate      numeric(3, 2) CHECK (default_vat_rate IN (0, 0.06, 0.12, 0.25)),
    default_vat_treatment text,
    vat_box               text CHECK (vat_box IN ('10', '11', '12', '30', '31', '32', '48', '60', '61', '62')),
    sru_code              text CHECK (sru_code ~ '^[0-9]{4}$'),
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, account_number),
    CHECK (CASE left(account_number, 1)
        WHEN '1' THEN account_type = 'asset'
        WHEN '2' THEN account_type IN ('equity', 'untaxed_reserves', 'liability')
        WHEN '3' THEN account_type = 'revenue'
        WHEN '4' THEN account_type = 'expense'
        WHEN '5' THEN account_type = 'expense'
        WHEN '6' THEN account_type = 'expense'
        WHEN '7' THEN account_type = 'expense'
        ELSE account_type IN ('revenue', 'expense') END),
    CHECK (NOT is_system_account OR is_active)
);

-- Fiscal periods (räkenskapsår): at most 18 months, ending on a month end,
-- never overlapping another of the company's.
CREATE TABLE fiscal_periods (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id         uuid NOT NULL REFERENCES companies (id),
    name               text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    period_start       date NOT NULL,
    period_end         date NOT NULL CHECK (extract(day FROM period_end + 1) = 1),
    previous_period_id uuid REFERENCES fiscal_periods (id),
    locked_at          timestamptz,
    is_closed          boolean NOT NULL DEFAULT false,
    closed_at          timestamptz,
    closed_externally  boolean NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CHECK (period_end > period_start),
    CHECK (period_end < (period_start + interval '18 months')::date),
    CHECK (is_closed = (closed_at IS NOT NULL)),
    EXCLUDE USING gist (company_id WITH =, daterange(period_start, period_end, '[]') WITH &&)
);
CREATE INDEX fiscal_periods_company ON fiscal_periods (company_id, period_start DESC);

-- The company's tax deadlines, generated from its tax profile and fiscal
-- periods; regenerated when either changes.
CREATE TABLE tax_deadlines (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies (id),
    deadline_type    text NOT NULL CHECK (deadline_type IN ('vat_return', 'income_tax_return')),
    form             text NOT NULL,
    period_type      text NOT NULL CHECK (period_type IN ('monthly', 'quarterly', 'yearly')),
    tax_period       text NOT NULL,
    period_start     date NOT NULL,
    period_end       date NOT NULL CHECK (period_end >= period_start),
    due_date         date NOT NULL CHECK (due_date > period_end),
    fiscal_period_id uuid NOT NULL REFERENCES fiscal_periods (id),
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, deadline_type, period_start, period_end)
);

-- VAT periods filed with Skatteverket (or marked filed by hand). The VAT
-- issue writes them; the lock date may not reopen them silently.
CREATE TABLE vat_filings (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id   uuid NOT NULL REFERENCES companies (id),
    period_start date NOT NULL,
    period_end   date NOT NULL CHECK (period_end >= period_start),
    filed_on     date NOT NULL,
    source       text NOT NULL CHECK (source IN ('skatteverket', 'manual')),
    reference    text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, period_start, period_end)
);

-- What a company may use beyond the books themselves, and until when: a
-- trial of every paid capability starts with the company.
CREATE TABLE company_capabilities (
    company_id   uuid NOT NULL REFERENCES companies (id),
    capability   text NOT NULL,
    source       text NOT NULL CHECK (source IN ('trial', 'subscription')),
    active_from  timestamptz NOT NULL,
    active_until timestamptz,
    PRIMARY KEY (company_id, capability, source),
    CHECK (active_until IS NULL OR active_until > active_from)
);

-- Verifikationer and their lines. The ledger issue adds the posting rules
-- (balance, numbering, immutability); the tables exist now so that the
-- chart and the periods can ask whether anything was posted.
CREATE TABLE journal_entries (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies (id),
    fiscal_period_id uuid NOT NULL REFERENCES fiscal_periods (id),
    voucher_series   text NOT NULL DEFAULT 'A' CHECK (voucher_series ~ '^[A-Z]$'),
    voucher_number   integer NOT NULL DEFAULT 0 CHECK (voucher_number >= 0),
    entry_date       date NOT NULL,
    description      text NOT NULL,
    status           text NOT NULL CHECK (status IN ('draft', 'posted', 'cancelled')),
    source_type      text NOT NULL DEFAULT 'manual',
    source_id        text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'posted') = (voucher_number > 0))
);
CREATE INDEX journal_entries_period ON journal_entries (company_id, fiscal_period_id, status);

CREATE TABLE journal_lines (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    journal_entry_id uuid NOT NULL REFERENCES journal_entries (id),
    company_id       uuid NOT NULL,
    account_number   text NOT NULL,
    debit_amount     numeric(18, 2) NOT NULL DEFAULT 0 CHECK (debit_amount >= 0),
    credit_amount    numeric(18, 2) NOT NULL DEFAULT 0 CHECK (credit_amount >= 0),
    sort_order       integer NOT NULL DEFAULT 0,
    dimensions       jsonb,
    FOREIGN KEY (company_id, account_number) REFERENCES accounts (company_id, account_number),
    CHECK (debit_amount = 0 OR credit_amount = 0)
);
CREATE INDEX journal_lines_account ON journal_lines (company_id, account_number);
CREATE INDEX journal_lines_entry ON journal_lines (journal_entry_id);

-- +goose Down
DROP TABLE journal_lines, journal_entries, company_capabilities, vat_filings, tax_deadlines, fiscal_periods, accounts;
ALTER TABLE companies
    ADD COLUMN vat_registered boolean, ADD COLUMN moms_period text, ADD COLUMN accounting_method text,
    ADD COLUMN f_skatt boolean, ADD COLUMN fiscal_year_start_month smallint, ADD COLUMN address_line1 text,
    ADD COLUMN postal_code text, ADD COLUMN city text;
UPDATE companies c SET vat_registered = s.vat_registered, moms_period = s.moms_period,
    accounting_method = s.accounting_method, f_skatt = s.f_skatt, fiscal_year_start_month = s.fiscal_year_start_month,
    address_line1 = s.address_line1, postal_code = s.postal_code, city = s.city
FROM company_settings s WHERE s.company_id = c.id;
DROP TABLE company_settings;
