package peppol

import (
	"context"
	"errors"
	"fmt"
)

// Reachability is what an access point knows of a receiver.
type Reachability string

// What a lookup may answer.
const (
	Reachable   Reachability = "reachable"
	Unreachable Reachability = "unreachable"
	// Unknown is the answer of an access point that cannot look up: the
	// document is sent, and the network says.
	Unknown Reachability = "unknown"
)

// Submission is a document handed to an access point.
type Submission struct {
	Sender, Receiver ID
	DocumentType     string // InvoiceType or CreditNoteType
	Process          string
	Country          string // C1's country, ISO 3166-1 alpha-2
	// InstanceID identifies the transmission (the SBDH instance
	// identifier): Kontera's delivery id, so a retry is the same one.
	InstanceID string
	XML        []byte
}

// Receipt is an access point's acceptance of a submission.
type Receipt struct {
	TransmissionID string
}

// Status is where a transmission stands, in Kontera's words.
type Status string

// The statuses of a transmission after its submission.
const (
	Submitted Status = "submitted" // accepted, on its way
	Delivered Status = "delivered" // the receiver's access point took it
	Rejected  Status = "rejected"  // refused: it will not be delivered as it is
	Failed    Status = "failed"    // the access point gave up
)

// State is a transmission's status with the access point's words.
type State struct {
	Status Status
	Detail string
}

// Rejection is a refusal that trying again will not change: the
// document or its addressing is wrong (PEPPOL_SUBMISSION_REJECTED).
// Any other error of Submit is temporary (PEPPOL_SUBMISSION_FAILED) and
// is tried again.
type Rejection struct{ Reason string }

func (r *Rejection) Error() string {
	return "peppol: the access point rejected the document: " + r.Reason
}

// IsRejection reports whether err is a Rejection.
func IsRejection(err error) bool {
	var r *Rejection
	return errors.As(err, &r)
}

// AccessPoint carries documents into the Peppol network.
type AccessPoint interface {
	// Provider names the access point (the deliveries' provider).
	Provider() string
	// Lookup says whether the network knows the receiver.
	Lookup(ctx context.Context, receiver ID) (Reachability, error)
	// Submit hands a document over.
	Submit(ctx context.Context, s Submission) (Receipt, error)
	// Status asks how a transmission fares.
	Status(ctx context.Context, transmissionID string) (State, error)
}

// Config is how the server reaches its access point (KONTERA_PEPPOL_*).
type Config struct {
	// Kind is "phoss" or "" (none: the honest default, nothing is sent).
	Kind, URL, Token string
}

// New answers the configured access point, nil when none is.
func New(c Config) (AccessPoint, error) {
	switch c.Kind {
	case "", "off":
		return nil, nil
	case "phoss":
		if c.URL == "" {
			return nil, errors.New("KONTERA_PEPPOL_AP=phoss needs KONTERA_PEPPOL_URL")
		}
		return NewPhoss(c.URL, c.Token), nil
	}
	return nil, fmt.Errorf("KONTERA_PEPPOL_AP=%q: the access points known are phoss and off", c.Kind)
}
