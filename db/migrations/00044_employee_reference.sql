-- A supplier invoice paid with an employee's private money names the
-- employee it is owed to (2820): an employee of its own company (issue
-- 44; the API checks it, 404 EMPLOYEE_NOT_FOUND). The key is added NOT
-- VALID and then validated: a database where the old code let another
-- company's employee in keeps the key for every new row, and warns
-- instead of failing the upgrade; find the rows with
--   SELECT company_id, id, employee_id FROM supplier_invoices s WHERE employee_id IS NOT NULL
--     AND NOT EXISTS (SELECT 1 FROM employees e WHERE e.company_id = s.company_id AND e.id = s.employee_id);
-- and validate the key once they are put right.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
ALTER TABLE supplier_invoices ADD CONSTRAINT supplier_invoices_employee_fk
    FOREIGN KEY (company_id, employee_id) REFERENCES employees (company_id, id) NOT VALID;
-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE supplier_invoices VALIDATE CONSTRAINT supplier_invoices_employee_fk;
EXCEPTION WHEN foreign_key_violation THEN
    RAISE WARNING 'supplier invoices name an employee of another company: supplier_invoices_employee_fk is left NOT VALID';
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE supplier_invoices DROP CONSTRAINT supplier_invoices_employee_fk;
