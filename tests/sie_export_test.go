package tests

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
	"github.com/kontera/kontera/internal/sie/sietest"
)

// exportSie answers a year's SIE file.
func (b *ledgerBooks) exportSie(t *testing.T, period, query string) []byte {
	t.Helper()
	r := b.get(b.base+"/reports/sie-export?period_id="+period+query, b.token).status(t, 200)
	if !strings.HasPrefix(r.Header.Get("Content-Disposition"), `attachment; filename="export_`+period+`.se"`) {
		t.Fatalf("Content-Disposition %q", r.Header.Get("Content-Disposition"))
	}
	return r.Body
}

// withoutGen is a file without its #GEN line (the day it was written)
// and its checksum, which covers that line.
func withoutGen(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\r\n") {
		if !strings.HasPrefix(l, "#GEN ") && !strings.HasPrefix(l, "#KSUMMA ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\r\n")
}

// readAll reads a file with the package's reader: every record, the
// checksum verified.
func readAll(t *testing.T, b []byte) []sie.Record {
	t.Helper()
	r := sie.NewReader(bytes.NewReader(b), sie.Sniff(b))
	var out []sie.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%v\n%.2000s", err, b)
		}
		out = append(out, rec)
	}
	if !r.Checksummed() {
		t.Fatal("the export's #KSUMMA was not verified")
	}
	return out
}

// Export → import into a new company → export again: the same file but
// for the day it was written, and the same trial balance; the rättelse of
// Avendo 5.10 and Edison's numeric series come back as they went in.
func TestSieExportRoundTrip(t *testing.T) {
	t.Parallel()
	for name, year := range map[string]string{"avendo-5.10_sie4.SE": "2011", "edison-ekonomi-byra-4.9G_typ4.se": "2012"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newSieBooks(t, year)
			if op, _ := a.imported(t, a.importSie(t, name, sieFile(t, name), "").status(t, 202)); op.str("data.status") != "succeeded" {
				t.Fatal(op.Body)
			}
			first := a.exportSie(t, a.period, "")
			recs := readAll(t, first)
			labels := map[string]int{}
			for _, r := range recs {
				labels[r.Label]++
				for _, b := range r.Body {
					labels[b.Label]++
				}
			}
			if labels["#FLAGGA"] != 1 || labels["#RAR"] != 2 || labels["#VER"] == 0 || labels["#PSALDO"] == 0 {
				t.Fatalf("records: %v", labels)
			}
			if name == "avendo-5.10_sie4.SE" && (labels["#BTRANS"] != 1 || labels["#RTRANS"] != 1) {
				t.Fatalf("the rättelse is not in the export: %v", labels)
			}
			if name == "edison-ekonomi-byra-4.9G_typ4.se" && !bytes.Contains(first, []byte("\r\n#VER 4101 ")) {
				t.Fatal("Edison's series 4101 is not kept")
			}
			if !bytes.HasPrefix(first, []byte("#FLAGGA 0\r\n#KSUMMA\r\n")) || !bytes.Contains(first, []byte("#FORMAT PC8\r\n")) {
				t.Fatalf("head: %.200s", first)
			}
			b := newSieBooks(t, year)
			op, imp := b.imported(t, b.importSie(t, "export.se", first, "").status(t, 202))
			if op.str("data.status") != "succeeded" || imp.at("data.result.balance_check.balanced") != true {
				t.Fatalf("%s\n%s", op.Body, imp.Body)
			}
			second := b.exportSie(t, b.period, "")
			if withoutGen(first) != withoutGen(second) {
				t.Fatalf("the second export differs:\n%s", diff(withoutGen(first), withoutGen(second)))
			}
			ta, tb := a.booksBalances(t, a.period), b.booksBalances(t, b.period)
			if len(ta) == 0 || len(ta) != len(tb) {
				t.Fatalf("trial balances %d and %d accounts", len(ta), len(tb))
			}
			for k, v := range ta {
				if tb[k] != v {
					t.Errorf("%s: %.2f and %.2f", k, v, tb[k])
				}
			}
			four := a.exportSie(t, a.period, "&type=4I")
			if bytes.Contains(four, []byte("\r\n#IB ")) || bytes.Contains(four, []byte("\r\n#PSALDO ")) ||
				bytes.Count(four, []byte("\r\n#VER ")) != labels["#VER"] {
				t.Fatalf("4I: %.500s", four)
			}
			utf := a.exportSie(t, a.period, "&encoding=utf8")
			if sie.Sniff(utf) != sie.UTF8 || len(readAll(t, utf)) != len(recs) {
				t.Fatal("the UTF-8 export reads differently")
			}
		})
	}
}

// diff shows the first lines where two files part.
func diff(a, b string) string {
	la, lb := strings.Split(a, "\r\n"), strings.Split(b, "\r\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n" + la[i] + "\n" + lb[i]
		}
	}
	return "lengths " + strconv.Itoa(len(la)) + " and " + strconv.Itoa(len(lb))
}

