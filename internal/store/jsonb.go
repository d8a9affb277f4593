package store

import (
	"encoding/json"
	"fmt"
)

// ScanJSON reads a json or jsonb column, as the driver hands it over
// (bytes or text), into into.
func ScanJSON(src, into any) error {
	switch v := src.(type) {
	case []byte:
		return json.Unmarshal(v, into)
	case string:
		return json.Unmarshal([]byte(v), into)
	}
	return fmt.Errorf("store: cannot scan %T as JSON", src)
}
