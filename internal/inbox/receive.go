package inbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/documents"
)

// Receiver takes in files before their transaction: their bytes kept in
// the blob store, their type found from them, what they say read.
type Receiver struct {
	Blobs documents.Blobs
	// Dir is where files are spooled ("" is the system's).
	Dir string
}

// ErrStore says the blob store did not keep a file.
var ErrStore = errors.New("inbox: the store of files did not answer")

// File takes in one attachment of company: an e-invoice (Peppol BIS 3,
// Svefaktura) is kept as application/xml from e_invoice; anything else
// is kept from email when its bytes are a type documents take, else it
// answers why not (Problem, Swedish) and keeps nothing. own are the
// company's own organisation and VAT numbers, left out of what is read.
func (r Receiver) File(ctx context.Context, company uuid.UUID, a Attachment, own []string) (File, error) {
	f := File{Name: a.Name, Source: "email"}
	if len(a.Data) == 0 {
		f.Problem = a.Name + " är tom."
		return f, nil
	}
	if len(a.Data) > documents.MaxBytes {
		f.Problem = a.Name + " är större än 10 MB."
		return f, nil
	}
	sp, err := documents.Spool(bytes.NewReader(a.Data), r.Dir)
	if err != nil {
		return f, err
	}
	defer os.Remove(sp.Path)
	if IsEInvoice(a.Data) {
		f.Mime, f.Source = "application/xml", "e_invoice"
	} else if f.Mime, err = documents.Detect(sp.Path); err != nil {
		var unsupported *documents.UnsupportedError
		if errors.As(err, &unsupported) {
			f.Problem = fmt.Sprintf("%s är av en filtyp som inte tas emot (%s).", a.Name, unsupported.Detected)
			return f, nil
		}
		return f, err
	}
	if r.Blobs == nil {
		return f, fmt.Errorf("%w: no blob store is configured", ErrStore)
	}
	in, err := os.Open(sp.Path)
	if err != nil {
		return f, err
	}
	defer in.Close()
	if err := r.Blobs.Put(ctx, documents.Key(company, sp.SHA256), in, sp.Size); err != nil {
		return f, fmt.Errorf("%w: %v", ErrStore, err)
	}
	f.Size, f.SHA256 = sp.Size, sp.SHA256
	f.Reading, f.Skipped = Read(f.Mime, a.Data, own...)
	return f, nil
}

// Read reads a file of type mime for what it says: an e-invoice field by
// field, a PDF by its Swedish labels; skipped when nothing can be read
// (an image, a scan, a broken or long PDF). Deterministic and bounded: no
// network, at most MaxPages pages, a panic of the PDF reader recovered.
func Read(mime string, data []byte, own ...string) (*Reading, bool) {
	switch {
	case strings.Contains(mime, "xml"):
		r, err := ReadEInvoice(data)
		if err != nil {
			return nil, true
		}
		return &r, false
	case mime == "application/pdf":
		r, err := ReadPDF(data, own...)
		if err != nil || r.Empty() {
			return nil, true
		}
		return &r, false
	}
	return nil, true
}

type arrivalKey struct{}

// WithArrival carries what was taken in before the transaction to the
// handler that writes it.
func WithArrival(ctx context.Context, a Arrival) context.Context {
	return context.WithValue(ctx, arrivalKey{}, &a)
}

// ArrivalFrom answers what was taken in before the transaction, if
// anything.
func ArrivalFrom(ctx context.Context) *Arrival {
	a, _ := ctx.Value(arrivalKey{}).(*Arrival)
	return a
}
