package deadline

import "time"

// WorkingDay returns day, or the first day after it that is neither a
// weekend nor a Swedish public holiday. Lagen (1930:173) om beräkning av
// lagstadgad tid moves a deadline falling on such a day to the next
// working day, and counts midsommarafton, julafton and nyårsafton as
// holidays.
func WorkingDay(day time.Time) time.Time {
	for !isWorkingDay(day) {
		day = day.AddDate(0, 0, 1)
	}
	return day
}

func isWorkingDay(d time.Time) bool {
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	return !holiday(d)
}

// holiday reports whether d is a Swedish public holiday (or one of the
// eves the law treats as one) falling on a weekday.
func holiday(d time.Time) bool {
	switch d.Month() {
	case time.January:
		return d.Day() == 1 || d.Day() == 6
	case time.May:
		if d.Day() == 1 {
			return true
		}
	case time.June:
		if d.Day() == 6 {
			return true
		}
		// Midsommarafton: the Friday between 19 and 25 June.
		if d.Weekday() == time.Friday && d.Day() >= 19 && d.Day() <= 25 {
			return true
		}
	case time.December:
		return d.Day() == 24 || d.Day() == 25 || d.Day() == 26 || d.Day() == 31
	}
	easter := Easter(d.Year())
	for _, offset := range []int{-2, 1, 39} { // långfredag, annandag påsk, Kristi himmelsfärd
		if d.Equal(easter.AddDate(0, 0, offset)) {
			return true
		}
	}
	return false
}

// Easter returns Easter Sunday of year in the Gregorian calendar (the
// anonymous Gregorian algorithm of Meeus/Jones/Butcher).
func Easter(year int) time.Time {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
}
