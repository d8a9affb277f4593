-- Voucher gap explanations (issue 50): a range of verifikat numbers
-- missing from a series in a fiscal year (an imported file's, a series
-- renumbered in another program) explained once, in words. An explanation
-- is part of the behandlingshistorik: written once, never changed or
-- removed, and no two of a series and year overlap.
--
-- Online: safe. A new table; nothing existing is rewritten or locked.

-- +goose Up
CREATE TABLE voucher_gap_explanations (
    company_id       uuid        NOT NULL,
    id               uuid        NOT NULL,
    fiscal_period_id uuid        NOT NULL,
    voucher_series   text        NOT NULL CHECK (voucher_series ~ '^[^[:space:][:cntrl:]]{1,10}$'),
    gap_start        integer     NOT NULL CHECK (gap_start > 0),
    gap_end          integer     NOT NULL,
    explanation      text        NOT NULL CHECK (length(btrim(explanation)) > 0 AND length(explanation) <= 2000),
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, fiscal_period_id) REFERENCES fiscal_periods (company_id, id),
    CHECK (gap_end >= gap_start)
);
CREATE INDEX voucher_gap_explanations_series ON voucher_gap_explanations
    (company_id, fiscal_period_id, voucher_series, gap_start);

-- No two explanations of a series and year overlap. The application
-- checks first, under a lock of the series, to answer with the one in the
-- way; this holds whatever writes.
-- +goose StatementBegin
CREATE FUNCTION voucher_gap_explanations_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'a voucher gap explanation is never changed or removed' USING ERRCODE = 'check_violation';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended(NEW.company_id::text || NEW.fiscal_period_id::text || NEW.voucher_series, 0));
    IF EXISTS (SELECT 1 FROM voucher_gap_explanations
               WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.fiscal_period_id
                 AND voucher_series = NEW.voucher_series AND gap_start <= NEW.gap_end AND gap_end >= NEW.gap_start) THEN
        RAISE EXCEPTION 'VOUCHER_GAP_ALREADY_EXPLAINED: % %-% overlaps an explanation', NEW.voucher_series, NEW.gap_start, NEW.gap_end
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER voucher_gap_explanations_guard BEFORE INSERT OR UPDATE OR DELETE ON voucher_gap_explanations
    FOR EACH ROW EXECUTE FUNCTION voucher_gap_explanations_guard();
CREATE TRIGGER voucher_gap_explanations_no_truncate BEFORE TRUNCATE ON voucher_gap_explanations
    FOR EACH STATEMENT EXECUTE FUNCTION books_no_truncate();
REVOKE UPDATE, DELETE ON voucher_gap_explanations FROM kontera_app;

-- +goose Down
DROP TABLE IF EXISTS voucher_gap_explanations;
DROP FUNCTION IF EXISTS voucher_gap_explanations_guard();
