package store

import "time"

// Day is d as a date the database reads: 2026-03-02.
func Day(d time.Time) string { return d.Format(time.DateOnly) }

// DayOrNil is Day of d, nil for none: an optional date column.
func DayOrNil(d *time.Time) *string {
	if d == nil {
		return nil
	}
	s := Day(*d)
	return &s
}

// ParseDay reads an optional date as a row's JSON (to_jsonb) writes it.
func ParseDay(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := time.Parse(time.DateOnly, *s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}
