-- Supplier payment batches (betalfiler, issue 50): approved supplier
-- invoices chosen for a payment date and a cash account, and the
-- pain.001 file made of them. A batch reserves its invoices: an invoice
-- is in at most one batch not cancelled (the index holds it whoever
-- writes). The file is kept as it was made, as sent to the bank; a batch
-- changes only to be cancelled, which releases its invoices. Nothing is
-- removed.
--
-- Online: safe. New tables and functions; nothing existing is rewritten
-- or locked.

-- +goose Up
CREATE TABLE supplier_payment_batches (
    company_id      uuid        NOT NULL REFERENCES companies (id),
    id              uuid        NOT NULL,
    payment_date    date        NOT NULL,
    cash_account_id uuid        NOT NULL,
    format          text        NOT NULL DEFAULT 'pain001' CHECK (format = 'pain001'),
    status          text        NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'cancelled')),
    message_id      text        NOT NULL CHECK (char_length(message_id) BETWEEN 1 AND 35),
    payment_count   integer     NOT NULL CHECK (payment_count BETWEEN 1 AND 500),
    totals          jsonb       NOT NULL CHECK (jsonb_typeof(totals) = 'object'),
    file            bytea       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    cancelled_at    timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, cash_account_id) REFERENCES cash_accounts (company_id, id),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);
CREATE INDEX supplier_payment_batches_list ON supplier_payment_batches (company_id, created_at DESC, id);

CREATE TABLE supplier_payment_batch_items (
    company_id          uuid           NOT NULL,
    batch_id            uuid           NOT NULL,
    supplier_invoice_id uuid           NOT NULL,
    seq                 integer        NOT NULL CHECK (seq >= 1),
    supplier_name       text           NOT NULL,
    invoice_number      text           NOT NULL,
    reference           text           NOT NULL,
    end_to_end_id       text           NOT NULL CHECK (char_length(end_to_end_id) BETWEEN 1 AND 35),
    amount              numeric(14, 2) NOT NULL CHECK (amount > 0),
    currency            text           NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    released_at         timestamptz,
    PRIMARY KEY (company_id, batch_id, supplier_invoice_id),
    FOREIGN KEY (company_id, batch_id) REFERENCES supplier_payment_batches (company_id, id),
    FOREIGN KEY (company_id, supplier_invoice_id) REFERENCES supplier_invoices (company_id, id)
);
-- An invoice is reserved by one batch at a time.
CREATE UNIQUE INDEX supplier_payment_batch_items_reserved ON supplier_payment_batch_items (company_id, supplier_invoice_id)
    WHERE released_at IS NULL;

-- +goose StatementBegin
CREATE FUNCTION supplier_payment_batches_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'a payment batch is kept: cancel it' USING ERRCODE = 'check_violation';
    END IF;
    IF TG_TABLE_NAME = 'supplier_payment_batches' THEN
        IF OLD.status <> 'created' OR NEW.status <> 'cancelled'
           OR (to_jsonb(NEW) - ARRAY['status', 'cancelled_at']) IS DISTINCT FROM (to_jsonb(OLD) - ARRAY['status', 'cancelled_at']) THEN
            RAISE EXCEPTION 'a payment batch and its file stay as made; it is only cancelled' USING ERRCODE = 'check_violation';
        END IF;
    ELSIF OLD.released_at IS NOT NULL OR NEW.released_at IS NULL
          OR (to_jsonb(NEW) - 'released_at') IS DISTINCT FROM (to_jsonb(OLD) - 'released_at') THEN
        RAISE EXCEPTION 'a batch''s payment stays as made; it is only released' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER supplier_payment_batches_guard BEFORE UPDATE OR DELETE ON supplier_payment_batches
    FOR EACH ROW EXECUTE FUNCTION supplier_payment_batches_guard();
CREATE TRIGGER supplier_payment_batch_items_guard BEFORE UPDATE OR DELETE ON supplier_payment_batch_items
    FOR EACH ROW EXECUTE FUNCTION supplier_payment_batches_guard();
REVOKE DELETE ON supplier_payment_batches, supplier_payment_batch_items FROM kontera_app;

-- +goose Down
DROP TABLE IF EXISTS supplier_payment_batch_items;
DROP TABLE IF EXISTS supplier_payment_batches;
DROP FUNCTION IF EXISTS supplier_payment_batches_guard();
