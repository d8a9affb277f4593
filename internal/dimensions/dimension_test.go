package dimensions

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
)

func ptr[T any](v T) *T { return &v }

func code(err error) apierr.Code {
	if e, ok := apierr.As(err); ok {
		return e.Code
	}
	return ""
}

func day(s string) time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

func system() Register {
	return Register{
		1: {ID: uuid.New(), Number: 1, Name: "Kostnadsställe", ResetsAnnually: true, IsSystem: true, IsActive: true, SortOrder: 1},
		6: {ID: uuid.New(), Number: 6, Name: "Projekt", IsSystem: true, IsActive: true, SortOrder: 2},
	}
}

func TestCreate(t *testing.T) {
	r := system()
	d, err := r.Create(NewDimension{Name: " Region "})
	if err != nil || d.Number != 20 || d.Name != "Region" || !d.ResetsAnnually || d.SortOrder != 3 || d.IsSystem {
		t.Fatalf("next free: %+v %v", d, err)
	}
	r[20], r[21] = d, Dimension{Number: 21}
	if n := r.NextFree(); n != 22 {
		t.Fatalf("next free %d", n)
	}
	for name, c := range map[string]struct {
		in   NewDimension
		want apierr.Code
	}{
		"taken":          {NewDimension{Name: "X", Number: ptr(20)}, apierr.DimensionNumberTaken},
		"taken system":   {NewDimension{Name: "X", Number: ptr(6)}, apierr.DimensionNumberTaken},
		"reserved":       {NewDimension{Name: "X", Number: ptr(7)}, apierr.ValidationError},
		"unknown parent": {NewDimension{Name: "X", Parent: ptr(30)}, apierr.ValidationError},
		"blank":          {NewDimension{Name: " "}, apierr.ValidationError},
	} {
		if _, err := r.Create(c.in); code(err) != c.want {
			t.Errorf("%s: %v", name, err)
		}
	}
	if d, err := r.Create(NewDimension{Name: "Under", Parent: ptr(20), ResetsAnnually: ptr(false), Number: ptr(40)}); err != nil || d.Number != 40 || d.ResetsAnnually {
		t.Fatalf("child: %+v %v", d, err)
	}
}

func TestApply(t *testing.T) {
	r := system()
	if _, err := r[1].Apply(DimensionChange{Name: ptr("Avdelning")}); code(err) != apierr.DimensionSystemRename {
		t.Fatalf("rename: %v", err)
	}
	d, err := r[1].Apply(DimensionChange{Name: ptr("Kostnadsställe"), IsActive: ptr(false), SortOrder: ptr(9)})
	if err != nil || d.IsActive || d.SortOrder != 9 {
		t.Fatalf("archive: %+v %v", d, err)
	}
}

func TestValues(t *testing.T) {
	r := system()
	v, err := r[6].NewValue(ValueChange{Code: "P-1+ö_", Name: ptr("Projekt ett"), Start: ptr(day("2026-03-01")), StartSet: true})
	if err != nil || !v.IsActive || v.Start == nil {
		t.Fatalf("value: %+v %v", v, err)
	}
	d := r[6]
	d.Values = []Value{v}
	if _, err := d.NewValue(ValueChange{Code: "P-1+ö_", Name: ptr("Igen")}); code(err) != apierr.DimensionValueDuplicateCode {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := d.NewValue(ValueChange{Code: "p-1+ö_", Name: ptr("Gemener")}); err != nil {
		t.Fatalf("case-sensitive: %v", err)
	}
	for name, c := range map[string]struct {
		d  Dimension
		ch ValueChange
	}{
		"bad code":      {d, ValueChange{Code: "P 1", Name: ptr("x")}},
		"long code":     {d, ValueChange{Code: "ABCDEFGHIJKLMNOPQRSTU", Name: ptr("x")}},
		"no name":       {d, ValueChange{Code: "X"}},
		"date on reset": {r[1], ValueChange{Code: "K", Name: ptr("x"), End: ptr(day("2026-01-01")), EndSet: true}},
		"end first":     {d, ValueChange{Code: "Y", Name: ptr("x"), Start: ptr(day("2026-05-01")), StartSet: true, End: ptr(day("2026-04-01")), EndSet: true}},
	} {
		if _, err := c.d.NewValue(c.ch); code(err) != apierr.ValidationError {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Clearing a date is no date on a resetting dimension.
	k, _ := r[1].NewValue(ValueChange{Code: "K", Name: ptr("Kök")})
	if _, err := r[1].ApplyValue(k, ValueChange{StartSet: true}); err != nil {
		t.Fatalf("null date: %v", err)
	}
}

func TestCheck(t *testing.T) {
	r := system()
	p := r[6]
	p.Values = []Value{
		{Code: "P1", IsActive: true, Start: ptr(day("2026-03-01")), End: ptr(day("2026-06-30"))},
		{Code: "P2", IsActive: false},
	}
	r[6] = p
	k := r[1]
	k.IsActive = false
	k.Values = []Value{{Code: "K1", IsActive: true}}
	r[1] = k
	on := day("2026-04-01")
	if err := r.Check(on, []ledger.Dimensions{{"6": "P1"}, {}}); err != nil {
		t.Fatalf("valid: %v", err)
	}
	for tags, want := range map[string]ledger.Dimensions{
		UnknownDimension:  {"7": "X"},
		ArchivedDimension: {"1": "K1"},
		UnknownValue:      {"6": "P9"},
		ArchivedValue:     {"6": "P2"},
	} {
		err := r.Check(on, []ledger.Dimensions{{}, want})
		e, ok := apierr.As(err)
		if !ok || e.Code != apierr.DimensionValidationFailed || e.Details["reason"] != tags || e.Details["line"] != 1 {
			t.Errorf("%s: %v %v", tags, err, e)
		}
	}
	for _, d := range []string{"2026-02-28", "2026-07-01"} {
		if err := r.Check(day(d), []ledger.Dimensions{{"6": "P1"}}); code(err) != apierr.DimensionValidationFailed {
			t.Errorf("%s: %v", d, err)
		}
	}
	err := r.Check(on, []ledger.Dimensions{{"6": "P9", "7": "X"}, {"6": "P2"}})
	if e, _ := apierr.As(err); len(e.Details["problems"].([]Problem)) != 3 {
		t.Fatalf("every problem: %v", e.Details)
	}
}
