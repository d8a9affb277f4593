package company

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/money"
)

// Settings is a company's settings row as JSON values by column name:
// the read model and the patches speak the same names, so rules work on
// maps and the store writes whatever keys a checked patch holds.
type Settings map[string]any

// DecodeSettings reads JSON into Settings, keeping numbers exact.
func DecodeSettings(b []byte) (Settings, error) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var s Settings
	return s, d.Decode(&s)
}

// str returns the text value of key, "" when absent or null.
func (s Settings) str(key string) string {
	v, _ := s[key].(string)
	return v
}

// flag returns the boolean value of key, false when absent or null.
func (s Settings) flag(key string) bool {
	v, _ := s[key].(bool)
	return v
}

// has reports whether key is present and not null.
func (s Settings) has(key string) bool { return s[key] != nil }

// merged returns cur with patch laid over it.
func merged(cur, patch Settings) Settings {
	out := make(Settings, len(cur)+len(patch))
	for k, v := range cur {
		out[k] = v
	}
	for k, v := range patch {
		out[k] = v
	}
	return out
}

// normalise trims the text settings of p and turns "" into null, the way
// a client clears a text field.
func normalise(p Settings) { trimText(p, textFields) }

// trimText trims the strings of p under the keys in only (every key when
// only is nil) and turns "" into null.
func trimText(p map[string]any, only map[string]bool) {
	for k, v := range p {
		if s, ok := v.(string); ok && (only == nil || only[k]) {
			if t := strings.TrimSpace(s); t == "" {
				p[k] = nil
			} else {
				p[k] = t
			}
		}
	}
}

var (
	currencyKey = regexp.MustCompile(`^[A-Z]{3}$`)
	seriesKey   = regexp.MustCompile(`^[A-Z]$`)
	sourceKey   = regexp.MustCompile(`^[a-z][a-z_]{0,49}$`)
)

// CheckGeneral checks a PATCH /settings body against the settings it
// changes, and normalises it: payment numbers with their check digits,
// reminder levels strictly increasing, and the keys of the map-shaped
// settings.
func CheckGeneral(patch, cur Settings) error {
	var issues []apierr.Issue
	bad := func(field, rule, issue string) {
		issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
	}
	if v, sent := patch["company_name"]; sent {
		// The company keeps a name: a blank one, or null, renames it to
		// nothing, which the companies table refuses.
		if name, _ := v.(string); strings.TrimSpace(name) == "" {
			bad("company_name", "required", "a company keeps a name; send the new one")
		}
	}
	normalise(patch)
	checkPayment(patch, "", bad)
	if accounts, ok := patch["invoice_payment_accounts"].(map[string]any); ok {
		for code, v := range accounts {
			if !currencyKey.MatchString(code) {
				bad("invoice_payment_accounts."+code, "currency", "keys are ISO 4217 currency codes such as EUR")
			}
			if acc, ok := v.(map[string]any); ok {
				trimText(acc, nil)
				checkPayment(acc, "invoice_payment_accounts."+code+".", bad)
			}
		}
	}
	if m, ok := patch["voucher_series_labels"].(map[string]any); ok {
		for k := range m {
			if !seriesKey.MatchString(k) {
				bad("voucher_series_labels."+k, "series", "keys are voucher series: one letter A-Z")
			}
		}
	}
	if m, ok := patch["default_voucher_series_per_source_type"].(map[string]any); ok {
		for k := range m {
			if !sourceKey.MatchString(k) {
				bad("default_voucher_series_per_source_type."+k, "source_type",
					"keys are source types such as manual, invoice or bank_transaction")
			}
			if k == "opening_balance" {
				// Every year's opening balance is IB1, whatever door makes it.
				bad("default_voucher_series_per_source_type."+k, "fixed_series",
					"the opening balance of every year is in series IB; it takes no series of its own")
			}
		}
	}
	if v, sent := patch["next_invoice_number"]; sent {
		// Invoices below the current number are issued, or being issued:
		// the next is never one of theirs.
		if want, have := invoiceNumber(v), invoiceNumber(cur["next_invoice_number"]); want < have {
			bad("next_invoice_number", "not_lower", fmt.Sprintf("may not be lowered: the next invoice number is %d", have))
		}
	}
	if v, sent := patch["next_arrival_number"]; sent {
		// Arrival numbers below it are taken: supplier invoices are
		// numbered gapless, never twice.
		if want, have := invoiceNumber(v), invoiceNumber(cur["next_arrival_number"]); want < have {
			bad("next_arrival_number", "not_lower", fmt.Sprintf("may not be lowered: the next arrival number is %d", have))
		}
	}
	if n, ok := patch["reminder_fee_amount"].(json.Number); ok {
		// lag om ersättning för inkassokostnader m.m. 2 §: at most 60 kr
		// for a written reminder, and only when agreed beforehand.
		if a, err := money.Parse(n.String()); err == nil && a.Cmp(invoicing.MaxReminderFee) > 0 {
			bad("reminder_fee_amount", "maximum", "a påminnelseavgift is at most 60 kr (lag om ersättning för inkassokostnader m.m. 2 §)")
		}
	}
	next := merged(cur, patch)
	prev, prevField := int64(0), ""
	for _, f := range []string{"reminder_days_level_1", "reminder_days_level_2", "reminder_days_level_3"} {
		n, ok := next[f].(json.Number)
		if !ok {
			continue
		}
		days, _ := n.Int64()
		if prevField != "" && days <= prev {
			bad(f, "increasing", "must be more days than "+prevField)
		}
		prev, prevField = days, f
	}
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	return nil
}

