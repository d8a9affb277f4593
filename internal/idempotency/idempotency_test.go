package idempotency

import (
	"net/url"
	"testing"
)

func TestHashIgnoresKeyOrderAndSpacing(t *testing.T) {
	a := Hash("POST", "/x", nil, []byte(`{"a":1,"b":{"c":2.50,"d":[1,2]}}`), false)
	b := Hash("POST", "/x", nil, []byte(" {\"b\": {\"d\": [1, 2], \"c\": 2.50}, \"a\": 1}\n"), false)
	if string(a) != string(b) {
		t.Fatal("key order or spacing changed the hash")
	}
	differs := map[string][]byte{
		"body":    Hash("POST", "/x", nil, []byte(`{"a":2,"b":{"c":2.50,"d":[1,2]}}`), false),
		"decimal": Hash("POST", "/x", nil, []byte(`{"a":1,"b":{"c":2.5,"d":[1,2]}}`), false),
		"path":    Hash("POST", "/y", nil, []byte(`{"a":1,"b":{"c":2.50,"d":[1,2]}}`), false),
		"method":  Hash("PATCH", "/x", nil, []byte(`{"a":1,"b":{"c":2.50,"d":[1,2]}}`), false),
		"dry run": Hash("POST", "/x", nil, []byte(`{"a":1,"b":{"c":2.50,"d":[1,2]}}`), true),
		"query":   Hash("POST", "/x", url.Values{"expand": {"items"}}, []byte(`{"a":1,"b":{"c":2.50,"d":[1,2]}}`), false),
	}
	for name, h := range differs {
		if string(h) == string(a) {
			t.Errorf("a different %s gave the same hash", name)
		}
	}
	if string(Hash("POST", "/x", url.Values{"dry_run": {"false"}}, nil, false)) != string(Hash("POST", "/x", nil, nil, false)) {
		t.Error("dry_run in the query must only count through the dry-run flag")
	}
}

func TestDecide(t *testing.T) {
	h := []byte{1, 2, 3}
	if Decide(nil, h) != Execute || Decide(&Record{Hash: h}, h) != Replay || Decide(&Record{Hash: []byte{9}}, h) != Reuse {
		t.Fatal("Decide is wrong")
	}
}
