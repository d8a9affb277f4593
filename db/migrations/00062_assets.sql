-- The fixed-asset register (anläggningsregister, issue 50): assets and
-- the months of depreciation booked for them. A month's row is written
-- with the verifikat that books it and never changed, but to record
-- that the verifikat was stornoed (the month may then be booked again);
-- nothing is removed. What an asset's depreciation is reckoned from
-- (value, residual, life, start, accounts) stays once a month of it is
-- booked, and a disposed asset changes no more (but back, when its
-- disposal's verifikat is stornoed).
--
-- Online: safe. New tables and functions; nothing existing is rewritten
-- or locked.

-- +goose Up
CREATE TABLE assets (
    company_id           uuid           NOT NULL REFERENCES companies (id),
    id                   uuid           NOT NULL,
    name                 text           NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    asset_class          text           NOT NULL
                                        CHECK (asset_class IN ('immateriella', 'byggnader', 'mark', 'maskiner', 'inventarier', 'datorer')),
    acquisition_date     date           NOT NULL,
    acquisition_value    numeric(14, 2) NOT NULL CHECK (acquisition_value > 0),
    asset_account        text           NOT NULL CHECK (asset_account ~ '^1[0-3][0-9]{2}$'),
    depreciation_account text           CHECK (depreciation_account ~ '^1[0-3][0-9]{2}$'),
    cost_account         text           CHECK (cost_account ~ '^78[0-9]{2}$'),
    depreciation_method  text           NOT NULL CHECK (depreciation_method IN ('linear', 'none')),
    useful_life_months   integer        CHECK (useful_life_months BETWEEN 1 AND 1200),
    residual_value       numeric(14, 2) NOT NULL DEFAULT 0 CHECK (residual_value >= 0 AND residual_value < acquisition_value),
    depreciation_start   date           NOT NULL CHECK (extract(day FROM depreciation_start) = 1),
    dimensions           jsonb          NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    journal_entry_id     uuid,
    supplier_invoice_id  uuid,
    status               text           NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disposed')),
    disposed_on          date,
    disposal_price       numeric(14, 2) CHECK (disposal_price >= 0),
    disposal_entry_id    uuid,
    created_at           timestamptz    NOT NULL DEFAULT now(),
    updated_at           timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, supplier_invoice_id) REFERENCES supplier_invoices (company_id, id),
    FOREIGN KEY (company_id, disposal_entry_id) REFERENCES journal_entries (company_id, id),
    CHECK ((depreciation_method = 'linear') = (useful_life_months IS NOT NULL AND depreciation_account IS NOT NULL
                                                 AND cost_account IS NOT NULL)),
    CHECK ((status = 'disposed') = (disposed_on IS NOT NULL AND disposal_price IS NOT NULL AND disposal_entry_id IS NOT NULL))
);
CREATE INDEX assets_list ON assets (company_id, acquisition_date, id);

CREATE TABLE asset_depreciations (
    company_id       uuid           NOT NULL REFERENCES companies (id),
    asset_id         uuid           NOT NULL,
    month            date           NOT NULL CHECK (extract(day FROM month) = 1),
    amount           numeric(14, 2) NOT NULL CHECK (amount > 0),
    journal_entry_id uuid           NOT NULL,
    reversed_by      uuid,
    created_at       timestamptz    NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, asset_id) REFERENCES assets (company_id, id),
    FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id),
    FOREIGN KEY (company_id, reversed_by) REFERENCES journal_entries (company_id, id)
);
-- A month is booked once, until its verifikat is stornoed.
CREATE UNIQUE INDEX asset_depreciations_once ON asset_depreciations (company_id, asset_id, month) WHERE reversed_by IS NULL;
CREATE INDEX asset_depreciations_entry ON asset_depreciations (company_id, journal_entry_id);

-- +goose StatementBegin
CREATE FUNCTION asset_depreciations_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR OLD.reversed_by IS NOT NULL
       OR (to_jsonb(NEW) - 'reversed_by') IS DISTINCT FROM (to_jsonb(OLD) - 'reversed_by') THEN
        RAISE EXCEPTION 'booked depreciation is never changed or removed; its verifikat is stornoed'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER asset_depreciations_guard BEFORE UPDATE OR DELETE ON asset_depreciations
    FOR EACH ROW EXECUTE FUNCTION asset_depreciations_guard();

-- +goose StatementBegin
CREATE FUNCTION assets_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF EXISTS (SELECT 1 FROM asset_depreciations d WHERE d.company_id = OLD.company_id AND d.asset_id = OLD.id)
           OR OLD.status = 'disposed' THEN
            RAISE EXCEPTION 'an asset with depreciation booked, or disposed, is kept' USING ERRCODE = 'check_violation';
        END IF;
        RETURN OLD;
    END IF;
    IF OLD.status = 'disposed' THEN
        -- Back to active only when the disposal's verifikat is stornoed.
        IF NEW.status = 'active' AND NEW.disposed_on IS NULL
           AND (to_jsonb(NEW) - ARRAY['status', 'disposed_on', 'disposal_price', 'disposal_entry_id', 'updated_at'])
               = (to_jsonb(OLD) - ARRAY['status', 'disposed_on', 'disposal_price', 'disposal_entry_id', 'updated_at'])
           AND EXISTS (SELECT 1 FROM journal_entries e WHERE e.company_id = OLD.company_id
                       AND e.reverses_id = OLD.disposal_entry_id) THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'a disposed asset changes no more' USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.acquisition_date, NEW.acquisition_value, NEW.asset_account, NEW.depreciation_account, NEW.cost_account,
            NEW.depreciation_method, NEW.useful_life_months, NEW.residual_value, NEW.depreciation_start, NEW.asset_class)
       IS DISTINCT FROM (OLD.acquisition_date, OLD.acquisition_value, OLD.asset_account, OLD.depreciation_account,
            OLD.cost_account, OLD.depreciation_method, OLD.useful_life_months, OLD.residual_value, OLD.depreciation_start,
            OLD.asset_class)
       AND EXISTS (SELECT 1 FROM asset_depreciations d WHERE d.company_id = OLD.company_id AND d.asset_id = OLD.id
                   AND d.reversed_by IS NULL) THEN
        RAISE EXCEPTION 'ASSET_DEPRECIATION_BOOKED: what depreciation is reckoned from stays once a month is booked'
            USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.company_id, NEW.id) IS DISTINCT FROM (OLD.company_id, OLD.id) THEN
        RAISE EXCEPTION 'an asset keeps its id' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER assets_guard BEFORE UPDATE OR DELETE ON assets
    FOR EACH ROW EXECUTE FUNCTION assets_guard();
CREATE TRIGGER asset_depreciations_no_truncate BEFORE TRUNCATE ON asset_depreciations
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
CREATE TRIGGER assets_no_truncate BEFORE TRUNCATE ON assets
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE DELETE ON asset_depreciations FROM kontera_app;

-- +goose Down
DROP TABLE IF EXISTS asset_depreciations;
DROP TABLE IF EXISTS assets;
DROP FUNCTION IF EXISTS asset_depreciations_guard();
DROP FUNCTION IF EXISTS assets_guard();
