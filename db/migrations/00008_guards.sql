-- A database that defends the books against its own users.
--
-- Two roles: the owner, who runs these migrations and owns every table,
-- function and trigger; and kontera_app, the role the server connects as
-- (directly, or as a login role granted kontera_app). kontera_app has
-- plain DML rights and owns nothing, so it can neither disable a trigger
-- (ALTER TABLE ... DISABLE TRIGGER), nor turn them all off
-- (session_replication_role needs a superuser), nor TRUNCATE.
--
-- On top of the rights, guards that hold against the owner too:
--   * the derived and sequencing tables (ledger_postings, account_balances,
--     voucher_sequences) change only from inside the ledger's triggers:
--     their guard refuses any write at trigger depth 1, i.e. a statement
--     of a user rather than of a trigger;
--   * TRUNCATE of an append-only or posted table is refused by a
--     statement trigger (row triggers do not fire on TRUNCATE);
--   * the rättelse log is written only by ledger_log_rattelse, which reads
--     the old values itself; a struck or added line must name a rättelse
--     of its own entry logged in the same transaction, and an added line
--     must be one that rättelse lists;
--   * the links of a storno or correction are not the app's to set: they
--     are written at insert (and checked when posted) or, for
--     reversed_by_id, by the ledger's trigger.
-- The ledger's trigger functions that write the guarded tables run as
-- their owner (SECURITY DEFINER, with a fixed search_path).
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'kontera_app') THEN
        BEGIN
            CREATE ROLE kontera_app NOLOGIN;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE EXCEPTION 'the role kontera_app does not exist and % may not create it: create it first (CREATE ROLE kontera_app LOGIN PASSWORD ...), then migrate again', current_user;
        WHEN duplicate_object THEN
            NULL; -- created meanwhile by a concurrent migration of another database
        END;
    END IF;
END $$;
-- +goose StatementEnd

GRANT USAGE ON SCHEMA public TO kontera_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO kontera_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO kontera_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO kontera_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO kontera_app;

-- Read-only to the app: what only the ledger's triggers and functions
-- write, and the migrations' own record.
REVOKE INSERT, UPDATE, DELETE ON ledger_postings, account_balances, voucher_sequences, journal_rattelser,
    goose_db_version FROM kontera_app;
-- Append-only: written forwards, never changed or removed.
REVOKE UPDATE, DELETE ON audit_entries FROM kontera_app;
-- Journal entries are never deleted, and the app updates only the columns
-- a draft, a posting, a rättelse, a note or an underlag mark change; the
-- identity, the voucher number and the storno and correction links are
-- the ledger's (set at insert, or by its triggers).
REVOKE DELETE, UPDATE ON journal_entries FROM kontera_app;
GRANT UPDATE (fiscal_period_id, voucher_series, entry_date, description, status, notes, no_document_required,
    no_document_reason, cancelled_at, updated_at) ON journal_entries TO kontera_app;

-- The ledger's trigger functions that write guarded tables run as their
-- owner.
ALTER FUNCTION journal_entry_guard() SECURITY DEFINER SET search_path = public, pg_temp;
ALTER FUNCTION journal_entry_posted() SECURITY DEFINER SET search_path = public, pg_temp;
ALTER FUNCTION journal_line_guard() SECURITY DEFINER SET search_path = public, pg_temp;

