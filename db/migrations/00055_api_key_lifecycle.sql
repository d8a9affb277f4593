-- Keys an owner controls (issue 48): a key may stop at a time of its
-- own (expires_at), says when it was last used, and after a rotation the
-- secret it replaced keeps working until previous_expires_at (the grace
-- period), then never again. A revocation is final.
--
-- Online: safe. Nullable columns without defaults are a catalogue change,
-- and the new unique index is built on a column that is NULL in every
-- existing row.

-- +goose Up
ALTER TABLE api_keys
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN last_used_at timestamptz,
    ADD COLUMN rotated_at timestamptz,
    ADD COLUMN previous_key_hash bytea UNIQUE CHECK (length(previous_key_hash) = 32),
    ADD COLUMN previous_expires_at timestamptz,
    ADD CONSTRAINT api_keys_previous_check CHECK ((previous_key_hash IS NULL) = (previous_expires_at IS NULL));
CREATE INDEX api_keys_user ON api_keys (user_id, created_at DESC, id DESC);

-- A revoked key stays revoked, at the time it was revoked, with the
-- secret it had: nothing brings a leaked key back.
-- +goose StatementBegin
CREATE FUNCTION api_keys_revocation_final() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.revoked_at IS NOT NULL AND (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at
            OR NEW.key_hash IS DISTINCT FROM OLD.key_hash
            OR NEW.previous_key_hash IS DISTINCT FROM OLD.previous_key_hash
            OR NEW.expires_at IS DISTINCT FROM OLD.expires_at) THEN
        RAISE EXCEPTION 'api key % is revoked: it cannot be changed', OLD.id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER api_keys_revocation_final BEFORE UPDATE ON api_keys
    FOR EACH ROW WHEN (OLD.revoked_at IS NOT NULL) EXECUTE FUNCTION api_keys_revocation_final();
REVOKE DELETE ON api_keys FROM kontera_app;

-- +goose Down
GRANT DELETE ON api_keys TO kontera_app;
DROP TRIGGER api_keys_revocation_final ON api_keys;
DROP FUNCTION api_keys_revocation_final();
DROP INDEX api_keys_user;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_previous_check,
    DROP COLUMN previous_expires_at, DROP COLUMN previous_key_hash, DROP COLUMN rotated_at,
    DROP COLUMN last_used_at, DROP COLUMN expires_at;
