package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/documents/samples"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/pgtest"
)

// uploadBody is a multipart upload of a PDF of size bytes, and where in it
// the 8 bytes sit that make each upload's bytes new (a counter in a PDF
// comment), so a client sends new bytes every time without building the
// body again.
func uploadBody(size int) (body []byte, contentType string, counterAt int) {
	pdf := samples.PDF()
	file := make([]byte, size)
	copy(file, pdf)
	file[len(pdf)] = '%'
	for i := len(pdf) + 1; i < size; i++ {
		file[i] = 'x'
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="faktura.pdf"`)
	h.Set("Content-Type", "application/pdf")
	p, _ := w.CreatePart(h)
	start := buf.Len()
	_, _ = p.Write(file)
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType(), start + len(pdf) + 1
}

var stamp atomic.Uint64

// stamped writes a number used once into b at at.
func stamped(b []byte, at int) { binary.BigEndian.PutUint64(b[at:], stamp.Add(1)) }

// TestBenchDocuments measures (a) uploads through the API, 1 and 10 MiB
// PDFs from 1 and 8 clients, beside writing and fsyncing the same bytes
// to a file on the same filesystem, and (b) downloads by signed URL beside
// net/http.FileServer serving the same blobs, in the same run.
func TestBenchDocuments(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d := pgtest.New(t)
	dir := t.TempDir()
	blobs := documents.FS{Dir: filepath.Join(dir, "blobs")}
	a := benchServer(t, d, func(c *httpapi.Config) { c.Blobs = blobs })
	b := newCompany(a, "Underlag AB")
	path := a.url + "/api/v1/companies/" + b.id + "/documents"

	upload := func(body []byte, ct string) (string, bool) {
		req, _ := http.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+a.token)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Idempotency-Key", uuid.NewString())
		res, err := a.client.Do(req)
		if err != nil {
			t.Error(err)
			return "", false
		}
		defer res.Body.Close()
		if res.StatusCode != 201 {
			msg, _ := io.ReadAll(res.Body)
			t.Errorf("upload: %d %s", res.StatusCode, msg)
			return "", false
		}
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return str(out, "data", "id"), true
	}
	// The baseline: the same bytes to a new file, fsynced, on the same
	// filesystem, as the blob store's own write is. The files are kept
	// until the round ends, as blobs are: a file removed at once gives its
	// pages back to the next write, which an archive never gets, and on
	// this virtual machine new pages cost about as much again as writing
	// (the "removed" column shows that loop, for comparison).
	scratch := filepath.Join(dir, "scratch")
	write := func(data []byte, keep bool) bool {
		f, err := os.CreateTemp(scratch, "w-*")
		if err == nil {
			_, err = f.Write(data)
		}
		if err == nil {
			err = f.Sync()
		}
		if f != nil {
			f.Close()
			if !keep {
				os.Remove(f.Name())
			}
		}
		if err != nil {
			t.Error(err)
		}
		return err == nil
	}
	baseline := func(size, clients int, keep bool) float64 {
		if err := os.MkdirAll(scratch, 0o750); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(scratch)
		files := make([][]byte, clients)
		for i := range files {
			files[i] = make([]byte, size)
		}
		r, _, _ := rate(clients, func(c, _ int) bool {
			binary.BigEndian.PutUint64(files[c][64:], stamp.Add(1))
			return write(files[c], keep)
		})
		return r * float64(size) / 1e6
	}

	fmt.Printf("\n(a) Uploads of PDFs, new bytes each time; %v per run, median of %d rounds\n", duration, rounds)
	fmt.Printf("%8s %8s %10s %12s %8s %10s %10s %10s\n", "size", "clients", "API MB/s", "write+fsync", "ratio", "API p50", "API p99", "removed")
	for _, size := range []int{1 << 20, documents.MaxBytes} {
		for _, clients := range []int{1, 8} {
			bodies, types := make([][]byte, clients), make([]string, clients)
			var at int
			for i := range bodies {
				bodies[i], types[i], at = uploadBody(size)
			}
			var apiMB, fsMB, goneMB []float64
			var p50, p99 []float64
			for range rounds {
				r, l50, l99 := rate(clients, func(c, _ int) bool {
					stamped(bodies[c], at)
					_, ok := upload(bodies[c], types[c])
					return ok
				})
				apiMB, p50, p99 = append(apiMB, r*float64(size)/1e6), append(p50, float64(l50.Milliseconds())), append(p99, float64(l99.Milliseconds()))
				fsMB = append(fsMB, baseline(size, clients, true))
				goneMB = append(goneMB, baseline(size, clients, false))
			}
			api, fs := med(apiMB), med(fsMB)
			fmt.Printf("%7.0fM %8d %10.1f %12.1f %8.3f %8.0fms %8.0fms %10.1f\n", float64(size)/(1<<20), clients, api, fs, api/fs,
				med(p50), med(p99), med(goneMB))
		}
	}
	fmt.Println("ratio: API ÷ write+fsync of files kept as blobs are (goal ≥ 0.5 at 10 MiB); removed: the same, each file removed at once")

	// (b) Downloads: twenty 1 MiB documents, each URL fetched in turn.
	const docs = 20
	body, ct, at := uploadBody(1 << 20)
	var signed, plain []string
	fileSrv := httptest.NewServer(http.FileServer(http.Dir(blobs.Dir)))
	t.Cleanup(fileSrv.Close)
	for range docs {
		stamped(body, at)
		id, ok := upload(body, ct)
		if !ok {
			t.FailNow()
		}
		dl := a.must("GET", "/api/v1/companies/"+b.id+"/documents/"+id+"/download", nil, 200)
		u, err := url.Parse(str(dl, "data", "download_url"))
		if err != nil {
			t.Fatal(err)
		}
		signed = append(signed, a.url+u.RequestURI())
		got := a.must("GET", "/api/v1/companies/"+b.id+"/documents/"+id, nil, 200)
		plain = append(plain, fileSrv.URL+"/"+documents.Key(uuid.MustParse(b.id), str(got, "data", "sha256_hash")))
	}
	fetch := func(urls []string) func(c, i int) bool {
		return func(c, i int) bool {
			res, err := a.client.Get(urls[(c*7+i)%len(urls)])
			if err != nil {
				t.Error(err)
				return false
			}
			n, _ := io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || n != 1<<20 {
				t.Errorf("download: %d, %d bytes", res.StatusCode, n)
				return false
			}
			return true
		}
	}
	fmt.Printf("\n(b) Downloads of 1 MiB documents, 8 clients; %v per run, median of %d rounds\n", duration, rounds)
	var kontera, server []float64
	for range rounds {
		r, _, _ := rate(8, fetch(signed))
		kontera = append(kontera, r)
		r, _, _ = rate(8, fetch(plain))
		server = append(server, r)
	}
	k, s := med(kontera), med(server)
	fmt.Printf("%-28s %10s %10s\n", "", "req/s", "MB/s")
	fmt.Printf("%-28s %10.0f %10.1f\n", "signed URL (Kontera)", k, k*(1<<20)/1e6)
	fmt.Printf("%-28s %10.0f %10.1f\n", "net/http.FileServer", s, s*(1<<20)/1e6)
	fmt.Printf("ratio %.3f (goal 0.5); each blob is hashed on its first download, then again when its file changes or after an hour\n", k/s)
}

func med(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
