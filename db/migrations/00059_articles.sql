-- Articles (issue 50): the company's register of what it sells, which an
-- invoice line names to take its text, unit, price, VAT rate and revenue
-- account. A line copies what it takes: an article changed later leaves
-- the invoices made before as they were. An article a line has named is
-- archived, never deleted (the foreign key refuses it), so every line's
-- article can be looked up as long as the invoice is kept.
--
-- Online: safe. A new table; on invoice_items a new nullable column (no
-- rewrite), its foreign key added NOT VALID (no row has one yet, nothing
-- is scanned) and its index built concurrently, outside a transaction,
-- so the invoices stay writable throughout. Each step may run again.

-- +goose NO TRANSACTION
-- +goose Up
CREATE TABLE IF NOT EXISTS articles (
    company_id       uuid           NOT NULL REFERENCES companies (id),
    id               uuid           NOT NULL,
    article_number   text           NOT NULL CHECK (article_number ~ '^[^[:space:][:cntrl:]]{1,50}$'),
    name             text           NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    description      text           CHECK (length(btrim(description)) BETWEEN 1 AND 1000),
    unit             text           NOT NULL CHECK (length(btrim(unit)) BETWEEN 1 AND 20),
    unit_price       numeric(14, 2) NOT NULL CHECK (unit_price >= 0),
    vat_rate         numeric(3, 2)  NOT NULL CHECK (vat_rate IN (0, 0.06, 0.12, 0.25)),
    -- The revenue account per VAT treatment (standard, eu_services,
    -- eu_goods, export_goods, export_services, eu_triangulation); a
    -- treatment left out books on its own default.
    revenue_accounts jsonb          NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(revenue_accounts) = 'object'),
    active           boolean        NOT NULL DEFAULT true,
    created_at       timestamptz    NOT NULL DEFAULT now(),
    updated_at       timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, article_number)
);
CREATE INDEX IF NOT EXISTS articles_name ON articles (company_id, lower(name));

ALTER TABLE invoice_items ADD COLUMN IF NOT EXISTS article_id uuid;
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_constraint WHERE conname = 'invoice_items_article') THEN
        ALTER TABLE invoice_items ADD CONSTRAINT invoice_items_article
            FOREIGN KEY (company_id, article_id) REFERENCES articles (company_id, id) NOT VALID;
    END IF;
END $$;
-- +goose StatementEnd
-- Whether an article is in use, and the foreign key's check when one is
-- deleted.
CREATE INDEX CONCURRENTLY IF NOT EXISTS invoice_items_article ON invoice_items (company_id, article_id)
    WHERE article_id IS NOT NULL;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS invoice_items_article;
ALTER TABLE invoice_items DROP CONSTRAINT IF EXISTS invoice_items_article;
ALTER TABLE invoice_items DROP COLUMN IF EXISTS article_id;
DROP TABLE IF EXISTS articles;
