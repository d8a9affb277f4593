package pdf

import (
	"embed"
	"fmt"
	"sync"

	"github.com/signintech/gopdf"
)

// The faces ship inside the binary under the SIL Open Font License (the
// licence files sit beside them): a document renders the same on every
// machine, with no font lookup on the host.
//
//go:embed fonts/*.ttf
var faces embed.FS

// Family names a typeface the way the invoice_font_family setting does.
type Family string

// The families a document can be set in. Helvetica, Times-Roman and
// Courier are rendered by their metric twins Liberation Sans, Serif and
// Mono, so text set for the PDF base fonts keeps its widths.
const (
	Helvetica   Family = "Helvetica"
	TimesRoman  Family = "Times-Roman"
	Courier     Family = "Courier"
	SourceSans  Family = "Source Sans 3"
	SourceSerif Family = "Source Serif 4"
	Custom      Family = "Custom"
)

// Families lists the families a caller may name, in the order the API
// documents them.
var Families = []Family{Helvetica, TimesRoman, Courier, SourceSans, SourceSerif, Custom}

// files names the regular and bold face of each family.
var files = map[Family][2]string{
	Helvetica:   {"LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"},
	TimesRoman:  {"LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf"},
	Courier:     {"LiberationMono-Regular.ttf", "LiberationMono-Bold.ttf"},
	SourceSans:  {"SourceSans3-Regular.ttf", "SourceSans3-Bold.ttf"},
	SourceSerif: {"SourceSerif4-Regular.ttf", "SourceSerif4-Bold.ttf"},
}

// FamilyOf returns the family name stands for. Custom, unknown names and
// the empty name fall back to Helvetica: there is no uploaded font to
// use, and a document is never refused for its typeface.
func FamilyOf(name string) Family {
	f := Family(name)
	if _, ok := files[f]; ok {
		return f
	}
	return Helvetica
}

// faceKey is the name a face is registered under in a document.
func faceKey(f Family, bold bool) string {
	if bold {
		return string(f) + " Bold"
	}
	return string(f)
}

// parsed holds every face parsed once; parsing a TrueType file costs far
// more than laying out a page, so no document parses one again.
var parsed = struct {
	sync.Mutex
	fonts gopdf.FontContainer
	ready map[Family]bool
}{ready: map[Family]bool{}}

// load registers family's faces with gp, parsing them the first time any
// document asks for them.
func load(gp *gopdf.GoPdf, f Family) error {
	parsed.Lock()
	if !parsed.ready[f] {
		for i, name := range files[f] {
			data, err := faces.ReadFile("fonts/" + name)
			if err != nil {
				parsed.Unlock()
				return fmt.Errorf("pdf: font %s: %w", name, err)
			}
			opt := gopdf.TtfOption{UseKerning: false}
			if err := parsed.fonts.AddTTFFontDataWithOption(faceKey(f, i == 1), data, opt); err != nil {
				parsed.Unlock()
				return fmt.Errorf("pdf: font %s: %w", name, err)
			}
		}
		parsed.ready[f] = true
	}
	parsed.Unlock()
	for _, bold := range []bool{false, true} {
		if err := gp.AddTTFFontFromFontContainer(faceKey(f, bold), &parsed.fonts); err != nil {
			return fmt.Errorf("pdf: font %s: %w", faceKey(f, bold), err)
		}
	}
	return nil
}
