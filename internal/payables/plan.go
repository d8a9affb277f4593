package payables

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The VAT treatments a supplier invoice names; the first three are also
// the rate its lines default to.
const (
	Standard25    = "standard_25"
	Reduced12     = "reduced_12"
	Reduced6      = "reduced_6"
	ReverseCharge = "reverse_charge"
	Export        = "export"
	Exempt        = "exempt"
)

// defaultRate is the VAT (in percent) a line of each treatment has when
// it names none; a reverse-charge line's is the Swedish rate the buyer
// accounts for.
var defaultRate = map[string]int64{Standard25: 25, Reduced12: 12, Reduced6: 6, ReverseCharge: 25, Export: 0, Exempt: 0}

// Supplier is what a supplier invoice needs of its supplier.
type Supplier struct {
	ID             uuid.UUID
	Name           string
	Type           string // swedish_business, eu_business, non_eu_business
	ExpenseAccount *string
	Currency       string
}

// Facts are what the company's settings say of how it books supplier
// invoices, read with its next arrival number.
type Facts struct {
	ArrivalNumber int
	VATRegistered bool
	Cash          bool // kontantmetoden
	DeferBooking  bool
	EntityType    string // aktiebolag, enskild_firma, ideell_forening
	// Now is the transaction's time, the rows' created_at.
	Now time.Time
}

// Draft is what a create body says.
type Draft struct {
	SupplierID        uuid.UUID
	DocumentID        *uuid.UUID
	Number            string
	InvoiceDate       time.Time
	DueDate           time.Time
	DeliveryDate      *time.Time
	Currency          string
	ExchangeRate      *money.Rate
	Treatment         string
	ReverseCharge     *bool
	PaymentReference  *string
	Notes             *string
	OreRounding       *bool
	PrivatelyPaid     bool
	EmployeeID        *uuid.UUID
	ClaimantName      *string
	InboxItemID       *uuid.UUID
	PaymentDate       *time.Time
	DefaultDimensions ledger.Dimensions
	Items             []ItemDraft
	// Converted says the inbox item was taken by convert, which registers
	// the invoice of an item whatever paid it.
	Converted bool
}

// ItemDraft is one line of a create body.
type ItemDraft struct {
	Description    string
	Amount         money.Amount
	Account        *string
	VATRate        *money.Amount // a fraction: 0.25
	VATAmount      *money.Amount
	Dimensions     ledger.Dimensions
	SLP            bool
	AccrualStart   *time.Time
	AccrualEnd     *time.Time
	AccrualAccount *string
	// Asset, when set, makes the line an asset of the register.
	Asset *AssetDraft
}

// AssetDraft is what a line asks of the asset it becomes.
type AssetDraft struct {
	Class      string
	Name       *string
	LifeMonths *int
	Residual   *money.Amount
	Start      *time.Time
}

// AssetLine is an asset a registered invoice's line becomes: what the
// register needs of it.
type AssetLine struct {
	Draft      AssetDraft
	Name       string
	Date       time.Time
	Value      money.Amount // in kronor, without VAT
	Account    string
	Dimensions ledger.Dimensions
	EntryID    *uuid.UUID
	InvoiceID  uuid.UUID
	Field      string // the line's create_asset, for a refusal to name
}

// assetAccount is an account an asset is kept on: classes 10-13.
var assetAccount = regexp.MustCompile(`^1[0-3][0-9]{2}$`)

// invalid is 400 SI_CREATE_INVALID_INPUT naming the field and why.
func invalid(field, reason string, more ...any) *apierr.Error {
	d := map[string]any{"field": field, "reason": reason}
	for i := 0; i+1 < len(more); i += 2 {
		d[more[i].(string)] = more[i+1]
	}
	return apierr.New(apierr.SICreateInvalidInput, d)
}

