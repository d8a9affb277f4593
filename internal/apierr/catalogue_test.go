package apierr_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/openapi"
)

// The ErrorCode enum of the document and the catalogue are one list.
func TestCatalogueMatchesDocument(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range c.Doc.Components.Schemas["ErrorCode"].Value.Enum {
		enum = append(enum, v.(string))
	}
	var codes []string
	for _, e := range apierr.Catalogue() {
		codes = append(codes, string(e.Code))
	}
	if !slices.Equal(enum, codes) {
		for _, c := range codes {
			if !slices.Contains(enum, c) {
				t.Errorf("%s is in the catalogue but not in the ErrorCode enum", c)
			}
		}
		for _, c := range enum {
			if !slices.Contains(codes, c) {
				t.Errorf("%s is in the ErrorCode enum but not in the catalogue", c)
			}
		}
		t.Fatal("the ErrorCode enum and the catalogue differ (in order or content)")
	}
}

func TestCatalogueEntries(t *testing.T) {
	name := regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`)
	for _, e := range apierr.Catalogue() {
		if !name.MatchString(string(e.Code)) || e.Status < 400 || e.Status > 599 || e.Message == "" || e.MessageEn == "" || e.Group == "" {
			t.Errorf("incomplete entry %+v", e)
		}
		// Every refusal says how to get on: a caller (an agent above all)
		// acts on the hint, not on the message.
		if strings.TrimSpace(e.RecoveryHint) == "" {
			t.Errorf("%s has no recovery hint", e.Code)
		}
	}
	// The statuses and hints the spec states.
	for code, status := range map[apierr.Code]int{
		apierr.ValidationError: 400, apierr.Unauthorized: 401, apierr.InsufficientScope: 403, apierr.NotFound: 404,
		apierr.IdempotencyKeyReuse: 409, apierr.RateLimited: 429, apierr.InternalError: 500, apierr.NotImplemented: 501,
		apierr.AccountsNotInChart: 400, apierr.PeriodLocked: 400, apierr.JournalRattelsePeriodLocked: 409,
		apierr.CustomerPersonalNumberUnreadable: 422, apierr.FXClosingRateUnavailable: 502, apierr.BankSyncCooldown: 429,
		apierr.TestKeyWriteBlocked: 403, apierr.RoleReadOnly: 403, apierr.ConnectionReadOnly: 403,
	} {
		if e, _ := apierr.Lookup(code); e.Status != status {
			t.Errorf("%s: status %d, want %d", code, e.Status, status)
		}
	}
	for _, code := range []apierr.Code{apierr.IdempotencyKeyReuse, apierr.InsufficientScope, apierr.JournalEntryNotBalanced,
		apierr.PeriodLocked, apierr.PeriodNotLocked} {
		if e, _ := apierr.Lookup(code); e.RecoveryHint == "" {
			t.Errorf("%s: the spec gives a recovery hint", code)
		}
	}
}

func TestNewPanicsOnUnknownCode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New accepted a code outside the catalogue")
		}
	}()
	apierr.New("NO_SUCH_CODE", nil)
}
