package webhooks

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// Lease is how long an attempt holds its delivery: past it, another
// worker takes the delivery over and tries again, with the same id.
const Lease = 60 * time.Second

// PerWebhook is how many attempts one webhook may have in flight at once:
// one hanging receiver never holds the workers the others need.
const PerWebhook = 2

// SecretContext binds a webhook's sealed secret to its row.
func SecretContext(company, id uuid.UUID) string {
	return "webhooks/" + company.String() + "/" + id.String()
}

// Worker makes the deliveries' attempts.
type Worker struct {
	Store  *Store
	DB     *store.DB
	Box    *seal.Box
	Client *http.Client
	Audit  *audit.Store
	Now    func() time.Time
	// Lease overrides Lease (tests of a replica dying mid-attempt).
	Lease time.Duration
	// Log hears why an attempt got no answer, in the dial's own words,
	// which the tenant is never told; nil logs nothing.
	Log *zap.Logger
	// Attempted hears each judged attempt's state (delivered, failed,
	// dead): the operator's count of failing deliveries. nil: nothing.
	Attempted func(state string)
}

func (w *Worker) lease() time.Duration {
	if w.Lease == 0 {
		return Lease
	}
	return w.Lease
}

// attempt makes delivery d's attempt and judges it; false when ctx ended
// meanwhile (the server is stopping: the attempt is not judged).
func (w *Worker) attempt(ctx context.Context, d Claimed) (Result, bool) {
	// A secret that cannot be opened (the key changed) or a payload that
	// cannot be rendered fails the attempt like a receiver that does not
	// answer: the schedule runs its course and the delivery ends dead,
	// never looping on a lease.
	var a Attempt
	secret, err := w.Box.Open(d.SecretSealed, SecretContext(d.CompanyID, *d.WebhookID))
	if err != nil {
		a.Error = text("the webhook's secret cannot be read: "+err.Error(), 1000)
	}
	var body []byte
	if a.Error == "" {
		if body, err = Render(d.APIVersion, d.ID.String(), d.EventType, d.EventCreatedAt, d.Payload); err != nil {
			a.Error = text("the payload cannot be rendered: "+err.Error(), 1000)
		}
	}
	if a.Error == "" {
		a = Send(ctx, w.Client, Request{URL: d.URL, Secret: string(secret), ID: d.ID.String(), Type: d.EventType,
			APIVersion: d.APIVersion, Body: body}, w.Now())
	}
	if ctx.Err() != nil {
		return Result{}, false
	}
	if a.Cause != nil && w.Log != nil {
		w.Log.Info("webhooks: an attempt got no answer", zap.String("delivery_id", d.ID.String()),
			zap.String("company_id", d.CompanyID.String()), zap.Bool("blocked", a.Blocked), zap.Error(a.Cause))
	}
	o := Judge(a.Status, a.Blocked, d.Attempts)
	if w.Attempted != nil {
		w.Attempted(o.State)
	}
	next := w.Now()
	if o.State == Failed {
		next, _ = Next(d.Attempts, next)
	}
	return Result{Delivery: d, Outcome: o, Attempt: a, Next: next}, true
}

// record writes one outcome: a plain one in one statement, committed on
// its own; one that disables the webhook with its audit row, together.
func (w *Worker) record(ctx context.Context, r Result) error {
	if r.Outcome.Disable == "" {
		_, err := w.Store.Record(ctx, r)
		return err
	}
	d := r.Delivery
	return w.DB.InTx(audit.WithActor(ctx, audit.System), func(ctx context.Context) error {
		ours, err := w.Store.Record(ctx, r)
		if err != nil || !ours {
			return err
		}
		return w.Audit.Record(ctx, audit.Change{CompanyID: d.CompanyID, Action: audit.Update, Table: "webhooks",
			RecordID: d.WebhookID.String(), Description: "Webhooken stängdes av efter leverans " + d.ID.String() +
				": " + r.Outcome.Disable})
	})
}
