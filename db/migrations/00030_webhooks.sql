-- Webhooks (issue 20): the URLs a company registers for an event type,
-- and every delivery made to them.
--
-- A webhook's secret is sealed at rest (internal/seal) and never read
-- back but to sign. Deliveries are written by the dispatcher, one per
-- active webhook of the event's company and type, when it stamps the event
-- dispatched and gives it the company's next feed number (feed order is
-- commit order: the counter row is held to the commit, as a voucher
-- series is). A delivery moves pending → in_flight (leased, attempts + 1)
-- → delivered | failed (retried at next_attempt_at) | dead; its payload,
-- event and webhook never change. A webhook deleted leaves its deliveries
-- (webhook_id null), never sent again.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
CREATE TABLE webhooks (
    company_id         uuid        NOT NULL REFERENCES companies (id),
    id                 uuid        NOT NULL,
    name               text        NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    description        text        CHECK (octet_length(description) <= 2000),
    event_type         text        NOT NULL,
    webhook_url        text        NOT NULL CHECK (octet_length(webhook_url) <= 2048 AND webhook_url LIKE 'https://%'),
    secret_sealed      bytea       NOT NULL,
    secret_rotated_at  timestamptz,
    active             boolean     NOT NULL DEFAULT true,
    api_version_pinned text        NOT NULL,
    disabled_at        timestamptz,
    disabled_reason    text        CHECK (octet_length(disabled_reason) <= 200),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CHECK (active OR disabled_at IS NOT NULL OR disabled_reason IS NULL)
);
CREATE INDEX webhooks_subscribed ON webhooks (company_id, event_type) WHERE active;

CREATE TABLE webhook_deliveries (
    company_id       uuid        NOT NULL REFERENCES companies (id),
    id               uuid        NOT NULL,
    webhook_id       uuid,
    event_id         uuid,
    event_type       text        NOT NULL,
    payload          jsonb       NOT NULL,
    event_created_at timestamptz NOT NULL,
    api_version      text        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending'
                                 CHECK (status IN ('pending', 'in_flight', 'delivered', 'failed', 'dead')),
    attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 8),
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_token      uuid,
    lease_until      timestamptz,
    response_status  integer,
    response_body    text        CHECK (octet_length(response_body) <= 4096 * 4),
    error            text        CHECK (octet_length(error) <= 2000),
    retry_of         uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    delivered_at     timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, webhook_id) REFERENCES webhooks (company_id, id) ON DELETE SET NULL (webhook_id),
    FOREIGN KEY (company_id, event_id) REFERENCES events (company_id, id),
    CHECK ((status = 'in_flight') = (lease_token IS NOT NULL)),
    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
);
-- What the delivery workers look for, and a webhook's history.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'failed', 'in_flight');
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (company_id, webhook_id, created_at DESC, id);

-- A delivery's payload, event and webhook are what it was made with.
-- +goose StatementBegin
CREATE FUNCTION webhook_deliveries_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.webhook_id IS NULL AND OLD.webhook_id IS NOT NULL
       AND (to_jsonb(NEW) - 'webhook_id') = (to_jsonb(OLD) - 'webhook_id') THEN
        RETURN NEW; -- its webhook deleted: the history stays
    END IF;
    IF (NEW.company_id, NEW.id, NEW.event_id, NEW.event_type, NEW.payload, NEW.event_created_at, NEW.api_version,
            NEW.retry_of, NEW.created_at)
       IS DISTINCT FROM (OLD.company_id, OLD.id, OLD.event_id, OLD.event_type, OLD.payload, OLD.event_created_at,
            OLD.api_version, OLD.retry_of, OLD.created_at)
       OR (NEW.webhook_id IS NOT NULL AND NEW.webhook_id IS DISTINCT FROM OLD.webhook_id)
       OR OLD.status IN ('delivered', 'dead') THEN
        RAISE EXCEPTION 'a delivery is sent as it was made, and a delivered or dead one stays'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER webhook_deliveries_guard BEFORE UPDATE ON webhook_deliveries
    FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_guard();

-- The feed: events numbered per company in the order their transactions
-- committed, as the dispatcher stamps them.
ALTER TABLE events ADD COLUMN feed_seq bigint;
CREATE UNIQUE INDEX events_feed ON events (company_id, feed_seq) WHERE feed_seq IS NOT NULL;
CREATE TABLE event_feeds (
    company_id uuid   NOT NULL PRIMARY KEY REFERENCES companies (id),
    last_seq   bigint NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE event_feeds;
DROP INDEX events_feed;
ALTER TABLE events DROP COLUMN feed_seq;
DROP TABLE webhook_deliveries;
DROP FUNCTION webhook_deliveries_guard();
DROP TABLE webhooks;
