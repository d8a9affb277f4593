package documents

import "time"

// Kept reports whether a document kept until until (nil: never underlag
// of a posted verifikat) must still be kept on day today. The date itself
// is the database's to stamp (documents_retention_until: 31 December of
// the seventh year after the calendar year in which the fiscal year ends,
// BFL 7 kap. 2 §), which also refuses the DELETE; this answers the 409
// RETENTION_BLOCK, with its audit row, before it comes to that.
func Kept(until *time.Time, today time.Time) bool {
	if until == nil {
		return false
	}
	y, m, d := today.Date()
	return !time.Date(y, m, d, 0, 0, 0, 0, time.UTC).After(*until)
}
