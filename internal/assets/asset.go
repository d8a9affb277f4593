// Package assets keeps the fixed-asset register (anläggningsregister):
// what the company owns for its lasting use, depreciated month by month
// on a straight line over its useful life, and disposed of by sale or
// scrapping. A month's depreciation is one verifikat for the company,
// one line pair per pair of accounts, booked once; the register at a date
// reconciles to the accounts.
package assets

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Methods of depreciation.
const (
	Linear = "linear"
	None   = "none" // land, and what is not worn out
)

// Statuses of an asset.
const (
	Active   = "active"
	Disposed = "disposed"
)

// Source types of the verifikat assets posts.
const (
	SourceDepreciation = "depreciation"
	SourceDisposal     = "asset_disposal"
)

// Class is an asset class and the BAS accounts its assets book on by
// default: the asset, its accumulated depreciation, the depreciation
// cost, and the gain and loss of a disposal.
type Class struct {
	Name                                 string
	Asset, Accumulated, Cost, Gain, Loss string
	Method                               string
}

// Classes are the asset classes.
var Classes = map[string]Class{
	"immateriella": {"immateriella", "1010", "1019", "7810", "3971", "7971", Linear},
	"byggnader":    {"byggnader", "1110", "1119", "7820", "3972", "7972", Linear},
	"mark":         {"mark", "1130", "", "", "3972", "7972", None},
	"maskiner":     {"maskiner", "1210", "1219", "7831", "3973", "7973", Linear},
	"inventarier":  {"inventarier", "1220", "1229", "7832", "3973", "7973", Linear},
	"datorer":      {"datorer", "1250", "1259", "7835", "3973", "7973", Linear},
}

// Asset is a row of assets.
type Asset struct {
	CompanyID          uuid.UUID         `db:"company_id" json:"company_id"`
	ID                 uuid.UUID         `db:"id" json:"id"`
	Name               string            `db:"name" json:"name"`
	Class              string            `db:"asset_class" json:"asset_class"`
	AcquisitionDate    time.Time         `db:"acquisition_date" json:"acquisition_date"`
	AcquisitionValue   money.Amount      `db:"acquisition_value" json:"acquisition_value"`
	AssetAccount       string            `db:"asset_account" json:"asset_account"`
	AccumulatedAccount *string           `db:"depreciation_account" json:"depreciation_account"`
	CostAccount        *string           `db:"cost_account" json:"cost_account"`
	Method             string            `db:"depreciation_method" json:"depreciation_method"`
	LifeMonths         *int              `db:"useful_life_months" json:"useful_life_months"`
	ResidualValue      money.Amount      `db:"residual_value" json:"residual_value"`
	DepreciationStart  time.Time         `db:"depreciation_start" json:"depreciation_start"`
	Dimensions         ledger.Dimensions `db:"dimensions" json:"dimensions"`
	JournalEntryID     *uuid.UUID        `db:"journal_entry_id" json:"journal_entry_id"`
	SupplierInvoiceID  *uuid.UUID        `db:"supplier_invoice_id" json:"supplier_invoice_id"`
	Status             string            `db:"status" json:"status"`
	DisposedOn         *time.Time        `db:"disposed_on" json:"disposed_on"`
	DisposalPrice      *money.Amount     `db:"disposal_price" json:"disposal_price"`
	DisposalEntryID    *uuid.UUID        `db:"disposal_entry_id" json:"disposal_entry_id"`
	CreatedAt          time.Time         `db:"created_at" json:"created_at"`
	UpdatedAt          time.Time         `db:"updated_at" json:"updated_at"`
	Booked             money.Amount      `db:"booked" json:"-"` // depreciation booked, not reversed
}

// Month is one month of an asset's depreciation: the first of the month.
type Month struct {
	Month  time.Time
	Amount money.Amount
}

// monthOf is the first day of t's month.
func monthOf(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) }

// Input is an asset as asked.
type Input struct {
	Name              string
	Class             string
	AcquisitionDate   time.Time
	AcquisitionValue  money.Amount
	AssetAccount      *string
	AccumulatedAcct   *string
	CostAccount       *string
	Method            *string
	LifeMonths        *int
	ResidualValue     *money.Amount
	DepreciationStart *time.Time
	Dimensions        ledger.Dimensions
	JournalEntryID    *uuid.UUID
	SupplierInvoiceID *uuid.UUID
}

// New is the asset in asks for, its class's accounts and method unless
// given; depreciation starts the month it was acquired unless given.
func New(company uuid.UUID, in Input) (Asset, error) {
	c, ok := Classes[in.Class]
	if !ok {
		return Asset{}, apierr.Field("asset_class", "enum", "unknown asset class")
	}
	a := Asset{CompanyID: company, ID: uuid.New(), Name: in.Name, Class: in.Class, AcquisitionDate: in.AcquisitionDate,
		AcquisitionValue: in.AcquisitionValue, AssetAccount: c.Asset, Method: c.Method, Dimensions: in.Dimensions,
		JournalEntryID: in.JournalEntryID, SupplierInvoiceID: in.SupplierInvoiceID, Status: Active,
		DepreciationStart: monthOf(in.AcquisitionDate)}
	if a.Dimensions == nil {
		a.Dimensions = ledger.Dimensions{}
	}
	if in.AssetAccount != nil {
		a.AssetAccount = *in.AssetAccount
	}
	if in.Method != nil {
		a.Method = *in.Method
	}
	if in.ResidualValue != nil {
		a.ResidualValue = *in.ResidualValue
	}
	if in.DepreciationStart != nil {
		a.DepreciationStart = monthOf(*in.DepreciationStart)
	}
	if a.Method == Linear {
		acc, cost := c.Accumulated, c.Cost
		if in.AccumulatedAcct != nil {
			acc = *in.AccumulatedAcct
		}
		if in.CostAccount != nil {
			cost = *in.CostAccount
		}
		a.AccumulatedAccount, a.CostAccount, a.LifeMonths = &acc, &cost, in.LifeMonths
	}
	return a, a.check()
}

