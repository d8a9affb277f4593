-- Dimensions (SIE #DIM) and their values (#OBJEKT): cost centres,
-- projects and the company's own. A journal line tags them as a map from
-- sie_dim_no to value code (journal_lines.dimensions).
--
-- Every company has dimension 1 (Kostnadsställe, resets annually) and 6
-- (Projekt, accumulates) from its creation: a trigger makes them with the
-- company, so no path that creates companies can forget them.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE dimensions (
    company_id        uuid NOT NULL REFERENCES companies (id),
    id                uuid NOT NULL DEFAULT gen_random_uuid(),
    sie_dim_no        integer NOT NULL CHECK (sie_dim_no BETWEEN 1 AND 9999),
    name              text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
    parent_sie_dim_no integer,
    resets_annually   boolean NOT NULL DEFAULT true,
    is_system         boolean NOT NULL DEFAULT false,
    is_active         boolean NOT NULL DEFAULT true,
    sort_order        integer NOT NULL CHECK (sort_order >= 0),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, sie_dim_no),
    FOREIGN KEY (company_id, parent_sie_dim_no) REFERENCES dimensions (company_id, sie_dim_no),
    CHECK (parent_sie_dim_no IS DISTINCT FROM sie_dim_no),
    -- Numbers 1-19 carry SIE's standard meanings: only the system's.
    CHECK (is_system OR sie_dim_no >= 20)
);

CREATE TABLE dimension_values (
    company_id   uuid NOT NULL,
    id           uuid NOT NULL DEFAULT gen_random_uuid(),
    dimension_id uuid NOT NULL,
    code         text NOT NULL CHECK (code ~ '^[A-Za-zÅÄÖåäö0-9_+-]{1,20}$'),
    name         text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
    is_active    boolean NOT NULL DEFAULT true,
    start_date   date,
    end_date     date,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    -- Codes are case-sensitive: P1 and p1 are two values.
    UNIQUE (company_id, dimension_id, code),
    FOREIGN KEY (company_id, dimension_id) REFERENCES dimensions (company_id, id) ON DELETE CASCADE,
    CHECK (end_date IS NULL OR start_date IS NULL OR end_date >= start_date)
);

-- +goose StatementBegin
CREATE FUNCTION company_system_dimensions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO dimensions (company_id, sie_dim_no, name, resets_annually, is_system, sort_order)
    VALUES (NEW.id, 1, 'Kostnadsställe', true, true, 1), (NEW.id, 6, 'Projekt', false, true, 2);
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER company_system_dimensions AFTER INSERT ON companies
    FOR EACH ROW EXECUTE FUNCTION company_system_dimensions();

INSERT INTO dimensions (company_id, sie_dim_no, name, resets_annually, is_system, sort_order)
SELECT c.id, d.no, d.name, d.resets, true, d.sort
FROM companies c, (VALUES (1, 'Kostnadsställe', true, 1), (6, 'Projekt', false, 2)) AS d (no, name, resets, sort);

-- +goose Down
DROP TRIGGER company_system_dimensions ON companies;
DROP FUNCTION company_system_dimensions();
DROP TABLE dimension_values;
DROP TABLE dimensions;
