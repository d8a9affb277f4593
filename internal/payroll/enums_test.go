package payroll

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// The document's enums are the package's lists: a type added on one side
// only fails here.
func TestDocumentEnums(t *testing.T) {
	raw, err := os.ReadFile("../../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	enum := func(name string) []string {
		var sc struct {
			Enum []string `json:"enum"`
		}
		if err := json.Unmarshal(doc.Components.Schemas[name], &sc); err != nil {
			t.Fatal(err)
		}
		return sc.Enum
	}
	if !slices.Equal(enum("AbsenceType"), AbsenceTypes) {
		t.Errorf("AbsenceType %v, the package's %v", enum("AbsenceType"), AbsenceTypes)
	}
	var items []string
	for _, i := range append(slices.Clone(UserItems), CalculatedItems...) {
		items = append(items, string(i))
	}
	if !slices.Equal(enum("SalaryItemType"), items) {
		t.Errorf("SalaryItemType %v, the package's %v", enum("SalaryItemType"), items)
	}
	for _, it := range UserItems {
		if _, ok := kinds[it]; !ok || it.Calculated() {
			t.Errorf("%s has no kind, or is the calculation's", it)
		}
	}
}
