package company

import (
	"github.com/google/uuid"
	"github.com/lib/pq"
)

func uuidArray(ids []uuid.UUID) pq.StringArray {
	out := make(pq.StringArray, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
