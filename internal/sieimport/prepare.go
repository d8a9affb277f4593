package sieimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// prepare writes what the vouchers need: the year (opened if missing),
// the accounts, the dimensions and objects, the opening balance, and the
// series' offsets.
func (im *Importer) prepare(ctx context.Context, run *jobs.Run, i *Import) (bool, any, error) {
	s := i.Summary()
	if s == nil {
		return false, nil, fmt.Errorf("sieimport: import %s prepared before it was checked", i.ID)
	}
	p, err := im.year(ctx, i, s)
	if err != nil {
		return false, nil, err
	}
	warnings := i.Warnings()
	opts := i.Options()
	res := Result{ImportID: i.ID, PeriodID: p.ID}
	replaced, err := im.replaceMade(ctx, i, p)
	if err != nil {
		return false, nil, err
	}
	res.ReplacedBalances = replaced

	accounts := map[string]Account{}
	var order []string
	for _, a := range s.Accounts {
		if !s.IsOutside(a.Number) {
			accounts[a.Number] = a
			order = append(order, a.Number)
		}
	}
	for _, n := range append(append([]string{}, s.Used...), amountsAccounts(s.Opening)...) {
		acct, _ := bookedAccount(n, "", s.IsOutside(n))
		if _, ok := accounts[acct]; !ok {
			accounts[acct] = Account{Number: acct}
			order = append(order, acct)
		}
	}
	in := make([]chart.Imported, 0, len(order))
	for _, n := range order {
		a := accounts[n]
		in = append(in, chart.Imported{Number: a.Number, Name: a.Name, Kind: a.Type, SRU: a.SRU})
	}
	ch, err := im.chart.Import(ctx, i.CompanyID, in, opts.UpdateAccountNames)
	var conflict *chart.TypeConflict
	if errors.As(err, &conflict) {
		line := 0
		for _, a := range s.Accounts {
			if a.Number == conflict.Number {
				line = a.TypeLine
			}
		}
		return false, nil, apierr.New(apierr.SIEImportInvalidFile, map[string]any{"errors": []sie.Problem{{Line: line,
			Record: "#KTYP", Issue: "the file declares " + conflict.Number + " " + string(conflict.Want) + ", but the chart holds it as " +
				string(conflict.Have) + " and the books already use it (or the bookkeeping books on it itself): its balances cannot change sides"}}})
	}
	if err != nil {
		return false, nil, err
	}
	res.AccountsCreated, res.AccountsRenamed, res.SRUCodesFilled = len(ch.Created), len(ch.Renamed), len(ch.SRU)
	sheet, err := im.sheet(ctx, i.CompanyID, s)
	if err != nil {
		return false, nil, err
	}

	dims := make([]dimensions.Imported, len(s.Dimensions))
	for k, d := range s.Dimensions {
		dims[k] = dimensions.Imported{Number: d.No, Name: d.Name, Parent: d.Parent}
	}
	values := make([]dimensions.ImportedValue, len(s.Objects))
	for k, o := range s.Objects {
		values[k] = dimensions.ImportedValue{Number: o.Dim, Code: o.Code, Name: o.Name}
	}
	madeDims, madeValues, err := im.dims.Import(ctx, i.CompanyID, dims, values)
	if err != nil {
		return false, nil, err
	}
	res.DimensionsCreated, res.ObjectsCreated = madeDims, madeValues

	ib, w, err := im.opening(ctx, i, p, s, sheet)
	if err != nil {
		return false, nil, err
	}
	res.OpeningBalance = ib
	warnings = append(warnings, w...)
	made, w, err := im.previousYear(ctx, i, p, s, sheet)
	if err != nil {
		return false, nil, err
	}
	warnings = append(warnings, w...)
	if w, err = im.closingAgainst(ctx, i.CompanyID, p, s, sheet); err != nil {
		return false, nil, err
	}
	warnings = append(warnings, w...)
	res.PreviousYear = made

	last, err := im.ledger.LastNumbers(ctx, i.CompanyID, p.ID)
	if err != nil {
		return false, nil, err
	}
	offsets := map[string]int{}
	for _, name := range sortedKeys(s.Series) {
		st := s.Series[name]
		if name == "" || st.Min == 0 {
			continue
		}
		if l := last[name]; l >= st.Min {
			offsets[name] = l
			warnings = append(warnings, renumbered(name, l))
		}
	}
	cp := i.Checkpoint()
	cp.Next, cp.Offset, cp.Line, cp.Offsets, cp.PreviousYear = 0, s.Offset, s.Line, offsets, made
	i.CheckpointJSON, _ = json.Marshal(cp)
	i.ResultJSON, _ = json.Marshal(res)
	i.WarningsJSON = warningsJSON(warnings)
	next := phaseVouchers
	if s.Vouchers == 0 {
		next = phaseChecking
	}
	i.Phase = &next
	run.Progress(jobs.Progress{Phase: phasePreparing, Current: 0, Total: s.Vouchers})
	return true, nil, im.Imports.Save(ctx, i)
}

// sheet is the balance sheet the import books against: the company's
// (the accounts its chart keeps there by this file or an earlier one) and
// the file's own.
func (im *Importer) sheet(ctx context.Context, company uuid.UUID, s *Summary) (ledger.Sheet, error) {
	out, err := im.ledger.Sheet(ctx, company)
	if err != nil {
		return nil, err
	}
	for n, t := range s.Sheet() {
		if out == nil {
			out = ledger.Sheet{}
		}
		out[n] = t
	}
	return out, nil
}

