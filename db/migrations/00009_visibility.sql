-- Corrections visible where an auditor looks (BFL 5 kap. 5 och 7 §§):
--   * who posted an entry — the person behind the key (user id and
--     e-mail) and the key's label, as they were at the time — is kept on
--     the entry (the rättelse log and the audit trail keep the e-mail
--     since 00008);
--   * a verifikat may name its counterparty (motpart): free text, or a
--     customer or supplier of the company, whose name is kept with it.
-- Both are part of the verifikat once posted: the guard refuses changing
-- them, and the app sets the poster only as it posts. An entry of a
-- closed year does not change at all any more.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE journal_entries
    ADD COLUMN posted_by_type text CHECK (length(posted_by_type) BETWEEN 1 AND 40),
    ADD COLUMN posted_by_user_id uuid,
    ADD COLUMN posted_by_email text,
    ADD COLUMN posted_by_label text CHECK (length(posted_by_label) BETWEEN 1 AND 200),
    ADD COLUMN counterparty_name text CHECK (length(counterparty_name) BETWEEN 1 AND 200),
    ADD COLUMN counterparty_customer_id uuid,
    ADD COLUMN counterparty_supplier_id uuid,
    ADD CONSTRAINT journal_entries_counterparty_customer FOREIGN KEY (company_id, counterparty_customer_id)
        REFERENCES customers (company_id, id),
    ADD CONSTRAINT journal_entries_counterparty_supplier FOREIGN KEY (company_id, counterparty_supplier_id)
        REFERENCES suppliers (company_id, id),
    ADD CONSTRAINT journal_entries_one_counterparty
        CHECK (counterparty_customer_id IS NULL OR counterparty_supplier_id IS NULL);
CREATE INDEX journal_entries_counterparty_customer ON journal_entries (company_id, counterparty_customer_id)
    WHERE counterparty_customer_id IS NOT NULL;
CREATE INDEX journal_entries_counterparty_supplier ON journal_entries (company_id, counterparty_supplier_id)
    WHERE counterparty_supplier_id IS NOT NULL;

GRANT UPDATE (posted_by_type, posted_by_user_id, posted_by_email, posted_by_label, counterparty_name,
    counterparty_customer_id, counterparty_supplier_id) ON journal_entries TO kontera_app;


-- Who posted and the counterparty are part of a posted verifikat; and
-- nothing at all of an entry of a closed year changes, not even its note
-- or underlag mark: the year is archived as it was closed.
-- +goose StatementBegin
CREATE FUNCTION journal_entry_posted_fields() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status = 'posted' AND ROW(NEW.*) IS DISTINCT FROM ROW(OLD.*) AND EXISTS (
            SELECT 1 FROM fiscal_periods WHERE company_id = OLD.company_id AND id = OLD.fiscal_period_id AND is_closed) THEN
        RAISE EXCEPTION 'PERIOD_LOCKED: entry % belongs to a closed year', OLD.id USING ERRCODE = 'check_violation',
            DETAIL = json_build_object('reason', 'period_closed', 'fiscal_period_id', OLD.fiscal_period_id,
                'journal_entry_id', OLD.id)::text;
    END IF;
    IF OLD.status = 'posted' AND (
           (NEW.posted_by_type, NEW.posted_by_user_id, NEW.posted_by_email, NEW.posted_by_label,
            NEW.counterparty_name, NEW.counterparty_customer_id, NEW.counterparty_supplier_id)
           IS DISTINCT FROM
           (OLD.posted_by_type, OLD.posted_by_user_id, OLD.posted_by_email, OLD.posted_by_label,
            OLD.counterparty_name, OLD.counterparty_customer_id, OLD.counterparty_supplier_id)) THEN
        RAISE EXCEPTION 'who posted a verifikat and its counterparty never change' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'draft' AND NEW.status = 'draft' AND (NEW.posted_by_type IS NOT NULL OR NEW.posted_by_label IS NOT NULL
           OR NEW.posted_by_user_id IS NOT NULL OR NEW.posted_by_email IS NOT NULL) THEN
        RAISE EXCEPTION 'a draft has not been posted by anyone yet' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER journal_entry_posted_fields BEFORE UPDATE ON journal_entries
    FOR EACH ROW EXECUTE FUNCTION journal_entry_posted_fields();

-- +goose Down
-- +goose StatementBegin
DO $$ BEGIN
    RAISE EXCEPTION 'the visibility columns cannot be migrated down (00007 before them cannot either): restore a backup';
END $$;
-- +goose StatementEnd
