// Package articles keeps the article register (artikelregister): what a
// company sells, with the text, unit, price, VAT rate and revenue
// accounts an invoice line takes when it names an article. A line copies
// what it takes, so an article changed later leaves the invoices made
// before as they were; an article a line has named is archived, never
// deleted.
package articles

import (
	"database/sql/driver"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Treatments are the VAT treatments an article may name a revenue
// account for: the kinds an invoice's treatment is decided to be.
var Treatments = []invoicing.Kind{invoicing.SwedishSale, invoicing.EUServices, invoicing.EUGoods,
	invoicing.ExportOfGoods, invoicing.ExportOfServices, invoicing.EUTriangulation}

// Accounts are an article's revenue accounts by treatment; a treatment
// missing books on its own default.
type Accounts map[invoicing.Kind]string

// Value stores the accounts as a JSON object.
func (a Accounts) Value() (driver.Value, error) {
	if a == nil {
		return "{}", nil
	}
	b, err := json.Marshal(a)
	return string(b), err
}

// Scan reads the JSON object back.
func (a *Accounts) Scan(src any) error {
	*a = Accounts{}
	return store.ScanJSON(src, a)
}

// Article is an entry of the register.
type Article struct {
	CompanyID   uuid.UUID    `db:"company_id" json:"company_id"`
	ID          uuid.UUID    `db:"id" json:"id"`
	Number      string       `db:"article_number" json:"article_number"`
	Name        string       `db:"name" json:"name"`
	Description *string      `db:"description" json:"description"`
	Unit        string       `db:"unit" json:"unit"`
	UnitPrice   money.Amount `db:"unit_price" json:"unit_price"`
	VATRate     money.Amount `db:"vat_rate" json:"vat_rate"` // a fraction: 0.25
	Accounts    Accounts     `db:"revenue_accounts" json:"revenue_accounts"`
	Active      bool         `db:"active" json:"active"`
	// InUse is whether an invoice line names it.
	InUse     bool      `db:"in_use" json:"in_use"`
	CreatedAt time.Time `db:"created_at" json:"created_at"`
	UpdatedAt time.Time `db:"updated_at" json:"updated_at"`
}

// Input is what a create or a change asks; a nil field is left as it is
// (on a create: its default).
type Input struct {
	Number, Name *string
	// Description is set when DescriptionSet; nil then clears it.
	Description    *string
	DescriptionSet bool
	Unit           *string
	UnitPrice      *money.Amount
	VATRate        *money.Amount
	// Accounts are the treatments given: an empty string clears one.
	Accounts map[invoicing.Kind]string
	Active   *bool
}

// New is the article in asks for, with the defaults: unit st, 25 % VAT,
// active.
func New(company uuid.UUID, in Input) Article {
	rate, _ := money.Parse("0.25")
	a := Article{CompanyID: company, ID: uuid.New(), Unit: "st", VATRate: rate, Accounts: Accounts{}, Active: true}
	return a.Apply(in)
}

// Apply is a changed as in asks; the accounts given replace theirs,
// the others stay.
func (a Article) Apply(in Input) Article {
	if in.Number != nil {
		a.Number = *in.Number
	}
	if in.Name != nil {
		a.Name = strings.TrimSpace(*in.Name)
	}
	if in.DescriptionSet {
		a.Description = in.Description
	}
	if in.Unit != nil {
		a.Unit = strings.TrimSpace(*in.Unit)
	}
	if in.UnitPrice != nil {
		a.UnitPrice = *in.UnitPrice
	}
	if in.VATRate != nil {
		a.VATRate = *in.VATRate
	}
	if in.Accounts != nil {
		next := make(Accounts, len(a.Accounts)+len(in.Accounts))
		for k, v := range a.Accounts {
			next[k] = v
		}
		for k, v := range in.Accounts {
			if v == "" {
				delete(next, k)
			} else {
				next[k] = v
			}
		}
		a.Accounts = next
	}
	if in.Active != nil {
		a.Active = *in.Active
	}
	return a
}

// Numbers are the accounts the article names, sorted, each once.
func (a Article) Numbers() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range a.Accounts {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// CheckBoxes refuses an account that reports elsewhere in the VAT return
// than its treatment's sales do: boxes maps each of the article's
// accounts to the box it reports in ("" for none). A sale under Swedish
// VAT reports in box 05, a zero-rated one in its kind's box.
func (a Article) CheckBoxes(boxes map[string]string) error {
	for _, k := range Treatments {
		n, ok := a.Accounts[k]
		if !ok {
			continue
		}
		if got, want := boxes[n], k.Box(); got != want {
			where := "reports in no box of the VAT return"
			if got != "" {
				where = "reports in box " + got
			}
			return apierr.Field("revenue_accounts."+string(k), "vat_box", "account "+n+" "+where+
				"; a sale treated as "+string(k)+" reports in box "+want)
		}
	}
	return nil
}

// Line is what an invoice line takes from the article.
func (a Article) Line() invoicing.LineArticle {
	text := a.Name
	if a.Description != nil {
		text = *a.Description
	}
	accounts := make(map[invoicing.Kind]string, len(a.Accounts))
	for k, v := range a.Accounts {
		accounts[k] = v
	}
	return invoicing.LineArticle{ID: a.ID, Description: text, Unit: a.Unit, UnitPrice: a.UnitPrice, VATRate: a.VATRate,
		Accounts: accounts, Active: a.Active}
}
