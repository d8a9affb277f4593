-- invoice.overdue (issue 49): the day an invoice passes its due date
-- unpaid, an event says so, once. A row here is that announcement: the
-- sweep inserts it and emits the event in one transaction, so however
-- many replicas sweep, an invoice is announced once. Append-only.
--
-- Online: safe. A new table, and an index on invoices built
-- concurrently (outside a transaction), so the invoices stay writable
-- while it builds.

-- +goose NO TRANSACTION
-- +goose Up
CREATE TABLE IF NOT EXISTS invoice_overdue_notices (
    company_id   uuid        NOT NULL,
    invoice_id   uuid        NOT NULL,
    due_date     date        NOT NULL,
    announced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, invoice_id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id)
);
REVOKE UPDATE, DELETE ON invoice_overdue_notices FROM kontera_app;
-- The open invoices by due date: what the hourly sweep reads, across
-- every company, without reading the paid ones.
CREATE INDEX CONCURRENTLY IF NOT EXISTS invoices_open_due ON invoices (due_date)
    WHERE document_type = 'invoice' AND status IN ('sent', 'partially_paid');

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS invoices_open_due;
DROP TABLE IF EXISTS invoice_overdue_notices;
