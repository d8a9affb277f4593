-- Two partial indexes the year's compliance check and VAT return read
-- (issue 51), each holding only the engine's rare verifikat:
--
-- - journal_entries_vat_sources: the VAT settlements and the
--   cash-method cut-offs by date, which the VAT return looks up among all
--   of a company's entries (the settlement-only index it replaces could
--   not serve the cut-offs, so the return read every entry);
-- - journal_entries_adjustments: the year's opening balances, result
--   appropriation, cut-offs and revaluations that stand, which the
--   year-end and its readiness check look up by kind.
--
-- Online: safe. The indexes are built and the old one dropped
-- CONCURRENTLY, outside a transaction; writes go on meanwhile, and a
-- statement interrupted leaves an invalid index the next run replaces.

-- +goose NO TRANSACTION
-- +goose Up
DROP INDEX CONCURRENTLY IF EXISTS journal_entries_vat_sources;
CREATE INDEX CONCURRENTLY journal_entries_vat_sources ON journal_entries (company_id, entry_date)
    WHERE source_type IN ('vat_settlement', 'cash_method_cutoff');
DROP INDEX CONCURRENTLY IF EXISTS journal_entries_vat_settlement;
DROP INDEX CONCURRENTLY IF EXISTS journal_entries_adjustments;
CREATE INDEX CONCURRENTLY journal_entries_adjustments ON journal_entries (company_id, fiscal_period_id, source_type)
    WHERE status = 'posted' AND reversed_by_id IS NULL AND reverses_id IS NULL
      AND source_type IN ('opening_balance', 'result_appropriation', 'cash_method_cutoff', 'currency_revaluation');

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS journal_entries_adjustments;
CREATE INDEX CONCURRENTLY IF NOT EXISTS journal_entries_vat_settlement ON journal_entries (company_id, entry_date)
    WHERE source_type = 'vat_settlement';
DROP INDEX CONCURRENTLY IF EXISTS journal_entries_vat_sources;
