package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/envelope"
)

// GapNote says why a range of numbers is missing from a voucher series in
// a fiscal year: written once, never changed (the table refuses it).
type GapNote struct {
	ID          uuid.UUID `db:"id" json:"id"`
	PeriodID    uuid.UUID `db:"fiscal_period_id" json:"fiscal_period_id"`
	Series      string    `db:"voucher_series" json:"voucher_series"`
	From        int       `db:"gap_start" json:"gap_start"`
	To          int       `db:"gap_end" json:"gap_end"`
	Explanation string    `db:"explanation" json:"explanation"`
	CreatedAt   time.Time `db:"created_at" json:"created_at"`
}

// ExplainGap writes note, after checking that its period is the
// company's, that every number of its range is missing from the series
// and below its last posted number (VOUCHER_GAP_NOT_MISSING names those
// in use, or where the series ends) and that no note of the
// series covers any of them (VOUCHER_GAP_ALREADY_EXPLAINED names it).
// The series' lock makes the check and the write one step; the table's
// trigger refuses an overlap whatever writes.
func (s *Store) ExplainGap(ctx context.Context, company uuid.UUID, note GapNote) (GapNote, error) {
	note.Explanation = strings.TrimSpace(note.Explanation)
	if note.To < note.From {
		return note, apierr.Field("gap_end", "minimum", "must be at least gap_start")
	}
	if note.Explanation == "" {
		return note, apierr.Field("explanation", "minLength", "must say why the numbers are missing")
	}
	q := s.db.Q(ctx)
	if _, err := q.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text || $2::text || $3, 0))`,
		company, note.PeriodID, note.Series); err != nil {
		return note, err
	}
	// One round trip for what the range must pass: the period is the
	// company's, no number of it is in use, none lies past the series'
	// last, and no explanation covers one.
	var c struct {
		Period   bool          `db:"period"`
		Used     pq.Int64Array `db:"used"`
		Last     int           `db:"last"`
		Existing []byte        `db:"existing"`
	}
	if err := q.GetContext(ctx, &c, `SELECT
			EXISTS (SELECT 1 FROM fiscal_periods WHERE company_id = $1 AND id = $2) AS period,
			ARRAY(SELECT voucher_number FROM journal_entries WHERE company_id = $1 AND fiscal_period_id = $2
				AND voucher_series = $3 AND voucher_number BETWEEN $4 AND $5 ORDER BY 1 LIMIT 100) AS used,
			(SELECT coalesce(max(voucher_number), 0) FROM journal_entries WHERE company_id = $1 AND fiscal_period_id = $2
				AND voucher_series = $3 AND status = 'posted') AS last,
			(SELECT row_to_json(x) FROM (SELECT id, fiscal_period_id, voucher_series, gap_start, gap_end, explanation, created_at
				FROM voucher_gap_explanations WHERE company_id = $1 AND fiscal_period_id = $2 AND voucher_series = $3
				AND gap_start <= $5 AND gap_end >= $4 ORDER BY gap_start LIMIT 1) x) AS existing`,
		company, note.PeriodID, note.Series, note.From, note.To); err != nil {
		return note, err
	}
	switch {
	case !c.Period:
		return note, apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": note.PeriodID})
	case len(c.Used) > 0:
		return note, apierr.New(apierr.VoucherGapNotMissing, map[string]any{"reason": "in_use", "voucher_series": note.Series,
			"gap_start": note.From, "gap_end": note.To, "used": []int64(c.Used)})
	case note.To > c.Last:
		// A number past the series' last is not missing: the next
		// verifikat takes it.
		return note, apierr.New(apierr.VoucherGapNotMissing, map[string]any{"reason": "beyond_series", "voucher_series": note.Series,
			"gap_start": note.From, "gap_end": note.To, "last_number": c.Last})
	case c.Existing != nil:
		var in GapNote
		if err := json.Unmarshal(c.Existing, &in); err != nil {
			return note, err
		}
		in.CreatedAt = in.CreatedAt.UTC()
		return note, apierr.New(apierr.VoucherGapAlreadyExplained, map[string]any{"existing": in})
	}
	note.ID = uuid.New()
	if err := q.QueryRowxContext(ctx, `INSERT INTO voucher_gap_explanations
		(company_id, id, fiscal_period_id, voucher_series, gap_start, gap_end, explanation)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at`,
		company, note.ID, note.PeriodID, note.Series, note.From, note.To, note.Explanation).Scan(&note.CreatedAt); err != nil {
		return note, dbError(err)
	}
	note.CreatedAt = note.CreatedAt.UTC()
	snap, _ := json.Marshal(note)
	return note, s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "voucher_gap_explanations",
		RecordID: note.ID.String(), Description: fmt.Sprintf("Lucka i serie %s förklarad: %s", note.Series, note.Range()),
		New: snap})
}

// Range is the note's numbers as a bookkeeper writes them: 2, or 2-5
// (a hyphen: the SIE export's CP437 has no dash).
func (g GapNote) Range() string {
	if g.From == g.To {
		return fmt.Sprint(g.From)
	}
	return fmt.Sprintf("%d-%d", g.From, g.To)
}

// GapNotes lists the company's notes, of one period and series when
// given, by period, series and first number.
func (s *Store) GapNotes(ctx context.Context, company uuid.UUID, period *uuid.UUID, series *string) ([]GapNote, error) {
	out := []GapNote{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT n.id, n.fiscal_period_id, n.voucher_series, n.gap_start, n.gap_end,
			n.explanation, n.created_at
		FROM voucher_gap_explanations n JOIN fiscal_periods p ON p.company_id = n.company_id AND p.id = n.fiscal_period_id
		WHERE n.company_id = $1 AND ($2::uuid IS NULL OR n.fiscal_period_id = $2) AND ($3::text IS NULL OR n.voucher_series = $3)
		ORDER BY p.period_start, n.voucher_series, n.gap_start`, company, period, series)
	for i := range out {
		out[i].CreatedAt = out[i].CreatedAt.UTC()
	}
	return out, err
}

