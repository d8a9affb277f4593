-- The platform: users, companies and memberships, API keys, idempotency
-- records, rate-limit windows, the audit trail and the event outbox.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE users (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email      text NOT NULL CHECK (email = lower(email) AND email LIKE '%_@_%'),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (email)
);

CREATE TABLE companies (
    id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name                    text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    entity_type             text NOT NULL CHECK (entity_type IN ('aktiebolag', 'enskild_firma', 'ideell_forening')),
    org_number              text,
    vat_registered          boolean NOT NULL,
    moms_period             text CHECK (moms_period IN ('monthly', 'quarterly', 'yearly')),
    accounting_method       text NOT NULL CHECK (accounting_method IN ('accrual', 'cash')),
    f_skatt                 boolean NOT NULL,
    fiscal_year_start_month smallint NOT NULL CHECK (fiscal_year_start_month BETWEEN 1 AND 12),
    first_fiscal_year_start date NOT NULL,
    first_fiscal_year_end   date NOT NULL CHECK (first_fiscal_year_end > first_fiscal_year_start),
    address_line1           text,
    postal_code             text,
    city                    text,
    team_id                 uuid,
    created_by              uuid NOT NULL REFERENCES users (id),
    archived_at             timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    CHECK (NOT vat_registered OR (org_number IS NOT NULL AND moms_period IS NOT NULL))
);

CREATE TABLE company_members (
    company_id uuid NOT NULL REFERENCES companies (id),
    user_id    uuid NOT NULL REFERENCES users (id),
    role       text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    -- read_only marks a connection with read-only access to the company
    -- (CONNECTION_READ_ONLY) whatever the role.
    read_only  boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, user_id)
);
CREATE INDEX company_members_user ON company_members (user_id);

CREATE TABLE api_keys (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id        uuid NOT NULL REFERENCES users (id),
    name           text,
    -- The key itself is never stored: only its SHA-256 and a short prefix
    -- to recognise it by.
    prefix         text NOT NULL,
    key_hash       bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    mode           text NOT NULL CHECK (mode IN ('live', 'test')),
    scopes         text[] NOT NULL,
    company_access text NOT NULL CHECK (company_access IN ('all_memberships', 'allowlist')),
    read_only      boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    revoked_at     timestamptz
);

CREATE TABLE api_key_companies (
    api_key_id uuid NOT NULL REFERENCES api_keys (id),
    company_id uuid NOT NULL REFERENCES companies (id),
    PRIMARY KEY (api_key_id, company_id)
);

-- One row per (API key, Idempotency-Key): the stored outcome of the write,
-- committed in the write's own transaction.
CREATE TABLE idempotency_keys (
    api_key_id   uuid NOT NULL REFERENCES api_keys (id),
    key          uuid NOT NULL,
    request_hash bytea NOT NULL,
    status       smallint NOT NULL,
    content_type text NOT NULL,
    body         bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Rate-limit windows: counters shared by every replica. UNLOGGED because a
-- counter lost in a crash costs nothing and a WAL flush per request would.
CREATE UNLOGGED TABLE rate_limit_windows (
    api_key_id   uuid NOT NULL,
    window_start timestamptz NOT NULL,
    count        integer NOT NULL,
    PRIMARY KEY (api_key_id, window_start)
);

CREATE TABLE audit_entries (
    company_id     uuid NOT NULL REFERENCES companies (id),
    id             uuid NOT NULL DEFAULT gen_random_uuid(),
    action         text NOT NULL CHECK (action IN ('INSERT', 'UPDATE', 'DELETE', 'COMMIT', 'REVERSE', 'CORRECT',
                       'LOCK_PERIOD', 'CLOSE_PERIOD', 'DOCUMENT_DELETE_BLOCKED', 'RETENTION_BLOCK',
                       'SECURITY_EVENT', 'INTEGRITY_FAILURE', 'COMMITTED_AT_OVERRIDE')),
    table_name     text,
    record_id      text,
    actor_type     text,
    actor_id       uuid,
    actor_label    text,
    user_id        uuid,
    request_id     text,
    description    text,
    old_state      jsonb,
    new_state      jsonb,
    changed_fields text[],
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, id)
);
CREATE INDEX audit_entries_company_created ON audit_entries (company_id, created_at DESC, id);

-- The audit trail is append-only: behandlingshistorik must not be edited.
-- +goose StatementBegin
CREATE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_entries is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();

-- The outbox: events written in the transaction of the change that caused
-- them; webhook delivery workers pick them up after commit.
CREATE TABLE events (
    company_id    uuid NOT NULL REFERENCES companies (id),
    id            uuid NOT NULL DEFAULT gen_random_uuid(),
    type          text NOT NULL,
    payload       jsonb NOT NULL,
    api_version   text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    dispatched_at timestamptz,
    PRIMARY KEY (company_id, id)
);
CREATE INDEX events_undispatched ON events (created_at) WHERE dispatched_at IS NULL;

-- +goose Down
DROP TABLE events;
DROP TABLE audit_entries;
DROP FUNCTION audit_entries_append_only();
DROP TABLE rate_limit_windows;
DROP TABLE idempotency_keys;
DROP TABLE api_key_companies;
DROP TABLE api_keys;
DROP TABLE company_members;
DROP TABLE companies;
DROP TABLE users;
