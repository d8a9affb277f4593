package invoicing

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// The accounts a payment of reminder charges books on: the fee is
// outside the scope of VAT (3990, övriga ersättningar och intäkter), the
// interest is financial income (8313, ränteintäkter från kundfordringar).
const (
	FeeAccount      = "3990"
	InterestAccount = "8313"
)

// MaxReminderFee is the most a written payment reminder may cost the
// debtor (lag om ersättning för inkassokostnader m.m. 2 §, 60 kr), and
// only when it was agreed before the debt arose.
var MaxReminderFee = money.MustParse("60")

// ReminderPolicy is the company's reminder settings.
type ReminderPolicy struct {
	On bool
	// Days is how many days past the due date each level is sent; nil
	// turns a level off.
	Days [3]*int
	// Fee is the påminnelseavgift, charged with the first reminder; zero
	// when reminder_fee_enabled is off.
	Fee money.Amount
	// Rate is the dröjsmålsränta in % a year, nil for none: Kontera
	// guesses no referensränta.
	Rate *money.Amount
	// Texts are reminder_text_overrides by level (1-3).
	Texts map[int]EmailText
}

// ReminderPolicyOf reads the policy from the settings read model.
func ReminderPolicyOf(m map[string]any) ReminderPolicy {
	p := ReminderPolicy{Texts: map[int]EmailText{}}
	p.On, _ = m["send_invoice_reminders"].(bool)
	for i := range 3 {
		if n, ok := m[fmt.Sprintf("reminder_days_level_%d", i+1)].(json.Number); ok {
			if d, err := n.Int64(); err == nil {
				days := int(d)
				p.Days[i] = &days
			}
		}
	}
	if on, _ := m["reminder_fee_enabled"].(bool); on {
		if n, ok := m["reminder_fee_amount"].(json.Number); ok {
			if a, err := money.Parse(n.String()); err == nil && a.Cmp(MaxReminderFee) <= 0 {
				p.Fee = a
			}
		}
	}
	if n, ok := m["reminder_interest_rate_override"].(json.Number); ok {
		if a, err := money.Parse(n.String()); err == nil && a.Sign() > 0 {
			p.Rate = &a
		}
	}
	if o, ok := m["reminder_text_overrides"].(map[string]any); ok {
		for i := 1; i <= 3; i++ {
			t, _ := o[fmt.Sprintf("level_%d", i)].(map[string]any)
			subject, _ := t["subject"].(string)
			body, _ := t["body"].(string)
			if strings.TrimSpace(subject+body) != "" {
				p.Texts[i] = EmailText{Subject: strings.TrimSpace(subject), Body: body}
			}
		}
	}
	return p
}

// NextLevel answers the level of reminder due for an invoice due on due,
// on today, when the highest level sent so far is sent (0: none): the
// next level that is on, once today is its days past the due date; 0
// when none is due. Levels go in order, one a day at most.
func NextLevel(p ReminderPolicy, due, today time.Time, sent int) int {
	if !p.On {
		return 0
	}
	for level := sent + 1; level <= 3; level++ {
		days := p.Days[level-1]
		if days == nil {
			continue
		}
		if !today.Before(due.AddDate(0, 0, *days)) {
			return level
		}
		return 0
	}
	return 0
}

// Interest is dröjsmålsränta on remaining at rate % a year for days
// days, 365 to the year, rounded half up to the öre.
func Interest(remaining, rate money.Amount, days int) (money.Amount, error) {
	if days <= 0 || rate.Sign() <= 0 {
		return money.Amount{}, nil
	}
	var f apd.Decimal
	c := apd.BaseContext.WithPrecision(34)
	num, _, err := apd.NewFromString(rate.String())
	if err != nil {
		return money.Amount{}, err
	}
	if _, err := c.Mul(num, num, apd.New(int64(days), 0)); err != nil {
		return money.Amount{}, err
	}
	if _, err := c.Quo(&f, num, apd.New(36500, 0)); err != nil {
		return money.Amount{}, err
	}
	return remaining.MulRound(&f)
}

// Reminder is a payment reminder sent for an invoice.
type Reminder struct {
	CompanyID   uuid.UUID     `db:"company_id"`
	InvoiceID   uuid.UUID     `db:"invoice_id"`
	Level       int           `db:"level"`
	SentOn      time.Time     `db:"sent_on"`
	DaysOverdue int           `db:"days_overdue"`
	Remaining   money.Amount  `db:"remaining"`
	Fee         money.Amount  `db:"fee"`
	Interest    money.Amount  `db:"interest"`
	Rate        *money.Amount `db:"interest_rate"`
	EmailID     *uuid.UUID    `db:"email_id"`
	EmailStatus *string       `db:"email_status"`
}

// Claim is what a reminder adds to what the customer owes: its fee and
// interest.
func (r Reminder) Claim() money.Amount { return r.Fee.Add(r.Interest) }

// Charges splits extra, paid above what is left of an invoice, into fee
// and interest: the fees outstanding first, then the interest, neither
// past what is outstanding of it. ok is false when extra is more than
// both.
func Charges(extra, fees, interest money.Amount) (fee, rate money.Amount, ok bool) {
	if extra.Cmp(fees.Add(interest)) > 0 {
		return money.Amount{}, money.Amount{}, false
	}
	fee = extra
	if fee.Cmp(fees) > 0 {
		fee = fees
	}
	return fee, extra.Sub(fee), true
}
