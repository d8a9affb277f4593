package vat

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
)

// Proposed is a settlement proposal with the settlement verifikat the
// period already has.
type Proposed struct {
	Proposal
	Declaration Declaration
	Existing    []ledger.Settled
}

// Booked is the standing (not reversed) settlement of the period, if any.
func (p Proposed) Booked() *ledger.Settled {
	for i := range p.Existing {
		if !p.Existing[i].Reversed {
			return &p.Existing[i]
		}
	}
	return nil
}

// Propose builds the settlement proposal of the period q names.
func (r *Returns) Propose(ctx context.Context, company uuid.UUID, q Query) (Proposed, error) {
	d, err := r.Declare(ctx, company, q)
	if err != nil {
		return Proposed{}, err
	}
	out := Proposed{Proposal: Propose(d.Period, d.Return), Declaration: d}
	settled, err := r.ledger.SettledIn(ctx, company, d.Period.End, d.Period.End)
	out.Existing = []ledger.Settled{}
	for _, e := range settled {
		if e.SourceID == d.Period.SourceID() {
			out.Existing = append(out.Existing, e)
		}
	}
	return out, err
}

// Settle books the settlement of the period q names exactly as proposed,
// provided the proposal is still the one whose fingerprint the caller
// read. One settlement at a time per company: the check and the posting
// see the same books.
func (r *Returns) Settle(ctx context.Context, company uuid.UUID, q Query, fingerprint string) (Proposed, ledger.Entry, error) {
	if _, err := r.db.Q(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('vat_settlement:' || $1::text))`,
		company); err != nil {
		return Proposed{}, ledger.Entry{}, err
	}
	p, err := r.Propose(ctx, company, q)
	if err != nil {
		return p, ledger.Entry{}, err
	}
	if b := p.Booked(); b != nil {
		return p, ledger.Entry{}, apierr.New(apierr.VATSettlementAlreadyBooked, map[string]any{
			"journal_entry_id": b.ID, "voucher_series": b.Series, "voucher_number": b.Number})
	}
	if now := p.Fingerprint(); now != fingerprint {
		return p, ledger.Entry{}, apierr.New(apierr.VATSettlementProposalChanged, map[string]any{
			"expected_fingerprint": fingerprint, "current_fingerprint": now})
	}
	if p.Empty() {
		return p, ledger.Entry{}, apierr.New(apierr.Conflict, map[string]any{"reason": "nothing_to_settle",
			"period_start": p.Period.Start, "period_end": p.Period.End})
	}
	src := p.Period.SourceID()
	in := ledger.Input{Date: p.EntryDate, Description: p.Description, SourceType: ledger.SettlementSource,
		SourceID: &src, Last: true, Lines: make([]ledger.Line, len(p.Lines))}
	for i, l := range p.Lines {
		in.Lines[i] = ledger.Line{Account: l.Account, Debit: l.Debit, Credit: l.Credit}
		if l.Description != "" {
			text := l.Description
			in.Lines[i].Description = &text
		}
	}
	e, err := r.ledger.Post(ctx, company, in)
	return p, e, err
}