// PaymentIssues holds payment details p (a PaymentAccount: bankgiro,
// plusgiro, IBAN by their check digits) to their rules, fields named
// under prefix; nil when they hold. Cash accounts' payees share them.
func PaymentIssues(p map[string]any, prefix string) error {
	var issues []apierr.Issue
	checkPayment(p, prefix, func(field, rule, issue string) {
		issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
	})
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	return nil
}

func checkPayment(p map[string]any, prefix string, bad func(field, rule, issue string)) {
	if s, ok := p["bankgiro"].(string); ok {
		if err := identifier.Bankgiro(s); err != nil {
			bad(prefix+"bankgiro", "luhn", err.Error())
		}
	}
	if s, ok := p["plusgiro"].(string); ok {
		if err := identifier.Plusgiro(s); err != nil {
			bad(prefix+"plusgiro", "luhn", err.Error())
		}
	}
	if s, ok := p["iban"].(string); ok {
		if err := identifier.IBAN(s); err != nil {
			bad(prefix+"iban", "mod97", err.Error())
		}
	}
}

// FiledPeriod is a VAT period already filed.
type FiledPeriod struct {
	Start   time.Time `db:"period_start" json:"-"`
	End     time.Time `db:"period_end" json:"-"`
	FiledOn time.Time `db:"filed_on" json:"-"`
}

// LockMove is a requested change of the bookkeeping lock date.
type LockMove struct {
	// From and To are the lock dates before and after; nil is no lock.
	From, To *time.Time
	// Acknowledged confirms reopening filed VAT periods.
	Acknowledged bool
}

// Backwards reports whether the move unlocks days that were locked.
func (m LockMove) Backwards() bool {
	return m.From != nil && (m.To == nil || m.To.Before(*m.From))
}

