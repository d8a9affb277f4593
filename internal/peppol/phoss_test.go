package peppol

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakePhoss answers as phoss-ap's outbound controller does, per the
// script: the submit's status code, and the status it reports.
type fakePhoss struct {
	submit int
	status string
	delay  time.Duration
	got    *http.Request
	body   []byte
}

func (f *fakePhoss) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Token") != "secret" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	time.Sleep(f.delay)
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/outbound/submit/"):
		f.got = r
		f.body, _ = io.ReadAll(r.Body)
		w.WriteHeader(f.submit)
		_, _ = io.WriteString(w, `{"overallSuccess":`+map[bool]string{true: "true", false: "false"}[f.submit == 200]+`}`)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/outbound/status/"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"sbdhInstanceID":"`+strings.TrimPrefix(r.URL.Path, "/api/outbound/status/")+
			`","status":"`+f.status+`","errorDetails":"`+map[bool]string{true: "receiver unknown"}[f.status == "rejected"]+`"}`)
	default:
		http.NotFound(w, r)
	}
}

func TestPhoss(t *testing.T) {
	fake := &fakePhoss{submit: 200, status: "pending"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ap := NewPhoss(srv.URL+"/", "secret")
	sub := Submission{Sender: ID{"0007", "5561234567"}, Receiver: ID{"0007", "5560000001"}, DocumentType: InvoiceType,
		Process: Process, Country: "SE", InstanceID: "b7f1c3a2-0000-4000-8000-000000000001", XML: []byte("<Invoice/>")}
	ctx := context.Background()

	r, err := ap.Submit(ctx, sub)
	if err != nil || r.TransmissionID != sub.InstanceID {
		t.Fatalf("200: %v, %v", r, err)
	}
	if p := fake.got.URL.EscapedPath(); !strings.Contains(p, "/iso6523-actorid-upis::0007:5561234567/iso6523-actorid-upis::0007:5560000001/busdox-docid-qns::") ||
		!strings.HasSuffix(p, "/SE") || fake.got.URL.Query().Get("sbdhInstanceID") != sub.InstanceID {
		t.Errorf("submitted to %s?%s", p, fake.got.URL.RawQuery)
	}
	if fake.got.Header.Get("Content-Type") != "application/xml" || string(fake.body) != "<Invoice/>" {
		t.Errorf("the body went as %q %q", fake.got.Header.Get("Content-Type"), fake.body)
	}
	for status, want := range map[string]Status{"pending": Submitted, "sending": Submitted, "failed": Submitted,
		"sent": Delivered, "rejected": Rejected, "permanently_failed": Failed} {
		fake.status = status
		if s, err := ap.Status(ctx, sub.InstanceID); err != nil || s.Status != want {
			t.Errorf("status %s: %v, %v; want %s", status, s, err, want)
		}
	}

	fake.submit = 422
	if _, err := ap.Submit(ctx, sub); !IsRejection(err) {
		t.Errorf("422 should be a rejection, got %v", err)
	}
	fake.submit = 503
	if _, err := ap.Submit(ctx, sub); err == nil || IsRejection(err) {
		t.Errorf("503 should be temporary, got %v", err)
	}
	bad := NewPhoss(srv.URL, "wrong")
	if _, err := bad.Submit(ctx, sub); err == nil || IsRejection(err) || !strings.Contains(err.Error(), "token") {
		t.Errorf("401 should be a temporary token error, got %v", err)
	}
	fake.submit, fake.delay = 200, 200*time.Millisecond
	slow := NewPhoss(srv.URL, "secret")
	slow.client.Timeout = 50 * time.Millisecond
	if _, err := slow.Submit(ctx, sub); err == nil || IsRejection(err) {
		t.Errorf("a timeout should be temporary, got %v", err)
	}
	var ue interface{ Timeout() bool }
	if _, err := slow.Submit(ctx, sub); !errors.As(err, &ue) || !ue.Timeout() {
		t.Errorf("a timeout should say so, got %v", err)
	}
	if reach, err := ap.Lookup(ctx, sub.Receiver); reach != Unknown || err != nil {
		t.Errorf("phoss-ap has no lookup: %v %v", reach, err)
	}
}