func amountsAccounts(list []Amount) []string {
	out := make([]string, len(list))
	for k, a := range list {
		out[k] = a.Account
	}
	return out
}

// year is the import's fiscal year, opened now when the file's #RAR 0
// names one the company lacks.
func (im *Importer) year(ctx context.Context, i *Import, s *Summary) (fiscal.Period, error) {
	if i.PeriodID != nil {
		return im.periods.Get(ctx, i.CompanyID, *i.PeriodID)
	}
	p, move, err := im.target(ctx, i.CompanyID, s)
	if err != nil {
		return fiscal.Period{}, err
	}
	if p == nil {
		y := fiscal.Span{Start: s.Years[0].Start, End: s.Years[0].End}
		var opened fiscal.Period
		if move != nil {
			// The company's books are empty: its first year becomes the
			// file's, the name following the dates.
			opened, _, err = im.periods.Update(ctx, i.CompanyID, move.ID, fiscal.Patch{Start: &y.Start, End: &y.End})
		} else {
			opened, _, err = im.periods.Open(ctx, i.CompanyID, "", y)
		}
		if err != nil {
			return opened, err
		}
		if im.books.PeriodsChanged != nil {
			if err := im.books.PeriodsChanged(ctx, i.CompanyID); err != nil {
				return opened, err
			}
		}
		p = &opened
	}
	i.PeriodID = &p.ID
	return *p, nil
}

// opening posts the file's opening balance (#IB 0) as one verifikat on
// the year's first day, series IB, unless the year has one already
// (kept, and warned about when it differs) or the year before fixes it.
func (im *Importer) opening(ctx context.Context, i *Import, p fiscal.Period, s *Summary, sheet ledger.Sheet) (string, []Warning, error) {
	lines, sum := balanceLines(s.Opening, true, sheet)
	if len(lines) == 0 {
		return "none", nil, nil
	}
	want := map[string]money.Amount{}
	for _, l := range lines {
		want[l.Account] = l.Debit.Sub(l.Credit)
	}
	existing, err := im.ledger.Opening(ctx, i.CompanyID, p.ID)
	if err != nil {
		return "", nil, err
	}
	if existing != nil {
		have := map[string]money.Amount{}
		for _, l := range existing.Lines {
			have[l.Account] = have[l.Account].Add(l.Debit).Sub(l.Credit)
		}
		if same(have, want) {
			return "kept", nil, nil
		}
		return "kept", []Warning{{Code: WarnOpening,
			Message:   "Året har redan en ingående balans som skiljer sig från filens #IB; den behölls.",
			MessageEn: "The year has an opening balance already that differs from the file's #IB; it was kept.",
			Details:   map[string]any{"journal_entry_id": existing.ID}}}, nil
	}
	// A verifikat balances; the file's opening balance may not. The
	// accounts open as the file says, and the difference waits on 2999 for
	// the bookkeeper to look into.
	lines = settle(lines, sum, false)
	warnings := unbalanced(sum, "#IB 0")
	if err := im.ledger.OpeningSettable(ctx, i.CompanyID, p); err != nil && !im.keptElsewhere(ctx, i.CompanyID, p, err) {
		if e, ok := apierr.As(err); ok {
			return "skipped", []Warning{{Code: WarnOpening,
				Message:   "Året före bestämmer årets ingående balans (" + string(e.Code) + "); filens #IB bokfördes inte.",
				MessageEn: "The year before fixes this year's opening balance (" + string(e.Code) + "); the file's #IB was not booked.",
				Details:   e.Details}}, nil
		}
		return "", nil, err
	}
	id := i.ID
	_, err = im.ledger.PostBatch(ctx, i.CompanyID, []ledger.BatchEntry{{Import: &id, Input: ledger.Input{
		PeriodID: p.ID, Date: p.Start, Description: "Ingående balans enligt SIE-fil", Series: ledger.OpeningSeries,
		SourceType: ledger.SourceOpeningBalance, Lines: lines}}})
	return "posted", warnings, err
}

// keptElsewhere reports whether the year before p, which refused p an
// opening balance set by hand (err), is a year whose books came in from
// elsewhere: it has bookkeeping here (imported), but no year-end run here
// has fixed p's opening balance, and it is not closed. A file's #IB then
// opens p, as the program that kept both years had it.
func (im *Importer) keptElsewhere(ctx context.Context, company uuid.UUID, p fiscal.Period, err error) bool {
	if !apierr.Is(err, apierr.OBPreviousYearInBooks) {
		return false
	}
	prev, perr := im.periods.Covering(ctx, company, p.Start.AddDate(0, 0, -1))
	return perr == nil && prev.ID != uuid.Nil && prev.YearEndAt == nil && !prev.Closed
}

func ptr(s string) *string { return &s }

func same(a, b map[string]money.Amount) bool {
	for k, v := range a {
		if v.Cmp(b[k]) != 0 {
			return false
		}
	}
	for k, v := range b {
		if v.Cmp(a[k]) != 0 {
			return false
		}
	}
	return true
}
