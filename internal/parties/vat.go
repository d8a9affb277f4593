package parties

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/vies"
)

// VIES is asked before the write's transaction opens (ARCHITECTURE rule
// 3: no I/O inside it): LookupVAT reads the body, asks about every EU
// business's VAT number the write will store, and leaves the answers in
// the context, where checkVAT reads them inside the transaction.

// The warnings a VIES lookup can leave.
var (
	warnUnavailable = Warning{"VIES_UNAVAILABLE", "EU:s momsregister (VIES) kunde inte nås; vat_number_validated är false tills numret kontrolleras igen.",
		"The EU VAT registry (VIES) could not be reached; vat_number_validated stays false until the number is checked again."}
	// warnNotConfigured is VIES_UNAVAILABLE of a server that has no
	// registry configured: the same code, the true reason.
	warnNotConfigured = Warning{"VIES_UNAVAILABLE", "Ingen koppling till EU:s momsregister (VIES) är konfigurerad på servern; vat_number_validated är false.",
		"No EU VAT registry (VIES) is configured on this server (KONTERA_VIES_URL); vat_number_validated stays false."}
	warnNotValid = Warning{"VAT_NUMBER_NOT_VALID", "VIES känner inte till momsregistreringsnumret.", "VIES does not know the VAT number."}
	warnNotEU    = Warning{"VAT_NUMBER_NOT_EU", "Momsregistreringsnumret har inget EU-landsprefix och kunde inte kontrolleras i VIES.",
		"The VAT number has no EU member-state prefix and could not be checked in VIES."}
)

// vatLookups is how many VIES lookups of one request run at once, and
// vatBudget how long they may take together: a slow registry costs a batch
// one budget, not one timeout per item.
const (
	vatLookups = 8
	vatBudget  = 10 * time.Second
)

// answers are VIES's words by VAT number: nil a valid number, else the
// warning the write carries.
type answers map[string]*Warning

type answersKey struct{}

func answersFrom(ctx context.Context) answers {
	a, _ := ctx.Value(answersKey{}).(answers)
	return a
}

// vatKey is a VAT number as the rules store it, upper-cased and trimmed.
func vatKey(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// body is what a customer body says of type and VAT number; VATSet tells
// an absent vat_number from a null one.
type body struct {
	Type   *string         `json:"customer_type"`
	VAT    json.RawMessage `json:"vat_number"`
	VATSet bool            `json:"-"`
}

func (b *body) UnmarshalJSON(raw []byte) error {
	type plain body
	if err := json.Unmarshal(raw, (*plain)(b)); err != nil {
		return err
	}
	b.VATSet = b.VAT != nil
	return nil
}

// vat is the body's VAT number, nil when null or absent.
func (b body) vat() *string {
	var s *string
	_ = json.Unmarshal(b.VAT, &s)
	return s
}

// LookupVAT is the step before the transaction of createCustomer,
// bulkCreateCustomers and updateCustomer (op). It is never run for a dry
// run. raw is the validated body; param reads the path. An unreadable body
// or a customer not found asks nothing: the write answers for itself.
func (r *Registry) LookupVAT(ctx context.Context, op string, raw []byte, param func(string) string) context.Context {
	var vats []string
	add := func(typ, vat *string) {
		if typ != nil && CustomerType(*typ) == EUBusiness && vat != nil && vatKey(*vat) != "" {
			vats = append(vats, vatKey(*vat))
		}
	}
	switch op {
	case "createCustomer":
		var b body
		if json.Unmarshal(raw, &b) == nil {
			add(b.Type, b.vat())
		}
	case "bulkCreateCustomers":
		var b struct{ Customers []body }
		if json.Unmarshal(raw, &b) == nil {
			for _, c := range b.Customers {
				add(c.Type, c.vat())
			}
		}
	case "updateCustomer":
		var b body
		company, err1 := uuid.Parse(param("companyId"))
		id, err2 := uuid.Parse(param("customerId"))
		if json.Unmarshal(raw, &b) != nil || err1 != nil || err2 != nil || (b.Type == nil && !b.VATSet) {
			break // nothing that makes the rules ask
		}
		old, err := r.store.Customer(ctx, company, id, false)
		if err != nil {
			break
		}
		typ, vat := b.Type, old.VATNumber
		if typ == nil {
			t := string(old.Type)
			typ = &t
		}
		if b.VATSet {
			vat = b.vat()
		}
		add(typ, vat)
	}
	if len(vats) == 0 {
		return ctx
	}
	return context.WithValue(ctx, answersKey{}, r.ask(ctx, vats))
}

// ask looks the numbers up, several at a time within one budget.
func (r *Registry) ask(ctx context.Context, vats []string) answers {
	ctx, cancel := context.WithTimeout(ctx, vatBudget)
	defer cancel()
	out := answers{}
	var distinct []string
	for _, v := range vats {
		if _, dup := out[v]; !dup {
			out[v] = &warnUnavailable // until answered
			distinct = append(distinct, v)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, vatLookups)
	for _, v := range distinct {
		wg.Add(1)
		sem <- struct{}{}
		go func(v string) {
			defer func() { <-sem; wg.Done() }()
			w := r.askOne(ctx, v)
			mu.Lock()
			out[v] = w
			mu.Unlock()
		}(v)
	}
	wg.Wait()
	return out
}

func (r *Registry) askOne(ctx context.Context, vat string) *Warning {
	country, number, ok := vies.Split(vat)
	if !ok {
		return &warnNotEU
	}
	res, err := r.vies.Check(ctx, country, number)
	switch {
	case errors.Is(err, vies.ErrNotConfigured):
		return &warnNotConfigured
	case err != nil:
		return &warnUnavailable
	case !res.Valid:
		return &warnNotValid
	}
	return nil
}
