-- Payroll (issue 25): Skatteverket's month tables, the employees, their
-- absence, opening balances and vacation years, the payroll settings,
-- salary runs with their payslips and lines, the AGI files generated and
-- the vacation years closed.
--
-- An employee's personnummer is sealed like a customer's (AES-256-GCM,
-- the key outside the database): the birth date and the last four digits
-- stay in clear, a keyed token finds a duplicate. A booked run is the
-- underlag of its verifikat: the database keeps it and its payslips as
-- they were booked, and a correction is a new run.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- The month tables as published, one file per load: the newest load of a
-- year is the one used; earlier loads stay, so a payslip's sha256 always
-- names a file that is still here.
CREATE TABLE payroll_tax_tables (
    year      integer     NOT NULL CHECK (year BETWEEN 2020 AND 2100),
    sha256    text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    source    text        NOT NULL CHECK (char_length(source) BETWEEN 1 AND 500),
    body      bytea       NOT NULL,
    row_count integer     NOT NULL CHECK (row_count > 0),
    loaded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (year, sha256)
);
REVOKE UPDATE, DELETE ON payroll_tax_tables FROM kontera_app;
CREATE TRIGGER payroll_tax_tables_no_truncate BEFORE TRUNCATE ON payroll_tax_tables
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

CREATE TABLE employees (
    company_id             uuid          NOT NULL REFERENCES companies (id),
    id                     uuid          NOT NULL,
    first_name             text          NOT NULL CHECK (char_length(btrim(first_name)) BETWEEN 1 AND 100),
    last_name              text          NOT NULL CHECK (char_length(btrim(last_name)) BETWEEN 1 AND 100),
    search_name            text          NOT NULL,
    personnummer_sealed    bytea         NOT NULL,
    personnummer_token     text          NOT NULL CHECK (personnummer_token ~ '^EP[A-Z2-7]{20}[0-9]{4}$'),
    personnummer_last4     text          NOT NULL CHECK (personnummer_last4 ~ '^[0-9]{4}$'),
    birth_date             date          NOT NULL,
    employment_type        text          NOT NULL CHECK (employment_type IN ('employee', 'company_owner', 'board_member')),
    personnel_category     text          NOT NULL CHECK (personnel_category IN ('tjansteman', 'kollektiv')),
    employment_start       date          NOT NULL,
    employment_end         date,
    employment_degree      numeric(5, 2) NOT NULL CHECK (employment_degree > 0 AND employment_degree <= 100),
    hours_per_week         numeric(5, 2) NOT NULL CHECK (hours_per_week > 0 AND hours_per_week <= 80),
    salary_type            text          NOT NULL CHECK (salary_type IN ('monthly', 'hourly')),
    monthly_salary         numeric(14, 2) CHECK (monthly_salary >= 0 AND monthly_salary <= 10000000),
    hourly_rate            numeric(14, 2) CHECK (hourly_rate >= 0 AND hourly_rate <= 100000),
    tax_table_number       smallint      CHECK (tax_table_number BETWEEN 29 AND 42),
    tax_column             smallint      CHECK (tax_column BETWEEN 1 AND 6),
    is_sidoinkomst         boolean       NOT NULL DEFAULT false,
    jamkning_percentage    numeric(5, 2) CHECK (jamkning_percentage BETWEEN 0 AND 100),
    jamkning_valid_from    date,
    jamkning_valid_to      date,
    f_skatt_status         text          NOT NULL CHECK (f_skatt_status IN ('a_skatt', 'f_skatt', 'fa_skatt', 'not_verified')),
    clearing_number        text          CHECK (clearing_number ~ '^[0-9]{4,5}$'),
    bank_account_number    text          CHECK (bank_account_number ~ '^[0-9]{1,15}$'),
    vacation_rule          text          NOT NULL CHECK (vacation_rule IN ('sammaloneregeln', 'procentregeln',
                                                                           'semesterersattning', 'none')),
    vacation_days_per_year smallint      NOT NULL CHECK (vacation_days_per_year BETWEEN 25 AND 60),
    email                  text          CHECK (char_length(email) <= 254),
    phone                  text          CHECK (char_length(phone) <= 50),
    address_line1          text          CHECK (char_length(address_line1) <= 200),
    postal_code            text          CHECK (char_length(postal_code) <= 20),
    city                   text          CHECK (char_length(city) <= 100),
    -- The dimensions (cost centre, project) the employee's pay is booked on.
    dimensions             jsonb         NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    is_active              boolean       NOT NULL DEFAULT true,
    created_at             timestamptz   NOT NULL DEFAULT clock_timestamp(),
    updated_at             timestamptz   NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, personnummer_token),
    CHECK (employment_end IS NULL OR employment_end >= employment_start),
    CHECK ((salary_type = 'monthly') = (monthly_salary IS NOT NULL)
       AND (salary_type = 'hourly') = (hourly_rate IS NOT NULL)),
    CHECK ((tax_table_number IS NULL) = (tax_column IS NULL)),
    CHECK ((clearing_number IS NULL) = (bank_account_number IS NULL)),
    CHECK (jamkning_percentage IS NULL OR jamkning_valid_from IS NOT NULL AND jamkning_valid_to >= jamkning_valid_from)
);
CREATE INDEX employees_list ON employees (company_id, created_at, id);
REVOKE DELETE ON employees FROM kontera_app;

