-- The VAT return (issue 22). A filed period keeps what kind of period it
-- was and the return as it stood when filed (the snapshot), so a later
-- change to the books shows as changed_since_filing. Settlement
-- verifikat are found by their source type and date: a partial index,
-- as they are a handful among the entries.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE vat_filings
    ADD COLUMN period_type text CHECK (period_type IN ('monthly', 'quarterly', 'yearly')),
    ADD COLUMN snapshot jsonb CHECK (jsonb_typeof(snapshot) = 'object'),
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
    ADD CONSTRAINT vat_filings_reference_length CHECK (length(reference) BETWEEN 1 AND 200);
UPDATE vat_filings SET period_type = CASE
    WHEN period_end = (date_trunc('month', period_start) + interval '1 month' - interval '1 day')::date THEN 'monthly'
    WHEN period_end = (date_trunc('month', period_start) + interval '3 months' - interval '1 day')::date THEN 'quarterly'
    ELSE 'yearly' END;
ALTER TABLE vat_filings ALTER COLUMN period_type SET NOT NULL;

CREATE INDEX journal_entries_vat_settlement ON journal_entries (company_id, entry_date)
    WHERE source_type = 'vat_settlement';

-- +goose Down
DROP INDEX journal_entries_vat_settlement;
ALTER TABLE vat_filings DROP CONSTRAINT vat_filings_reference_length, DROP COLUMN updated_at, DROP COLUMN snapshot,
    DROP COLUMN period_type;
