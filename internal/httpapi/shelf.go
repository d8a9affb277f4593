package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/capability"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/parties"
)

// shelf gives invoicing what its documents need of the company, the
// customers and the documents archive.
func shelf(companies *company.Store, people *parties.Store, docs *documents.Store, archive *documents.Archive,
	blobs documents.Blobs, m invoicing.Mailroom, n invoicing.Network,
	payees func(ctx context.Context, company uuid.UUID) (map[string]map[string]any, error)) invoicing.Shelf {
	return invoicing.Shelf{
		Mail: m, Network: n,
		Seller: func(ctx context.Context, c uuid.UUID) (invoicing.Seller, error) {
			l, err := companies.Letterhead(ctx, c)
			if err != nil {
				return invoicing.Seller{}, err
			}
			org, _ := l.Settings["org_number"].(string)
			seller := invoicing.SellerOf(l.Settings, org, l.Logo)
			// A currency's payee default (PUT cash-accounts/payee-defaults)
			// is the company's explicit choice: it wins over the settings.
			chosen, err := payees(ctx, c)
			if err != nil || len(chosen) == 0 {
				return seller, err
			}
			if seller.PaymentsByCurrency == nil {
				seller.PaymentsByCurrency = map[string]invoicing.PayTo{}
			}
			for currency, p := range chosen {
				seller.PaymentsByCurrency[currency] = invoicing.PayToOf(p)
			}
			return seller, nil
		},
		Buyer: func(ctx context.Context, c, customer uuid.UUID) (invoicing.Addressee, error) {
			p, err := people.Addressee(ctx, c, customer)
			return invoicing.AddresseeOf(p), err
		},
		Keep: func(ctx context.Context, c uuid.UUID, name, mime, source string, b []byte) (uuid.UUID, error) {
			if blobs == nil {
				return uuid.Nil, errors.New("invoicing: no blob store is configured")
			}
			sum := sha256.Sum256(b)
			f := documents.Spooled{Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
			// The blob first: a row never names bytes the store lacks, and
			// bytes no row names are swept a day later.
			if err := blobs.Put(ctx, documents.Key(c, f.SHA256), bytes.NewReader(b), f.Size); err != nil {
				return uuid.Nil, err
			}
			st, err := archive.Upload(ctx, c, documents.New{File: f, Name: name, MimeType: mime, Source: source})
			return st.Doc.ID, err
		},
		Open: func(ctx context.Context, c, id uuid.UUID) ([]byte, error) {
			d, err := docs.Get(ctx, c, id, false)
			if err != nil {
				return nil, err
			}
			if blobs == nil {
				return nil, errors.New("invoicing: no blob store is configured")
			}
			blob, err := blobs.Open(ctx, d.StorageKey)
			if err != nil {
				return nil, err
			}
			defer blob.Close()
			return io.ReadAll(blob)
		},
		Link: linkUnderlag(archive),
	}
}

// network is how invoicing reaches Peppol: the access point configured,
// and the company's peppol capability.
func network(grants *capability.Store, cfg Config) invoicing.Network {
	return invoicing.Network{AP: cfg.Peppol, Access: func(ctx context.Context, company uuid.UUID) (bool, error) {
		err := grants.Require(ctx, company, capability.Peppol, cfg.Now())
		if _, refused := apierr.As(err); refused {
			return false, nil
		}
		return err == nil, err
	}}
}

// mailroom is how invoicing queues e-mails, and what it tells of the
// transport.
func mailroom(outbox *mail.Store, cfg Config) invoicing.Mailroom {
	mode := "off"
	if cfg.Mail != nil {
		mode = cfg.Mail.Name()
	}
	return invoicing.Mailroom{Mode: mode, From: cfg.MailFrom, Queue: outbox.Queue, OfInvoice: outbox.OfInvoice,
		Requeue: outbox.Requeue}
}