CREATE TABLE employee_absence (
    company_id   uuid          NOT NULL,
    id           uuid          NOT NULL DEFAULT gen_random_uuid(),
    employee_id  uuid          NOT NULL,
    absence_date date          NOT NULL,
    absence_type text          NOT NULL CHECK (absence_type IN ('sick', 'vab', 'parental', 'unpaid_leave', 'vacation',
                                                                  'other')),
    hours        numeric(4, 2) NOT NULL CHECK (hours > 0 AND hours <= 24),
    notes        text          CHECK (char_length(notes) <= 500),
    created_at   timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, employee_id, absence_date, absence_type),
    FOREIGN KEY (company_id, employee_id) REFERENCES employees (company_id, id)
);

CREATE TABLE employee_opening_balances (
    company_id                   uuid           NOT NULL,
    employee_id                  uuid           NOT NULL,
    cutover_date                 date           NOT NULL,
    ytd_gross                    numeric(14, 2) NOT NULL CHECK (ytd_gross >= 0),
    vacation_paid_days_remaining numeric(6, 2)  NOT NULL CHECK (vacation_paid_days_remaining BETWEEN -100 AND 400),
    locked_by_run_id             uuid,
    created_at                   timestamptz    NOT NULL DEFAULT now(),
    updated_at                   timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, employee_id),
    FOREIGN KEY (company_id, employee_id) REFERENCES employees (company_id, id)
);
REVOKE DELETE ON employee_opening_balances FROM kontera_app;

CREATE TABLE salary_settings (
    company_id         uuid        NOT NULL PRIMARY KEY REFERENCES companies (id),
    pay_day            smallint    NOT NULL DEFAULT 25 CHECK (pay_day BETWEEN 1 AND 28),
    -- current: the month's absence is deducted on its own payslip;
    -- previous: on the next month's (avvikelseperiod).
    deviation_period   text        NOT NULL DEFAULT 'current' CHECK (deviation_period IN ('current', 'previous')),
    sick_rate          text        NOT NULL DEFAULT 'annual_hourly' CHECK (sick_rate IN ('annual_hourly')),
    net_pay_account    text        CHECK (net_pay_account ~ '^[1-8][0-9]{3}$'),
    agi_contact_name   text        CHECK (char_length(agi_contact_name) BETWEEN 1 AND 100),
    agi_contact_phone  text        CHECK (char_length(agi_contact_phone) BETWEEN 1 AND 50),
    agi_contact_email  text        CHECK (char_length(agi_contact_email) BETWEEN 3 AND 254),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
REVOKE DELETE ON salary_settings FROM kontera_app;

CREATE TABLE salary_runs (
    company_id        uuid           NOT NULL REFERENCES companies (id),
    id                uuid           NOT NULL,
    period_year       smallint       NOT NULL CHECK (period_year BETWEEN 2020 AND 2100),
    period_month      smallint       NOT NULL CHECK (period_month BETWEEN 1 AND 12),
    payment_date      date           NOT NULL,
    voucher_series    text           CHECK (voucher_series ~ '^[A-Z]$'),
    status            text           NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'review', 'approved', 'booked',
                                                                                 'corrected')),
    corrects_run_id   uuid,
    correction_run_id uuid,
    calculated_at     timestamptz,
    approved_at       timestamptz,
    approved_by       jsonb,
    booked_at         timestamptz,
    booked_by         jsonb,
    journal_entry_ids uuid[]         NOT NULL DEFAULT '{}',
    corrected_at      timestamptz,
    storno_entry_ids  uuid[]         NOT NULL DEFAULT '{}',
    gross_total       numeric(14, 2) NOT NULL DEFAULT 0,
    tax_total         numeric(14, 2) NOT NULL DEFAULT 0,
    net_total         numeric(14, 2) NOT NULL DEFAULT 0,
    avgifter_total    numeric(14, 2) NOT NULL DEFAULT 0,
    accrual_total     numeric(14, 2) NOT NULL DEFAULT 0,
    created_at        timestamptz    NOT NULL DEFAULT clock_timestamp(),
    updated_at        timestamptz    NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, corrects_run_id) REFERENCES salary_runs (company_id, id)
);
-- One run a period, but for those a correction replaced.
CREATE UNIQUE INDEX salary_runs_period ON salary_runs (company_id, period_year, period_month) WHERE status <> 'corrected';
CREATE INDEX salary_runs_list ON salary_runs (company_id, period_year DESC, period_month DESC, created_at DESC);

