package audit

import (
	"context"
	"slices"
	"testing"
)

func TestChangedFields(t *testing.T) {
	cases := []struct {
		old, new string
		want     []string
	}{
		{`{"a":1,"b":"x"}`, `{"a":1,"b":"y"}`, []string{"b"}},
		{``, `{"a":1,"b":2}`, []string{"a", "b"}},
		{`{"a":1}`, ``, []string{"a"}},
		{`{"a":1,"c":{"d":[1]}}`, `{"a":1,"c":{"d":[2]},"e":null}`, []string{"c", "e"}},
		{`{"a":1}`, `{"a":1}`, []string{}},
	}
	for _, c := range cases {
		if got := ChangedFields([]byte(c.old), []byte(c.new)); !slices.Equal(got, c.want) {
			t.Errorf("ChangedFields(%s, %s) = %v, want %v", c.old, c.new, got, c.want)
		}
	}
}

func TestActorDefaultsToSystem(t *testing.T) {
	if a := ActorFrom(context.Background()); a.Type != "system" {
		t.Fatalf("actor %+v", a)
	}
	ctx := WithActor(context.Background(), Actor{Type: "api_key", Label: "agent"})
	if ActorFrom(ctx).Label != "agent" {
		t.Fatal("actor lost")
	}
}

// Keys says what ChangedFields reads from a snapshot created from a map,
// nulls included, without reading it back.
func TestKeysAreTheFieldsOfACreatedSnapshot(t *testing.T) {
	m := map[string]any{"set_id": "x", "confidence": nil, "allocations": []int{1}, "account_key": "bank:1"}
	if got, want := Keys(m), ChangedFields(nil, Of(m)); !slices.Equal(got, want) {
		t.Fatalf("Keys %v, ChangedFields %v", got, want)
	}
}
