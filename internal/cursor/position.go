package cursor

import (
	"time"

	"github.com/google/uuid"
)

// Position is where a page of a list keyed by creation ends: the
// created_at and id of its last row. Each list says which way it runs.
type Position struct {
	At time.Time `json:"at"`
	ID uuid.UUID `json:"id"`
}
