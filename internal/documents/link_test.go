package documents

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
)

func TestAttachable(t *testing.T) {
	entry, other := uuid.New(), uuid.New()
	lockDate := day("2026-03-31")
	locked := time.Now()
	base := func() Link {
		return Link{DocumentID: uuid.New(), Current: true, EntryID: entry, EntryStatus: ledger.Posted,
			EntryDate: day("2026-05-10"), EntrySource: "manual",
			Period: fiscal.Period{ID: uuid.New(), Start: day("2026-01-01"), End: day("2026-12-31")}}
	}
	for _, tc := range []struct {
		name      string
		change    func(*Link)
		code      apierr.Code
		reason    string
		unchanged bool
	}{
		{name: "a free document to a posted entry", change: func(*Link) {}},
		{name: "to a draft", change: func(l *Link) { l.EntryStatus = ledger.Draft }},
		{name: "the same entry again", change: func(l *Link) { l.Holder = &entry; l.HolderPosted = true }, unchanged: true},
		{name: "a draft's underlag moves", change: func(l *Link) { l.Holder = &other }},
		{name: "another posted verifikat's", change: func(l *Link) { l.Holder = &other; l.HolderPosted = true },
			code: apierr.DocAttachOtherVerifikat},
		{name: "a superseded version", change: func(l *Link) { l.Current = false }, code: apierr.Conflict, reason: "superseded"},
		{name: "a cancelled entry", change: func(l *Link) { l.EntryStatus = ledger.Cancelled }, code: apierr.Conflict,
			reason: "entry_cancelled"},
		{name: "a locked period", change: func(l *Link) { l.Period.LockedAt = &locked }, code: apierr.DocAttachPeriodLocked,
			reason: "period_locked"},
		{name: "a closed period", change: func(l *Link) { l.Period.Closed = true }, code: apierr.DocAttachPeriodLocked,
			reason: "period_closed"},
		{name: "on the lock date", change: func(l *Link) { l.LockedThrough = &lockDate; l.EntryDate = lockDate },
			code: apierr.DocAttachPeriodLocked, reason: "company_lock_date"},
		{name: "the day after the lock date", change: func(l *Link) { l.LockedThrough = &lockDate; l.EntryDate = day("2026-04-01") }},
		{name: "a posted transaction's underlag", change: func(l *Link) { l.ReplacesPosted = true },
			code: apierr.DocAttachReplacesPosted},
	} {
		l := base()
		tc.change(&l)
		unchanged, err := Attachable(l)
		if unchanged != tc.unchanged {
			t.Errorf("%s: unchanged %v", tc.name, unchanged)
		}
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		e, ok := apierr.As(err)
		if !ok || e.Code != tc.code || (tc.reason != "" && e.Details["reason"] != tc.reason) {
			t.Errorf("%s: %v, want %s %s", tc.name, err, tc.code, tc.reason)
		}
	}
}
