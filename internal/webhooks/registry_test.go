package webhooks

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/apierr"
)

func TestRegistrationCheck(t *testing.T) {
	ok := Registration{EventType: "invoice.paid", URL: "https://x.se", Name: "Betalningar"}
	if err := ok.Check([]string{"webhooks:manage"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    Registration
		code apierr.Code
	}{
		{Registration{EventType: "webhook.test", Name: "x"}, apierr.ValidationError},
		{Registration{EventType: "invoice.deleted", Name: "x"}, apierr.ValidationError},
		{Registration{EventType: "api_key.created", Name: "x"}, apierr.InsufficientScope},
		{Registration{EventType: "invoice.paid", Name: " "}, apierr.ValidationError},
		{Registration{EventType: "invoice.paid", Name: strings.Repeat("å", 201)}, apierr.ValidationError},
		{Registration{EventType: "salary_run.booked", Name: "x"}, apierr.InsufficientScope},
		{Registration{EventType: "agi.generated", Name: "x"}, apierr.InsufficientScope},
	} {
		if err := c.r.Check([]string{"webhooks:manage"}); !apierr.Is(err, c.code) {
			t.Errorf("%+v: %v, want %s", c.r, err, c.code)
		}
	}
	if err := (Registration{EventType: "agi.generated", Name: "AGI"}).Check([]string{"webhooks:manage", "payroll:read"}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 1001) // 2 002 bytes
	if err := (Registration{EventType: "invoice.paid", Name: "x", Description: &long}).Check(nil); !apierr.Is(err, apierr.ValidationError) {
		t.Fatalf("a 2 002-byte description: %v", err)
	}
}

func TestApplyActive(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	reason := "gone"
	w := Webhook{Name: "a", Active: false, DisabledAt: &now, DisabledReason: &reason}
	on, off := true, false
	got, err := w.Apply(Change{Active: &on}, now)
	if err != nil || !got.Active || got.DisabledAt != nil || got.DisabledReason != nil {
		t.Fatalf("re-enabled: %+v %v", got, err)
	}
	got, _ = got.Apply(Change{Active: &off}, now)
	if got.Active || got.DisabledAt == nil || *got.DisabledReason != Paused {
		t.Fatalf("paused: %+v", got)
	}
	// Pausing a disabled webhook keeps why it was disabled.
	again, _ := w.Apply(Change{Active: &off}, now.Add(time.Hour))
	if *again.DisabledReason != "gone" || !again.DisabledAt.Equal(now) {
		t.Fatalf("paused again: %+v", again)
	}
	if _, err := w.Apply(Change{Name: new(string)}, now); !apierr.Is(err, apierr.ValidationError) {
		t.Fatalf("an empty name: %v", err)
	}
}

func TestReadable(t *testing.T) {
	all, err := Readable([]string{"invoices:read", "reports:read"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"invoice.paid", "journal_entry.committed", "period.locked", "operation.completed"} {
		if !slices.Contains(all, want) {
			t.Errorf("%s left out: %v", want, all)
		}
	}
	for _, not := range []string{"supplier.created", "salary_run.booked", "webhook.test", "transaction.synced"} {
		if slices.Contains(all, not) {
			t.Errorf("%s read without its scope: %v", not, all)
		}
	}
	if _, err := Readable([]string{"invoices:read"}, []string{"salary_run.booked"}); !apierr.Is(err, apierr.InsufficientScope) {
		t.Fatalf("a payroll type without payroll:read: %v", err)
	}
	if _, err := Readable([]string{"invoices:read"}, []string{"webhook.test"}); !apierr.Is(err, apierr.ValidationError) {
		t.Fatalf("webhook.test in the feed: %v", err)
	}
	if _, err := Readable([]string{"webhooks:manage", "companies:read"}, nil); !apierr.Is(err, apierr.InsufficientScope) {
		t.Fatalf("a key of no group: %v", err)
	}
	if got, err := Readable([]string{"transactions:read"}, []string{"transaction.synced"}); err != nil || len(got) != 1 {
		t.Fatalf("transaction.synced: %v %v", got, err)
	}
}
