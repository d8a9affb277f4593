package sieimport

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

// Hold refuses what would fix a year an import is still writing or
// undoing: until the import is completed, failed or undone, a lock,
// close, year-end, lock-date move, VAT filing, SIE export or statement
// PDF touching from..to answers 409 CONFLICT (reason sie_import_hold,
// the import's id).
func (im *Importer) Hold(ctx context.Context, company uuid.UUID, from, to time.Time) error {
	held, err := im.Imports.Holds(ctx, company, from, to)
	if err != nil || len(held) == 0 {
		return err
	}
	i := held[0]
	return apierr.New(apierr.Conflict, map[string]any{"reason": "sie_import_hold", "import_id": i.ID,
		"state": i.State, "fiscal_period_id": i.PeriodID})
}