func (n GapNote) view() gen.VoucherGapExplanation {
	return gen.VoucherGapExplanation{Id: n.ID, FiscalPeriodId: n.PeriodID, VoucherSeries: n.Series, GapStart: n.From,
		GapEnd: n.To, Explanation: n.Explanation, CreatedAt: n.CreatedAt}
}

// CreateVoucherGapExplanation explains a range of missing voucher numbers.
func (h *Handler) CreateVoucherGapExplanation(ctx context.Context, req gen.CreateVoucherGapExplanationRequestObject) (gen.CreateVoucherGapExplanationResponseObject, error) {
	b := req.Body
	n, err := h.ledger.ExplainGap(ctx, uuid.UUID(req.CompanyId), GapNote{PeriodID: uuid.UUID(b.FiscalPeriodId),
		Series: b.VoucherSeries, From: b.GapStart, To: b.GapEnd, Explanation: b.Explanation})
	if err != nil {
		return nil, err
	}
	return gen.CreateVoucherGapExplanation201JSONResponse{Data: n.view(), Meta: envelope.Meta(ctx)}, nil
}

// ListVoucherGapExplanations lists the company's explanations of gaps.
func (h *Handler) ListVoucherGapExplanations(ctx context.Context, req gen.ListVoucherGapExplanationsRequestObject) (gen.ListVoucherGapExplanationsResponseObject, error) {
	var period *uuid.UUID
	if p := req.Params.FiscalPeriodId; p != nil {
		id := uuid.UUID(*p)
		period = &id
	}
	notes, err := h.ledger.GapNotes(ctx, uuid.UUID(req.CompanyId), period, req.Params.VoucherSeries)
	if err != nil {
		return nil, err
	}
	out := gen.VoucherGapExplanationList{VoucherGapExplanations: make([]gen.VoucherGapExplanation, len(notes))}
	for i, n := range notes {
		out.VoucherGapExplanations[i] = n.view()
	}
	return gen.ListVoucherGapExplanations200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}
