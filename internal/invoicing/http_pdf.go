package invoicing

import (
	"bytes"
	"context"
	"mime"

	"github.com/kontera/kontera/gen"
)

// GetInvoicePdf serves an invoice as a PDF: the archived bytes of an
// issued one once archived, else rendered now (Sales.PDF).
func (h *Handler) GetInvoicePdf(ctx context.Context, req gen.GetInvoicePdfRequestObject) (gen.GetInvoicePdfResponseObject, error) {
	b, name, err := h.sales.PDF(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	disposition := mime.FormatMediaType("attachment", map[string]string{"filename": name})
	cache, nosniff := "private, no-cache", "nosniff"
	return gen.GetInvoicePdf200ApplicationpdfResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
		Headers: gen.GetInvoicePdf200ResponseHeaders{ContentDisposition: &disposition, CacheControl: &cache,
			XContentTypeOptions: &nosniff}}, nil
}
