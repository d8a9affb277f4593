// Package dimensions holds the company's dimension register (SIE #DIM and
// #OBJEKT): cost centres, projects and the company's own dimensions, the
// values that tag journal lines, and the check every posting passes when
// the register is enabled.
package dimensions

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
)

// The dimensions every company has, and the first number of its own.
const (
	CostCentre  = 1
	Project     = 6
	FirstCustom = 20
	MaxNumber   = 9999
)

// Dimension is a dimension of the company with its values.
type Dimension struct {
	CompanyID      uuid.UUID `db:"company_id" json:"company_id"`
	ID             uuid.UUID `db:"id" json:"id"`
	Number         int       `db:"sie_dim_no" json:"sie_dim_no"`
	Name           string    `db:"name" json:"name"`
	Parent         *int      `db:"parent_sie_dim_no" json:"parent_sie_dim_no"`
	ResetsAnnually bool      `db:"resets_annually" json:"resets_annually"`
	IsSystem       bool      `db:"is_system" json:"is_system"`
	IsActive       bool      `db:"is_active" json:"is_active"`
	SortOrder      int       `db:"sort_order" json:"sort_order"`
	CreatedAt      time.Time `db:"created_at" json:"created_at"`
	UpdatedAt      time.Time `db:"updated_at" json:"updated_at"`
	Values         []Value   `db:"-" json:"-"`
}

// Value is a value of a dimension: one cost centre, one project.
type Value struct {
	CompanyID   uuid.UUID  `db:"company_id" json:"company_id"`
	ID          uuid.UUID  `db:"id" json:"id"`
	DimensionID uuid.UUID  `db:"dimension_id" json:"dimension_id"`
	Code        string     `db:"code" json:"code"`
	Name        string     `db:"name" json:"name"`
	IsActive    bool       `db:"is_active" json:"is_active"`
	Start       *time.Time `db:"start_date" json:"start_date"`
	End         *time.Time `db:"end_date" json:"end_date"`
	CreatedAt   time.Time  `db:"created_at" json:"created_at"`
	UpdatedAt   time.Time  `db:"updated_at" json:"updated_at"`
}

// Register is the company's dimensions, by number.
type Register map[int]Dimension

// NextFree is the lowest number from 20 no dimension holds.
func (r Register) NextFree() int {
	n := FirstCustom
	for {
		if _, taken := r[n]; !taken {
			return n
		}
		n++
	}
}

// NewDimension is a create body.
type NewDimension struct {
	Name           string
	Number         *int
	ResetsAnnually *bool
	Parent         *int
}

func field(name, rule, issue string) *apierr.Error { return apierr.Field(name, rule, issue) }

// Create returns the dimension in describes, numbered and sorted after
// those of r.
func (r Register) Create(in NewDimension) (Dimension, error) {
	d := Dimension{Name: strings.TrimSpace(in.Name), ResetsAnnually: true, IsActive: true, Parent: in.Parent}
	if d.Name == "" {
		return d, field("name", "minLength", "must not be blank")
	}
	if in.ResetsAnnually != nil {
		d.ResetsAnnually = *in.ResetsAnnually
	}
	if in.Number == nil {
		d.Number = r.NextFree()
	} else {
		d.Number = *in.Number
		if existing, taken := r[d.Number]; taken {
			return d, apierr.New(apierr.DimensionNumberTaken, map[string]any{"field": "sie_dim_no",
				"sie_dim_no": d.Number, "existing_dimension_id": existing.ID, "next_free": r.NextFree()})
		}
		if d.Number < FirstCustom {
			return d, field("sie_dim_no", "reserved", "1-19 are reserved for SIE's standard meanings; the company's own start at 20")
		}
	}
	if d.Number > MaxNumber {
		return d, field("sie_dim_no", "maximum", "no free number up to 9999")
	}
	if d.Parent != nil {
		if _, ok := r[*d.Parent]; !ok {
			return d, field("parent_sie_dim_no", "exists", "no dimension has number "+strconv.Itoa(*d.Parent))
		}
	}
	for _, o := range r {
		d.SortOrder = max(d.SortOrder, o.SortOrder+1)
	}
	return d, nil
}

// DimensionChange is a PATCH body of a dimension.
type DimensionChange struct {
	Name      *string
	IsActive  *bool
	SortOrder *int
}

