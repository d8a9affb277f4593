package peppol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Phoss is phoss-ap, the open-source (Apache-2.0) access point by
// Philip Helger, driven through its REST API: POST
// /api/outbound/submit/{sender}/{receiver}/{docType}/{process}/{country}
// with the raw XML and the X-Token header (200 when sent, 422 with its
// report when refused), and GET /api/outbound/status/{sbdhInstanceID}.
type Phoss struct {
	base   string
	token  string
	client *http.Client
}

// NewPhoss answers the phoss-ap at base (its root URL).
func NewPhoss(base, token string) *Phoss {
	return &Phoss{base: strings.TrimRight(base, "/"), token: token, client: &http.Client{Timeout: 30 * time.Second}}
}

// Provider names phoss-ap.
func (p *Phoss) Provider() string { return "phoss" }

// Lookup answers Unknown: phoss-ap offers no lookup of its own; it looks
// the receiver up when it sends, and a receiver it cannot find is a
// rejection then.
func (p *Phoss) Lookup(context.Context, ID) (Reachability, error) { return Unknown, nil }

// participant writes an identifier in the Peppol URI form phoss-ap parses.
func participant(id ID) string { return "iso6523-actorid-upis::" + id.String() }

// Submit posts the document. 200 is a receipt; 400 (identifiers it
// cannot read) and 422 (its sending report) are rejections; anything
// else, a timeout included, is temporary.
func (p *Phoss) Submit(ctx context.Context, s Submission) (Receipt, error) {
	u := p.base + "/api/outbound/submit/" + strings.Join([]string{url.PathEscape(participant(s.Sender)),
		url.PathEscape(participant(s.Receiver)), url.PathEscape(s.DocumentType), url.PathEscape(s.Process),
		url.PathEscape(s.Country)}, "/") + "?sbdhInstanceID=" + url.QueryEscape(s.InstanceID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(s.XML))
	if err != nil {
		return Receipt{}, err
	}
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("X-Token", p.token)
	res, err := p.client.Do(req)
	if err != nil {
		return Receipt{}, fmt.Errorf("phoss-ap: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 8<<10))
	switch res.StatusCode {
	case http.StatusOK:
		return Receipt{TransmissionID: s.InstanceID}, nil
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return Receipt{}, &Rejection{Reason: fmt.Sprintf("HTTP %d: %s", res.StatusCode, brief(body))}
	case http.StatusUnauthorized, http.StatusForbidden:
		return Receipt{}, fmt.Errorf("phoss-ap refused the token (HTTP %d): check KONTERA_PEPPOL_TOKEN", res.StatusCode)
	case http.StatusNotFound:
		return Receipt{}, fmt.Errorf("phoss-ap answered 404: its sending is disabled, or KONTERA_PEPPOL_URL is not its root")
	}
	return Receipt{}, fmt.Errorf("phoss-ap answered HTTP %d: %s", res.StatusCode, brief(body))
}

// Status reads a transmission: sent is delivered, rejected rejected,
// permanently_failed failed; pending, sending and failed (which phoss-ap
// retries itself) are still submitted.
func (p *Phoss) Status(ctx context.Context, id string) (State, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/outbound/status/"+url.PathEscape(id), nil)
	if err != nil {
		return State{}, err
	}
	req.Header.Set("X-Token", p.token)
	req.Header.Set("Accept", "application/json")
	res, err := p.client.Do(req)
	if err != nil {
		return State{}, fmt.Errorf("phoss-ap: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode != http.StatusOK {
		return State{}, fmt.Errorf("phoss-ap status of %s: HTTP %d: %s", id, res.StatusCode, brief(body))
	}
	var tx struct {
		Status       string `json:"status"`
		ErrorDetails string `json:"errorDetails"`
	}
	if err := json.Unmarshal(body, &tx); err != nil {
		return State{}, fmt.Errorf("phoss-ap status of %s: %w", id, err)
	}
	switch tx.Status {
	case "sent":
		return State{Status: Delivered}, nil
	case "rejected":
		return State{Status: Rejected, Detail: tx.ErrorDetails}, nil
	case "permanently_failed":
		return State{Status: Failed, Detail: tx.ErrorDetails}, nil
	case "pending", "sending", "failed":
		return State{Status: Submitted, Detail: tx.ErrorDetails}, nil
	}
	return State{}, fmt.Errorf("phoss-ap status of %s: unknown status %q", id, tx.Status)
}

// brief keeps an answer short enough to store as an error message.
func brief(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
