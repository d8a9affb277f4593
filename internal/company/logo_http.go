package company

import (
	"context"
	"io"

	"github.com/google/uuid"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
)

// PutInvoiceLogo keeps the request body as the company's invoice logo,
// told PNG or JPEG by its bytes.
func (h *Handler) PutInvoiceLogo(ctx context.Context, req gen.PutInvoiceLogoRequestObject) (gen.PutInvoiceLogoResponseObject, error) {
	// One byte past the ceiling tells a logo too large from one at it.
	b, err := io.ReadAll(io.LimitReader(req.Body, MaxLogoBytes+1))
	if err != nil {
		return nil, err
	}
	l, err := CheckLogo(b)
	if err != nil {
		return nil, err
	}
	if l, err = h.companies.SetLogo(ctx, uuid.UUID(req.CompanyId), l, b); err != nil {
		return nil, err
	}
	return gen.PutInvoiceLogo200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.InvoiceLogo{
		MimeType: gen.InvoiceLogoMimeType(l.MimeType), SizeBytes: l.Size, Sha256: l.SHA256, Width: l.Width, Height: l.Height,
		UpdatedAt: l.UpdatedAt.UTC()}}, nil
}

// DeleteInvoiceLogo removes the company's invoice logo.
func (h *Handler) DeleteInvoiceLogo(ctx context.Context, req gen.DeleteInvoiceLogoRequestObject) (gen.DeleteInvoiceLogoResponseObject, error) {
	gone, err := h.companies.DeleteLogo(ctx, uuid.UUID(req.CompanyId))
	if err != nil {
		return nil, err
	}
	return gen.DeleteInvoiceLogo200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.InvoiceLogoDeleted{Deleted: gone}}, nil
}
