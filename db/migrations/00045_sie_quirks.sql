-- What other programs' SIE files carry that the books could not hold
-- (issue 45). An object code a row of a file uses is kept as the file
-- writes it when it is printable: up to 100 characters, never a control
-- character (C0 or C1) and never only blanks. A client still writes the
-- narrower codes the document states (1-20 of A-Ö, digits, _, + and -);
-- the API checks that.

-- An import that failed wrote nothing: an identical retry starts a new
-- one, so only the imports that did write (or still may) answer a retry.
--
-- Online: part of v0.1.0's schema (00001-00054), which a new database
-- receives whole at install; no upgrade between releases runs it.

-- +goose Up
DROP INDEX sie_imports_retry;
CREATE UNIQUE INDEX sie_imports_retry ON sie_imports (company_id, fingerprint) WHERE state NOT IN ('undone', 'failed');
ALTER TABLE dimension_values DROP CONSTRAINT dimension_values_code_check,
    ADD CONSTRAINT dimension_values_code_check
        CHECK (length(code) BETWEEN 1 AND 100 AND btrim(code) <> '' AND code !~ '[\u0001-\u001f\u007f-\u009f]');

-- +goose Down
DROP INDEX sie_imports_retry;
CREATE UNIQUE INDEX sie_imports_retry ON sie_imports (company_id, fingerprint) WHERE state <> 'undone';
ALTER TABLE dimension_values DROP CONSTRAINT dimension_values_code_check,
    ADD CONSTRAINT dimension_values_code_check CHECK (code ~ '^[A-Za-zÅÄÖåäö0-9_+-]{1,20}$');
