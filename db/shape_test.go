package db_test

import (
	"testing"

	"github.com/kontera/kontera/internal/pgtest"
)

// The schema stays ready to be distributed by company: every table with a
// company_id has it first in its primary key and in every unique
// constraint or unique index, and in every foreign key to another
// company-owned table (companies itself, keyed by id, included); a table
// without a company_id (users, keys, catalogues) references no
// company-owned table. A new table that breaks it fails here, by name.
func TestSchemaIsShardReadyByCompany(t *testing.T) {
	d := pgtest.New(t)
	var broken []struct {
		Table string `db:"table_name"`
		Rule  string `db:"rule"`
		What  string `db:"what"`
	}
	err := d.Select(&broken, `
		WITH tables AS (
			SELECT c.oid, c.relname,
				(SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'company_id'
				 AND NOT a.attisdropped) AS company_col
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'goose_db_version'),
		owned AS (SELECT oid FROM tables WHERE company_col IS NOT NULL OR relname = 'companies')
		-- Primary keys and unique constraints or indexes lead with company_id.
		SELECT t.relname AS table_name, 'unique key without company_id first' AS rule,
			pg_get_indexdef(i.indexrelid) AS what
		FROM tables t JOIN pg_index i ON i.indrelid = t.oid
		WHERE t.company_col IS NOT NULL AND i.indisunique AND i.indkey[0] <> t.company_col
		UNION ALL
		-- Foreign keys to a company-owned table carry company_id.
		SELECT t.relname, 'foreign key to a company-owned table without company_id', pg_get_constraintdef(con.oid)
		FROM tables t JOIN pg_constraint con ON con.conrelid = t.oid AND con.contype = 'f'
		WHERE con.confrelid IN (SELECT oid FROM owned)
		  AND (t.company_col IS NULL
		       OR NOT (t.company_col = ANY (con.conkey))
		       AND NOT (con.confrelid = (SELECT oid FROM tables WHERE relname = 'companies')
		                AND con.conkey = ARRAY[t.company_col]))
		ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Errorf("%s: %s: %s", b.Table, b.Rule, b.What)
	}
}
