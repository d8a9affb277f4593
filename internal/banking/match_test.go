package banking

import (
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// A match-batch is held to its rules before any invoice is read.
func TestBatchable(t *testing.T) {
	in := Transaction{ID: uuid.New(), Amount: money.MustParse("100")}
	out := Transaction{ID: uuid.New(), Amount: money.MustParse("-100")}
	entry := uuid.New()
	booked := in
	booked.JournalEntryID = &entry
	zero := Transaction{ID: uuid.New()}
	a, b := uuid.New(), uuid.New()
	c := func(id uuid.UUID, v string) BatchAllocation {
		return BatchAllocation{Kind: CustomerInvoice, InvoiceID: id, Amount: money.MustParse(v)}
	}
	s := func(id uuid.UUID, v string) BatchAllocation {
		return BatchAllocation{Kind: SupplierInvoice, InvoiceID: id, Amount: money.MustParse(v)}
	}
	for _, x := range []struct {
		name   string
		t      Transaction
		allocs []BatchAllocation
		want   apierr.Code
	}{
		{"exact", in, []BatchAllocation{c(a, "60"), c(b, "40")}, ""},
		{"money out", out, []BatchAllocation{s(a, "100")}, ""},
		{"booked", booked, []BatchAllocation{c(a, "100")}, apierr.BatchTxAlreadyBooked},
		{"zero", zero, []BatchAllocation{c(a, "100")}, apierr.BatchTxZeroAmount},
		{"mixed", in, []BatchAllocation{c(a, "60"), s(b, "40")}, apierr.BatchMixedKindsUnsupported},
		{"direction", out, []BatchAllocation{c(a, "100")}, apierr.BatchDirectionMismatch},
		{"over", in, []BatchAllocation{c(a, "60"), c(b, "40.01")}, apierr.BatchAmountExceedsTx},
		{"under", in, []BatchAllocation{c(a, "60"), c(b, "39.99")}, apierr.BatchAmountBelowTx},
		{"twice", in, []BatchAllocation{c(a, "60"), c(a, "40")}, apierr.ValidationError},
		{"nothing", in, []BatchAllocation{c(a, "100"), c(b, "0")}, apierr.ValidationError},
	} {
		err := batchable(x.t, x.allocs)
		e, _ := apierr.As(err)
		switch {
		case x.want == "" && err != nil:
			t.Errorf("%s: %v", x.name, err)
		case x.want != "" && (e == nil || e.Code != x.want):
			t.Errorf("%s: %v, want %s", x.name, err, x.want)
		}
	}
}
