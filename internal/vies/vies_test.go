package vies

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func fake(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/ms/DE/vat/123456789":
			_, _ = w.Write([]byte(`{"isValid":true,"userError":"VALID","name":"Muster GmbH","address":"Berlin","requestIdentifier":"WAPIAAAAZ"}`))
		case "/ms/DE/vat/999999999":
			_, _ = w.Write([]byte(`{"isValid":false,"userError":"INVALID"}`))
		case "/ms/FR/vat/12345678901":
			_, _ = w.Write([]byte(`{"isValid":false,"userError":"MS_UNAVAILABLE"}`))
		case "/ms/IT/vat/12345678901":
			time.Sleep(300 * time.Millisecond)
			_, _ = w.Write([]byte(`{"isValid":true,"userError":"VALID"}`))
		default:
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func TestClient(t *testing.T) {
	c := NewClient(fake(t).URL+"/", 100*time.Millisecond)
	ctx := context.Background()
	r, err := c.Check(ctx, "DE", "123456789")
	if err != nil || !r.Valid || r.Name != "Muster GmbH" || r.RequestIdentifier != "WAPIAAAAZ" {
		t.Fatalf("valid number: %+v, %v", r, err)
	}
	if r, err := c.Check(ctx, "DE", "999999999"); err != nil || r.Valid {
		t.Fatalf("invalid number: %+v, %v", r, err)
	}
	for _, q := range [][2]string{{"FR", "12345678901"}, {"IT", "12345678901"}, {"NL", "1"}} {
		if _, err := c.Check(ctx, q[0], q[1]); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%v: err = %v, want ErrUnavailable", q, err)
		}
	}
	if _, err := (Offline{}).Check(ctx, "DE", "123456789"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("offline: %v", err)
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][3]string{
		"DE 123 456 789": {"DE", "123456789", "ok"},
		"ATU12345678":    {"AT", "U12345678", "ok"},
		"gr-094014201":   {"EL", "094014201", "ok"},
		"SE556677889901": {"SE", "556677889901", "ok"},
		"NO123456789MVA": {"NO", "123456789MVA", ""},
		"DE1":            {"", "", ""},
	} {
		c, n, ok := Split(in)
		if c != want[0] || n != want[1] || ok != (want[2] == "ok") {
			t.Errorf("Split(%q) = %q %q %v, want %v", in, c, n, ok, want)
		}
	}
}
