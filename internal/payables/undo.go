package payables

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
)

// paymentSources are the source types of the verifikat that book
// payments: a storno of one undoes them.
var paymentSources = map[string]bool{SourcePaid: true, SourceCashPayment: true, SourceDisbursed: true}

// undoPayments undoes every payment verifikat orig booked, stornoed by
// st: a row of its own each, dated as the storno (payments stay
// append-only), and each invoice back to what is then paid of it. An
// invoice credited, disputed or reversed since keeps its payments (409
// CONFLICT naming the reason): the credit reckoned with them, a dispute
// is ended first, a reversed invoice stays as it is.
func (p *Payables) undoPayments(ctx context.Context, company uuid.UUID, orig, st ledger.Entry) error {
	before, err := p.store.PaidBy(ctx, company, orig.ID, p.today())
	if err != nil || len(before) == 0 {
		return err
	}
	old := make(map[uuid.UUID]Invoice, len(before))
	for _, inv := range before {
		// A reversed invoice's payment is undone all the same: the storno
		// of its registration left the payment standing against nothing,
		// and the invoice stays reversed with nothing paid of it.
		switch inv.Status {
		case Credited, Disputed:
			return apierr.New(apierr.Conflict, map[string]any{"reason": "supplier_invoice_" + inv.Status,
				"supplier_invoice_id": inv.ID, "journal_entry_id": orig.ID})
		}
		old[inv.ID] = inv
	}
	after, err := p.store.UndoPayments(ctx, company, orig.ID, st.ID, st.Date, p.today())
	if err != nil {
		return err
	}
	for i := range after {
		was := old[after[i].ID]
		if err := p.record(ctx, audit.Update, describe(after[i])+": betalningen i verifikation "+orig.Voucher()+
			" ångrades genom storno "+st.Voucher(), after[i], &was, &after[i]); err != nil {
			return err
		}
	}
	return nil
}