// exclude_closing leaves the year-end's closing verifikat out of the
// file, and the #UB it moved back where it stood.
func TestSieExportExcludeClosing(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025")
	if op, _ := b.imported(t, b.importSie(t, "bok.se", sietest.Write(sietest.Spec{Year: 2025, Vouchers: 12, Opening: 5000}), "").
		status(t, 202)); op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	b.periodAction(b.period, "lock", nil).status(t, 200)
	b.yearOver(t)
	if op := b.operation(t, b.periodAction(b.period, "year-end", nil).status(t, 202).str("data.operation_id")); op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	with := b.exportSie(t, b.period, "")
	without := b.exportSie(t, b.period, "&exclude_closing=true")
	readAll(t, with)
	readAll(t, without)
	n, m := bytes.Count(with, []byte("\r\n#VER ")), bytes.Count(without, []byte("\r\n#VER "))
	if n != 13 || m != 12 {
		t.Fatalf("vouchers %d with the closing entry, %d without", n, m)
	}
	if !bytes.Contains(with, []byte("\r\n#UB 0 2099 ")) || bytes.Contains(without, []byte("\r\n#UB 0 2099 ")) {
		t.Fatalf("2099's #UB:\n%s\n---\n%s", grep(with, "#UB"), grep(without, "#UB"))
	}
	if !bytes.Contains(with, []byte("\r\n#RES 0 8999 ")) || bytes.Contains(without, []byte("\r\n#RES 0 8999 ")) {
		t.Fatalf("8999's #RES:\n%s\n---\n%s", grep(with, "#RES"), grep(without, "#RES"))
	}
	agrees(t, readAll(t, with))
	agrees(t, readAll(t, without))
}

// agrees checks that a file agrees with itself: #UB and #RES of the year
// sum to zero, each account's rows (#TRANS, the struck ones aside) add up
// to its #RES (result accounts) or to its #UB less its #IB (balance
// accounts), and to its #PSALDO over the months.
func agrees(t *testing.T, recs []sie.Record) {
	t.Helper()
	sum := func(m map[string]money.Amount, k string, a money.Amount) { m[k] = m[k].Add(a) }
	ib, ub, res, months, rows := map[string]money.Amount{}, map[string]money.Amount{}, map[string]money.Amount{},
		map[string]money.Amount{}, map[string]money.Amount{}
	var total money.Amount
	for _, r := range recs {
		switch r.Label {
		case "#IB", "#UB", "#RES", "#PSALDO":
			b, p := sie.ParseBalance(r)
			if p != nil {
				t.Fatal(p)
			}
			if b.Year != 0 {
				continue
			}
			switch r.Label {
			case "#IB":
				sum(ib, b.Account, b.Amount)
			case "#UB":
				sum(ub, b.Account, b.Amount)
				total = total.Add(b.Amount)
			case "#RES":
				sum(res, b.Account, b.Amount)
				total = total.Add(b.Amount)
			case "#PSALDO":
				sum(months, b.Account, b.Amount)
			}
		case "#VER":
			v, probs := sie.ParseVoucher(r)
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			for _, row := range v.Rows {
				if row.Kind != sie.Struck {
					sum(rows, row.Account, row.Amount)
				}
			}
		}
	}
	if !total.IsZero() {
		t.Errorf("#UB and #RES sum to %s", total)
	}
	accounts := map[string]bool{}
	for _, m := range []map[string]money.Amount{ib, ub, res, rows} {
		for k := range m {
			accounts[k] = true
		}
	}
	for a := range accounts {
		moved := res[a]
		if a[0] == '1' || a[0] == '2' {
			moved = ub[a].Sub(ib[a])
		}
		if rows[a].Cmp(moved) != 0 || months[a].Cmp(rows[a]) != 0 {
			t.Errorf("%s: rows %s, #PSALDO %s, balances give %s", a, rows[a], months[a], moved)
		}
	}
}

// A #VER without text is booked with one (a verifikat needs it) and
// exported without one again.
func TestSieExportEmptyText(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025")
	file := "#FLAGGA 0\n#SIETYP 4\n#RAR 0 20250101 20251231\n" +
		"#VER A 1 20250105\n{\n#TRANS 1930 {} 100\n#TRANS 3001 {} -100\n}\n" +
		"#VER A 2 20250106 \"\"\n{\n#TRANS 1930 {} 50\n#TRANS 3001 {} -50\n}\n" +
		"#VER A 3 20250107 \"Verifikat A 3 (SIE-import) och mer\"\n{\n#TRANS 1930 {} 5\n#TRANS 3001 {} -5\n}\n"
	if op, _ := b.imported(t, b.importSie(t, "tom.se", []byte(file), "").status(t, 202)); op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	out := b.exportSie(t, b.period, "")
	for _, want := range []string{"\r\n#VER A 1 20250105 \"\"\r\n", "\r\n#VER A 2 20250106 \"\"\r\n",
		"\r\n#VER A 3 20250107 \"Verifikat A 3 (SIE-import) och mer\"\r\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no %q in\n%s", want, grep(out, "#VER"))
		}
	}
	agrees(t, readAll(t, out))
}

func grep(b []byte, label string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\r\n") {
		if strings.HasPrefix(l, label) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
