// Package samples makes a small file of each type the archive takes, for
// tests: real files where the standard library writes the format (PNG,
// JPEG, the zip-based office formats), and otherwise the bytes a detector
// reads first (the header of a WebP, HEIC or OLE file), which is what
// decides an upload's type.
package samples

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strconv"
)

// File is a sample: its name, its bytes and the type they are.
type File struct {
	Name string
	Type string
	Data []byte
}

// All answers one sample of every type an upload takes.
func All() []File {
	return []File{
		{"kvitto.pdf", "application/pdf", PDF()},
		{"kvitto.png", "image/png", PNG()},
		{"kvitto.jpg", "image/jpeg", JPEG()},
		{"kvitto.webp", "image/webp", riff("WEBP")},
		{"kvitto.heic", "image/heic", ftyp("heic")},
		{"kvitto.heif", "image/heif", ftyp("mif1")},
		{"avtal.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ooxml("word/")},
		{"lista.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ooxml("xl/")},
		{"bilder.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", ooxml("ppt/")},
		{"avtal.doc", "application/msword", ole(592, []byte{0x06, 0x09, 0x02, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46})},
		{"lista.xls", "application/vnd.ms-excel", ole(512, []byte{0x09, 0x08, 0x10, 0x00, 0x00, 0x06, 0x05, 0x00})},
		{"bilder.ppt", "application/vnd.ms-powerpoint", ole(512, []byte{0xA0, 0x46, 0x1D, 0xF0})},
		{"avtal.odt", "application/vnd.oasis.opendocument.text", odf("text")},
		{"lista.ods", "application/vnd.oasis.opendocument.spreadsheet", odf("spreadsheet")},
		{"bilder.odp", "application/vnd.oasis.opendocument.presentation", odf("presentation")},
		{"brev.rtf", "text/rtf", []byte(`{\rtf1\ansi\deff0 {\fonttbl {\f0 Arial;}} Kvitto 1250 kr\par}`)},
		{"export.csv", "text/csv", []byte("datum,belopp,text\n2026-03-15,1250.00,Kontantförsäljning\n2026-03-16,99.50,Porto\n")},
		{"export-semikolon.csv", "text/csv", []byte("Datum;Belopp;Text\n2026-03-15;1250,00;Kontantförsäljning\n2026-03-16;99,50;Porto\n")},
	}
}

// PDF is a one-page PDF with a line of text.
func PDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := []int{}
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Length 44 >>\nstream\nBT /F1 12 Tf 72 770 Td (Kvitto 1250 kr) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	for i, o := range objects {
		offsets = append(offsets, b.Len())
		b.WriteString(strconv.Itoa(i+1) + " 0 obj\n" + o + "\nendobj\n")
	}
	xref := b.Len()
	b.WriteString("xref\n0 " + strconv.Itoa(len(objects)+1) + "\n0000000000 65535 f \n")
	for _, off := range offsets {
		b.WriteString(fmt.Sprintf("%010d 00000 n \n", off))
	}
	b.WriteString("trailer\n<< /Size " + strconv.Itoa(len(objects)+1) + " /Root 1 0 R >>\nstartxref\n" + strconv.Itoa(xref) + "\n%%EOF\n")
	return b.Bytes()
}

func picture() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := range 8 {
		for y := range 8 {
			img.Set(x, y, color.RGBA{uint8(x * 30), uint8(y * 30), 120, 255})
		}
	}
	return img
}

// PNG is an 8×8 picture.
func PNG() []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, picture())
	return b.Bytes()
}

// JPEG is an 8×8 picture.
func JPEG() []byte {
	var b bytes.Buffer
	_ = jpeg.Encode(&b, picture(), nil)
	return b.Bytes()
}

// riff is the start of a RIFF file of form kind.
func riff(kind string) []byte {
	b := []byte("RIFF\x24\x00\x00\x00" + kind + "VP8 \x18\x00\x00\x00")
	return append(b, make([]byte, 24)...)
}

// ftyp is the start of an ISO media file with major brand brand.
func ftyp(brand string) []byte {
	b := []byte{0, 0, 0, 0x18}
	b = append(b, "ftyp"+brand+"\x00\x00\x00\x00mif1"+brand...)
	return append(b, make([]byte, 32)...)
}

// ole is a compound-file header with sig at offset at: the root storage's
// class id of a Word file, or the first stream bytes of Excel and
// PowerPoint.
func ole(at int, sig []byte) []byte {
	b := make([]byte, 4096)
	copy(b, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	binary.LittleEndian.PutUint16(b[26:], 3)          // version 3: 512-byte sectors
	binary.LittleEndian.PutUint16(b[30:], 9)          // sector shift
	binary.LittleEndian.PutUint32(b[48:], 0)          // the directory starts at sector 0
	binary.LittleEndian.PutUint32(b[60:], 0xFFFFFFFE) // no mini FAT
	copy(b[at:], sig)
	return b
}

// ooxml is an Office Open XML package whose part lives under dir.
func ooxml(dir string) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", dir + "document.xml"} {
		w, _ := z.Create(name)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><x/>`))
	}
	_ = z.Close()
	return b.Bytes()
}

// odf is an OpenDocument package of kind: its first entry, stored, names
// the type.
func odf(kind string) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, _ := z.CreateHeader(&zip.FileHeader{Name: "mimetype", Method: zip.Store})
	_, _ = w.Write([]byte("application/vnd.oasis.opendocument." + kind))
	w, _ = z.Create("content.xml")
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><office:document-content/>`))
	_ = z.Close()
	return b.Bytes()
}

// HTML is a web page.
func HTML() []byte {
	return []byte("<!DOCTYPE html><html><head><title>Faktura</title></head><body><script>alert(1)</script></body></html>")
}