// Plan is a supplier invoice as a create body, its supplier and the
// company's facts make it, with its amounts reckoned; the rules a body
// breaks answer their catalogue errors. The rate of a foreign invoice
// must be known by now (the caller looks it up when the body has none).
func Plan(d Draft, s Supplier, f Facts) (Invoice, error) {
	inv := Invoice{SupplierID: s.ID, SupplierName: s.Name, ArrivalNumber: f.ArrivalNumber, Number: strings.TrimSpace(d.Number),
		Status: Registered, InvoiceDate: d.InvoiceDate, DueDate: d.DueDate, DeliveryDate: d.DeliveryDate,
		Currency: d.Currency, ExchangeRate: d.ExchangeRate, PaymentReference: d.PaymentReference, Notes: d.Notes,
		Cash: f.Cash && !d.PrivatelyPaid, BookingDeferred: f.DeferBooking && !f.Cash && !d.PrivatelyPaid, DocumentID: d.DocumentID, InboxItemID: d.InboxItemID,
		PrivatelyPaid: d.PrivatelyPaid, EmployeeID: d.EmployeeID, ClaimantName: d.ClaimantName,
		DefaultDimensions: d.DefaultDimensions}
	if inv.DefaultDimensions == nil {
		inv.DefaultDimensions = ledger.Dimensions{}
	}
	if inv.Currency == "" {
		inv.Currency = s.Currency
	}
	if inv.Currency == "" {
		inv.Currency = "SEK"
	}
	switch {
	case inv.Number == "":
		return inv, apierr.Field("supplier_invoice_number", "required", "the supplier's invoice number is needed")
	case d.DueDate.Before(d.InvoiceDate):
		return inv, apierr.Field("due_date", "after_invoice_date", "due_date may not be before invoice_date")
	case inv.Currency == "SEK" && d.ExchangeRate != nil:
		return inv, apierr.Field("exchange_rate", "sek", "an invoice in kronor has no exchange rate")
	case inv.Currency != "SEK" && d.ExchangeRate == nil:
		return inv, apierr.New(apierr.SIFXRateMissing, map[string]any{"currency": inv.Currency,
			"invoice_date": d.InvoiceDate.Format(time.DateOnly), "field": "exchange_rate"})
	case d.OreRounding != nil && *d.OreRounding && inv.Currency != "SEK":
		return inv, apierr.Field("ore_rounding", "sek", "öresavrundning applies to invoices in kronor")
	}
	inv.OreRounding = d.OreRounding != nil && *d.OreRounding
	treatment, err := treatmentOf(d, f)
	if err != nil {
		return inv, err
	}
	inv.Treatment, inv.ReverseCharge = treatment, treatment == ReverseCharge
	if err := privately(d, inv, f); err != nil {
		return inv, err
	}
	inv.Items = make([]Item, len(d.Items))
	for i, it := range d.Items {
		line, err := itemOf(i, it, inv, s, f)
		if err != nil {
			return inv, err
		}
		inv.Items[i] = line
		inv.Subtotal = inv.Subtotal.Add(line.Amount)
		if !inv.ReverseCharge {
			inv.VAT = inv.VAT.Add(line.VAT)
		}
	}
	gross := inv.Subtotal.Add(inv.VAT)
	if inv.OreRounding {
		inv.Rounding = toKrona(gross).Sub(gross)
	}
	inv.Total = gross.Add(inv.Rounding)
	if inv.Total.Sign() <= 0 {
		return inv, invalid("items", "total_not_positive", "total", inv.Total)
	}
	inv.TotalSEK = creditorSEK(inv)
	return inv, nil
}

// treatmentOf settles the invoice's VAT treatment: reverse_charge true
// and vat_treatment reverse_charge say the same; left out, Swedish VAT
// at 25 % for a VAT-registered company, none for another (rule 10).
func treatmentOf(d Draft, f Facts) (string, error) {
	t := d.Treatment
	rc := d.ReverseCharge != nil && *d.ReverseCharge
	switch {
	case t == "" && rc:
		t = ReverseCharge
	case t == "" && f.VATRegistered:
		t = Standard25
	case t == "":
		t = Exempt
	}
	if _, ok := defaultRate[t]; !ok {
		return t, apierr.Field("vat_treatment", "enum", "one of standard_25, reduced_12, reduced_6, reverse_charge, export, exempt")
	}
	if d.ReverseCharge != nil && *d.ReverseCharge != (t == ReverseCharge) {
		return t, invalid("reverse_charge", "treatment_mismatch", "vat_treatment", t)
	}
	if t == ReverseCharge && !f.VATRegistered {
		// The buyer's own output and input VAT: a company outside the
		// VAT register declares none.
		return t, invalid("vat_treatment", "not_vat_registered")
	}
	return t, nil
}

