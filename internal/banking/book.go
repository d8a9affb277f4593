package banking

import (
	"sort"
	"strings"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Kind is where a category or template books, and with what VAT unless
// the categorization says otherwise.
type Kind struct {
	Account string
	VAT     string
}

// Categories are the categorize body's categories (peer §6.1) and the BAS
// account and VAT each books with by default.
var Categories = map[string]Kind{
	"income_services": {"3001", Standard25}, "income_products": {"3001", Standard25}, "income_other": {"3990", Exempt},
	"expense_equipment": {"5410", Standard25}, "expense_software": {"5420", Standard25},
	"expense_travel": {"5800", Reduced6}, "expense_office": {"6110", Standard25},
	"expense_marketing": {"5910", Standard25}, "expense_professional_services": {"6550", Standard25},
	"expense_education": {"7610", Standard25}, "expense_representation": {"6071", Standard25},
	"expense_consumables": {"5460", Standard25}, "expense_vehicle": {"5611", Standard25},
	"expense_telecom": {"6212", Standard25}, "expense_bank_fees": {"6570", Exempt}, "expense_card_fees": {"6040", Exempt},
	"expense_currency_exchange": {"7960", Exempt}, "expense_other": {"6990", Standard25},
}

// Template is a built-in way to book a kind of transaction.
type Template struct {
	ID, Name string
	Kind
	// NeedsAccount says the categorization names the other account
	// (account_override): a transfer between own accounts.
	NeedsAccount bool
}

// Templates are the built-in templates.
var Templates = []Template{
	{ID: "bank_fee", Name: "Bankavgift", Kind: Kind{"6570", Exempt}},
	{ID: "card_fee", Name: "Kortavgift", Kind: Kind{"6040", Exempt}},
	{ID: "bank_interest", Name: "Ränteintäkt, bank", Kind: Kind{"8311", Exempt}},
	{ID: "loan_interest", Name: "Räntekostnad, lån", Kind: Kind{"8410", Exempt}},
	{ID: "tax_account_interest_cost", Name: "Kostnadsränta, skattekontot", Kind: Kind{"8423", Exempt}},
	{ID: "tax_account_interest_income", Name: "Intäktsränta, skattekontot", Kind: Kind{"8314", Exempt}},
	{ID: "tax_account", Name: "Insättning på eller uttag från skattekontot", Kind: Kind{"1630", Exempt}},
	{ID: "owner_withdrawal", Name: "Eget uttag", Kind: Kind{"2013", Exempt}},
	{ID: "owner_deposit", Name: "Egen insättning", Kind: Kind{"2018", Exempt}},
	{ID: "eu_service_reverse_charge", Name: "Tjänst från annat EU-land (omvänd skattskyldighet)", Kind: Kind{"4535", ReverseCharge}},
	{ID: "own_transfer", Name: "Överföring mellan egna konton", Kind: Kind{"", Exempt}, NeedsAccount: true},
}

// TemplateByID answers the built-in template id.
func TemplateByID(id string) (Template, bool) {
	for _, t := range Templates {
		if t.ID == id {
			return t, true
		}
	}
	return Template{}, false
}

// CategoryNames lists the categories, sorted, with private.
func CategoryNames() []string {
	out := []string{"private"}
	for c := range Categories {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// outputVAT is the output VAT account per rate; input VAT is 2641.
var outputVAT = map[string]string{Standard25: "2611", Reduced12: "2621", Reduced6: "2631"}

var rates = map[string]money.Amount{Standard25: money.MustParse("25"), Reduced12: money.MustParse("12"),
	Reduced6: money.MustParse("6")}

// Booking is the verifikat a categorization books t with.
type Booking struct {
	Lines    []ledger.Line
	Category string
}

// Book decides the lines categorization c books transaction t with, under
// the company's policy p: the bank side on t's ledger account, the other
// on the account the override, template or category names (1510 and 2440
// are settled by the match endpoints, never here), VAT split out of the
// gross at the treatment's rate, reverse charge booked on 2645/2614, and
// private money on 2013/2018 (enskild firma) or 2893.
func Book(t Transaction, c Categorization, p Policy) (Booking, error) {
	gross, ok := t.SEK()
	if !ok {
		return Booking{}, apierr.New(apierr.Conflict, map[string]any{"reason": "exchange_rate_missing",
			"transaction_id": t.ID, "currency": t.Currency, "hint": "refresh-exchange-rate first"})
	}
	if gross.IsZero() {
		return Booking{}, apierr.New(apierr.Conflict, map[string]any{"reason": "zero_amount", "transaction_id": t.ID})
	}
	in := gross.Sign() > 0
	kind, category, err := kindOf(c, p, in)
	if err != nil {
		return Booking{}, err
	}
	if c.VATTreatment != nil {
		kind.VAT = *c.VATTreatment
	}
	if !p.VATRegistered || !c.IsBusiness {
		kind.VAT = Exempt
	}
	if kind.VAT == ReverseCharge && in {
		return Booking{}, apierr.Field("vat_treatment", "direction", "reverse charge books a purchase: money out")
	}
	lines := []ledger.Line{bankLine(t.LedgerAccount, gross)}
	other := gross.Neg() // what the other side carries, VAT included
	desc := c.Description
	switch kind.VAT {
	case Standard25, Reduced12, Reduced6:
		net, vat, err := split(other, kind.VAT, c.VATAmount)
		if err != nil {
			return Booking{}, err
		}
		vatAccount := "2641"
		if in {
			vatAccount = outputVAT[kind.VAT]
		}
		lines = append(lines, line(kind.Account, net, desc, c.Dimensions))
		if !vat.IsZero() {
			lines = append(lines, line(vatAccount, vat, nil, nil))
		}
	case ReverseCharge:
		vat, err := money.VATOn(other, rates[Standard25])
		if err != nil {
			return Booking{}, err
		}
		lines = append(lines, line(kind.Account, other, desc, c.Dimensions), line("2645", vat, nil, nil),
			line("2614", vat.Neg(), nil, nil))
	case Export, Exempt:
		lines = append(lines, line(kind.Account, other, desc, c.Dimensions))
	default:
		return Booking{}, apierr.Field("vat_treatment", "enum", "standard_25, reduced_12, reduced_6, reverse_charge, export or exempt")
	}
	for i := range lines {
		lines[i].SortOrder = i + 1
	}
	return Booking{Lines: lines, Category: category}, nil
}

// kindOf is where c books and the category it is filed under.
func kindOf(c Categorization, p Policy, in bool) (Kind, string, error) {
	if !c.IsBusiness {
		account := "2893"
		if p.EntityType == "enskild_firma" {
			account = "2013"
			if in {
				account = "2018"
			}
		}
		return Kind{account, Exempt}, "private", nil
	}
	var kind Kind
	category := ""
	if c.Category != nil {
		k, ok := Categories[*c.Category]
		if !ok {
			return kind, "", apierr.Field("category", "enum", strings.Join(CategoryNames(), ", "))
		}
		kind, category = k, *c.Category
	}
	if c.TemplateID != nil {
		t, ok := TemplateByID(*c.TemplateID)
		if !ok {
			return kind, "", apierr.Field("template_id", "enum", "a built-in template (GET transaction-templates)")
		}
		if t.NeedsAccount && c.AccountOverride == nil {
			return kind, "", apierr.Field("account_override", "required", "the other account of the transfer")
		}
		kind = t.Kind
		if category == "" {
			category = t.ID
		}
	}
	if c.AccountOverride != nil {
		a := strings.TrimSpace(*c.AccountOverride)
		if a == "1510" || a == "2440" {
			return kind, "", apierr.New(apierr.TxCategorizeInvalidAccount, map[string]any{"field": "account_override",
				"account_number": a, "hint": "settle invoices with match-invoice or match-supplier-invoice"})
		}
		if len(a) != 4 || strings.Trim(a, "0123456789") != "" || a[0] == '0' {
			return kind, "", apierr.Field("account_override", "pattern", "a four-digit BAS account")
		}
		kind.Account = a
		if kind.VAT == "" {
			kind.VAT = Standard25
		}
	}
	if kind.Account == "" {
		return kind, "", apierr.Field("category", "required", "a category, a template_id or an account_override")
	}
	return kind, category, nil
}

// split is other (VAT included) split into net and VAT at treatment's
// rate, or with the VAT the client gave (its sign follows other's).
func split(other money.Amount, treatment string, given *money.Amount) (money.Amount, money.Amount, error) {
	if given == nil {
		return money.SplitGross(other, rates[treatment])
	}
	vat := given.Abs()
	if other.Sign() < 0 {
		vat = vat.Neg()
	}
	if vat.Abs().Cmp(other.Abs()) > 0 {
		return money.Amount{}, money.Amount{}, apierr.Field("vat_amount", "maximum", "at most the transaction's amount")
	}
	return other.Sub(vat), vat, nil
}

// bankLine is the cash account's side: money in is a debit.
func bankLine(account string, gross money.Amount) ledger.Line {
	return line(account, gross, nil, nil)
}

// line books amount on account: positive a debit, negative a credit.
func line(account string, amount money.Amount, desc *string, dims ledger.Dimensions) ledger.Line {
	l := ledger.Line{Account: account, Description: desc, Dimensions: dims}
	if amount.Sign() >= 0 {
		l.Debit = amount
	} else {
		l.Credit = amount.Neg()
	}
	return l
}
