-- The audit trail's index in one direction (issue 51): the behandlings-
-- historik reads a company's entries oldest first and the audit list
-- newest first, each by (created_at, id) with a keyset cursor. The old
-- index had created_at descending and id ascending, which matches
-- neither order whole: each read sorted every entry of its range before
-- taking a page. An ascending index serves both, the list scanning it
-- backwards.
--
-- Online: safe. The index is built and the old one dropped
-- CONCURRENTLY, outside a transaction; writes go on meanwhile, and a
-- statement interrupted leaves an invalid index the next run replaces.

-- +goose NO TRANSACTION
-- +goose Up
DROP INDEX CONCURRENTLY IF EXISTS audit_entries_company_time;
CREATE INDEX CONCURRENTLY audit_entries_company_time ON audit_entries (company_id, created_at, id);
DROP INDEX CONCURRENTLY IF EXISTS audit_entries_company_created;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS audit_entries_company_created;
CREATE INDEX CONCURRENTLY audit_entries_company_created ON audit_entries (company_id, created_at DESC, id);
DROP INDEX CONCURRENTLY IF EXISTS audit_entries_company_time;