// privately checks rule 8's combinations: paid with private funds is
// never reverse charge nor accrued, and only it takes an inbox item (an
// inbox item of another invoice comes in through convert).
func privately(d Draft, inv Invoice, f Facts) error {
	if !d.PrivatelyPaid {
		switch {
		case d.EmployeeID != nil:
			return invalid("employee_id", "private_only")
		case d.ClaimantName != nil:
			return invalid("claimant_name", "private_only")
		case d.PaymentDate != nil:
			return invalid("payment_date", "private_only")
		}
		return nil
	}
	if inv.ReverseCharge {
		return invalid("paid_with_private_funds", "reverse_charge")
	}
	for i, it := range d.Items {
		if it.AccrualStart != nil || it.AccrualEnd != nil {
			return invalid("items."+strconv.Itoa(i)+".accrual_period_start", "private_accrual")
		}
	}
	if d.EmployeeID == nil && f.EntityType == "ideell_forening" && d.ClaimantName == nil {
		return invalid("claimant_name", "member_required")
	}
	return nil
}

// reverseCharged are the account families a reverse-charge base goes
// on, each the 25 % account (12 % and 6 % follow it), with the box it
// fills and the VAT accounts it books.
var reverseCharged = []struct {
	base       int
	what       string
	out, input string // output account at 25 % (12 %: +10, 6 %: +20), input VAT
}{
	{4515, "eu_goods", "2614", "2645"},
	{4535, "eu_services", "2614", "2645"},
	{4531, "non_eu_services", "2614", "2645"},
	{4415, "domestic_goods", "2614", "2647"},
	{4425, "domestic_services", "2614", "2647"},
	{4545, "import_goods", "2615", "2645"},
}

// rateStep is the offset of a rate's account from the family's 25 % one.
var rateStep = map[int64]int{25: 0, 12: 1, 6: 2}

// outStep is the offset of a rate's output VAT account from the 25 % one
// (2614, 2624, 2634).
var outStep = map[int64]int{25: 0, 12: 10, 6: 20}

// family answers the reverse-charge family account belongs to at pct, or
// false.
func family(account string, pct int64) (int, bool) {
	n, err := strconv.Atoi(account)
	if err != nil {
		return 0, false
	}
	for i, f := range reverseCharged {
		if n == f.base+rateStep[pct] {
			return i, true
		}
	}
	return 0, false
}

// rcDefault is the reverse-charge base account for a supplier of type t
// at pct when the line names none: EU services, non-EU services, or
// domestic services (byggtjänster and the like).
func rcDefault(t string, pct int64) string {
	base := map[string]int{"eu_business": 4535, "non_eu_business": 4531}[t]
	if base == 0 {
		base = 4425
	}
	return strconv.Itoa(base + rateStep[pct])
}