// Apply returns d changed by ch. System dimensions keep their names.
func (d Dimension) Apply(ch DimensionChange) (Dimension, error) {
	if ch.Name != nil {
		n := strings.TrimSpace(*ch.Name)
		if n == "" {
			return d, field("name", "minLength", "must not be blank")
		}
		if d.IsSystem && n != d.Name {
			return d, apierr.New(apierr.DimensionSystemRename, map[string]any{"field": "name", "sie_dim_no": d.Number, "name": d.Name})
		}
		d.Name = n
	}
	if ch.IsActive != nil {
		d.IsActive = *ch.IsActive
	}
	if ch.SortOrder != nil {
		d.SortOrder = *ch.SortOrder
	}
	return d, nil
}

// ValueChange is a create or PATCH body of a value; on create Code and
// Name are set.
type ValueChange struct {
	Code       string
	Name       *string
	IsActive   *bool
	Start, End *time.Time
	// StartSet and EndSet say the body named the date (null clears it).
	StartSet, EndSet bool
}

// NewValue returns the value ch describes in d: a code of the right shape
// not already in d (409 DIMENSION_VALUE_DUPLICATE_CODE).
func (d Dimension) NewValue(ch ValueChange) (Value, error) {
	if !ledger.ValidDimensionCode(ch.Code) {
		return Value{}, field("code", "pattern", "1-20 characters: letters A-Ö, digits, _, + or -")
	}
	for _, v := range d.Values {
		if v.Code == ch.Code {
			return Value{}, apierr.New(apierr.DimensionValueDuplicateCode, map[string]any{"field": "code",
				"code": ch.Code, "existing_value_id": v.ID})
		}
	}
	v := Value{CompanyID: d.CompanyID, DimensionID: d.ID, Code: ch.Code, IsActive: true}
	if ch.Name == nil {
		return v, field("name", "required", "is required")
	}
	return d.ApplyValue(v, ch)
}

// ApplyValue returns v changed by ch. Dates belong only to dimensions
// that accumulate across years.
func (d Dimension) ApplyValue(v Value, ch ValueChange) (Value, error) {
	if ch.Name != nil {
		n := strings.TrimSpace(*ch.Name)
		if n == "" {
			return v, field("name", "minLength", "must not be blank")
		}
		v.Name = n
	}
	if ch.IsActive != nil {
		v.IsActive = *ch.IsActive
	}
	if ch.StartSet {
		v.Start = ch.Start
	}
	if ch.EndSet {
		v.End = ch.End
	}
	if d.ResetsAnnually && ((ch.StartSet && ch.Start != nil) || (ch.EndSet && ch.End != nil)) {
		f := "start_date"
		if !ch.StartSet || ch.Start == nil {
			f = "end_date"
		}
		return v, field(f, "resets_annually", "dates are only for dimensions that do not reset annually (such as 6 Projekt)")
	}
	if v.Start != nil && v.End != nil && v.End.Before(*v.Start) {
		return v, field("end_date", "order", "must not be before start_date")
	}
	return v, nil
}

// Problem is why one line's tag was refused.
type Problem struct {
	Line      int    `json:"line"`
	Dimension string `json:"dimension"`
	Code      string `json:"code"`
	Reason    string `json:"reason"`
}

// The reasons a tag is refused.
const (
	UnknownDimension  = "unknown_dimension"
	ArchivedDimension = "archived_dimension"
	UnknownValue      = "unknown_value"
	ArchivedValue     = "archived_value"
	OutsideValidity   = "outside_validity"
)

// Check holds the tags of lines dated day to the register:
// DIMENSION_VALIDATION_FAILED with every problem, each naming its line
// (from 0) and key. Lines already in the books keep their tags whatever
// becomes of the register; this is for new postings.
func (r Register) Check(day time.Time, tags []ledger.Dimensions) error {
	var problems []Problem
	for i, t := range tags {
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if reason := r.problem(k, t[k], day); reason != "" {
				problems = append(problems, Problem{Line: i, Dimension: k, Code: t[k], Reason: reason})
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return apierr.New(apierr.DimensionValidationFailed, map[string]any{"problems": problems,
		"line": problems[0].Line, "dimension": problems[0].Dimension, "code": problems[0].Code, "reason": problems[0].Reason})
}

func (r Register) problem(key, code string, day time.Time) string {
	n, err := strconv.Atoi(key)
	d, ok := r[n]
	switch {
	case err != nil || !ok:
		return UnknownDimension
	case !d.IsActive:
		return ArchivedDimension
	}
	for _, v := range d.Values {
		if v.Code != code {
			continue
		}
		switch {
		case !v.IsActive:
			return ArchivedValue
		case v.Start != nil && day.Before(*v.Start), v.End != nil && day.After(*v.End):
			return OutsideValidity
		}
		return ""
	}
	return UnknownValue
}
