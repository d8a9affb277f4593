package sieimport

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/sie"
)

// Result is what an import did, kept with it and answered as its result.
// Preparing the year fills the chart's and the opening balance's part;
// the check after the vouchers fills the rest.
type Result struct {
	ImportID          uuid.UUID               `json:"import_id"`
	PeriodID          uuid.UUID               `json:"fiscal_period_id"`
	Encoding          sie.Encoding            `json:"encoding"`
	Vouchers          int                     `json:"vouchers"`
	VouchersPosted    int                     `json:"vouchers_posted"`
	LinesPosted       int                     `json:"lines_posted"`
	ZeroRows          int                     `json:"zero_rows"`
	Empty             int                     `json:"empty_vouchers"`
	Corrected         int                     `json:"corrected_vouchers"`
	Series            map[string]SeriesResult `json:"series"`
	Checksum          bool                    `json:"checksum_verified"`
	BalanceCheck      BalanceCheck            `json:"balance_check"`
	Warnings          []Warning               `json:"warnings"`
	Reversed          int                     `json:"replaced_vouchers_reversed"`
	ReplacedBalances  *uuid.UUID              `json:"replaced_balances_of_import_id,omitempty"`
	AccountsCreated   int                     `json:"accounts_created"`
	AccountsRenamed   int                     `json:"accounts_renamed"`
	SRUCodesFilled    int                     `json:"sru_codes_filled"`
	DimensionsCreated int                     `json:"dimensions_created"`
	ObjectsCreated    int                     `json:"objects_created"`
	// OpeningBalance is what became of the file's #IB 0: posted, kept,
	// skipped or none.
	OpeningBalance string     `json:"opening_balance"`
	PreviousYear   *uuid.UUID `json:"previous_year_created,omitempty"`
}

// SeriesResult is one voucher series of the file as the import booked it.
type SeriesResult struct {
	Vouchers int `json:"vouchers"`
	First    int `json:"first"`
	Last     int `json:"last"`
	// Offset is added to the file's numbers where the books had taken the
	// series already.
	Offset int `json:"offset"`
}

// Result reads what the import did so far; nil before it prepared the
// year. What an older release kept as a looser map reads as far as it
// names these keys.
func (i Import) Result() *Result {
	if len(i.ResultJSON) == 0 {
		return nil
	}
	var r Result
	if json.Unmarshal(i.ResultJSON, &r) != nil {
		return nil
	}
	return &r
}