// itemOf is line i of the body, its account, VAT rate and VAT settled.
func itemOf(i int, it ItemDraft, inv Invoice, s Supplier, f Facts) (Item, error) {
	at := "items." + strconv.Itoa(i) + "."
	line := Item{ID: uuid.New(), SortOrder: i, Description: strings.TrimSpace(it.Description), Amount: it.Amount,
		SLP: it.SLP, Dimensions: it.Dimensions, AccrualStart: it.AccrualStart, AccrualEnd: it.AccrualEnd,
		AccrualAccount: it.AccrualAccount}
	if line.Dimensions == nil {
		line.Dimensions = ledger.Dimensions{}
	}
	if line.Description == "" {
		return line, apierr.Field(at+"description", "required", "each line needs a description")
	}
	if it.Asset != nil && (it.Account == nil || !assetAccount.MatchString(*it.Account)) {
		return line, invalid(at+"create_asset", "asset_account")
	}
	if it.Amount.IsZero() {
		return line, apierr.Field(at+"amount", "non_zero", "a line's amount excluding VAT may not be 0")
	}
	pct := defaultRate[inv.Treatment]
	if it.VATRate != nil {
		pct = it.VATRate.InÖre()
		if _, ok := rateStep[pct]; !ok && pct != 0 {
			return line, apierr.Field(at+"vat_rate", "enum", "a fraction: 0, 0.06, 0.12 or 0.25")
		}
	}
	switch {
	case !f.VATRegistered && (pct > 0 || it.VATAmount != nil && it.VATAmount.Sign() != 0):
		// Rule 10: a company outside the VAT register has no input VAT.
		return line, invalid(at+"vat_rate", "not_vat_registered")
	case (inv.Treatment == Export || inv.Treatment == Exempt) && (pct > 0 || it.VATAmount != nil && it.VATAmount.Sign() != 0):
		return line, invalid(at+"vat_rate", "treatment_without_vat", "vat_treatment", inv.Treatment)
	case inv.ReverseCharge && pct == 0:
		return line, invalid(at+"vat_rate", "reverse_charge_rate", "allowed", []string{"0.25", "0.12", "0.06"})
	}
	line.VATRate = money.Öre(pct)
	if it.VATAmount != nil {
		if it.VATAmount.Sign()*it.Amount.Sign() < 0 {
			return line, apierr.Field(at+"vat_amount", "sign", "VAT has the sign of the line's amount")
		}
		line.VAT = *it.VATAmount
	} else {
		line.VAT = percent(it.Amount, pct)
	}
	account := ""
	if it.Account != nil {
		account = *it.Account
	}
	if inv.ReverseCharge {
		if account == "" {
			account = rcDefault(s.Type, pct)
		}
		if _, ok := family(account, pct); !ok {
			allowed := make([]string, len(reverseCharged))
			for k, fam := range reverseCharged {
				allowed[k] = strconv.Itoa(fam.base + rateStep[pct])
			}
			return line, invalid(at+"account_number", "reverse_charge_account", "allowed", allowed)
		}
	}
	if account == "" && s.ExpenseAccount != nil {
		account = *s.ExpenseAccount
	}
	if account == "" {
		return line, apierr.Field(at+"account_number", "required", "name the account, or give the supplier a default_expense_account")
	}
	line.Account = account
	if it.SLP && !strings.HasPrefix(account, "741") {
		return line, apierr.New(apierr.SICreateSLPInvalidAccount, map[string]any{"field": at + "apply_slp", "account_number": account})
	}
	return line, planAccrual(at, &line, inv, f)
}

// planAccrual checks a line's accrual period (rule 9) and settles the
// account its cost waits on: 1710 for rent, 1730 for insurance, else
// 1790.
func planAccrual(at string, line *Item, inv Invoice, f Facts) error {
	if line.AccrualStart == nil && line.AccrualEnd == nil {
		if line.AccrualAccount != nil {
			return apierr.Field(at+"accrual_balance_account", "period", "an accrual account goes with an accrual period")
		}
		return nil
	}
	switch {
	case line.AccrualStart == nil || line.AccrualEnd == nil:
		return apierr.Field(at+"accrual_period_end", "both", "an accrual period has a start and an end")
	case line.AccrualEnd.Before(*line.AccrualStart):
		return apierr.Field(at+"accrual_period_end", "after_start", "the period ends on or after its start")
	case f.Cash:
		return invalid(at+"accrual_period_start", "cash_method")
	case inv.ReverseCharge:
		return invalid(at+"accrual_period_start", "reverse_charge")
	case monthsBetween(*line.AccrualStart, *line.AccrualEnd) > 120:
		return apierr.Field(at+"accrual_period_end", "maximum", "an accrual period spans at most 120 months")
	}
	if line.AccrualAccount == nil {
		a := "1790"
		switch {
		case strings.HasPrefix(line.Account, "501"):
			a = "1710"
		case strings.HasPrefix(line.Account, "631"):
			a = "1730"
		}
		line.AccrualAccount = &a
	}
	if !strings.HasPrefix(*line.AccrualAccount, "17") || len(*line.AccrualAccount) != 4 {
		return apierr.Field(at+"accrual_balance_account", "17xx", "a prepaid cost waits on a 17xx account")
	}
	return nil
}

// monthsBetween counts the calendar months from a's to b's, both in.
func monthsBetween(a, b time.Time) int {
	return (b.Year()-a.Year())*12 + int(b.Month()-a.Month()) + 1
}
