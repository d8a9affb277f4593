// Package sieexport writes a fiscal year of the books as a SIE 4 file,
// streamed from one snapshot of the books in keyset pages: memory stays
// a page's, however large the year.
package sieexport

import (
	"context"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// Page is how many verifikationer a page reads.
const Page = 5000

// Year is a fiscal year as the file names it.
type Year struct {
	ID         uuid.UUID
	Start, End time.Time
}

// Company is who the file is of.
type Company struct {
	Name      string
	OrgNumber string
	Form      string // aktiebolag, enskild_firma ...
}

// Account is a chart account as the file declares it.
type Account struct {
	Number, Name, SRU string
	// Sheet is the balance-sheet type of an account of classes 3-8 an
	// SIE file declared an asset or a liability (#KTYP T, S); empty for
	// an account of BAS's type for its class, which #KTYP leaves unsaid.
	Sheet bas.Type
}

// sheetOf is the balance sheet the chart's accounts make.
func sheetOf(accounts []Account) ledger.Sheet {
	var out ledger.Sheet
	for _, a := range accounts {
		if a.Sheet != "" {
			if out == nil {
				out = ledger.Sheet{}
			}
			out[a.Number] = a.Sheet
		}
	}
	return out
}

// Dimension is a dimension of the register with the names of its values.
type Dimension struct {
	Number int
	Name   string
	Parent int
	Values map[string]string
}

// Books is what an export reads, all from one snapshot.
type Books interface {
	Company(ctx context.Context) (Company, error)
	Accounts(ctx context.Context) ([]Account, error)
	Dimensions(ctx context.Context) ([]Dimension, error)
	YearBalances(ctx context.Context, year uuid.UUID) ([]ledger.YearBalance, error)
	MonthBalances(ctx context.Context, year uuid.UUID, withClosing bool) ([]ledger.MonthTotal, error)
	TagsUsed(ctx context.Context, year uuid.UUID) (map[string][]string, error)
	// CancelledGross is, per account, what the entries an import wrote
	// and cancelled itself hold: the file leaves them out.
	CancelledGross(ctx context.Context, year uuid.UUID) (map[string]money.Amount, error)
	// GapNotes are the year's explanations of missing voucher numbers.
	GapNotes(ctx context.Context, year uuid.UUID) ([]ledger.GapNote, error)
	// Page streams the lines of up to limit verifikationer after (series,
	// number) to fn, as ledger.Store.ExportPage does.
	Page(ctx context.Context, year uuid.UUID, afterSeries string, afterNumber, limit int, withoutClosing bool,
		fn func(*ledger.ExportRow) error) (string, int, int, error)
}

// Options are the client's choices.
type Options struct {
	Type           string // 4E or 4I
	Encoding       sie.Encoding
	WithoutClosing bool
	// Program names the writing program and its version.
	Program, Version string
	Generated        time.Time
}

// Write writes year (and the year before it, prev, when there is one)
// of books to w as SIE 4: the identification, the chart and the
// dimensions used, for 4E the balances (#IB, #UB, #RES for both years,
// #PSALDO per month), then every verifikat by series and number, the
// whole wrapped in #KSUMMA. An error after the first byte leaves the
// file without its closing #KSUMMA: a reader sees it cut short.
func Write(ctx context.Context, w io.Writer, books Books, year Year, prev *Year, o Options) error {
	sw := sie.NewWriter(w, o.Encoding)
	c, err := books.Company(ctx)
	if err != nil {
		return err
	}
	var errs []error
	rec := func(label string, fields ...sie.Field) {
		if err := sw.Record(label, fields...); err != nil {
			errs = append(errs, err)
		}
	}
	rec("#FLAGGA", sie.Bare("0"))
	if err := sw.Checksum(); err != nil {
		return err
	}
	rec("#PROGRAM", sie.Quoted(o.Program), sie.Quoted(o.Version))
	rec("#FORMAT", sie.Bare("PC8"))
	rec("#GEN", sie.DateField(o.Generated))
	rec("#SIETYP", sie.Bare("4"))
	notes, err := books.GapNotes(ctx, year.ID)
	if err != nil {
		return err
	}
	if p := prosa(notes); p != "" {
		rec("#PROSA", sie.Quoted(p))
	}
	rec("#FNAMN", sie.Quoted(c.Name))
	if c.OrgNumber != "" {
		rec("#ORGNR", sie.Bare(orgNumber(c.OrgNumber)))
	}
	if t := formType(c.Form); t != "" {
		rec("#FTYP", sie.Bare(t))
	}
	rec("#RAR", sie.Bare("0"), sie.DateField(year.Start), sie.DateField(year.End))
	if prev != nil {
		rec("#RAR", sie.Bare("-1"), sie.DateField(prev.Start), sie.DateField(prev.End))
	}
	rec("#TAXAR", sie.IntField(year.End.Year()+1))
	rec("#KPTYP", sie.Bare("BAS2014"))
	rec("#VALUTA", sie.Bare("SEK"))
	if len(errs) > 0 {
		return errs[0]
	}

	bal, err := books.YearBalances(ctx, year.ID)
	if err != nil {
		return err
	}
	var prevBal []ledger.YearBalance
	if prev != nil {
		if prevBal, err = books.YearBalances(ctx, prev.ID); err != nil {
			return err
		}
	}
	accounts, err := books.Accounts(ctx)
	if err != nil {
		return err
	}
	if err := declare(ctx, sw, books, year, accounts, bal, prevBal); err != nil {
		return err
	}
	if o.Type != "4I" {
		if err := balances(ctx, sw, books, year, sheetOf(accounts), bal, prevBal, o.WithoutClosing); err != nil {
			return err
		}
	}
	if err := vouchers(ctx, sw, books, year, o.WithoutClosing); err != nil {
		return err
	}
	return sw.Close()
}

// declare writes the accounts the file uses (with their SRU codes, and
// #KTYP where the type is not BAS's for the class) and the dimensions and
// objects its rows carry.
func declare(ctx context.Context, sw *sie.Writer, books Books, year Year, accounts []Account, bal, prevBal []ledger.YearBalance) error {
	// An account is declared when the file uses it: in a balance, or in
	// a voucher it writes (its lines are more than what an import
	// cancelled itself, which the file leaves out).
	cancelled, err := books.CancelledGross(ctx, year.ID)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, b := range bal {
		// A row of the year's balances is the account's use, unless all of
		// it comes from what an import cancelled itself (a row whose lines
		// were all struck has no gross, and its #BTRANS still names it).
		used[b.Account] = b.Gross.Cmp(cancelled[b.Account]) > 0 || cancelled[b.Account].IsZero()
	}
	for _, b := range prevBal {
		used[b.Account] = used[b.Account] || !b.Opening.IsZero() || !b.Period.IsZero() || !b.Closing.IsZero()
	}
	for _, a := range accounts {
		if !used[a.Number] {
			continue
		}
		if err := sw.Record("#KONTO", sie.Bare(a.Number), sie.Quoted(a.Name)); err != nil {
			return err
		}
		if a.Sheet != "" {
			kind := "S"
			if a.Sheet == bas.Asset {
				kind = "T"
			}
			if err := sw.Record("#KTYP", sie.Bare(a.Number), sie.Bare(kind)); err != nil {
				return err
			}
		}
		if a.SRU != "" {
			if err := sw.Record("#SRU", sie.Bare(a.Number), sie.Bare(a.SRU)); err != nil {
				return err
			}
		}
	}
	tags, err := books.TagsUsed(ctx, year.ID)
	if err != nil || len(tags) == 0 {
		return err
	}
	dims, err := books.Dimensions(ctx)
	if err != nil {
		return err
	}
	for _, d := range dims {
		codes := tags[strconv.Itoa(d.Number)]
		if len(codes) == 0 {
			continue
		}
		if d.Parent != 0 {
			err = sw.Record("#UNDERDIM", sie.IntField(d.Number), sie.Quoted(d.Name), sie.IntField(d.Parent))
		} else {
			err = sw.Record("#DIM", sie.IntField(d.Number), sie.Quoted(d.Name))
		}
		if err != nil {
			return err
		}
		for _, code := range codes {
			name := d.Values[code]
			if name == "" {
				name = code
			}
			if err := sw.Record("#OBJEKT", sie.IntField(d.Number), sie.Quoted(code), sie.Quoted(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// balances writes #IB, #UB and #RES for the year and the one before, and
// #PSALDO for the year's months: the accounts sheet holds on the balance
// sheet (1-2, and those a file declared so) open with their opening
// balance and close with everything; result accounts (3-8, and an
// internal 0 or 9 account kept as one) give the year's turnover. The year-end's closing entry counts in both,
// and in its month's #PSALDO, unless the file leaves it out
// (withoutClosing, the current year only).
func balances(ctx context.Context, sw *sie.Writer, books Books, year Year, sheet ledger.Sheet, bal, prevBal []ledger.YearBalance, withoutClosing bool) error {
	write := func(n string, list []ledger.YearBalance) error {
		for _, b := range list {
			if sheet.Holds(b.Account) {
				if !b.Opening.IsZero() {
					if err := sw.Record("#IB", sie.Bare(n), sie.Bare(b.Account), sie.AmountField(b.Opening)); err != nil {
						return err
					}
				}
			}
		}
		for _, b := range list {
			closing := b.Opening.Add(b.Period)
			if !withoutClosing || n != "0" {
				closing = closing.Add(b.Closing)
			}
			switch {
			case sheet.Holds(b.Account) && !closing.IsZero():
				if err := sw.Record("#UB", sie.Bare(n), sie.Bare(b.Account), sie.AmountField(closing)); err != nil {
					return err
				}
			case sheet.InResult(b.Account) && !closing.IsZero():
				// With the closing entry in the file, 8999 carries the
				// year's result, so #UB and #RES sum to zero and each
				// account's #RES is what its #TRANS add up to.
				if err := sw.Record("#RES", sie.Bare(n), sie.Bare(b.Account), sie.AmountField(closing)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := write("0", bal); err != nil {
		return err
	}
	if err := write("-1", prevBal); err != nil {
		return err
	}
	months, err := books.MonthBalances(ctx, year.ID, !withoutClosing)
	if err != nil {
		return err
	}
	for _, m := range months {
		v := m.Debit.Sub(m.Credit)
		if v.IsZero() {
			continue
		}
		if err := sw.Record("#PSALDO", sie.Bare("0"), sie.Bare(m.Month.Format("200601")), sie.Bare(m.Account),
			sie.Objects(nil), sie.AmountField(v)); err != nil {
			return err
		}
	}
	return nil
}

// vouchers writes every verifikat of the year, a page at a time, each
// line as it is read.
func vouchers(ctx context.Context, sw *sie.Writer, books Books, year Year, withoutClosing bool) error {
	series, number := "", 0
	open := false
	var curSeries string
	var curNumber int
	row := func(r *ledger.ExportRow) error {
		if !open || r.Number != curNumber || r.Series != curSeries {
			if open {
				if err := sw.End(); err != nil {
					return err
				}
			}
			if err := sw.Record("#VER", sie.Bare(r.Series), sie.IntField(r.Number), sie.Bare(r.Date),
				sie.Quoted(text(r))); err != nil {
				return err
			}
			if err := sw.Begin(); err != nil {
				return err
			}
			open, curSeries, curNumber = true, r.Series, r.Number
		}
		return line(sw, r)
	}
	for {
		var n int
		var err error
		series, number, n, err = books.Page(ctx, year.ID, series, number, Page, withoutClosing, row)
		if err != nil {
			return err
		}
		if n < Page {
			break
		}
		if err := sw.Flush(); err != nil {
			return err
		}
	}
	if open {
		return sw.End()
	}
	return nil
}

// line writes one row of a verifikat: a struck row as #BTRANS, an added
// one as #RTRANS followed by the same #TRANS.
func line(sw *sie.Writer, r *ledger.ExportRow) error {
	objs, err := objects(r.Dimensions)
	if err != nil {
		return err
	}
	fields := []sie.Field{sie.Bare(r.Account), sie.Objects(objs), sie.Bare(r.Amount)}
	if r.Struck || r.Added || r.LineText.Valid {
		fields = append(fields, sie.Bare(""), sie.Quoted(r.LineText.String))
	}
	if r.Struck || r.Added {
		fields = append(fields, sie.Bare(""), sie.Quoted(r.Signature.String))
	}
	switch {
	case r.Struck:
		return sw.Record("#BTRANS", fields...)
	case r.Added:
		if err := sw.Record("#RTRANS", fields...); err != nil {
			return err
		}
	}
	return sw.Record("#TRANS", fields...)
}

// objects are a line's tags (a JSON object) in dimension order.
func objects(raw []byte) ([]sie.Object, error) {
	if len(raw) <= 2 {
		return nil, nil
	}
	var d map[string]string
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.Atoi(keys[i])
		b, _ := strconv.Atoi(keys[j])
		return a < b
	})
	out := make([]sie.Object, len(keys))
	for i, k := range keys {
		out[i] = sie.Object{Dim: k, Code: d[k]}
	}
	return out, nil
}

// orgNumber is an organisation number as SIE writes it: NNNNNN-NNNN.
func orgNumber(s string) string {
	d := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	if len(d) == 12 {
		d = d[2:]
	}
	if len(d) == 10 {
		return d[:6] + "-" + d[6:]
	}
	return s
}

// formType is the company form's SIE code (#FTYP).
func formType(form string) string {
	switch form {
	case "aktiebolag":
		return "AB"
	case "enskild_firma":
		return "E"
	case "handelsbolag":
		return "HB"
	case "kommanditbolag":
		return "KB"
	case "ekonomisk_forening":
		return "EK"
	case "ideell_forening":
		return "I"
	case "stiftelse":
		return "S"
	}
	return ""
}

// text is a verifikat's text as the file writes it: empty for one an
// import booked from a #VER without text (the books hold a text it made
// up, since a verifikat needs one).
func text(r *ledger.ExportRow) string {
	if r.SourceID.Valid && strings.HasPrefix(r.SourceID.String, "sie:") {
		src := r.SourceID.String[len("sie:"):]
		if i := strings.LastIndexByte(src, ':'); i >= 0 && r.Description == sie.Untitled(src[:i], src[i+1:]) {
			return ""
		}
	}
	return r.Description
}

// prosa is the file's free comment: why numbers are missing from its
// series, where the books say so. SIE has no record of its own for it, and
// a writer may use only the labels the format defines.
func prosa(notes []ledger.GapNote) string {
	parts := make([]string, len(notes))
	for i, n := range notes {
		parts[i] = n.Series + " " + n.Range() + ": " + n.Explanation
	}
	if len(parts) == 0 {
		return ""
	}
	return "Förklarade luckor i verifikationsnumren. " + strings.Join(parts, "; ")
}
