package invoicing

import "testing"

// BenchmarkRender lays out a 20-line invoice: what GET …/pdf costs a
// draft beyond reading it.
func BenchmarkRender(b *testing.B) {
	inv, l := sampleInvoice(20), sampleLetter()
	for b.Loop() {
		if _, err := Render(inv, l); err != nil {
			b.Fatal(err)
		}
	}
}