CREATE TABLE salary_run_employees (
    company_id                uuid           NOT NULL,
    id                        uuid           NOT NULL DEFAULT gen_random_uuid(),
    run_id                    uuid           NOT NULL,
    employee_id               uuid           NOT NULL,
    -- AGI field 570: the person's specifikationsnummer, kept by a
    -- correction so the corrected IU replaces the first.
    specification_number      integer        NOT NULL CHECK (specification_number BETWEEN 1 AND 9999999),
    gross_salary              numeric(14, 2) NOT NULL DEFAULT 0,
    tax_withheld              numeric(14, 2) NOT NULL DEFAULT 0,
    net_salary                numeric(14, 2) NOT NULL DEFAULT 0,
    avgifter_amount           numeric(14, 2) NOT NULL DEFAULT 0,
    -- The pay avgifter are reckoned on, and the part of it left uncharged
    -- under the 1 000 kr floor of the year.
    avgift_base               numeric(14, 2) NOT NULL DEFAULT 0,
    uncharged_base            numeric(14, 2) NOT NULL DEFAULT 0,
    tax_withheld_override     numeric(14, 2) CHECK (tax_withheld_override >= 0),
    avgifter_amount_override  numeric(14, 2) CHECK (avgifter_amount_override >= 0),
    vacation_accrual          numeric(14, 2) NOT NULL DEFAULT 0,
    vacation_accrual_avgifter numeric(14, 2) NOT NULL DEFAULT 0,
    vacation_days_taken       numeric(8, 4)  NOT NULL DEFAULT 0,
    absence_days              jsonb          NOT NULL DEFAULT '{}',
    -- The days of absence the calculation read: a calculated run holds
    -- them (SALARY_REGISTER_DATES_LOCKED_BY_RUN).
    absence_from              date,
    absence_to                date,
    employee_snapshot         jsonb,
    calculation_breakdown     jsonb,
    calculation_error         jsonb,
    calculated_at             timestamptz,
    created_at                timestamptz    NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, run_id, employee_id),
    FOREIGN KEY (company_id, run_id) REFERENCES salary_runs (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, employee_id) REFERENCES employees (company_id, id)
);
CREATE INDEX salary_run_employees_list ON salary_run_employees (company_id, run_id, created_at, id);
CREATE INDEX salary_run_employees_employee ON salary_run_employees (company_id, employee_id);

CREATE TABLE salary_lines (
    company_id          uuid           NOT NULL,
    id                  uuid           NOT NULL DEFAULT gen_random_uuid(),
    run_id              uuid           NOT NULL,
    employee_id         uuid           NOT NULL,
    item_type           text           NOT NULL CHECK (item_type IN ('hours', 'overtime', 'bonus', 'addition', 'one_off',
                                                                      'benefit', 'car_benefit', 'fuel_benefit',
                                                                      'gross_deduction', 'net_deduction', 'per_diem',
                                                                      'mileage')),
    description         text           CHECK (char_length(description) <= 200),
    quantity            numeric(14, 4),
    unit_price          numeric(14, 2),
    amount              numeric(14, 2) NOT NULL,
    one_off_tax_percent numeric(5, 2)  CHECK (one_off_tax_percent BETWEEN 0 AND 100),
    created_at          timestamptz    NOT NULL DEFAULT clock_timestamp(),
    updated_at          timestamptz    NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, run_id, employee_id) REFERENCES salary_run_employees (company_id, run_id, employee_id)
        ON DELETE CASCADE
);
CREATE INDEX salary_lines_run ON salary_lines (company_id, run_id, employee_id, created_at);

-- A booked or corrected run stays as it was booked: only the stamps of
-- its correction are set, once; its payslips and lines never change.
-- +goose StatementBegin
CREATE FUNCTION salary_runs_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.status <> 'draft' THEN
            RAISE EXCEPTION 'only a draft salary run is deleted' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF OLD.status = 'corrected'
       OR OLD.status = 'booked' AND (NEW.status <> 'corrected'
           OR (NEW.company_id, NEW.id, NEW.period_year, NEW.period_month, NEW.payment_date, NEW.voucher_series,
               NEW.corrects_run_id, NEW.calculated_at, NEW.approved_at, NEW.approved_by, NEW.booked_at, NEW.booked_by,
               NEW.journal_entry_ids, NEW.gross_total, NEW.tax_total, NEW.net_total, NEW.avgifter_total, NEW.accrual_total,
               NEW.created_at)
           IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.period_year, OLD.period_month, OLD.payment_date,
               OLD.voucher_series, OLD.corrects_run_id, OLD.calculated_at, OLD.approved_at, OLD.approved_by,
               OLD.booked_at, OLD.booked_by, OLD.journal_entry_ids, OLD.gross_total, OLD.tax_total, OLD.net_total,
               OLD.avgifter_total, OLD.accrual_total, OLD.created_at)) THEN
        RAISE EXCEPTION 'a booked salary run keeps what was booked' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE FUNCTION salary_payslips_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    st text;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    SELECT status INTO st FROM salary_runs WHERE company_id = r.company_id AND id = r.run_id;
    IF st IN ('booked', 'corrected') THEN
        RAISE EXCEPTION 'the payslips of a booked salary run keep what was booked' USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER salary_runs_guard BEFORE UPDATE OR DELETE ON salary_runs
    FOR EACH ROW EXECUTE FUNCTION salary_runs_guard();
