package invoicing

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
)

// paymentSources are the source types of the verifikat that book
// payments: a storno of one undoes them.
var paymentSources = map[string]bool{SourcePaid: true, SourceCashPayment: true, SourcePayout: true, SourceReceipts: true}

// Reversed is the ledger's word, in the storno's unit of work, that
// verifikat orig was stornoed by st. Every payment orig booked is undone
// by a row of its own dated as the storno (the payments stay
// append-only), and its invoice moves back to what is then paid of it:
// paid to partially paid or sent, its reminder charges owed again. A
// credited invoice keeps its payments: its credit note reckoned with
// them (409 CONFLICT, reason invoice_credited). A customer's credit the
// payment made is reversed with it, unless used (409 CONFLICT, reason
// customer_credit_used); a use of a credit it booked, or a refund of one,
// is given back to the credit.
func (s *Sales) Reversed(ctx context.Context, company uuid.UUID, orig, st ledger.Entry) error {
	if orig.SourceType == SourceCreditRefund {
		return s.undoCredits(ctx, company, orig, st)
	}
	if !paymentSources[orig.SourceType] {
		return nil
	}
	// A payment's verifikat may have made a customer's credit, or used one.
	if err := s.undoCredits(ctx, company, orig, st); err != nil {
		return err
	}
	before, err := s.store.PaidBy(ctx, company, orig.ID, s.today())
	if err != nil || len(before) == 0 {
		return err
	}
	old := make(map[uuid.UUID]Invoice, len(before))
	for _, inv := range before {
		if inv.Status == "credited" {
			return apierr.New(apierr.Conflict, map[string]any{"reason": "invoice_credited", "invoice_id": inv.ID,
				"journal_entry_id": orig.ID, "hint": "the credit note reckoned with this payment; refund it on the credit note instead"})
		}
		old[inv.ID] = inv
	}
	after, err := s.store.UndoPayments(ctx, company, orig.ID, st.ID, st.Date, s.today())
	if err != nil {
		return err
	}
	for i := range after {
		was := old[after[i].ID]
		if err := s.record(ctx, audit.Update, describe(after[i])+": betalningen i verifikation "+orig.Voucher()+
			" ångrades genom storno "+st.Voucher(), after[i], &was, &after[i]); err != nil {
			return err
		}
	}
	return nil
}
