package aggregator_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/aggregator"
	"github.com/kontera/kontera/internal/aggregator/fakebank"
)

// The client against a stand-in of the API on loopback: the consent, the
// session, every page of the booked transactions, the balances, and the
// refusals each as its kind.
func TestEnableBanking(t *testing.T) {
	bank := fakebank.New(fakebank.Account{UID: "acc-1", IBAN: "SE4550000000058398257466", Currency: "SEK",
		Name: "Företagskonto", Booked: "4955.37", Available: "4900.00", Txs: []fakebank.Tx{
			{Ref: "E1", Date: "2026-03-10", Amount: "12500.00", Text: "OCR 202600425", Party: "Kund AB", Reference: "202600425"},
			{Ref: "E2", Date: "2026-03-11", Amount: "-1250.00", Text: "KONTORSGROSSISTEN", Party: "Kontorsgrossisten AB"},
			{Ref: "E3", Date: "2026-03-12", Amount: "-45.00", Text: "AVGIFT"},
			{Ref: "", Date: "2026-03-20", Amount: "-6250.00", Text: "BG 5050-1055"},
			{Ref: "E5", Date: "2026-03-31", Amount: "0.37", Text: "RÄNTA"},
			{Ref: "E6", Date: "2026-04-02", Amount: "-1.00", Text: "AFTER"}}})
	defer bank.Close()
	c, err := aggregator.NewEnableBanking(bank.URL, bank.AppID, bank.KeyPEM, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	auth, err := c.Start(ctx, aggregator.Consent{Bank: "SEB", Country: "SE", State: "s-1", RedirectURL: "https://kontera.test/cb",
		ValidUntil: time.Now().AddDate(0, 0, 90)})
	if err != nil || auth.URL != bank.URL+"/authorize?state=s-1" || auth.ID == "" {
		t.Fatalf("start: %+v %v", auth, err)
	}
	if _, err := c.Start(ctx, aggregator.Consent{Bank: "Nobank", Country: "SE", State: "s", RedirectURL: "https://x.test"}); !isFailed(err, 400) {
		t.Fatalf("an unknown bank: %v", err)
	}
	s, err := c.Session(ctx, "ok")
	if err != nil || s.Bank != "SEB" || len(s.Accounts) != 1 || s.Accounts[0] != (aggregator.Account{UID: "acc-1",
		IBAN: "SE4550000000058398257466", Currency: "SEK", Name: "Företagskonto"}) || s.ValidUntil.IsZero() {
		t.Fatalf("session: %+v %v", s, err)
	}
	if _, err := c.Session(ctx, "old"); !errors.Is(err, aggregator.ErrExpired) {
		t.Fatalf("an old code: %v", err)
	}
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	var all []aggregator.Transaction
	next, pages := "", 0
	for {
		p, err := c.Transactions(ctx, "acc-1", from, to, next)
		if err != nil {
			t.Fatal(err)
		}
		all, next, pages = append(all, p.Transactions...), p.Next, pages+1
		if next == "" {
			break
		}
	}
	if pages != 3 || len(all) != 5 {
		t.Fatalf("%d pages, %d transactions", pages, len(all))
	}
	in, out := all[0], all[1]
	if in.EntryReference != "E1" || in.Amount.String() != "12500.00" || in.Counterparty != "Kund AB" ||
		in.Reference != "202600425" || in.Date.Format(time.DateOnly) != "2026-03-10" || in.Currency != "SEK" ||
		out.Amount.String() != "-1250.00" || out.Counterparty != "Kontorsgrossisten AB" || all[3].EntryReference != "" {
		t.Fatalf("read: %+v / %+v", in, out)
	}
	b, err := c.Balances(ctx, "acc-1")
	if err != nil || b.Booked.String() != "4955.37" || b.Available.String() != "4900.00" {
		t.Fatalf("balances: %+v %v", b, err)
	}

	bank.SetMode(fakebank.Expired)
	if _, err := c.Transactions(ctx, "acc-1", from, to, ""); !errors.Is(err, aggregator.ErrExpired) {
		t.Fatalf("expired: %v", err)
	}
	bank.SetMode(fakebank.RateLimited)
	var limited *aggregator.RateLimited
	if _, err := c.Balances(ctx, "acc-1"); !errors.As(err, &limited) || limited.Wait != time.Hour {
		t.Fatalf("limited: %v", err)
	}
	bank.SetMode(fakebank.Failing)
	if _, err := c.Transactions(ctx, "acc-1", from, to, ""); !isFailed(err, 500) {
		t.Fatalf("failing: %v", err)
	}

	// Another key than the application's is refused.
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	wrong, _ := aggregator.NewEnableBanking(bank.URL, bank.AppID,
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(other)}), time.Second)
	bank.SetMode(fakebank.OK)
	if _, err := wrong.Balances(ctx, "acc-1"); !isFailed(err, 401) {
		t.Fatalf("another key: %v", err)
	}
	if _, err := aggregator.NewEnableBanking(bank.URL, bank.AppID, []byte("not a key"), time.Second); err == nil {
		t.Fatal("a key that is none was taken")
	}
}

func isFailed(err error, status int) bool {
	var f *aggregator.Failed
	return errors.As(err, &f) && f.Status == status
}
