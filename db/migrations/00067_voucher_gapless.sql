-- Whether a voucher series has no gap, kept beside its last number
-- (issue 51), so that the year's compliance check reads the numbers of
-- only the series that may have one, rather than every verifikat.
--
-- A series' numbers only grow and are never taken back, so a gap, once
-- there, stays. The single path numbers last + 1 and so never makes one:
-- a new row is gapless (the column's default) and an increment keeps it.
-- Only born entries may (an import keeps its file's numbers): the
-- statement trigger knows each series' count, lowest and highest.
-- NULL is "not known": rows from before this migration, until the
-- backfill below has counted them; a reader treats NULL as "may have".
--
-- Online: safe. The column is added without a rewrite; the default
-- applies to new rows only. The backfill runs outside a transaction,
-- one series at a time: it locks that series' row (as a posting in it
-- does), counts its numbers and commits, so a posting waits at most for
-- one series' count. Interrupted, it leaves NULLs, which readers treat
-- as unknown and the next run counts.

-- +goose NO TRANSACTION
-- +goose Up
ALTER TABLE voucher_sequences ADD COLUMN IF NOT EXISTS gapless boolean;
ALTER TABLE voucher_sequences ALTER COLUMN gapless SET DEFAULT true;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION journal_entries_born() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    r record;
    last integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM born WHERE status = 'posted') THEN
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 FROM born WHERE status = 'posted'
               AND (posted_at <> now() OR reversed_by_id IS NOT NULL OR correction_of_id IS NOT NULL)) THEN
        RAISE EXCEPTION 'an entry born posted is posted now, and is neither reversed nor a correction'
            USING ERRCODE = 'check_violation';
    END IF;
    -- The single path's check for each date; its rules are bounds (the
    -- period's span, the lock date) and per-period states, so the first
    -- and last date of each period and source decide for every date.
    FOR r IN SELECT company_id, fiscal_period_id, source_type, min(entry_date) AS first, max(entry_date) AS last
             FROM born WHERE status = 'posted' GROUP BY 1, 2, 3 LOOP
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.first, r.source_type);
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.last, r.source_type);
    END LOOP;
    FOR r IN SELECT company_id, fiscal_period_id, voucher_series, min(voucher_number) AS lo,
                    max(voucher_number) AS hi, count(*) AS n, bool_and(source_type = 'import') AS imported
             FROM born WHERE status = 'posted' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
        LOOP
            SELECT last_number INTO last FROM voucher_sequences
            WHERE company_id = r.company_id AND fiscal_period_id = r.fiscal_period_id
              AND voucher_series = r.voucher_series FOR UPDATE;
            EXIT WHEN FOUND;
            INSERT INTO voucher_sequences (company_id, fiscal_period_id, voucher_series, last_number, gapless)
            VALUES (r.company_id, r.fiscal_period_id, r.voucher_series, r.hi, r.lo = 1 AND r.hi = r.n)
            ON CONFLICT DO NOTHING;
            IF FOUND THEN
                last := 0;
                EXIT;
            END IF;
        END LOOP;
        IF r.lo <= last THEN
            RAISE EXCEPTION 'voucher numbers only grow: % in %/% is not above the last number %', r.lo,
                r.fiscal_period_id, r.voucher_series, last USING ERRCODE = 'check_violation';
        END IF;
        IF NOT r.imported AND (r.lo <> last + 1 OR r.hi - r.lo + 1 <> r.n) THEN
            RAISE EXCEPTION 'voucher numbers are gapless: % to % in %/% do not follow % without a gap', r.lo, r.hi,
                r.fiscal_period_id, r.voucher_series, last USING ERRCODE = 'check_violation';
        END IF;
        IF last > 0 THEN
            UPDATE voucher_sequences SET last_number = r.hi,
                gapless = gapless AND r.lo = last + 1 AND r.hi - r.lo + 1 = r.n
            WHERE company_id = r.company_id AND fiscal_period_id = r.fiscal_period_id
              AND voucher_series = r.voucher_series;
        END IF;
    END LOOP;
    INSERT INTO ledger_batch_checks (company_id, entry_ids)
    SELECT company_id, array_agg(id) FROM born WHERE status = 'posted' GROUP BY company_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- The backfill. voucher_sequences takes changes only from inside a