// check holds the rules an asset keeps.
func (a Asset) check() error {
	switch {
	case a.AcquisitionValue.Sign() <= 0:
		return apierr.Field("acquisition_value", "exclusiveMinimum", "must be greater than 0")
	case a.ResidualValue.Sign() < 0 || a.ResidualValue.Cmp(a.AcquisitionValue) >= 0:
		return apierr.Field("residual_value", "range", "at least 0 and less than acquisition_value")
	case a.DepreciationStart.Before(monthOf(a.AcquisitionDate)):
		return apierr.Field("depreciation_start", "after_acquisition", "depreciation starts no earlier than the month of acquisition")
	case a.Method == Linear && (a.LifeMonths == nil || *a.LifeMonths < 1):
		return apierr.Field("useful_life_months", "required", "a linear depreciation needs the useful life in months")
	case a.Method == Linear && (a.AccumulatedAccount == nil || a.CostAccount == nil):
		return apierr.Field("depreciation_account", "required", "a depreciated asset needs its accounts")
	case a.Method == None && (a.LifeMonths != nil || !a.ResidualValue.IsZero()):
		return apierr.Field("useful_life_months", "method_none", "an asset not depreciated has no useful life or residual value")
	case a.Class == "mark" && a.Method != None:
		return apierr.Field("depreciation_method", "land", "land (mark) is not depreciated")
	}
	return nil
}

// Schedule is the asset's planned depreciation: from its start, a month
// at a time over its life, the depreciable amount (value less residual)
// in even whole kronor, rounded, the last month taking what is left. 24
// 000 kr over 36 months is 35 months of 667 and a last of 655.
func (a Asset) Schedule() []Month {
	if a.Method != Linear || a.LifeMonths == nil {
		return nil
	}
	life := int64(*a.LifeMonths)
	base := a.AcquisitionValue.Sub(a.ResidualValue).InÖre()
	per := (2*base + 100*life) / (200 * life) * 100 // kronor, half up
	out := make([]Month, 0, life)
	left := base
	// In UTC, whatever the driver's zone: months are map keys.
	start := monthOf(a.DepreciationStart)
	for i := int64(0); i < life && left > 0; i++ {
		n := min(per, left)
		if i == life-1 {
			n = left
		}
		out = append(out, Month{Month: start.AddDate(0, int(i), 0), Amount: money.Öre(n)})
		left -= n
	}
	return out
}

// Due are the months of the schedule through month through (a first of
// the month) not yet in booked, before a disposal's month.
func (a Asset) Due(booked map[time.Time]bool, through time.Time) []Month {
	var out []Month
	for _, m := range a.Schedule() {
		if m.Month.After(through) || (a.DisposedOn != nil && !m.Month.Before(monthOf(*a.DisposedOn))) {
			break
		}
		if !booked[m.Month] {
			out = append(out, m)
		}
	}
	return out
}

// DepreciationLines are a month's verifikat of the rows given: per pair
// of cost and accumulated-depreciation accounts (and tags) one debit and
// one credit, in the order first met.
func DepreciationLines(rows []Row) []ledger.Line {
	type key struct{ cost, acc, tags string }
	sums := map[key]money.Amount{}
	tags := map[key]ledger.Dimensions{}
	var order []key
	for _, r := range rows {
		tag, _ := r.Dimensions.Value()
		k := key{r.Cost, r.Accumulated, tag.(string)}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
			tags[k] = r.Dimensions
		}
		sums[k] = sums[k].Add(r.Amount)
	}
	var b ledger.Booking
	for _, k := range order {
		b.Add(k.cost, sums[k], false, tags[k], nil)
		b.Add(k.acc, sums[k], true, nil, nil)
	}
	return b.Lines
}

// Row is one asset's depreciation of one month, as a run books it.
type Row struct {
	Asset       uuid.UUID
	Month       time.Time
	Amount      money.Amount
	Cost        string
	Accumulated string
	Dimensions  ledger.Dimensions
}

// Disposal is a sale or scrapping as asked: the price without VAT (0 to
// scrap), its VAT and the account the money goes to.
type Disposal struct {
	Date       time.Time
	Price      money.Amount
	VAT        money.Amount
	Settlement string
}

// DisposalLines are the avyttring verifikat: the price and its VAT
// received, the cost and the depreciation booked taken off the books,
// and the difference a gain or a loss of the class.
func (a Asset) DisposalLines(d Disposal) []ledger.Line {
	c := Classes[a.Class]
	var b ledger.Booking
	b.Add(d.Settlement, d.Price.Add(d.VAT), false, nil, nil)
	b.Add(OutputVAT, d.VAT, true, nil, nil)
	if a.AccumulatedAccount != nil {
		b.Add(*a.AccumulatedAccount, a.Booked, false, nil, nil)
	}
	b.Add(a.AssetAccount, a.AcquisitionValue, true, a.Dimensions, nil)
	book := a.AcquisitionValue.Sub(a.Booked)
	switch diff := d.Price.Sub(book); diff.Sign() {
	case 1:
		b.Add(c.Gain, diff, true, a.Dimensions, nil)
	case -1:
		b.Add(c.Loss, diff.Neg(), false, a.Dimensions, nil)
	}
	return b.Lines
}

// OutputVAT is where the VAT of a sale of an asset is owed: 25 %.
const OutputVAT = "2611"
