// Package sietest writes SIE 4 files for tests and benchmarks: a company
// of one year with as many balanced vouchers as asked, through the
// package's own writer.
package sietest

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// Spec says what file to write.
type Spec struct {
	Year     int    // the fiscal year, January to December
	Vouchers int    // how many
	Series   string // their series; "" is A
	First    int    // the first voucher's number; 0 is 1
	// Opening balance: 1930 debit and 2081 credit, 0 for none.
	Opening int64
	// Net, when set, is every sale's amount before VAT, in kronor,
	// instead of the small ones.
	Net int64
	// Checksum wraps the file in #KSUMMA.
	Checksum bool
	// Split books each sale on two revenue accounts (3001 tagged to the
	// project, 3041 not): four booked rows a voucher rather than three.
	Split bool
}

// Write answers the file: vouchers of four rows each (a sale of 100-999
// kronor with 25 % VAT, paid to 1930, half of them tagged to project P1),
// spread over the year's days, and #IB/#UB/#RES that agree with them.
func Write(s Spec) []byte {
	var buf bytes.Buffer
	w := sie.NewWriter(&buf, sie.CP437)
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	series := s.Series
	if series == "" {
		series = "A"
	}
	first := s.First
	if first == 0 {
		first = 1
	}
	start := time.Date(s.Year, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(s.Year, 12, 31, 0, 0, 0, 0, time.UTC)
	must(w.Record("#FLAGGA", sie.Bare("0")))
	if s.Checksum {
		must(w.Checksum())
	}
	must(w.Record("#PROGRAM", sie.Quoted("sietest"), sie.Bare("1")))
	must(w.Record("#FORMAT", sie.Bare("PC8")))
	must(w.Record("#GEN", sie.DateField(end)))
	must(w.Record("#SIETYP", sie.Bare("4")))
	must(w.Record("#FNAMN", sie.Quoted("Provbolaget AB")))
	must(w.Record("#RAR", sie.Bare("0"), sie.DateField(start), sie.DateField(end)))
	for _, a := range [][2]string{{"1930", "Företagskonto"}, {"2081", "Aktiekapital"}, {"2611", "Utgående moms 25 %"},
		{"3001", "Försäljning inom Sverige, 25 % moms"}, {"3041", "Försäljning tjänster inom Sverige, 25 % moms"}} {
		must(w.Record("#KONTO", sie.Bare(a[0]), sie.Quoted(a[1])))
	}
	must(w.Record("#DIM", sie.Bare("6"), sie.Quoted("Projekt")))
	must(w.Record("#OBJEKT", sie.Bare("6"), sie.Quoted("P1"), sie.Quoted("Projekt ett")))
	bank := money.Öre(s.Opening * 100)
	must(w.Record("#IB", sie.Bare("0"), sie.Bare("1930"), sie.AmountField(bank)))
	must(w.Record("#IB", sie.Bare("0"), sie.Bare("2081"), sie.AmountField(bank.Neg())))
	var sales, vat money.Amount
	type voucher struct {
		date          time.Time
		net, tax, svc money.Amount // svc: the part of net Split books on services
		tagged        bool
		n             int
	}
	vs := make([]voucher, s.Vouchers)
	days := int(end.Sub(start).Hours()/24) + 1
	for i := range vs {
		kronor := int64(100 + (i*37)%900)
		if s.Net != 0 {
			kronor = s.Net
		}
		// 25 % VAT of whole kronor is exact to the öre.
		net, tax := money.Öre(kronor*100), money.Öre(kronor*25)
		vs[i] = voucher{date: start.AddDate(0, 0, i*days/max(s.Vouchers, 1)), net: net, tax: tax, svc: money.Öre(kronor * 40),
			tagged: i%2 == 0, n: first + i}
		sales, vat = sales.Add(net), vat.Add(tax)
		bank = bank.Add(net).Add(tax)
	}
	must(w.Record("#UB", sie.Bare("0"), sie.Bare("1930"), sie.AmountField(bank)))
	must(w.Record("#UB", sie.Bare("0"), sie.Bare("2081"), sie.AmountField(money.Öre(s.Opening*100).Neg())))
	must(w.Record("#UB", sie.Bare("0"), sie.Bare("2611"), sie.AmountField(vat.Neg())))
	var half money.Amount
	if s.Split {
		for _, v := range vs {
			half = half.Add(v.svc)
		}
		must(w.Record("#RES", sie.Bare("0"), sie.Bare("3001"), sie.AmountField(sales.Sub(half).Neg())))
		must(w.Record("#RES", sie.Bare("0"), sie.Bare("3041"), sie.AmountField(half.Neg())))
	} else {
		must(w.Record("#RES", sie.Bare("0"), sie.Bare("3001"), sie.AmountField(sales.Neg())))
	}
	for _, v := range vs {
		must(w.Record("#VER", sie.Bare(series), sie.IntField(v.n), sie.DateField(v.date), sie.Quoted(fmt.Sprintf("Försäljning %d", v.n))))
		must(w.Begin())
		var objs []sie.Object
		if v.tagged {
			objs = []sie.Object{{Dim: "6", Code: "P1"}}
		}
		must(w.Record("#TRANS", sie.Bare("1930"), sie.Objects(nil), sie.AmountField(v.net.Add(v.tax))))
		if s.Split {
			must(w.Record("#TRANS", sie.Bare("3001"), sie.Objects(objs), sie.AmountField(v.net.Sub(v.svc).Neg()), sie.Bare(""), sie.Quoted("Varor")))
			must(w.Record("#TRANS", sie.Bare("3041"), sie.Objects(nil), sie.AmountField(v.svc.Neg()), sie.Bare(""), sie.Quoted("Tjänster")))
		} else {
			must(w.Record("#TRANS", sie.Bare("3001"), sie.Objects(objs), sie.AmountField(v.net.Neg()), sie.Bare(""), sie.Quoted("Varor")))
		}
		must(w.Record("#TRANS", sie.Bare("2611"), sie.Objects(nil), sie.AmountField(v.tax.Neg())))
		must(w.Record("#TRANS", sie.Bare("3001"), sie.Objects(nil), sie.AmountField(money.Öre(0))))
		must(w.End())
	}
	must(w.Close())
	return buf.Bytes()
}
