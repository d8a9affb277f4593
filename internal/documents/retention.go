package documents

import "time"

// RetentionUntil is the last day underlag of a verifikat in a fiscal year
// that ends on yearEnd must be kept (BFL 7 kap. 2 §): 31 December of the
// seventh year after the calendar year in which the fiscal year ends. A
// broken fiscal year is counted by the year it ends in.
func RetentionUntil(yearEnd time.Time) time.Time {
	return time.Date(yearEnd.Year()+7, time.December, 31, 0, 0, 0, 0, time.UTC)
}

// Kept reports whether a document kept until until (nil: never underlag
// of a posted verifikat) must still be kept on day today.
func Kept(until *time.Time, today time.Time) bool {
	if until == nil {
		return false
	}
	y, m, d := today.Date()
	return !time.Date(y, m, d, 0, 0, 0, 0, time.UTC).After(*until)
}
