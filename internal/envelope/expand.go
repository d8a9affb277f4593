package envelope

import (
	"encoding/json"
	"strings"

	"github.com/kontera/kontera/internal/apierr"
)

// Expand reads an expand query (a comma-separated list) into the set of
// keys asked for; a key not in allowed is 400 VALIDATION_ERROR naming
// expand and the keys it takes.
func Expand(s *string, allowed ...string) (map[string]bool, error) {
	out := map[string]bool{}
	if s == nil {
		return out, nil
	}
	for _, k := range strings.Split(*s, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			quoted, _ := json.Marshal(k)
			return nil, apierr.Validation(apierr.Issue{Field: "expand", In: "query", Rule: "enum",
				Issue: "unknown key " + string(quoted) + "; allowed: " + strings.Join(allowed, ", ")})
		}
		out[k] = true
	}
	return out, nil
}
