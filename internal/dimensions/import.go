package dimensions

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/audit"
)

// Imported is a dimension an imported file declares or uses: its SIE
// number, name (empty: the standard one) and superior dimension (0: none).
type Imported struct {
	Number int
	Name   string
	Parent int
}

// ImportedValue is an object an imported file declares or tags rows with.
type ImportedValue struct {
	Number int
	Code   string
	Name   string
}

// standard are SIE's reserved dimensions' names (SIE 4B, 8.18).
var standard = map[int]string{1: "Kostnadsställe", 2: "Kostnadsbärare", 6: "Projekt", 7: "Anställd", 8: "Kund",
	9: "Leverantör", 10: "Faktura"}

// Import brings the dimensions and objects of an imported file into the
// company's register, in the unit of work of ctx: a missing dimension is
// created (2-19 as system dimensions, whose meaning SIE reserves), a
// missing value too (named by its code when the file gives no name);
// existing ones are left as they are. It answers how many of each it
// created; each dimension is audited, the values as one change.
func (s *Store) Import(ctx context.Context, company uuid.UUID, dims []Imported, values []ImportedValue) (int, int, error) {
	if err := s.LockRegister(ctx, company); err != nil {
		return 0, 0, err
	}
	reg, err := s.Register(ctx, company)
	if err != nil {
		return 0, 0, err
	}
	want := map[int]Imported{}
	for _, d := range dims {
		want[d.Number] = d
	}
	for _, v := range values {
		if _, ok := want[v.Number]; !ok {
			want[v.Number] = Imported{Number: v.Number}
		}
	}
	numbers := make([]int, 0, len(want))
	for n := range want {
		numbers = append(numbers, n)
	}
	// Superiors first, so a sub-dimension's parent exists when it is made.
	sort.Slice(numbers, func(i, j int) bool {
		pi, pj := want[numbers[i]].Parent == 0, want[numbers[j]].Parent == 0
		if pi != pj {
			return pi
		}
		return numbers[i] < numbers[j]
	})
	next := len(reg)
	made := 0
	for _, n := range numbers {
		if _, ok := reg[n]; ok {
			continue
		}
		d := want[n]
		name := clip(d.Name)
		if name == "" {
			name = standard[n]
		}
		if name == "" {
			name = "Dimension " + strconv.Itoa(n)
		}
		var parent *int
		if _, ok := reg[d.Parent]; ok && d.Parent != 0 {
			parent = &d.Parent
		}
		var out Dimension
		if err := s.db.Q(ctx).GetContext(ctx, &out, `INSERT INTO dimensions (company_id, sie_dim_no, name,
				parent_sie_dim_no, resets_annually, is_system, sort_order) VALUES ($1, $2, $3, $4, $5, $6, $7)
			RETURNING `+dimensionColumns, company, n, name, parent, n != 6, n >= 2 && n <= 19, next); err != nil {
			return made, 0, err
		}
		next++
		made++
		reg[n] = out
		if err := s.record(ctx, company, audit.Insert, "dimensions", out.ID,
			"Dimension "+strconv.Itoa(n)+" "+name+" skapades av en import", nil, out); err != nil {
			return made, 0, err
		}
	}
	ids, codes, names := make([]string, 0, len(values)), make([]string, 0, len(values)), make([]string, 0, len(values))
	for _, v := range values {
		name := clip(v.Name)
		if name == "" {
			name = v.Code
		}
		ids, codes, names = append(ids, reg[v.Number].ID.String()), append(codes, v.Code), append(names, name)
	}
	var added []string
	if len(values) > 0 {
		if err := s.db.Q(ctx).SelectContext(ctx, &added, `INSERT INTO dimension_values (company_id, dimension_id, code, name)
			SELECT $1, d, c, n FROM unnest($2::uuid[], $3::text[], $4::text[]) AS x (d, c, n)
			ON CONFLICT DO NOTHING RETURNING code`, company, pq.Array(ids), pq.Array(codes), pq.Array(names)); err != nil {
			return made, 0, err
		}
	}
	if len(added) > 0 {
		err = s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "dimension_values",
			Description: strconv.Itoa(len(added)) + " dimensionsvärden lades till av en import",
			New:         audit.Of(map[string]any{"codes": added})})
	}
	return made, len(added), err
}

// clip is a name as the register holds it: trimmed, at most 100
// characters.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 100 {
		s = strings.TrimSpace(string(r[:100]))
	}
	return s
}