-- Derived and sequencing tables: only the ledger's triggers write them.
-- A statement trigger: one check per statement, however many rows (the
-- ledger writes a posting's lines in one statement).
-- +goose StatementBegin
CREATE FUNCTION ledger_derived_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION '% is kept by the ledger''s triggers and is not written directly', TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['ledger_postings', 'account_balances', 'voucher_sequences'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE ON %I
            FOR EACH STATEMENT EXECUTE FUNCTION ledger_derived_guard()', t || '_derived', t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- No TRUNCATE of the books or their history, by anyone.
-- +goose StatementBegin
CREATE FUNCTION books_no_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is part of the books and is never truncated', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['audit_entries', 'journal_entries', 'journal_lines', 'journal_rattelser',
            'ledger_postings', 'account_balances', 'voucher_sequences', 'fiscal_periods', 'events'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate()',
            t || '_no_truncate', t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- Who made a change is the person behind the key too: their e-mail as
-- it was then, beside the key's label and the user id.
ALTER TABLE audit_entries ADD COLUMN actor_email text;
ALTER TABLE journal_rattelser ADD COLUMN actor_email text;

-- The rättelse log: who changed what on a posted entry, when. Its old
-- values are read here, not taken from the caller; the change itself
-- follows in the same transaction and the guards match it to this row.
-- +goose StatementBegin
CREATE FUNCTION ledger_log_rattelse(c uuid, entry uuid, kind text, new_description text, new_entry_date date,
    struck uuid[], added jsonb, p_actor_type text, p_actor_id uuid, p_actor_label text, p_user_id uuid,
    p_actor_email text)
RETURNS journal_rattelser
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    e journal_entries%ROWTYPE;
    out journal_rattelser%ROWTYPE;
    struck_json jsonb;
BEGIN
    SELECT * INTO e FROM journal_entries WHERE company_id = c AND id = entry FOR UPDATE;
    IF NOT FOUND OR e.status <> 'posted' THEN
        RAISE EXCEPTION 'a rättelse corrects a posted entry' USING ERRCODE = 'check_violation';
    END IF;
    IF kind = 'lines' THEN
        SELECT jsonb_agg(jsonb_build_object('id', id, 'account_number', account_number, 'debit_amount', debit_amount,
                   'credit_amount', credit_amount, 'line_description', line_description, 'dimensions', dimensions)
                   ORDER BY sort_order, id)
        INTO struck_json FROM journal_lines
        WHERE company_id = c AND journal_entry_id = entry AND id = ANY(struck) AND struck_by_rattelse_id IS NULL;
        IF coalesce(jsonb_array_length(struck_json), 0) <> coalesce(cardinality(struck), 0) THEN
            RAISE EXCEPTION 'a rättelse strikes current lines of its own entry' USING ERRCODE = 'check_violation';
        END IF;
        INSERT INTO journal_rattelser (company_id, journal_entry_id, rattelse_type, struck_lines, added_lines,
            actor_type, actor_id, actor_label, user_id, actor_email)
        VALUES (c, entry, 'lines', struck_json, added, p_actor_type, p_actor_id, p_actor_label, p_user_id, p_actor_email)
        RETURNING * INTO out;
    ELSIF kind = 'metadata' THEN
        INSERT INTO journal_rattelser (company_id, journal_entry_id, rattelse_type, old_description, new_description,
            old_entry_date, new_entry_date, actor_type, actor_id, actor_label, user_id, actor_email)
        VALUES (c, entry, 'metadata',
            CASE WHEN new_description IS NOT NULL THEN e.description END, new_description,
            CASE WHEN new_entry_date IS NOT NULL THEN e.entry_date END, new_entry_date,
            p_actor_type, p_actor_id, p_actor_label, p_user_id, p_actor_email)
        RETURNING * INTO out;
    ELSE
        RAISE EXCEPTION 'unknown rättelse type %', kind USING ERRCODE = 'check_violation';
    END IF;
    RETURN out;
END $$;
-- +goose StatementEnd

-- A struck or added line names a rättelse of its own entry, logged in
-- this transaction; an added line is one that rättelse lists.
-- +goose StatementBegin
CREATE FUNCTION journal_line_rattelse_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    r uuid;
BEGIN
    IF TG_OP = 'INSERT' THEN r := NEW.added_by_rattelse_id; ELSE r := NEW.struck_by_rattelse_id; END IF;
    IF r IS NULL OR (TG_OP = 'UPDATE' AND NEW.struck_by_rattelse_id IS NOT DISTINCT FROM OLD.struck_by_rattelse_id) THEN
        RETURN NEW;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM journal_rattelser x
            WHERE x.company_id = NEW.company_id AND x.id = r AND x.journal_entry_id = NEW.journal_entry_id
              AND x.rattelse_type = 'lines' AND x.created_at = now()
              AND (TG_OP = 'UPDATE' AND x.struck_lines @> jsonb_build_array(jsonb_build_object('id', NEW.id))
                   OR TG_OP = 'INSERT' AND EXISTS (
                       SELECT 1 FROM jsonb_array_elements(x.added_lines) a
                       WHERE a->>'id' = NEW.id::text AND a->>'account_number' = NEW.account_number
                         AND (a->>'debit_amount')::numeric = NEW.debit_amount
                         AND (a->>'credit_amount')::numeric = NEW.credit_amount))) THEN
        RAISE EXCEPTION 'lines are struck or added only as the rättelse logged for them says'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_line_rattelse_guard BEFORE INSERT OR UPDATE ON journal_lines
    FOR EACH ROW WHEN (NEW.added_by_rattelse_id IS NOT NULL OR NEW.struck_by_rattelse_id IS NOT NULL)
    EXECUTE FUNCTION journal_line_rattelse_guard();

-- +goose Down
DROP TRIGGER journal_line_rattelse_guard ON journal_lines;
DROP FUNCTION journal_line_rattelse_guard();
DROP FUNCTION ledger_log_rattelse(uuid, uuid, text, text, date, uuid[], jsonb, text, uuid, text, uuid, text);
ALTER TABLE journal_rattelser DROP COLUMN actor_email;
ALTER TABLE audit_entries DROP COLUMN actor_email;
DROP FUNCTION books_no_truncate() CASCADE;
DROP FUNCTION ledger_derived_guard() CASCADE;
ALTER FUNCTION journal_entry_guard() SECURITY INVOKER RESET search_path;
ALTER FUNCTION journal_entry_posted() SECURITY INVOKER RESET search_path;
ALTER FUNCTION journal_line_guard() SECURITY INVOKER RESET search_path;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM kontera_app;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM kontera_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM kontera_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT ON SEQUENCES FROM kontera_app;
REVOKE USAGE ON SCHEMA public FROM kontera_app;