CREATE TRIGGER salary_run_employees_guard BEFORE INSERT OR UPDATE OR DELETE ON salary_run_employees
    FOR EACH ROW EXECUTE FUNCTION salary_payslips_guard();
CREATE TRIGGER salary_lines_guard BEFORE INSERT OR UPDATE OR DELETE ON salary_lines
    FOR EACH ROW EXECUTE FUNCTION salary_payslips_guard();
CREATE TRIGGER salary_runs_no_truncate BEFORE TRUNCATE ON salary_runs
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
CREATE TRIGGER salary_run_employees_no_truncate BEFORE TRUNCATE ON salary_run_employees
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
CREATE TRIGGER salary_lines_no_truncate BEFORE TRUNCATE ON salary_lines
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

-- The vacation year of each employee as booked runs leave it: the days
-- earned and taken, and the days saved from earlier years by origin.
CREATE TABLE employee_vacation_years (
    company_id          uuid          NOT NULL,
    employee_id         uuid          NOT NULL,
    vacation_year_start date          NOT NULL,
    entitled_days       numeric(8, 4) NOT NULL,
    taken_days          numeric(8, 4) NOT NULL DEFAULT 0,
    earned_days         numeric(8, 4) NOT NULL DEFAULT 0,
    saved_days          jsonb         NOT NULL DEFAULT '{}',
    updated_at          timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, employee_id, vacation_year_start),
    FOREIGN KEY (company_id, employee_id) REFERENCES employees (company_id, id)
);
REVOKE DELETE ON employee_vacation_years FROM kontera_app;

CREATE TABLE agi_declarations (
    company_id    uuid        NOT NULL REFERENCES companies (id),
    id            uuid        NOT NULL DEFAULT gen_random_uuid(),
    run_id        uuid        NOT NULL,
    period        text        NOT NULL CHECK (period ~ '^20[0-9]{2}(0[1-9]|1[0-2])$'),
    is_correction boolean     NOT NULL,
    -- The file holds every person's personnummer: sealed like them.
    xml_sealed    bytea       NOT NULL,
    xml_filename  text        NOT NULL,
    due_date      date        NOT NULL,
    totals        jsonb       NOT NULL,
    generated_by  jsonb       NOT NULL,
    generated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, run_id) REFERENCES salary_runs (company_id, id)
);
CREATE INDEX agi_declarations_run ON agi_declarations (company_id, run_id, generated_at DESC);
REVOKE UPDATE, DELETE ON agi_declarations FROM kontera_app;
CREATE TRIGGER agi_declarations_no_truncate BEFORE TRUNCATE ON agi_declarations
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();

CREATE TABLE vacation_year_closes (
    company_id          uuid        NOT NULL REFERENCES companies (id),
    vacation_year_start date        NOT NULL,
    report              jsonb       NOT NULL,
    journal_entry_id    uuid,
    closed_by           jsonb       NOT NULL,
    closed_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, vacation_year_start),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id)
);
REVOKE UPDATE, DELETE ON vacation_year_closes FROM kontera_app;

-- The AGI's due date joins the company's tax deadlines when a file is
-- generated.
ALTER TABLE tax_deadlines DROP CONSTRAINT tax_deadlines_deadline_type_check,
    ADD CONSTRAINT tax_deadlines_deadline_type_check CHECK (deadline_type IN ('vat_return', 'income_tax_return', 'agi'));

-- +goose Down
DELETE FROM tax_deadlines WHERE deadline_type = 'agi';
ALTER TABLE tax_deadlines DROP CONSTRAINT tax_deadlines_deadline_type_check,
    ADD CONSTRAINT tax_deadlines_deadline_type_check CHECK (deadline_type IN ('vat_return', 'income_tax_return'));
DROP TABLE vacation_year_closes, agi_declarations, employee_vacation_years, salary_lines, salary_run_employees,
    salary_runs, salary_settings, employee_opening_balances, employee_absence, employees, payroll_tax_tables;
DROP FUNCTION salary_payslips_guard(), salary_runs_guard();
