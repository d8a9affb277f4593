-- Accrued invoice lines (issue 17): a line with an accrual period is
-- booked on a balance account (2970, förutbetalda intäkter) when the
-- invoice is, and moved to revenue month by month. This is that
-- schedule, written when the sale is booked: each month's share of the
-- line in kronor, the day it is released (the month's last day, or the
-- invoice date for months already past), and the verifikat that released
-- it. A row is released once, or cancelled once when the invoice is
-- credited before its month; nothing else of it ever changes.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE invoice_accruals (
    company_id       uuid           NOT NULL,
    invoice_id       uuid           NOT NULL,
    item_id          uuid           NOT NULL,
    month            date           NOT NULL CHECK (extract(day FROM month) = 1),
    release_date     date           NOT NULL,
    amount           numeric(18, 2) NOT NULL CHECK (amount <> 0),
    revenue_account  text           NOT NULL CHECK (revenue_account ~ '^3[0-9]{3}$'),
    balance_account  text           NOT NULL CHECK (balance_account ~ '^29[0-9]{2}$'),
    dimensions       jsonb          NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    journal_entry_id uuid,
    cancelled        boolean        NOT NULL DEFAULT false,
    PRIMARY KEY (company_id, item_id, month),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    FOREIGN KEY (company_id, item_id) REFERENCES invoice_items (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    CHECK (NOT (cancelled AND journal_entry_id IS NOT NULL))
);
-- What the release job looks for: the rows due and not yet released.
CREATE INDEX invoice_accruals_due ON invoice_accruals (release_date, company_id)
    WHERE journal_entry_id IS NULL AND NOT cancelled;
CREATE INDEX invoice_accruals_invoice ON invoice_accruals (company_id, invoice_id);

-- +goose StatementBegin
CREATE FUNCTION invoice_accruals_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.company_id, NEW.invoice_id, NEW.item_id, NEW.month, NEW.release_date, NEW.amount, NEW.revenue_account,
            NEW.balance_account, NEW.dimensions)
       IS DISTINCT FROM (OLD.company_id, OLD.invoice_id, OLD.item_id, OLD.month, OLD.release_date, OLD.amount,
            OLD.revenue_account, OLD.balance_account, OLD.dimensions)
       OR OLD.journal_entry_id IS NOT NULL OR OLD.cancelled THEN
        RAISE EXCEPTION 'an accrual is released or cancelled once, and is otherwise never changed'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER invoice_accruals_guard BEFORE UPDATE ON invoice_accruals
    FOR EACH ROW EXECUTE FUNCTION invoice_accruals_guard();
CREATE TRIGGER invoice_accruals_no_truncate BEFORE TRUNCATE ON invoice_accruals
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON invoice_accruals FROM kontera_app;

-- +goose Down
DROP TABLE invoice_accruals;
DROP FUNCTION invoice_accruals_guard();
