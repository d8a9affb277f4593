package sietest

import (
	"fmt"
	"strings"

	"github.com/kontera/kontera/internal/money"
)

// Quirk is a file with one thing in it that real exports carry and a
// plain file does not, and what an import must make of it.
type Quirk struct {
	Name string
	File []byte
	// Warning is the code the import warns with ("" for none).
	Warning string
	// Refused is the line the import refuses the file at; 0 when it is
	// imported.
	Refused int
	// Balances are each account's balance after the import, the file's
	// own opening balance and vouchers added up by hand (accounts at 0
	// left out).
	Balances map[string]money.Amount
	// Vouchers is how many verifikat the import books (the opening
	// balance's not counted).
	Vouchers int
}

// builder writes a quirk's file by sections, so a quirk can add to the
// chart or the vouchers, and marks the line an import must refuse.
type builder struct {
	year                            int
	head, chart, balances, vouchers []string
	marked                          string
	balance                         map[string]money.Amount
	booked                          int
}

func newBuilder(year int) *builder {
	b := &builder{year: year, balance: map[string]money.Amount{}}
	b.head = []string{"#FLAGGA 0", `#PROGRAM "sietest quirks" 1`, "#FORMAT PC8", fmt.Sprintf("#GEN %d1231", year),
		"#SIETYP 4", `#FNAMN "Kvirk AB"`, fmt.Sprintf("#RAR 0 %d0101 %d1231", year, year)}
	for _, a := range [][2]string{{"1930", "Företagskonto"}, {"2081", "Aktiekapital"}, {"2440", "Leverantörsskulder"},
		{"2611", "Utgående moms 25 %"}, {"3001", "Försäljning 25 %"}, {"5410", "Förbrukningsinventarier"}} {
		b.chart = append(b.chart, fmt.Sprintf("#KONTO %s %q", a[0], a[1]))
	}
	b.opening("1930", 5000000)
	b.opening("2081", -5000000)
	b.voucher("A", "1", "0115", "Försäljning", [][2]any{{"1930", 125000}, {"3001", -100000}, {"2611", -25000}})
	b.voucher("A", "2", "0210", "Inköp", [][2]any{{"5410", 80000}, {"1930", -80000}})
	return b
}

// opening writes #IB 0 of öre on account.
func (b *builder) opening(account string, öre int64) {
	b.balances = append(b.balances, fmt.Sprintf("#IB 0 %s %s", account, money.Öre(öre)))
	b.balance[account] = b.balance[account].Add(money.Öre(öre))
}

// voucher writes a #VER on day (MMDD) with rows of account and öre
// (int64) or account, objects and öre.
func (b *builder) voucher(series, number, day, text string, rows [][2]any) {
	b.vouchers = append(b.vouchers, fmt.Sprintf("#VER %s %s %d%s %q", quoted(series), quoted(number), b.year, day, text), "{")
	for _, r := range rows {
		acct, objs := r[0].(string), "{}"
		if i := strings.Index(acct, " "); i > 0 {
			acct, objs = acct[:i], acct[i+1:]
		}
		öre := money.Öre(int64(r[1].(int)))
		b.vouchers = append(b.vouchers, fmt.Sprintf("   #TRANS %s %s %s", acct, objs, öre))
		b.balance[acct] = b.balance[acct].Add(öre)
	}
	b.vouchers = append(b.vouchers, "}")
	b.booked++
}

