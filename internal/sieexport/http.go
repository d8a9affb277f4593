package sieexport

import (
	"bufio"
	"context"
	"database/sql"
	"net/http"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves GET /reports/sie-export.
type Handler struct {
	db      *store.DB
	ledger  *ledger.Store
	periods *fiscal.Store
	chart   *chart.Store
	dims    *dimensions.Store
	company func(ctx context.Context, company uuid.UUID) (Company, error)
	version string
	now     func() time.Time
	log     *zap.Logger
}

// NewHandler returns the export handler over the books; company reads
// who a file is of, version is the program's.
func NewHandler(db *store.DB, l *ledger.Store, p *fiscal.Store, c *chart.Store, d *dimensions.Store,
	company func(context.Context, uuid.UUID) (Company, error), version string, now func() time.Time, log *zap.Logger) *Handler {
	if log == nil {
		log = zap.NewNop()
	}
	return &Handler{db: db, ledger: l, periods: p, chart: c, dims: d, company: company, version: version, now: now, log: log}
}

// GetSieExport streams a fiscal year as a SIE 4 file: every check is
// made before the first byte; the file itself is read from one
// snapshot of the books.
func (h *Handler) GetSieExport(ctx context.Context, req gen.GetSieExportRequestObject) (gen.GetSieExportResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	p := req.Params
	year, err := h.periods.Get(ctx, company, uuid.UUID(p.PeriodId))
	if apierr.Is(err, apierr.PeriodNotFound) {
		err = apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": p.PeriodId, "field": "period_id"})
	}
	if err != nil {
		return nil, err
	}
	if err := h.ledger.Held(ctx, company, year.Start, year.End); err != nil {
		return nil, err
	}
	o := Options{Type: "4E", Encoding: sie.CP437, Program: "Kontera", Version: h.version, Generated: h.now()}
	if p.Type != nil {
		o.Type = string(*p.Type)
	}
	if p.Encoding != nil && *p.Encoding == gen.Utf8 {
		o.Encoding = sie.UTF8
	}
	o.WithoutClosing = p.ExcludeClosing != nil && *p.ExcludeClosing
	var prev *Year
	before, err := h.periods.Covering(ctx, company, year.Start.AddDate(0, 0, -1))
	if err != nil {
		return nil, err
	}
	if before.ID != uuid.Nil {
		prev = &Year{ID: before.ID, Start: before.Start, End: before.End}
	}
	return response{h: h, db: h.db.Reader(ctx), company: company, year: Year{ID: year.ID, Start: year.Start, End: year.End}, prev: prev, o: o,
		name: "export_" + year.ID.String() + ".se"}, nil
}

// response streams the file as the client reads it.
type response struct {
	h       *Handler
	db      *store.DB // where the file is read: the primary, or a read replica
	company uuid.UUID
	year    Year
	prev    *Year
	o       Options
	name    string
}

// VisitGetSieExportResponse writes the file: a snapshot transaction
// (repeatable read, read only) holds the books still while pages are
// read, and a buffered writer takes each page out.
func (r response) VisitGetSieExportResponse(w http.ResponseWriter) error {
	ctx := context.Background()
	snapshot := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	tx, err := r.db.BeginTxx(ctx, snapshot)
	if err != nil && r.db != r.h.db {
		// The replica is gone: nothing is sent yet, the primary answers.
		r.db = r.h.db
		tx, err = r.db.BeginTxx(ctx, snapshot)
	}
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	// Each page is one plain index walk: compiling it costs more than it
	// saves.
	if _, err := tx.ExecContext(ctx, `SET LOCAL jit = off`); err != nil {
		return err
	}
	ctx = store.WithUnit(ctx, &store.Unit{Tx: tx, On: r.db})
	charset := "IBM437"
	if r.o.Encoding == sie.UTF8 {
		charset = "utf-8"
	}
	w.Header().Set("Content-Type", "text/plain; charset="+charset)
	w.Header().Set("Content-Disposition", `attachment; filename="`+r.name+`"`)
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := Write(ctx, bw, books{h: r.h, company: r.company}, r.year, r.prev, r.o); err != nil {
		// The status is sent: the file ends without its closing #KSUMMA,
		// which a reader takes for a cut-off file.
		r.h.log.Error("sie export cut short", zap.Stringer("company_id", r.company), zap.Error(err))
		_ = bw.Flush()
		return nil
	}
	return bw.Flush()
}

// books reads the export's books through the stores, in the snapshot
// of ctx.
type books struct {
	h       *Handler
	db      *store.DB // where the file is read: the primary, or a read replica
	company uuid.UUID
}

func (b books) Company(ctx context.Context) (Company, error) { return b.h.company(ctx, b.company) }

func (b books) Accounts(ctx context.Context) ([]Account, error) {
	list, err := b.h.chart.List(ctx, b.company, chart.Filter{Class: -1, Inactive: true})
	out := make([]Account, len(list))
	sheet := ledger.SheetOf(list)
	for i, a := range list {
		out[i] = Account{Number: a.Number, Name: a.Name, Sheet: sheet[a.Number]}
		if a.SRU != nil {
			out[i].SRU = *a.SRU
		}
	}
	return out, err
}

func (b books) Dimensions(ctx context.Context) ([]Dimension, error) {
	list, err := b.h.dims.List(ctx, b.company)
	out := make([]Dimension, len(list))
	for i, d := range list {
		out[i] = Dimension{Number: d.Number, Name: d.Name, Values: map[string]string{}}
		if d.Parent != nil {
			out[i].Parent = *d.Parent
		}
		for _, v := range d.Values {
			out[i].Values[v.Code] = v.Name
		}
	}
	return out, err
}

func (b books) YearBalances(ctx context.Context, year uuid.UUID) ([]ledger.YearBalance, error) {
	return b.h.ledger.YearBalances(ctx, b.company, year)
}

func (b books) MonthBalances(ctx context.Context, year uuid.UUID, withClosing bool) ([]ledger.MonthTotal, error) {
	return b.h.ledger.MonthBalances(ctx, b.company, year, withClosing)
}

func (b books) TagsUsed(ctx context.Context, year uuid.UUID) (map[string][]string, error) {
	return b.h.ledger.TagsUsed(ctx, b.company, year)
}

func (b books) CancelledGross(ctx context.Context, year uuid.UUID) (map[string]money.Amount, error) {
	return b.h.ledger.CancelledGross(ctx, b.company, year)
}

func (b books) GapNotes(ctx context.Context, year uuid.UUID) ([]ledger.GapNote, error) {
	return b.h.ledger.GapNotes(ctx, b.company, &year, nil)
}

func (b books) Page(ctx context.Context, year uuid.UUID, series string, number, limit int, withoutClosing bool,
	fn func(*ledger.ExportRow) error) (string, int, int, error) {
	return b.h.ledger.ExportPage(ctx, b.company, year, series, number, limit, withoutClosing, fn)
}