-- trigger (ledger_derived_guard), so each series is counted by a
-- trigger on a scratch table, one row inserted and committed per series.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION voucher_sequences_count_gapless() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- The lock first, the count after in a statement of its own: it
    -- then sees every number committed before the lock.
    PERFORM 1 FROM voucher_sequences
    WHERE company_id = NEW.company_id AND fiscal_period_id = NEW.fiscal_period_id
      AND voucher_series = NEW.voucher_series FOR UPDATE;
    UPDATE voucher_sequences s SET gapless = (
        SELECT count(*) = s.last_number FROM journal_entries e
        WHERE e.company_id = s.company_id AND e.fiscal_period_id = s.fiscal_period_id
          AND e.voucher_series = s.voucher_series AND e.voucher_number > 0)
    WHERE s.company_id = NEW.company_id AND s.fiscal_period_id = NEW.fiscal_period_id
      AND s.voucher_series = NEW.voucher_series AND s.gapless IS NULL;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    r record;
BEGIN
    CREATE TEMP TABLE voucher_sequences_to_count (company_id uuid, fiscal_period_id uuid, voucher_series text);
    CREATE TRIGGER count_gapless AFTER INSERT ON voucher_sequences_to_count
        FOR EACH ROW EXECUTE FUNCTION voucher_sequences_count_gapless();
    COMMIT;
    FOR r IN SELECT company_id, fiscal_period_id, voucher_series FROM voucher_sequences WHERE gapless IS NULL LOOP
        INSERT INTO voucher_sequences_to_count VALUES (r.company_id, r.fiscal_period_id, r.voucher_series);
        COMMIT;
    END LOOP;
    DROP TABLE voucher_sequences_to_count;
END $$;
-- +goose StatementEnd

DROP FUNCTION voucher_sequences_count_gapless();

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION journal_entries_born() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    r record;
    last integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM born WHERE status = 'posted') THEN
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 FROM born WHERE status = 'posted'
               AND (posted_at <> now() OR reversed_by_id IS NOT NULL OR correction_of_id IS NOT NULL)) THEN
        RAISE EXCEPTION 'an entry born posted is posted now, and is neither reversed nor a correction'
            USING ERRCODE = 'check_violation';
    END IF;
    -- The single path's check for each date; its rules are bounds (the
    -- period's span, the lock date) and per-period states, so the first
    -- and last date of each period and source decide for every date.
    FOR r IN SELECT company_id, fiscal_period_id, source_type, min(entry_date) AS first, max(entry_date) AS last
             FROM born WHERE status = 'posted' GROUP BY 1, 2, 3 LOOP
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.first, r.source_type);
        PERFORM ledger_check_postable(r.company_id, r.fiscal_period_id, r.last, r.source_type);
    END LOOP;
    FOR r IN SELECT company_id, fiscal_period_id, voucher_series, min(voucher_number) AS lo,
                    max(voucher_number) AS hi, count(*) AS n, bool_and(source_type = 'import') AS imported
             FROM born WHERE status = 'posted' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
        LOOP
            SELECT last_number INTO last FROM voucher_sequences
            WHERE company_id = r.company_id AND fiscal_period_id = r.fiscal_period_id
              AND voucher_series = r.voucher_series FOR UPDATE;
            EXIT WHEN FOUND;
            INSERT INTO voucher_sequences (company_id, fiscal_period_id, voucher_series, last_number)
            VALUES (r.company_id, r.fiscal_period_id, r.voucher_series, r.hi)
            ON CONFLICT DO NOTHING;
            IF FOUND THEN
                last := 0;
                EXIT;
            END IF;
        END LOOP;
        IF r.lo <= last THEN
            RAISE EXCEPTION 'voucher numbers only grow: % in %/% is not above the last number %', r.lo,
                r.fiscal_period_id, r.voucher_series, last USING ERRCODE = 'check_violation';
        END IF;
        IF NOT r.imported AND (r.lo <> last + 1 OR r.hi - r.lo + 1 <> r.n) THEN
            RAISE EXCEPTION 'voucher numbers are gapless: % to % in %/% do not follow % without a gap', r.lo, r.hi,
                r.fiscal_period_id, r.voucher_series, last USING ERRCODE = 'check_violation';
        END IF;
        IF last > 0 THEN
            UPDATE voucher_sequences SET last_number = r.hi
            WHERE company_id = r.company_id AND fiscal_period_id = r.fiscal_period_id
              AND voucher_series = r.voucher_series;
        END IF;
    END LOOP;
    INSERT INTO ledger_batch_checks (company_id, entry_ids)
    SELECT company_id, array_agg(id) FROM born WHERE status = 'posted' GROUP BY company_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
ALTER TABLE voucher_sequences DROP COLUMN gapless;