// quoted writes a field, in quotes when it is empty or holds a blank.
func quoted(s string) string {
	if s == "" || strings.ContainsAny(s, " \t") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// mark makes line the one an import refuses: the last line of a section
// that equals it.
func (b *builder) mark(line string) { b.marked = line }

func (b *builder) quirk(name, warning string) Quirk {
	var lines []string
	for _, sec := range [][]string{b.head, b.chart, b.balances, b.vouchers} {
		lines = append(lines, sec...)
	}
	q := Quirk{Name: name, Warning: warning, Vouchers: b.booked, Balances: map[string]money.Amount{}}
	for i, l := range lines {
		if b.marked != "" && l == b.marked {
			q.Refused = i + 1
		}
	}
	if b.marked != "" && q.Refused == 0 {
		panic("sietest: quirk " + name + " marks a line it does not write")
	}
	for k, v := range b.balance {
		if !v.IsZero() {
			q.Balances[k] = v
		}
	}
	q.File = []byte(strings.Join(lines, "\r\n") + "\r\n")
	return q
}

// Quirks are the files of year, one for each class of thing other
// programs' exports carry: each is imported with its warning and the
// balances its own figures give, or refused at its line.
func Quirks(year int) []Quirk {
	var out []Quirk
	add := func(name, warning string, f func(b *builder)) {
		b := newBuilder(year)
		f(b)
		out = append(out, b.quirk(name, warning))
	}
	add("plain", "", func(*builder) {})
	add("sru code 0 and letters", "SIE_SRU_CODE_IGNORED", func(b *builder) {
		b.chart = append(b.chart, "#SRU 3001 0", `#SRU 1930 "7201A"`, "#SRU 2081 7301")
	})
	add("program-internal series #", "SIE_VOUCHER_RENUMBERED", func(b *builder) {
		for i, day := range []string{"0301", "0302", "0303"} {
			b.voucher("#", "0", day, fmt.Sprintf("Kassa %d", i+1), [][2]any{{"1930", 10000 * (i + 1)}, {"3001", -8000 * (i + 1)}, {"2611", -2000 * (i + 1)}})
		}
	})
	add("program-internal series * unnumbered", "SIE_VOUCHER_RENUMBERED", func(b *builder) {
		for i, day := range []string{"0401", "0402"} {
			b.voucher("*", "", day, fmt.Sprintf("Z-rapport %d", i+1), [][2]any{{"1930", 5000}, {"3001", -4000}, {"2611", -1000}})
		}
	})
	add("program-internal series of digits", "SIE_VOUCHER_RENUMBERED", func(b *builder) {
		for _, day := range []string{"0501", "0502", "0503", "0504"} {
			b.voucher("11", "1", day, "Lön", [][2]any{{"5410", 1000}, {"2440", -1000}})
		}
	})
	add("real duplicate in a letter series", "", func(b *builder) {
		b.voucher("B", "5", "0601", "Första", [][2]any{{"5410", 1000}, {"2440", -1000}})
		b.voucher("B", "5", "0602", "Andra", [][2]any{{"5410", 2000}, {"2440", -2000}})
		b.mark(b.vouchers[len(b.vouchers)-5])
	})
	add("objects the register cannot hold, unused", "SIE_OBJECTS_SKIPPED", func(b *builder) {
		b.chart = append(b.chart, `#DIM 1 "Kostnadsställe"`, `#OBJEKT 1 "K1" "Kontoret"`,
			"#OBJEKT 1 \"\u2500\u2500\u2500\" \"Avdelare\"", "#OBJEKT 1 \"K\x07\" \"Klocka\"",
			fmt.Sprintf("#OBJEKT 1 %q \"Lång\"", strings.Repeat("L", 120)))
		b.voucher("A", "3", "0701", "Kontor", [][2]any{{"5410 {1 K1}", 30000}, {"1930", -30000}})
	})
	add("printable objects rows use", "", func(b *builder) {
		long := strings.Repeat("Projekt-", 6)
		b.chart = append(b.chart, `#DIM 6 "Projekt"`, `#OBJEKT 6 "P 1/2" "Halva ettan"`,
			fmt.Sprintf("#OBJEKT 6 %q \"Långt\"", long), "#OBJEKT 6 \"Ü.\u2500\" \"Ritat\"")
		b.voucher("A", "3", "0702", "Projekt", [][2]any{{`5410 {6 "P 1/2"}`, 1000}, {fmt.Sprintf("5410 {6 %q}", long), 2000},
			{"5410 {6 \"Ü.\u2500\"}", 3000}, {"1930", -6000}})
	})
	add("object with a control character a row uses", "", func(b *builder) {
		b.chart = append(b.chart, "#OBJEKT 1 \"K\x07\" \"Klocka\"")
		b.mark(b.chart[len(b.chart)-1])
		b.voucher("A", "3", "0703", "Kontor", [][2]any{{"5410 {1 \"K\x07\"}", 1000}, {"1930", -1000}})
	})
	add("voucher emptied by correction", "SIE_EMPTY_VOUCHERS_SKIPPED", func(b *builder) {
		b.vouchers = append(b.vouchers, fmt.Sprintf("#VER A 3 %d0801 \"Felbokning\"", year), "{",
			fmt.Sprintf(`   #BTRANS 1930 {} 500.00 %d0802 "" "" "Anna"`, year), fmt.Sprintf(`   #BTRANS 3001 {} -500.00 %d0802 "" "" "Anna"`, year),
			`   #RTRANS 1930 {} 0.00`, `   #TRANS 1930 {} 0.00`, "}")
		b.voucher("A", "4", "0803", "Efter", [][2]any{{"5410", 700}, {"1930", -700}})
	})
	add("result account outside BAS", "", func(b *builder) {
		// A 9999 obs-konto the file gives a result (#RES): kept as the
		// file's own result account, never moved to the balance sheet.
		b.chart = append(b.chart, `#KONTO 9999 "Obs-konto"`, `#KTYP 9999 K`)
		b.voucher("A", "3", "0910", "Oklart", [][2]any{{"9999", 30000}, {"1930", -30000}})
		b.balances = append(b.balances, "#RES 0 9999 300.00")
	})
	add("balance account outside BAS", "SIE_ACCOUNT_OUTSIDE_CHART", func(b *builder) {
		// A class 9 account the file keeps as an asset (#KTYP T): its rows
		// wait on 2999, each naming the account.
		b.chart = append(b.chart, `#KONTO 9100 "Internt avräkningskonto"`, `#KTYP 9100 T`)
		b.voucher("A", "3", "0911", "Avräkning", [][2]any{{"9100", 20000}, {"1930", -20000}})
		b.balance["2999"], b.balance["9100"] = b.balance["9100"], money.Amount{}
	})
	add("balance accounts in classes 3-8 by #KTYP", "SIE_ACCOUNT_TYPE_FROM_FILE", func(b *builder) {
		// A program whose chart keeps a claim in 3950 and a debt in 4990
		// (#KTYP T and S): both open with #IB and carry their balances.
		// The #KTYP of 4990 comes after its #IB, as nothing forbids.
		b.chart = append(b.chart, `#KONTO 3950 "Fordran enligt avtal"`, `#KTYP 3950 T`, `#KONTO 4990 "Skuld enligt avtal"`)
		b.opening("3950", 200000)
		b.opening("4990", -200000)
		b.balances = append(b.balances, `#KTYP 4990 S`)
		b.voucher("A", "3", "0915", "Avbetalning", [][2]any{{"3950", 50000}, {"1930", -50000}})
	})
	add("opening balance on a result account", "", func(b *builder) {
		// #IB on 3001 with no #KTYP making it a balance account: refused.
		b.opening("3001", -10000)
		b.mark(b.balances[len(b.balances)-1])
		b.opening("2081", 10000)
	})
	add("NUL byte in a name", "", func(b *builder) {
		b.head[5] = "#FNAMN \"Kvirk\x00 AB\""
		b.mark(b.head[5])
	})
	add("NUL byte in a row text", "", func(b *builder) {
		b.vouchers = append(b.vouchers, fmt.Sprintf("#VER A 3 %d0901 \"Text\"", year), "{",
			"   #TRANS 5410 {} 100.00 \"\" \"Papper\x00\"", "   #TRANS 1930 {} -100.00", "}")
		b.mark(b.vouchers[len(b.vouchers)-3])
	})
	add("balance past the largest", "", func(b *builder) {
		b.voucher("A", "3", "1001", "Stort", [][2]any{{"5410", 60000000000000}, {"2440", -60000000000000}})
		b.voucher("A", "4", "1002", "Större", [][2]any{{"5410", 60000000000000}, {"2440", -60000000000000}})
		b.mark(b.vouchers[len(b.vouchers)-3])
	})
	add("fiscal year not ending on a month end", "", func(b *builder) {
		b.head[6] = fmt.Sprintf("#RAR 0 %d0101 %d1230", year, year)
		b.mark(b.head[6])
	})
	return out
}
