//go:build ops

package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/localpg"
)

// books is what a restore must bring back exactly: counted in the
// database of the server that wrote it.
type books struct {
	Posted, Audit, Events, Documents, Webhooks int
	LastVoucher                                int
	TrialBalance                               string
}

func (s *server) books(company, period string) books {
	s.t.Helper()
	var b books
	if err := s.db.QueryRow(`SELECT
		(SELECT count(*) FROM journal_entries WHERE status = 'posted'),
		(SELECT count(*) FROM audit_entries),
		(SELECT count(*) FROM events),
		(SELECT count(*) FROM documents),
		(SELECT count(*) FROM webhooks),
		(SELECT coalesce(max(voucher_number), 0) FROM journal_entries WHERE status = 'posted')`).
		Scan(&b.Posted, &b.Audit, &b.Events, &b.Documents, &b.Webhooks, &b.LastVoucher); err != nil {
		s.t.Fatal(err)
	}
	tb := s.must("GET", "/api/v1/companies/"+company+"/reports/trial-balance?period_id="+period, nil)
	b.TrialBalance = fmt.Sprint(tb["accounts"], tb["totals"])
	return b
}

// The backup drill of docs/operations.md: a base backup with pgBackRest
// of a server with books, documents and webhooks; more written; a restore
// to a point in time into a new cluster; Kontera started on it. The
// restored books are exactly those at the target time: the continuity
// check holds, every document's bytes hash to what its row says, voucher
// numbers run gapless, the audit trail and the outbox are whole, nothing
// written after the target is there, and the next verifikat takes the
// next number.
func TestRestoreToAPointInTime(t *testing.T) {
	need(t, "pgbackrest")
	dir := root(t)
	primary, restored := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	repo, conf := filepath.Join(dir, "repo"), filepath.Join(dir, "pgbackrest.conf")
	blobs, blobCopy := filepath.Join(dir, "blobs"), filepath.Join(dir, "blobs-backup")
	write(t, conf, strings.Join([]string{
		"[global]",
		"repo1-path=" + repo,
		"repo1-retention-full=2",
		"log-path=" + filepath.Join(dir, "log"),
		"lock-path=" + filepath.Join(dir, "lock"),
		"log-level-console=warn",
		"log-level-file=off",
		"start-fast=y",
		"archive-timeout=120",
		"",
		"[kontera]",
		"pg1-path=" + filepath.Join(primary, "data"),
		"pg1-socket-path=" + primary,
		"pg1-port=55432",
		"pg1-user=" + localpg.User,
		""}, "\n"))
	ownedByPostgres(t, repo, filepath.Join(dir, "log"), filepath.Join(dir, "lock"))
	archive := fmt.Sprintf("archive_command='pgbackrest --config=%s --stanza=kontera archive-push %%p'", conf)
	a := startCluster(t, primary, "wal_level=replica", "archive_mode=on", archive, "max_wal_senders=3")
	a.migrate(t)
	pgbackrest := func(args ...string) string {
		return asPostgres(t, "pgbackrest", append([]string{"--config=" + conf, "--stanza=kontera"}, args...)...)
	}
	pgbackrest("stanza-create")

	// Books before the base backup: a company, three verifikat, a
	// receipt, a webhook.
	k := serve(t, a, blobs, "")
	company := k.must("POST", "/api/v1/companies", map[string]any{"name": "Säkerhetskopian AB", "entity_type": "aktiebolag",
		"vat_registered": false, "f_skatt": true})["id"].(string)
	base := "/api/v1/companies/" + company
	periods := k.must("GET", base+"/fiscal-periods", nil)["fiscal_periods"].([]any)
	period := periods[0].(map[string]any)["id"].(string)
	year := periods[0].(map[string]any)["period_start"].(string)[:4]
	for i := 1; i <= 3; i++ {
		k.post(company, period, year+"-01-1"+fmt.Sprint(i), fmt.Sprint("Före säkerhetskopian ", i), 1000*i)
	}
	k.upload(company, "kvitto-1.png", png(1))
	k.must("POST", base+"/webhooks", map[string]any{"name": "Mottagaren", "event_type": "journal_entry.committed",
		"webhook_url": "https://127.0.0.1:9/hook"})
	pgbackrest("backup", "--type=full")
	var info []struct {
		Backup []struct{ Label string } `json:"backup"`
	}
	if err := json.Unmarshal([]byte(pgbackrest("info", "--output=json")), &info); err != nil || len(info) != 1 || len(info[0].Backup) != 1 {
		t.Fatalf("pgbackrest info: %v %+v", err, info)
	}

	// More after the backup, up to the target time, then more after it.
	for i := 1; i <= 2; i++ {
		k.post(company, period, year+"-02-1"+fmt.Sprint(i), fmt.Sprint("Efter säkerhetskopian ", i), 500*i)
	}
	k.upload(company, "kvitto-2.png", png(2))
	want := k.books(company, period)
	var target time.Time
	if err := k.db.Get(&target, `SELECT clock_timestamp()`); err != nil {
		t.Fatal(err)
	}
	k.post(company, period, year+"-03-01", "Efter måltiden", 777)
	k.upload(company, "kvitto-3.png", png(3))
	if after := k.books(company, period); after.Posted != want.Posted+1 {
		t.Fatalf("written after the target: %+v", after)
	}
	pgbackrest("check") // switches the WAL segment and waits until it is archived
	copyTree(t, blobs, blobCopy)
	k.stop()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}

	// The restore: a new cluster from the repository, to the target.
	ownedByPostgres(t, restored)
	// The set is named: pgBackRest picks one by its stop time in whole
	// seconds, and the target may lie within the backup's last second.
	pgbackrest("--pg1-path="+filepath.Join(restored, "data"), "--set="+info[0].Backup[0].Label, "--type=time",
		"--target="+target.UTC().Format("2006-01-02 15:04:05.999999+00"), "--target-action=promote", "restore")
	b := startCluster(t, restored)
	r := serve(t, b, blobCopy, k.token)
	got := r.books(company, period)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("restored books differ from those at the target:\n got %+v\nwant %+v", got, want)
	}
	var late int
	if err := r.db.Get(&late, `SELECT count(*) FROM journal_entries WHERE description = 'Efter måltiden'`); err != nil || late != 0 {
		t.Fatalf("%d verifikat from after the target (%v)", late, err)
	}
	// Voucher numbers gapless, in every series and year.
	var gaps int
	if err := r.db.Get(&gaps, `SELECT count(*) FROM (SELECT voucher_number,
		row_number() OVER (PARTITION BY company_id, fiscal_period_id, voucher_series ORDER BY voucher_number) AS n
		FROM journal_entries WHERE status = 'posted') x WHERE voucher_number <> n`); err != nil || gaps != 0 {
		t.Fatalf("%d voucher numbers out of sequence (%v)", gaps, err)
	}
	// Every document's blob is in the copy and hashes to its row.
	var docs []struct {
		Key  string `db:"storage_key"`
		Hash string `db:"sha256_hash"`
	}
	if err := r.db.Select(&docs, `SELECT storage_key, sha256_hash FROM documents`); err != nil || len(docs) != 2 {
		t.Fatalf("%d documents (%v)", len(docs), err)
	}
	for _, d := range docs {
		blob, err := documents.FS{Dir: blobCopy}.Open(context.Background(), d.Key)
		if err != nil {
			t.Fatalf("blob %s: %v", d.Key, err)
		}
		h := sha256.New()
		_, err = io.Copy(h, blob)
		blob.Close()
		if err != nil || hex.EncodeToString(h.Sum(nil)) != d.Hash {
			t.Fatalf("blob %s does not hash to its row (%v)", d.Key, err)
		}
	}
	// The books' continuity holds, and the server writes on: the next
	// verifikat takes the next number.
	if c := r.must("GET", base+"/reports/continuity-check?period_id="+period, nil); c["ok"] != true {
		t.Fatalf("continuity: %v", c)
	}
	r.post(company, period, year+"-03-02", "Efter återläsningen", 100)
	var last int
	if err := r.db.Get(&last, `SELECT max(voucher_number) FROM journal_entries WHERE status = 'posted'`); err != nil ||
		last != want.LastVoucher+1 {
		t.Fatalf("the next voucher is %d, want %d (%v)", last, want.LastVoucher+1, err)
	}
}