// Reopened returns the filed VAT periods the move would reopen: those the
// old lock date covered and the new one does not.
func (m LockMove) Reopened(filed []FiledPeriod) []FiledPeriod {
	if !m.Backwards() {
		return nil
	}
	var out []FiledPeriod
	for _, f := range filed {
		if !f.End.After(*m.From) && (m.To == nil || f.End.After(*m.To)) {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// CheckLock decides a lock move: a date after today is refused, and one
// reopening filed VAT periods answers 409 BOOKKEEPING_LOCK_REOPENS_FILED_VAT
// listing them, unless acknowledged.
func CheckLock(m LockMove, filed []FiledPeriod, today time.Time) error {
	if m.To != nil && m.To.After(today) {
		return apierr.Field("bookkeeping_locked_through", "not_future", "must not be after today")
	}
	reopened := m.Reopened(filed)
	if len(reopened) == 0 || m.Acknowledged {
		return nil
	}
	list := make([]map[string]string, len(reopened))
	for i, f := range reopened {
		list[i] = map[string]string{"period_start": f.Start.Format(time.DateOnly),
			"period_end": f.End.Format(time.DateOnly), "filed_on": f.FiledOn.Format(time.DateOnly)}
	}
	return apierr.New(apierr.BookkeepingLockReopensFiledVAT, map[string]any{"filed_periods": list})
}

// vatOnly are the settings that mean nothing without VAT registration.
var vatOnly = []string{"moms_period", "vat_number", "vat_filing_method", "vat_taxable_base_over_40m",
	"vat_has_eu_trade", "periodisk_sammanstallning_enabled", "periodisk_sammanstallning_period",
	"periodisk_sammanstallning_filing_method", "oss_enabled", "ioss_enabled"}

// CheckVATNumber checks a PATCH /settings body that sends vat_number, for
// a company with organisation number org (unmasked), against its
// settings cur: the same rule as the tax profile's.
func CheckVATNumber(org *string, patch, cur Settings) error {
	normalise(patch)
	var issues []apierr.Issue
	next := merged(cur, patch)
	if patch.has("vat_number") && !next.flag("vat_registered") {
		issues = append(issues, apierr.Issue{Field: "vat_number", In: "body", Rule: "vat_registered",
			Issue: "only for a VAT-registered company; vat_registered is false (PATCH /settings/tax-profile)"})
	} else {
		checkVATNumber(org, patch, next, func(field, rule, issue string) {
			issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
		})
	}
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	return nil
}

// checkVATNumber holds a VAT number sent in patch to its rules (SE, the
// company's own number with its check digit, 01), and gives a
// VAT-registered company left without one (never given, or cleared with
// null) the number Skatteverket registers it under: its
// organisationsnummer, or a sole trader's personnummer, between SE and 01.
// next is cur with patch laid over it.
func checkVATNumber(org *string, patch, next Settings, bad func(field, rule, issue string)) {
	if vat := next.str("vat_number"); vat != "" && patch.has("vat_number") {
		digits, err := identifier.VATNumber(vat)
		switch {
		case err != nil:
			bad("vat_number", "vat_number", err.Error())
		case org != nil && onlyDigits(*org) != digits:
			bad("vat_number", "org_number", "must be built from the company's organisation number")
		}
	}
	if next.flag("vat_registered") && next.str("vat_number") == "" && org != nil {
		if v := identifier.VATNumberFor(*org); v != "" {
			patch["vat_number"] = v
		}
	}
}

// onlyDigits is s without its hyphen or plus sign.
func onlyDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// MinShareCapital is the least share capital of a private aktiebolag.
var MinShareCapital = money.MustParse("25000")

// TaxProfileChange is a checked tax-profile patch.
type TaxProfileChange struct {
	Patch Settings
	// Deadlines says whether the change moves the tax deadlines.
	Deadlines bool
	// MethodChanged says whether accounting_method changes, which the
	// caller refuses once the current year has posted entries.
	MethodChanged bool
}

// CheckTaxProfile checks a tax-profile patch for a company of form with
// org number org against its settings cur, and completes it with the
// settings the rules clear.
func CheckTaxProfile(form EntityType, org *string, patch, cur Settings) (TaxProfileChange, error) {
	normalise(patch)
	var issues []apierr.Issue
	bad := func(field, rule, issue string) {
		issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
	}
	next := merged(cur, patch)
	if !next.flag("vat_registered") {
		for _, k := range vatOnly {
			if v, sent := patch[k]; sent && v != nil && v != false {
				bad(k, "vat_registered", "only for a VAT-registered company; vat_registered is false")
			}
			if next[k] != nil && next[k] != false {
				patch[k] = clearedValue(next[k])
			}
		}
		next = merged(cur, patch)
	} else {
		if !next.has("moms_period") {
			bad("moms_period", "required", "required when vat_registered is true")
		}
		if org == nil {
			bad("vat_registered", "org_number", "the company has no organisation number to register for VAT with")
		}
	}
	if next.flag("vat_taxable_base_over_40m") && next.str("moms_period") != "monthly" {
		bad("vat_taxable_base_over_40m", "requires_monthly", "a taxable base over 40 MSEK requires moms_period monthly")
	}
	checkVATNumber(org, patch, next, bad)
	if form == EnskildFirma {
		if n, ok := patch["fiscal_year_start_month"].(json.Number); ok && n.String() != "1" {
			bad("fiscal_year_start_month", "enskild_firma", "an enskild firma uses the calendar year: 1")
		}
	}
	if patch.has("aktiekapital") || patch.has("antal_aktier") {
		switch {
		case form != Aktiebolag:
			bad("aktiekapital", "aktiebolag", "share capital is only for an aktiebolag")
		case next.has("aktiekapital") != next.has("antal_aktier"):
			bad("antal_aktier", "together", "aktiekapital and antal_aktier are set together")
		case next.has("aktiekapital"):
			if a, err := money.Parse(string(next["aktiekapital"].(json.Number))); err == nil && a.Cmp(MinShareCapital) < 0 {
				bad("aktiekapital", "minimum", "an aktiebolag has at least 25 000 kr in share capital")
			}
		}
	}
	if next.str("accounting_method") == "cash" && next.flag("defer_invoice_booking") {
		patch["defer_invoice_booking"] = false
	}
	if len(issues) > 0 {
		return TaxProfileChange{}, apierr.Validation(issues...)
	}
	change := TaxProfileChange{Patch: patch}
	for _, k := range []string{"vat_registered", "moms_period", "vat_taxable_base_over_40m"} {
		if _, sent := patch[k]; sent && !same(patch[k], cur[k]) {
			change.Deadlines = true
		}
	}
	if m, sent := patch["accounting_method"]; sent && !same(m, cur["accounting_method"]) {
		change.MethodChanged = true
	}
	return change, nil
}

// clearedValue is what a VAT-only setting becomes without registration:
// false for a flag, null for the rest.
func clearedValue(v any) any {
	if _, ok := v.(bool); ok {
		return false
	}
	return nil
}

func same(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// invoiceNumber reads next_invoice_number or next_arrival_number: null
// counts as 1.
func invoiceNumber(v any) int64 {
	if n, ok := v.(json.Number); ok {
		i, _ := n.Int64()
		return i
	}
	return 1
}
