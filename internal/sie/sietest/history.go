package sietest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kontera/kontera/internal/money"
)

// Year is one year of a History: its file, and its figures as the file
// states them (debit positive), the closing ones after the year's result
// was carried to equity (2099), as other programs write them.
type Year struct {
	Year    int
	File    []byte
	Opening map[string]money.Amount
	Closing map[string]money.Amount
	Results map[string]money.Amount
}

// History writes the files of years consecutive calendar years of one
// company from first, as another program exports them: each names the
// year before (#RAR -1) with its #IB, #UB and #RES (the first with
// figures of a year the company kept before any file), opens with the
// year before's closing balances, last year's result moved from 2099 to
// 2091, and holds vouchers sales a year: sales with 25 % VAT and a
// purchase, every fourth one tagged to project P1.
func History(first, years, vouchers int) []Year {
	// The year before the first: share capital in the bank, a result.
	prev := Year{Year: first - 1,
		Opening: map[string]money.Amount{"1930": money.Öre(5000000), "2081": money.Öre(-5000000)},
		Results: map[string]money.Amount{"3001": money.Öre(-1200000), "5410": money.Öre(400000)}}
	prev.Closing = map[string]money.Amount{"1930": money.Öre(5800000), "2081": money.Öre(-5000000), "2099": money.Öre(-800000)}
	out := make([]Year, 0, years)
	for n := 0; n < years; n++ {
		y := Year{Year: first + n, Opening: map[string]money.Amount{}, Closing: map[string]money.Amount{},
			Results: map[string]money.Amount{}}
		for k, v := range prev.Closing {
			if k == "2099" {
				k = "2091"
			}
			y.Opening[k] = y.Opening[k].Add(v)
		}
		var lines []string
		w := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
		w("#FLAGGA 0")
		w(`#PROGRAM "sietest history" 1`)
		w("#FORMAT PC8")
		w("#GEN %d0215", y.Year+1)
		w("#SIETYP 4")
		w(`#FNAMN "Historik AB"`)
		w("#ORGNR 556677-8899")
		w("#RAR 0 %d0101 %d1231", y.Year, y.Year)
		w("#RAR -1 %d0101 %d1231", prev.Year, prev.Year)
		for _, a := range [][2]string{{"1930", "Företagskonto"}, {"2081", "Aktiekapital"}, {"2091", "Balanserad vinst eller förlust"},
			{"2099", "Årets resultat"}, {"2611", "Utgående moms 25 %"}, {"2641", "Ingående moms"}, {"3001", "Försäljning 25 %"},
			{"5410", "Förbrukningsinventarier"}} {
			w("#KONTO %s %q", a[0], a[1])
		}
		w(`#DIM 6 "Projekt"`)
		w(`#OBJEKT 6 "P1" "Projekt ett"`)
		var body []string
		bal := map[string]money.Amount{}
		for k, v := range y.Opening {
			bal[k] = v
		}
		book := func(acct string, öre int64) string {
			a := money.Öre(öre)
			bal[acct] = bal[acct].Add(a)
			if acct[0] >= '3' {
				y.Results[acct] = y.Results[acct].Add(a)
			}
			return a.String()
		}
		for v := 1; v <= vouchers; v++ {
			day := fmt.Sprintf("%d%02d%02d", y.Year, 1+(v-1)*12/vouchers, 1+v%28)
			kronor := int64(1000 + (v*137+n*71)%4000)
			if v%5 == 0 {
				body = append(body, fmt.Sprintf("#VER A %d %s \"Inköp %d\"", v, day, v), "{",
					"   #TRANS 5410 {} "+book("5410", kronor*80), "   #TRANS 2641 {} "+book("2641", kronor*20),
					"   #TRANS 1930 {} "+book("1930", -kronor*100), "}")
				continue
			}
			objs := "{}"
			if v%4 == 0 {
				objs = `{6 "P1"}`
			}
			body = append(body, fmt.Sprintf("#VER A %d %s \"Försäljning %d\"", v, day, v), "{",
				"   #TRANS 1930 {} "+book("1930", kronor*125), "   #TRANS 3001 "+objs+" "+book("3001", -kronor*100),
				"   #TRANS 2611 {} "+book("2611", -kronor*25), "}")
		}
		var result money.Amount
		for k, v := range bal {
			if k[0] >= '3' {
				result = result.Add(v)
				continue
			}
			y.Closing[k] = v
		}
		y.Closing["2099"] = y.Closing["2099"].Add(result)
		balances := func(label string, year int, m map[string]money.Amount) {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !m[k].IsZero() {
					w("%s %d %s %s", label, year, k, m[k])
				}
			}
		}
		balances("#IB", 0, y.Opening)
		balances("#UB", 0, y.Closing)
		balances("#RES", 0, y.Results)
		if prev.Year >= first {
			balances("#IB", -1, prev.Opening)
		}
		balances("#UB", -1, prev.Closing)
		balances("#RES", -1, prev.Results)
		lines = append(lines, body...)
		y.File = []byte(strings.Join(lines, "\r\n") + "\r\n")
		out = append(out, y)
		prev = y
	}
	return out
}
