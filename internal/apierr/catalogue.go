package apierr

import "net/http"

// Code is a stable machine-readable error code. Codes never change once
// shipped; clients switch on them.
type Code string

// Group names the part of the API a code belongs to; the error reference
// pages are grouped by it.
type Group string

// The groups of the catalogue, in the order the reference lists them.
const (
	GroupGeneric     Group = "generic"
	GroupBookkeeping Group = "bookkeeping"
	GroupPeriods     Group = "periods"
	GroupCustomers   Group = "customers_invoices"
	GroupEndpoint    Group = "endpoint"
	GroupChart       Group = "chart_settings"
)

// Entry is one row of the catalogue: everything the API says about a code.
type Entry struct {
	Code         Code
	Status       int
	Group        Group
	Message      string // Swedish, shown to people
	MessageEn    string
	RecoveryHint string // one line telling the caller how to recover; every entry has one
}

// Generic codes.
const (
	CompanyContextMissing Code = "COMPANY_CONTEXT_MISSING"
	ValidationError       Code = "VALIDATION_ERROR"
	Unauthorized          Code = "UNAUTHORIZED"
	Forbidden             Code = "FORBIDDEN"
	InsufficientScope     Code = "INSUFFICIENT_SCOPE"
	MFARequired           Code = "MFA_REQUIRED"
	NotFound              Code = "NOT_FOUND"
	MethodNotAllowed      Code = "METHOD_NOT_ALLOWED"
	Conflict              Code = "CONFLICT"
	IdempotencyKeyReuse   Code = "IDEMPOTENCY_KEY_REUSE"
	PayloadTooLarge       Code = "PAYLOAD_TOO_LARGE"
	RangeNotSatisfiable   Code = "RANGE_NOT_SATISFIABLE"
	UnsupportedMediaType  Code = "UNSUPPORTED_MEDIA_TYPE"
	RateLimited           Code = "RATE_LIMITED"
	InternalError         Code = "INTERNAL_ERROR"
	DatabaseTimeout       Code = "DATABASE_TIMEOUT"
	UnknownError          Code = "UNKNOWN_ERROR"
	NotImplemented        Code = "NOT_IMPLEMENTED"
)

// Bookkeeping engine codes.
const (
	JournalEntryNotBalanced        Code = "JOURNAL_ENTRY_NOT_BALANCED"
	JournalLineBothSidesNonzero    Code = "JOURNAL_LINE_BOTH_SIDES_NONZERO"
	JournalLineNegativeAmount      Code = "JOURNAL_LINE_NEGATIVE_AMOUNT"
	JournalEntryNoteFailed         Code = "JOURNAL_ENTRY_NOTE_FAILED"
	JournalEntryUpdateFailed       Code = "JOURNAL_ENTRY_UPDATE_FAILED"
	JournalEntryNotFound           Code = "JOURNAL_ENTRY_NOT_FOUND"
	JournalRattelsePeriodLocked    Code = "JOURNAL_RATTELSE_PERIOD_LOCKED"
	JournalRattelseRefused         Code = "JOURNAL_RATTELSE_REFUSED"
	BookkeepingLockReopensFiledVAT Code = "BOOKKEEPING_LOCK_REOPENS_FILED_VAT"
	BookkeepingDatabaseError       Code = "BOOKKEEPING_DATABASE_ERROR"
	JournalRattelseFailed          Code = "JOURNAL_RATTELSE_FAILED"
	JournalRattelseLogFailed       Code = "JOURNAL_RATTELSE_LOG_FAILED"
	AccountsNotInChart             Code = "ACCOUNTS_NOT_IN_CHART"
	EntryDateOutsideFiscalPeriod   Code = "ENTRY_DATE_OUTSIDE_FISCAL_PERIOD"
)

// Period and year-end codes.
const (
	PeriodLocked                      Code = "PERIOD_LOCKED"
	PeriodHasUnbookedTransactions     Code = "PERIOD_HAS_UNBOOKED_TRANSACTIONS"
	PeriodLockFailed                  Code = "PERIOD_LOCK_FAILED"
	PeriodLockHasDrafts               Code = "PERIOD_LOCK_HAS_DRAFTS"
	PeriodNotLocked                   Code = "PERIOD_NOT_LOCKED"
	FXFailed                          Code = "FX_FAILED"
	FXPeriodClosed                    Code = "FX_PERIOD_CLOSED"
	YearEndFailed                     Code = "YEAR_END_FAILED"
	YearEndNextPeriodHasIB            Code = "YEAR_END_NEXT_PERIOD_HAS_IB"
	YearEndNotRun                     Code = "YEAR_END_NOT_RUN"
	YearEndPreviewFailed              Code = "YEAR_END_PREVIEW_FAILED"
	YearEndPriorPeriodOpen            Code = "YEAR_END_PRIOR_PERIOD_OPEN"
	YearEndUnbalancedTrial            Code = "YEAR_END_UNBALANCED_TRIAL"
	YearEndDispositionsWrongLegalForm Code = "YEAR_END_DISPOSITIONS_WRONG_LEGAL_FORM"
	PeriodNotFound                    Code = "PERIOD_NOT_FOUND"
	FXPeriodNotFound                  Code = "FX_PERIOD_NOT_FOUND"
	PeriodAlreadyClosed               Code = "PERIOD_ALREADY_CLOSED"
	PeriodLockAlreadyLocked           Code = "PERIOD_LOCK_ALREADY_LOCKED"
	PeriodReopenNotClosed             Code = "PERIOD_REOPEN_NOT_CLOSED"
	PeriodReopenNotExternal           Code = "PERIOD_REOPEN_NOT_EXTERNAL"
	PeriodUnlockClosed                Code = "PERIOD_UNLOCK_CLOSED"
	PeriodUnlockNotLocked             Code = "PERIOD_UNLOCK_NOT_LOCKED"
	YearEndNoActivity                 Code = "YEAR_END_NO_ACTIVITY"
	FXClosingRateUnavailable          Code = "FX_CLOSING_RATE_UNAVAILABLE"
)

// Customer and invoice codes.
const (
	CustomerPersonalNumberNotAllowed Code = "CUSTOMER_PERSONAL_NUMBER_NOT_ALLOWED"
	InvoiceBookAlreadyBooked         Code = "INVOICE_BOOK_ALREADY_BOOKED"
	InvoiceBookCashMethod            Code = "INVOICE_BOOK_CASH_METHOD"
	InvoiceBookInvalidStatus         Code = "INVOICE_BOOK_INVALID_STATUS"
	InvoiceBookNotBookable           Code = "INVOICE_BOOK_NOT_BOOKABLE"
	InvoiceBookNoFiscalPeriod        Code = "INVOICE_BOOK_NO_FISCAL_PERIOD"
	InvoiceCreateAccrualInvalid      Code = "INVOICE_CREATE_ACCRUAL_INVALID"
	InvoiceFXRateMissing             Code = "INVOICE_FX_RATE_MISSING"
	InvoiceNotAQuote                 Code = "INVOICE_NOT_A_QUOTE"
	InvoiceQuoteNotDecidable         Code = "INVOICE_QUOTE_NOT_DECIDABLE"
	InvoiceBookDeferredDraft         Code = "INVOICE_BOOK_DEFERRED_DRAFT"
	InvoiceCreateRotRutValidation    Code = "INVOICE_CREATE_ROT_RUT_VALIDATION"
	InvoiceCreditPeriodLocked        Code = "INVOICE_CREDIT_PERIOD_LOCKED"
	InvoiceCreditExceedsRemaining    Code = "INVOICE_CREDIT_EXCEEDS_REMAINING"
	// InvoiceLegalContentMissing refuses to issue an invoice that lacks
	// what mervärdesskattelagen asks it to say.
	InvoiceLegalContentMissing     Code = "INVOICE_LEGAL_CONTENT_MISSING"
	MatchInvoiceBookingRateMissing Code = "MATCH_INVOICE_BOOKING_RATE_MISSING"
	// InvoiceVatTreatment… refuse a VAT treatment the sale does not fit (peer §4.5).
	InvoiceVatTreatmentDeliveryCountryRequired Code = "INVOICE_VAT_TREATMENT_DELIVERY_COUNTRY_REQUIRED"
	InvoiceVatTreatmentDeliveryCountryMismatch Code = "INVOICE_VAT_TREATMENT_DELIVERY_COUNTRY_MISMATCH"
	InvoiceVatTreatmentBuyerVatNumberRequired  Code = "INVOICE_VAT_TREATMENT_BUYER_VAT_NUMBER_REQUIRED"
	InvoiceVatTreatmentNotVatRegistered        Code = "INVOICE_VAT_TREATMENT_NOT_VAT_REGISTERED"
	CustomerNotFound                           Code = "CUSTOMER_NOT_FOUND"
	CustomerNoPersonalNumber                   Code = "CUSTOMER_NO_PERSONAL_NUMBER"
	InvoiceNotFound                            Code = "INVOICE_NOT_FOUND"
	ArticleNotFound                            Code = "ARTICLE_NOT_FOUND"
	ArticleNumberTaken                         Code = "ARTICLE_NUMBER_TAKEN"
	ArticleArchived                            Code = "ARTICLE_ARCHIVED"
	ExpenseClaimNotFound                       Code = "EXPENSE_CLAIM_NOT_FOUND"
	ExpenseClaimNoFiscalPeriod                 Code = "EXPENSE_CLAIM_NO_FISCAL_PERIOD"
	ExpenseClaimFXRateMissing                  Code = "EXPENSE_CLAIM_FX_RATE_MISSING"
	ExpenseClaimAlreadyPaid                    Code = "EXPENSE_CLAIM_ALREADY_PAID"
	ExpenseClaimDeleted                        Code = "EXPENSE_CLAIM_DELETED"
	ExpenseClaimOnPayslip                      Code = "EXPENSE_CLAIM_ON_PAYSLIP"
	ExpenseClaimInPaymentBatch                 Code = "EXPENSE_CLAIM_IN_PAYMENT_BATCH"
	AssetNotFound                              Code = "ASSET_NOT_FOUND"
	AssetDepreciationBooked                    Code = "ASSET_DEPRECIATION_BOOKED"
	AssetDepreciationBehind                    Code = "ASSET_DEPRECIATION_BEHIND"
	AssetDisposed                              Code = "ASSET_DISPOSED"
	PaymentBatchNotFound                       Code = "PAYMENT_BATCH_NOT_FOUND"
	PaymentBatchCancelled                      Code = "PAYMENT_BATCH_CANCELLED"
	PaymentBatchInvoiceNotPayable              Code = "PAYMENT_BATCH_INVOICE_NOT_PAYABLE"
	PaymentBatchInvoiceReserved                Code = "PAYMENT_BATCH_INVOICE_RESERVED"
	PaymentBatchPayerAccount                   Code = "PAYMENT_BATCH_PAYER_ACCOUNT"
	SIDeleteInPaymentBatch                     Code = "SI_DELETE_IN_PAYMENT_BATCH"
	CustomerDuplicateOrgNumber                 Code = "CUSTOMER_DUPLICATE_ORG_NUMBER"
	CustomerHasInvoices                        Code = "CUSTOMER_HAS_INVOICES"
	InvoiceAlreadySent                         Code = "INVOICE_ALREADY_SENT"
	InvoiceBookConflict                        Code = "INVOICE_BOOK_CONFLICT"
	InvoiceCancelRace                          Code = "INVOICE_CANCEL_RACE"
	InvoiceUpdateNotDraft                      Code = "INVOICE_UPDATE_NOT_DRAFT"
	InvoiceDeleteNotDraft                      Code = "INVOICE_DELETE_NOT_DRAFT"
	InvoicePaidLikelyDuplicate                 Code = "INVOICE_PAID_LIKELY_DUPLICATE"
	InvoiceQuoteAlreadyInvoiced                Code = "INVOICE_QUOTE_ALREADY_INVOICED"
	CustomerPersonalNumberUnreadable           Code = "CUSTOMER_PERSONAL_NUMBER_UNREADABLE"
	CustomerCreateFailed                       Code = "CUSTOMER_CREATE_FAILED"
	CustomerDeleteFailed                       Code = "CUSTOMER_DELETE_FAILED"
	CustomerUpdateFailed                       Code = "CUSTOMER_UPDATE_FAILED"
	InvoiceBookFailed                          Code = "INVOICE_BOOK_FAILED"
)

// Endpoint-specific codes.
const (
	SupplierNotFound                   Code = "SUPPLIER_NOT_FOUND"
	SupplierDuplicateOrgNumber         Code = "SUPPLIER_DUPLICATE_ORG_NUMBER"
	SupplierHasInvoices                Code = "SUPPLIER_HAS_INVOICES"
	SICreateDuplicateInvoiceNumber     Code = "SI_CREATE_DUPLICATE_INVOICE_NUMBER"
	SIFXRateMissing                    Code = "SI_FX_RATE_MISSING"
	SICreateSLPInvalidAccount          Code = "SI_CREATE_SLP_INVALID_ACCOUNT"
	SICreateInvalidInput               Code = "SI_CREATE_INVALID_INPUT"
	SICreateNoFiscalPeriod             Code = "SI_CREATE_NO_FISCAL_PERIOD"
	SupplierInvoiceNotFound            Code = "SUPPLIER_INVOICE_NOT_FOUND"
	SIApproveNotRegistered             Code = "SI_APPROVE_NOT_REGISTERED"
	SIDeleteHasBooking                 Code = "SI_DELETE_HAS_BOOKING"
	SIDeleteCreditNote                 Code = "SI_DELETE_CREDIT_NOTE"
	SIDeleteInvalidStatus              Code = "SI_DELETE_INVALID_STATUS"
	SIEditVerifikatLocked              Code = "SI_EDIT_VERIFIKAT_LOCKED"
	SIPaidAlready                      Code = "SI_PAID_ALREADY"
	SIPaidLikelyDuplicate              Code = "SI_PAID_LIKELY_DUPLICATE"
	SINotDraft                         Code = "SI_NOT_DRAFT"
	SIBankEnteredNotPayable            Code = "SI_BANK_ENTERED_NOT_PAYABLE"
	SIBookAlreadyBooked                Code = "SI_BOOK_ALREADY_BOOKED"
	SIBookInvalidStatus                Code = "SI_BOOK_INVALID_STATUS"
	SIBookCashMethod                   Code = "SI_BOOK_CASH_METHOD"
	SIBookNoFiscalPeriod               Code = "SI_BOOK_NO_FISCAL_PERIOD"
	SICreditPartial                    Code = "SI_CREDIT_PARTIAL"
	SICreditAlreadyCredited            Code = "SI_CREDIT_ALREADY_CREDITED"
	SICreditPeriodLocked               Code = "SI_CREDIT_PERIOD_LOCKED"
	SICreditDocumentMismatch           Code = "SI_CREDIT_DOCUMENT_MISMATCH"
	SIUncreditFailed                   Code = "SI_UNCREDIT_FAILED"
	SIItemAccountSettled               Code = "SI_ITEM_ACCOUNT_SETTLED"
	SIItemAccountNoMatchingLine        Code = "SI_ITEM_ACCOUNT_NO_MATCHING_LINE"
	SIPaidSEKUnresolved                Code = "SI_PAID_SEK_UNRESOLVED"
	CashAccountNotFound                Code = "CASH_ACCOUNT_NOT_FOUND"
	TxNotFound                         Code = "TX_CATEGORIZE_TX_NOT_FOUND"
	TxCategorizeInvalidAccount         Code = "TX_CATEGORIZE_INVALID_ACCOUNT"
	TxCategorizeSuggestSIMatch         Code = "TX_CATEGORIZE_SUGGEST_SI_MATCH"
	TxUncategorizeNotBooked            Code = "TX_UNCATEGORIZE_NOT_BOOKED"
	TxIgnoreAlreadyBooked              Code = "TX_IGNORE_ALREADY_BOOKED"
	TransactionTitleLocked             Code = "TRANSACTION_TITLE_LOCKED"
	TransactionMoveBooked              Code = "TRANSACTION_MOVE_BOOKED"
	TransactionMoveUnknownAccount      Code = "TRANSACTION_MOVE_UNKNOWN_ACCOUNT"
	TransactionMoveCurrency            Code = "TRANSACTION_MOVE_CURRENCY_MISMATCH"
	TransactionDeleteBooked            Code = "TRANSACTION_DELETE_BOOKED"
	TransactionDeleteImported          Code = "TRANSACTION_DELETE_IMPORTED"
	TransactionDeleteHasAudit          Code = "TRANSACTION_DELETE_HAS_AUDIT_TRAIL"
	BulkBookTxsNotFound                Code = "BULK_BOOK_TXS_NOT_FOUND"
	BulkBookTxAlreadyBooked            Code = "BULK_BOOK_TX_ALREADY_BOOKED"
	BulkBookMixedCurrency              Code = "BULK_BOOK_MIXED_CURRENCY"
	BulkBookForeignCurrency            Code = "BULK_BOOK_FOREIGN_CURRENCY"
	BulkBookDateMismatch               Code = "BULK_BOOK_DATE_MISMATCH"
	BulkBookDirectionMismatch          Code = "BULK_BOOK_DIRECTION_MISMATCH"
	BulkBookAccountMismatch            Code = "BULK_BOOK_ACCOUNT_MISMATCH"
	BulkBookInvalidAccount             Code = "BULK_BOOK_INVALID_ACCOUNT"
	BulkBookTemplateNotFound           Code = "BULK_BOOK_TEMPLATE_NOT_FOUND"
	BulkBookVoucherNotFound            Code = "BULK_BOOK_VOUCHER_NOT_FOUND"
	BulkBookVoucherNotPosted           Code = "BULK_BOOK_VOUCHER_NOT_POSTED"
	BulkBookAmountMismatch             Code = "BULK_BOOK_AMOUNT_MISMATCH"
	BulkBookUnbalanced                 Code = "BULK_BOOK_UNBALANCED"
	BankFileUnreadable                 Code = "BANK_FILE_UNREADABLE"
	BankFileAccountMismatch            Code = "BANK_FILE_ACCOUNT_MISMATCH"
	BankFileImportNotFound             Code = "BANK_FILE_IMPORT_NOT_FOUND"
	BankAggregatorNotConfigured        Code = "BANK_AGGREGATOR_NOT_CONFIGURED"
	BankConnectionNotFound             Code = "BANK_CONNECTION_NOT_FOUND"
	TxExchangeRateBooked               Code = "TX_EXCHANGE_RATE_BOOKED"
	TxExchangeRateUnavailable          Code = "TX_EXCHANGE_RATE_UNAVAILABLE"
	LinkTxAlreadyLinked                Code = "LINK_TX_TX_ALREADY_LINKED"
	LinkTxEntryNotFound                Code = "LINK_TX_JE_NOT_FOUND"
	LinkTxEntryNotPosted               Code = "LINK_TX_JE_NOT_POSTED"
	LinkTxNoMatchingLine               Code = "LINK_TX_NO_MATCHING_LINE"
	MatchInvoiceNotInvoiceType         Code = "MATCH_INVOICE_NOT_INVOICE_TYPE"
	MatchInvoiceNotIncome              Code = "MATCH_INVOICE_NOT_INCOME"
	MatchInvoiceNotOpen                Code = "MATCH_INVOICE_NOT_OPEN"
	MatchInvoiceTxAlreadyBooked        Code = "MATCH_INVOICE_TX_ALREADY_BOOKED"
	MatchInvoiceAmountExceedsRemaining Code = "MATCH_INVOICE_AMOUNT_EXCEEDS_REMAINING"
	MatchCurrencyMismatch              Code = "MATCH_CURRENCY_MISMATCH"
	MatchSINotExpense                  Code = "MATCH_SI_NOT_EXPENSE"
	MatchSITxAlreadyLinked             Code = "MATCH_SI_TX_ALREADY_LINKED"
	MatchSINotFound                    Code = "MATCH_SI_NOT_FOUND"
	MatchSIAlreadyPaid                 Code = "MATCH_SI_ALREADY_PAID"
	MatchSIAmountExceedsRemaining      Code = "MATCH_SI_AMOUNT_EXCEEDS_REMAINING"
	BatchTxNotFound                    Code = "BATCH_TX_NOT_FOUND"
	BatchTxAlreadyBooked               Code = "BATCH_TX_ALREADY_BOOKED"
	BatchTxZeroAmount                  Code = "BATCH_TX_ZERO_AMOUNT"
	BatchDirectionMismatch             Code = "BATCH_DIRECTION_MISMATCH"
	BatchMixedKindsUnsupported         Code = "BATCH_MIXED_KINDS_UNSUPPORTED"
	BatchAmountExceedsTx               Code = "BATCH_AMOUNT_EXCEEDS_TX"
	BatchAmountBelowTx                 Code = "BATCH_AMOUNT_BELOW_TX"
	BatchInvoiceNotFound               Code = "BATCH_INVOICE_NOT_FOUND"
	BatchSupplierInvoiceNotFound       Code = "BATCH_SUPPLIER_INVOICE_NOT_FOUND"
	BatchInvoiceNotOpen                Code = "BATCH_INVOICE_NOT_OPEN"
	BatchSupplierInvoiceNotOpen        Code = "BATCH_SUPPLIER_INVOICE_NOT_OPEN"
	BatchTxPossibleDuplicate           Code = "BATCH_TX_POSSIBLE_DUPLICATE"
	BatchPeriodLocked                  Code = "BATCH_PERIOD_LOCKED"
	WebhookNotFound                    Code = "WEBHOOK_NOT_FOUND"
	WebhookDeliveryNotFound            Code = "WEBHOOK_DELIVERY_NOT_FOUND"
	WebhookDeliveryNotRetryable        Code = "WEBHOOK_DELIVERY_NOT_RETRYABLE"
	WebhookInactive                    Code = "WEBHOOK_INACTIVE"
	DimensionValidationFailed          Code = "DIMENSION_VALIDATION_FAILED"
	DimensionSystemRename              Code = "DIMENSION_SYSTEM_RENAME"
	DimensionNumberTaken               Code = "DIMENSION_NUMBER_TAKEN"
	DimensionValueDuplicateCode        Code = "DIMENSION_VALUE_DUPLICATE_CODE"
	CashAccountIBANDuplicate           Code = "CASH_ACCOUNT_IBAN_DUPLICATE"
	CashAccountLedgerTaken             Code = "CASH_ACCOUNT_LEDGER_TAKEN"
	BankSyncCooldown                   Code = "BANK_SYNC_COOLDOWN"
	BankRateLimited                    Code = "BANK_RATE_LIMITED"
	BankSessionExpired                 Code = "BANK_SESSION_EXPIRED"
	BankSyncFailed                     Code = "BANK_SYNC_FAILED"
	CapabilityBlocked                  Code = "CAPABILITY_BLOCKED"
	TestKeyWriteBlocked                Code = "TEST_KEY_WRITE_BLOCKED"
	RoleReadOnly                       Code = "ROLE_READ_ONLY"
	ConnectionReadOnly                 Code = "CONNECTION_READ_ONLY"
	BankFileUndoForbidden              Code = "BANK_FILE_UNDO_FORBIDDEN"
	DocAttachOtherVerifikat            Code = "DOC_ATTACH_OTHER_VERIFIKAT"
	DocAttachReplacesPosted            Code = "DOC_ATTACH_REPLACES_POSTED"
	DocAttachPeriodLocked              Code = "DOC_ATTACH_PERIOD_LOCKED"
	InboxItemAlreadyConverted          Code = "INBOX_ITEM_ALREADY_CONVERTED"
	BankFileUndoNotCompleted           Code = "BANK_FILE_UNDO_NOT_COMPLETED"
	SIEImportLegacyReviewRequired      Code = "SIE_IMPORT_LEGACY_REVIEW_REQUIRED"
	SIEImportInvalidFile               Code = "SIE_IMPORT_INVALID_FILE"
	SIEImportPeriodNotEmpty            Code = "SIE_IMPORT_PERIOD_NOT_EMPTY"
	SIEImportActionConflict            Code = "SIE_IMPORT_ACTION_CONFLICT"
	SIEImportNotFound                  Code = "SIE_IMPORT_NOT_FOUND"
	SIEImportUnsupportedFile           Code = "SIE_IMPORT_UNSUPPORTED_FILE"
	SIEUploadInvalid                   Code = "SIE_UPLOAD_INVALID"
	SIEUploadTokenInvalid              Code = "SIE_UPLOAD_TOKEN_INVALID"
	SIEUploadSizeMismatch              Code = "SIE_UPLOAD_SIZE_MISMATCH"
	SIEUploadAlreadyReceived           Code = "SIE_UPLOAD_ALREADY_RECEIVED"
	DocNotFound                        Code = "DOC_NOT_FOUND"
	InboxItemNotFound                  Code = "INBOX_ITEM_NOT_FOUND"
	VacationBalanceNotFound            Code = "VACATION_BALANCE_NOT_FOUND"
	AbsenceRangeTooLarge               Code = "ABSENCE_RANGE_TOO_LARGE"
	DocUploadTooLarge                  Code = "DOC_UPLOAD_TOO_LARGE"
	DocUploadUnsupportedType           Code = "DOC_UPLOAD_UNSUPPORTED_TYPE"
	DocStoreUnavailable                Code = "DOC_STORE_UNAVAILABLE"
	ReportGenerationFailed             Code = "REPORT_GENERATION_FAILED"
)

// VAT return, filing and tax-declaration codes (peer §7).
const (
	VATESKDOrgNumberInvalid          Code = "VAT_ESKD_ORG_NUMBER_INVALID"
	VATFilingPeriodNotEnded          Code = "VAT_FILING_PERIOD_NOT_ENDED"
	VATFilingDateBeforePeriodEnd     Code = "VAT_FILING_DATE_BEFORE_PERIOD_END"
	VATFilingDateInFuture            Code = "VAT_FILING_DATE_IN_FUTURE"
	VATFilingNotFound                Code = "VAT_FILING_NOT_FOUND"
	VATFilingConfirmedBySkatteverket Code = "VAT_FILING_CONFIRMED_BY_SKATTEVERKET"
	VATSettlementProposalChanged     Code = "VAT_SETTLEMENT_PROPOSAL_CHANGED"
	VATSettlementAlreadyBooked       Code = "VAT_SETTLEMENT_ALREADY_BOOKED"
	SkatteverketNotConnected         Code = "SKATTEVERKET_NOT_CONNECTED"
	SkattekontoFileInvalid           Code = "SKATTEKONTO_FILE_INVALID"
	SkattekontoSaldoConflict         Code = "SKATTEKONTO_SALDO_CONFLICT"
	PSReportMissingFilerInfo         Code = "PS_REPORT_MISSING_FILER_INFO"
	PSReportCSVBlockedByErrors       Code = "PS_REPORT_CSV_BLOCKED_BY_ERRORS"
	TaxDeclINK2WrongLegalForm        Code = "TAX_DECL_INK2_WRONG_LEGAL_FORM"
	TaxDeclNEWrongLegalForm          Code = "TAX_DECL_NE_WRONG_LEGAL_FORM"
	CashFlowTaxAllocationRequired    Code = "CASH_FLOW_TAX_ALLOCATION_REQUIRED"
)

// Chart-of-accounts, fiscal-period and company-settings codes.
const (
	AccountTypeClassConflict      Code = "ACCOUNT_TYPE_CLASS_CONFLICT"
	AccountVATTreatmentClass      Code = "ACCOUNT_VAT_TREATMENT_CLASS"
	AccountNothingToUpdate        Code = "ACCOUNT_NOTHING_TO_UPDATE"
	AccountSystemDelete           Code = "ACCOUNT_SYSTEM_DELETE"
	AccountSystemDeactivate       Code = "ACCOUNT_SYSTEM_DEACTIVATE"
	AccountNotFound               Code = "ACCOUNT_NOT_FOUND"
	AccountExists                 Code = "ACCOUNT_EXISTS"
	AccountExistsInactive         Code = "ACCOUNT_EXISTS_INACTIVE"
	AccountInUse                  Code = "ACCOUNT_IN_USE"
	FiscalPeriodNotContiguous     Code = "FISCAL_PERIOD_NOT_CONTIGUOUS"
	FiscalPeriodTooLong           Code = "FISCAL_PERIOD_TOO_LONG"
	FiscalPeriodOverlap           Code = "FISCAL_PERIOD_OVERLAP"
	FiscalPeriodHasPostedEntries  Code = "FISCAL_PERIOD_HAS_POSTED_ENTRIES"
	FiscalPeriodUpdateLocked      Code = "FISCAL_PERIOD_UPDATE_LOCKED"
	FiscalPeriodUpdateClosed      Code = "FISCAL_PERIOD_UPDATE_CLOSED"
	AccountingMethodChangeMidYear Code = "ACCOUNTING_METHOD_CHANGE_MID_YEAR"
)

// Ledger codes the peer service answers with beyond the spec's catalogue,
// and Kontera's own for states the spec names but gives no code.
const (
	JournalEntryNotDraft                       Code = "JOURNAL_ENTRY_NOT_DRAFT"
	JournalEntryNotPosted                      Code = "JOURNAL_ENTRY_NOT_POSTED"
	CannotEditNonDraft                         Code = "CANNOT_EDIT_NON_DRAFT"
	CannotCancelNonDraft                       Code = "CANNOT_CANCEL_NON_DRAFT"
	EntryAlreadyReversed                       Code = "ENTRY_ALREADY_REVERSED"
	VoucherGapAlreadyExplained                 Code = "VOUCHER_GAP_ALREADY_EXPLAINED"
	VoucherGapNotMissing                       Code = "VOUCHER_GAP_NOT_MISSING"
	CorrectionChainTooDeep                     Code = "CORRECTION_CHAIN_TOO_DEEP"
	TargetPeriodClosed                         Code = "TARGET_PERIOD_CLOSED"
	TargetPeriodLocked                         Code = "TARGET_PERIOD_LOCKED"
	NoOpenPeriodForDate                        Code = "NO_OPEN_PERIOD_FOR_DATE"
	MeaninglessCorrection                      Code = "MEANINGLESS_CORRECTION"
	YearEndAlreadyRun                          Code = "YEAR_END_ALREADY_RUN"
	OBPnLAccount                               Code = "OB_PNL_ACCOUNT"
	OBNonBalanceSheetAccount                   Code = "OB_NON_BALANCE_SHEET_ACCOUNT"
	OBUnbalanced                               Code = "OB_UNBALANCED"
	OBPeriodAlreadyHasBalances                 Code = "OB_PERIOD_ALREADY_HAS_BALANCES"
	OBPeriodLocked                             Code = "OB_PERIOD_LOCKED"
	OBPeriodClosed                             Code = "OB_PERIOD_CLOSED"
	OBSetCompanyLockDate                       Code = "OB_SET_COMPANY_LOCK_DATE"
	OperationNotFound                          Code = "OPERATION_NOT_FOUND"
	FiscalPeriodCloseExternalNativeBookkeeping Code = "FISCAL_PERIOD_CLOSE_EXTERNAL_NATIVE_BOOKKEEPING"
	FiscalPeriodCloseExternalNotEnded          Code = "FISCAL_PERIOD_CLOSE_EXTERNAL_NOT_ENDED"
	FiscalYearNotEnded                         Code = "FISCAL_YEAR_NOT_ENDED"
	AccrualsPending                            Code = "ACCRUALS_PENDING"
)

// Continuity codes of Kontera's own: a year opens with the balances the
// year before closed with, and a closed year stays closed.
const (
	AccountBalanceOutOfRange Code = "ACCOUNT_BALANCE_OUT_OF_RANGE"
	OpeningBalanceMismatch   Code = "OPENING_BALANCE_MISMATCH"
	OBPreviousYearClosed     Code = "OB_PREVIOUS_YEAR_CLOSED"
	OBPreviousYearInBooks    Code = "OB_PREVIOUS_YEAR_IN_BOOKS"
	EntryOwnedByYearEnd      Code = "ENTRY_OWNED_BY_YEAR_END"
)

// Customer codes the peer service answers with for the rules the spec
// states without a code.
const (
	CustomerOrgNumberIsPersonal    Code = "CUSTOMER_ORG_NUMBER_IS_PERSONAL"
	CustomerPersonalNumberConflict Code = "CUSTOMER_PERSONAL_NUMBER_CONFLICT"
)

// Codes of invoices out of the door: e-mail.
const (
	InvoiceSendNoCustomerEmail    Code = "INVOICE_SEND_NO_CUSTOMER_EMAIL"
	InvoiceSendEmailNotConfigured Code = "INVOICE_SEND_EMAIL_NOT_CONFIGURED"
	InvoiceEmailNotFound          Code = "INVOICE_EMAIL_NOT_FOUND"
	InvoiceEmailNotFailed         Code = "INVOICE_EMAIL_NOT_FAILED"
)

// Peppol codes (peer §4.3): the send's refusals, and the error codes a
// delivery records.
const (
	PeppolNotReady           Code = "PEPPOL_NOT_READY"
	PeppolNotConfigured      Code = "PEPPOL_NOT_CONFIGURED"
	PeppolAlreadyDelivered   Code = "PEPPOL_ALREADY_DELIVERED"
	PeppolSubmissionRejected Code = "PEPPOL_SUBMISSION_REJECTED"
	PeppolSubmissionFailed   Code = "PEPPOL_SUBMISSION_FAILED"
)

// Dimension codes of Kontera's own, for the register's states the spec
// names without a code.
const (
	DimensionNotFound      Code = "DIMENSION_NOT_FOUND"
	DimensionValueNotFound Code = "DIMENSION_VALUE_NOT_FOUND"
	DimensionSystemDelete  Code = "DIMENSION_SYSTEM_DELETE"
	DimensionInUse         Code = "DIMENSION_IN_USE"
	DimensionValueInUse    Code = "DIMENSION_VALUE_IN_USE"
)

const (
	s400 = http.StatusBadRequest
	s401 = http.StatusUnauthorized
	s403 = http.StatusForbidden
	s404 = http.StatusNotFound
	s405 = http.StatusMethodNotAllowed
	s409 = http.StatusConflict
	s413 = http.StatusRequestEntityTooLarge
	s415 = http.StatusUnsupportedMediaType
	s416 = http.StatusRequestedRangeNotSatisfiable
	s422 = http.StatusUnprocessableEntity
	s429 = http.StatusTooManyRequests
	s500 = http.StatusInternalServerError
	s501 = http.StatusNotImplemented
	s502 = http.StatusBadGateway
	s503 = http.StatusServiceUnavailable
)

// Payroll codes: employees, absence, salary runs, AGI and the vacation
// year.
const (
	EmployeeNotFound                 Code = "EMPLOYEE_NOT_FOUND"
	EmployeeDuplicatePersonnummer    Code = "EMPLOYEE_DUPLICATE_PERSONNUMMER"
	AbsenceHoursConflict             Code = "ABSENCE_HOURS_CONFLICT"
	SalaryRegisterDatesLockedByRun   Code = "SALARY_REGISTER_DATES_LOCKED_BY_RUN"
	SalaryRunNotFound                Code = "SALARY_RUN_NOT_FOUND"
	SalaryRunDuplicatePeriod         Code = "SALARY_RUN_DUPLICATE_PERIOD"
	SalaryLineNotFound               Code = "SALARY_LINE_NOT_FOUND"
	SalaryLineCalculated             Code = "SALARY_LINE_CALCULATED"
	SalaryRunInvalidState            Code = "SALARY_RUN_INVALID_STATE"
	SalaryRunNoEmployees             Code = "SALARY_RUN_NO_EMPLOYEES"
	SalaryRunApproveValidationFailed Code = "SALARY_RUN_APPROVE_VALIDATION_FAILED"
	SalaryPayrollConfigMissing       Code = "SALARY_PAYROLL_CONFIG_MISSING"
	SalaryRunBookingInProgress       Code = "SALARY_RUN_BOOKING_IN_PROGRESS"
	SalaryRunAlreadyCorrected        Code = "SALARY_RUN_ALREADY_CORRECTED"
	AGIIncompleteData                Code = "AGI_INCOMPLETE_DATA"
	VacationYearAlreadyClosed        Code = "VACATION_YEAR_ALREADY_CLOSED"
)

// API key codes (the key endpoints, a Kontera extension).
const (
	APIKeyNotFound      Code = "API_KEY_NOT_FOUND"
	APIKeyGrantExceeded Code = "API_KEY_GRANT_EXCEEDED"
	APIKeyRevoked       Code = "API_KEY_REVOKED"
)

// entries is the catalogue: every code the API can answer with. The
// ErrorCode enum in openapi/openapi.json must list exactly these codes (a
// test checks it).
var entries = []Entry{
	// Generic.
	{CompanyContextMissing, s400, GroupGeneric, "Företags-id saknas i anropet.", "The request does not name a company.", "Call the endpoint under /api/v1/companies/{companyId}/."},
	{ValidationError, s400, GroupGeneric, "Begäran innehåller ogiltiga värden.", "Request validation failed.", "Fix the fields listed in details.issues and send the request again."},
	{Unauthorized, s401, GroupGeneric, "Autentisering saknas eller är ogiltig.", "Authentication is missing or invalid.", "Send the header Authorization: Bearer <API key> with a valid key."},
	{Forbidden, s403, GroupGeneric, "Du saknar behörighet för den här åtgärden.", "You are not allowed to perform this operation.", "Ask an owner or admin of the company to perform it."},
	{InsufficientScope, s403, GroupGeneric, "API-nyckeln saknar behörigheten som krävs.", "The API key lacks the required scope.", "Use a key with the missing scope (details.required_scope)."},
	{MFARequired, s403, GroupGeneric, "Tvåstegsverifiering krävs.", "Two-step verification is required.", "Complete two-step verification for the user, then repeat the request."},
	{NotFound, s404, GroupGeneric, "Resursen hittades inte.", "The resource was not found.", "Check the path and the ids in it; the resource may belong to another company."},
	{MethodNotAllowed, s405, GroupGeneric, "Metoden stöds inte för den här sökvägen.", "The method is not allowed on this path.", "Use one of the methods in the Allow header."},
	{Conflict, s409, GroupGeneric, "Begäran krockar med resursens nuvarande tillstånd.", "The request conflicts with the current state of the resource.", "Read the resource again and retry."},
	{IdempotencyKeyReuse, s409, GroupGeneric, "Idempotensnyckeln har redan använts med en annan begäran.", "The idempotency key was already used with a different request.", "Use a fresh UUID for a new operation, or resend the original body."},
	{PayloadTooLarge, s413, GroupGeneric, "Begäran är för stor.", "The request body is too large.", "Send a smaller body."},
	{RangeNotSatisfiable, s416, GroupGeneric, "Intervallet ligger utanför filen.", "The range lies outside the file.", "Ask for bytes within details.size, or for the whole file without Range."},
	{UnsupportedMediaType, s415, GroupGeneric, "Innehållstypen stöds inte.", "The content type is not supported.", "Send the body as application/json."},
	{RateLimited, s429, GroupGeneric, "För många anrop. Försök igen om en stund.", "Too many requests. Try again shortly.", "Wait the number of seconds in the Retry-After header."},
	{InternalError, s500, GroupGeneric, "Ett internt fel uppstod.", "Internal server error.", "Retry later; quote the request_id if it persists."},
	{DatabaseTimeout, s503, GroupGeneric, "Databasen svarade inte i tid; inget ändrades.", "The database did not answer in time; nothing was changed.", "Retry in a moment; nothing was changed."},
	{UnknownError, s500, GroupGeneric, "Ett okänt fel uppstod.", "An unknown error occurred.", "Retry later; quote the request_id if it persists."},
	{NotImplemented, s501, GroupGeneric, "Funktionen finns inte ännu.", "This is not implemented.", "Use another endpoint for this; see /api/v1/openapi.json for what is served."},

	// Bookkeeping engine.
	{JournalEntryNotBalanced, s400, GroupBookkeeping, "Verifikationen balanserar inte: debet och kredit skiljer sig åt.", "The journal entry is not balanced: debits and credits differ.", "Make debits equal credits."},
	{JournalLineBothSidesNonzero, s400, GroupBookkeeping, "En rad får bara ha belopp på en sida, debet eller kredit.", "A line may carry an amount on one side only, debit or credit.", "Split the line into one debit line and one credit line."},
	{JournalLineNegativeAmount, s400, GroupBookkeeping, "Belopp på en verifikationsrad får inte vara negativa.", "Journal line amounts must not be negative.", "Move the amount to the other side instead of negating it."},
	{JournalEntryNoteFailed, s400, GroupBookkeeping, "Anteckningen kunde inte sparas.", "The note could not be saved.", "Check the note's text and length, then send it again."},
	{JournalEntryUpdateFailed, s400, GroupBookkeeping, "Verifikationen kunde inte uppdateras.", "The journal entry could not be updated.", "Read the entry again (GET); a posted entry changes only through correct, redate or reverse."},
	{JournalEntryNotFound, s404, GroupBookkeeping, "Verifikationen hittades inte.", "The journal entry was not found.", "Check the id; list the company's entries with GET /companies/{companyId}/journal-entries."},
	{JournalRattelsePeriodLocked, s409, GroupBookkeeping, "Rättelse direkt i verifikationen går bara i en öppen period efter låsdatumet.", "An inline correction is only allowed in an open period after the lock date.", "Use storno (reverse or correct) instead."},
	{JournalRattelseRefused, s409, GroupBookkeeping, "Rättelsen nekades av en bokföringsregel.", "A bookkeeping rule refused the correction.", "Use storno (reverse or correct) instead."},
	{BookkeepingLockReopensFiledVAT, s409, GroupBookkeeping, "Låsdatumet skulle öppna momsperioder som redan deklarerats.", "The lock date would reopen VAT periods that are already filed.", "Send acknowledge_filed_vat_periods: true if this is intended."},
	{BookkeepingDatabaseError, s500, GroupBookkeeping, "Bokföringen kunde inte sparas.", "The bookkeeping change could not be stored.", "Retry later; nothing was changed."},
	{JournalRattelseFailed, s500, GroupBookkeeping, "Rättelsen kunde inte genomföras.", "The correction could not be carried out.", "Retry later; nothing was changed."},
	{JournalRattelseLogFailed, s500, GroupBookkeeping, "Rättelseloggen kunde inte skrivas.", "The correction log could not be written.", "Retry later; nothing was changed."},
	{AccountsNotInChart, s400, GroupBookkeeping, "Ett eller flera konton finns inte i kontoplanen.", "One or more accounts are not in the chart of accounts.", "Add or activate the accounts listed in details, or use BAS accounts."},
	{EntryDateOutsideFiscalPeriod, s400, GroupBookkeeping, "Verifikationsdatumet ligger utanför räkenskapsåret.", "The entry date lies outside the fiscal period.", "Use a date inside the fiscal period, or the period that covers the date."},

	// Periods and year-end.
	{PeriodLocked, s400, GroupPeriods, "Perioden är låst.", "The period is locked.", "Unlock a locked (not closed) period or use a date in an open period."},
	{PeriodHasUnbookedTransactions, s400, GroupPeriods, "Perioden har obokförda banktransaktioner.", "The period has unbooked bank transactions.", "Book or ignore the transactions first."},
	{PeriodLockFailed, s400, GroupPeriods, "Perioden kunde inte låsas.", "The period could not be locked.", "Read the period (GET fiscal-periods) for its state, then lock it again."},
	{PeriodLockHasDrafts, s400, GroupPeriods, "Perioden har utkast till verifikationer.", "The period has draft journal entries.", "Commit or cancel the drafts first."},
	{PeriodNotLocked, s400, GroupPeriods, "Perioden är inte låst.", "The period is not locked.", "Lock before closing."},
	{FXFailed, s400, GroupPeriods, "Valutaomräkningen misslyckades.", "The currency revaluation failed.", "Check that rates exist for the period's last day (kontera fx import, or KONTERA_RIKSBANK_URL), then run it again."},
	{FXPeriodClosed, s400, GroupPeriods, "Valutaomräkning går inte i en stängd period.", "Currency revaluation is not possible in a closed period.", "Run the revaluation in an open period; a closed one takes no new verifikat."},
	{YearEndFailed, s400, GroupPeriods, "Bokslutet kunde inte genomföras.", "The year-end run failed.", "Read the operation's error, fix what it names, and start the year-end again."},
	{YearEndNextPeriodHasIB, s400, GroupPeriods, "Nästa räkenskapsår har redan ingående balanser.", "The next fiscal year already has opening balances.", "Read the next year's opening balances (GET reports/trial-balance of that year); the year-end books them only into a year without any."},
	{YearEndNotRun, s400, GroupPeriods, "Bokslutet har inte körts för perioden.", "The year-end run has not been performed for the period.", "Run year-end before closing."},
	{YearEndPreviewFailed, s400, GroupPeriods, "Förhandsvisningen av bokslutet misslyckades.", "The year-end preview failed.", "Read details for the cause, fix it, and ask for the preview again."},
	{YearEndPriorPeriodOpen, s400, GroupPeriods, "Föregående räkenskapsår är fortfarande öppet.", "The prior fiscal year is still open.", "Close the prior year first: by its year-end, or with POST .../close-external when its books were kept outside Kontera."},
	{YearEndUnbalancedTrial, s400, GroupPeriods, "Råbalansen balanserar inte.", "The trial balance is not balanced.", "Find the difference in GET reports/trial-balance and correct the entry that causes it."},
	{YearEndDispositionsWrongLegalForm, s400, GroupPeriods, "Bokslutsdispositionerna passar inte företagsformen.", "The year-end dispositions do not fit the legal form.", "Send only the dispositions the company's form allows (aktiebolag, enskild firma, förening)."},
	{PeriodNotFound, s404, GroupPeriods, "Räkenskapsåret hittades inte.", "The fiscal period was not found.", "Check the id; list the company's periods with GET /companies/{companyId}/fiscal-periods."},
	{FXPeriodNotFound, s404, GroupPeriods, "Perioden för valutaomräkningen hittades inte.", "The period for the currency revaluation was not found.", "Check the fiscal period id; list them with GET /companies/{companyId}/fiscal-periods."},
	{PeriodAlreadyClosed, s409, GroupPeriods, "Perioden är redan stängd.", "The period is already closed.", "Nothing to do: the period is closed. Book in the next open period instead."},
	{PeriodLockAlreadyLocked, s409, GroupPeriods, "Perioden är redan låst.", "The period is already locked.", "Nothing to do: the period is locked already."},
	{PeriodReopenNotClosed, s409, GroupPeriods, "Perioden är inte stängd.", "The period is not closed.", "Only a period closed outside Kontera can be reopened; this one is open."},
	{PeriodReopenNotExternal, s409, GroupPeriods, "Perioden stängdes inte externt.", "The period was not closed externally.", "A year closed in Kontera stays closed; book corrections in the next open year."},
	{PeriodUnlockClosed, s409, GroupPeriods, "En stängd period kan inte låsas upp.", "A closed period cannot be unlocked.", "A closed year cannot be unlocked; book corrections in the next open year."},
	{PeriodUnlockNotLocked, s409, GroupPeriods, "Perioden är inte låst.", "The period is not locked.", "Nothing to do: the period is not locked."},
	{YearEndNoActivity, s409, GroupPeriods, "Räkenskapsåret har inga bokförda händelser.", "The fiscal year has no activity.", "Book the year's verifikat (or import its SIE file) before running the year-end."},
	{FXClosingRateUnavailable, s502, GroupPeriods, "Riksbankens kurs för bokslutsdagen saknas.", "No central-bank rate is available for the closing date.", "Retry later; details.missingRates lists the currencies."},

	// Customers and invoices.
	{CustomerPersonalNumberNotAllowed, s400, GroupCustomers, "Personnummer är bara tillåtet för privatpersoner.", "A personal number is only allowed for individuals.", "Set customer_type individual, or drop personal_number."},
	{InvoiceBookAlreadyBooked, s400, GroupCustomers, "Fakturan är redan bokförd.", "The invoice is already booked.", "Nothing to do: the invoice has its verifikat; read it with GET invoices/{invoiceId}."},
	{InvoiceBookCashMethod, s400, GroupCustomers, "Företaget använder kontantmetoden; fakturan bokförs vid betalning.", "The company uses the cash method; the invoice is booked on payment.", "Register the payment (mark-paid) instead: under kontantmetoden the sale is booked then."},
	{InvoiceBookInvalidStatus, s400, GroupCustomers, "Fakturan har fel status för att bokföras.", "The invoice has the wrong status to be booked.", "Issue the invoice first (mark-sent or send); drafts and cancelled invoices are not booked."},
	{InvoiceBookNotBookable, s400, GroupCustomers, "Dokumentet kan inte bokföras.", "This document cannot be booked.", "Quotes and pro forma documents are not booked; book the invoice made from them."},
	{InvoiceBookNoFiscalPeriod, s400, GroupCustomers, "Inget räkenskapsår täcker fakturadatumet.", "No fiscal period covers the invoice date.", "Create the fiscal period first."},
	{InvoiceCreateAccrualInvalid, s400, GroupCustomers, "Periodiseringen på fakturan är ogiltig.", "The accrual on the invoice is invalid.", "Send accrual_period_start and accrual_period_end as dates, the start before the end."},
	{InvoiceFXRateMissing, s400, GroupCustomers, "Valutakurs saknas för fakturans datum; fakturan kan inte skickas.", "No exchange rate for the invoice's date; the invoice cannot be issued.", "Set exchange_rate on the draft (PATCH) and send it again."},
	{InvoiceNotAQuote, s400, GroupCustomers, "Dokumentet är ingen offert.", "The document is not a quote.", "This endpoint is for quotes; use the invoice's own endpoints."},
	{InvoiceQuoteNotDecidable, s400, GroupCustomers, "Offerten är makulerad; kundens beslut kan inte registreras.", "The quote is cancelled; the customer's decision cannot be recorded.", "Create a new quote; a cancelled one takes no decision."},
	{InvoiceBookDeferredDraft, s400, GroupCustomers, "Utkastet skickas utan bokföring när bokföringen skjuts upp; skicka det först och bokför det sedan.", "With booking deferred a draft is issued without booking; issue it first, then book it.", "POST …/mark-sent, then include the invoice in bulk-book again."},
	{InvoiceCreateRotRutValidation, s400, GroupCustomers, "ROT/RUT-uppgifterna på fakturan är ogiltiga.", "The ROT/RUT details on the invoice are invalid.", "See details.field."},
	{InvoiceCreditPeriodLocked, s400, GroupCustomers, "Perioden för dagens datum är låst; kreditfakturan kan inte bokföras.", "The period holding today's date is locked; the credit note cannot be booked.", "Unlock the period or open the next one."},
	{InvoiceCreditExceedsRemaining, s409, GroupCustomers, "Under kontantmetoden kan en delkreditering inte vara större än det kunden har kvar att betala.", "Under the cash method a partial credit cannot be more than the customer still has to pay.", "Credit less, or credit the whole invoice to refund what was paid; details.remaining_amount is what is left."},
	{InvoiceLegalContentMissing, s400, GroupCustomers, "Fakturan saknar uppgifter som mervärdesskattelagen kräver och kan inte utfärdas.", "The invoice lacks what the VAT act requires it to say and cannot be issued.", "details.missing names each item (company.address: PATCH /settings; customer.address: PATCH the customer); details.rule cites the paragraph. The draft's legal_content shows the same before you issue."},
	{MatchInvoiceBookingRateMissing, s400, GroupCustomers, "Betalningen i utländsk valuta saknar kurs eller belopp i kronor.", "The payment in a foreign currency has neither a rate nor an amount in kronor.", "Send amount_sek (what arrived) or exchange_rate."},
	{InvoiceVatTreatmentDeliveryCountryRequired, s400, GroupCustomers, "Exportbehandlingen kräver ett leveransland för en kund inom EU.", "The export treatment needs a delivery country for a customer in the EU.", "Send delivery_country, the country the goods are shipped to."},
	{InvoiceVatTreatmentDeliveryCountryMismatch, s400, GroupCustomers, "Leveranslandet passar inte momsbehandlingen.", "The delivery country does not fit the VAT treatment.", "reverse_charge needs another EU state, export a country outside the EU."},
	{InvoiceVatTreatmentBuyerVatNumberRequired, s400, GroupCustomers, "Omvänd skattskyldighet kräver en EU-kund med ett momsnummer som VIES bekräftat.", "Reverse charge needs an EU business customer with a VAT number VIES validated.", "See details.reason; validate the customer's VAT number first."},
	{InvoiceVatTreatmentNotVatRegistered, s400, GroupCustomers, "Företaget är inte momsregistrerat och kan inte fakturera med omvänd skattskyldighet eller export.", "The company is not VAT-registered and cannot invoice with reverse charge or export.", "Register for VAT in the company's tax profile first."},
	{CustomerNotFound, s404, GroupCustomers, "Kunden hittades inte.", "The customer was not found.", "Check the id; list the company's customers with GET /companies/{companyId}/customers."},
	{CustomerNoPersonalNumber, s404, GroupCustomers, "Kunden har inget personnummer.", "The customer has no personal number.", "Add the customer's personal_number with PATCH customers/{customerId} first."},
	{InvoiceNotFound, s404, GroupCustomers, "Fakturan hittades inte.", "The invoice was not found.", "Check the id; list the company's invoices with GET /companies/{companyId}/invoices."},
	{ArticleNotFound, s404, GroupCustomers, "Artikeln hittades inte.", "The article was not found.", "Check the id; list the company's articles with GET /companies/{companyId}/articles (archived ones with include_archived=true)."},
	{ArticleNumberTaken, s409, GroupCustomers, "Det finns redan en artikel med det artikelnumret.", "An article with this article number already exists.", "details.existing_article_id names it: change that article, or choose another number."},
	{ArticleArchived, s409, GroupCustomers, "Artikeln är arkiverad och kan inte användas på en ny fakturarad.", "The article is archived and cannot be used on a new invoice line.", "Bring it back with PATCH articles/{articleId} {\"active\": true}, or name another article."},
	{ExpenseClaimNotFound, s404, GroupEndpoint, "Utlägget hittades inte.", "The expense claim was not found.", "Check the id; list the company's expense claims with GET /companies/{companyId}/expense-claims."},
	{ExpenseClaimNoFiscalPeriod, s400, GroupEndpoint, "Inget räkenskapsår täcker datumet.", "No fiscal period covers the date.", "details.field names the date: open the fiscal period with POST /fiscal-periods first, or choose a date in one."},
	{ExpenseClaimFXRateMissing, s400, GroupEndpoint, "Ingen växelkurs finns för utläggets datum.", "No exchange rate is known for the expense date.", "Send exchange_rate: SEK per unit of the currency on expense_date, as the receipt or the card statement says."},
	{ExpenseClaimAlreadyPaid, s409, GroupEndpoint, "Utlägget är redan utbetalt.", "The expense claim has already been paid out.", "details.expense_claim_id names it; storno its payout's verifikat first to change it."},
	{ExpenseClaimDeleted, s409, GroupEndpoint, "Utlägget är borttaget.", "The expense claim has been deleted.", "details.expense_claim_id names it; its verifikat was stornoed: register the outlay again if it is owed."},
	{ExpenseClaimOnPayslip, s409, GroupEndpoint, "Utlägget ligger på en lönespecifikation och betalas med lönen.", "The expense claim is on a payslip and is paid with the salary.", "details.salary_run_id names the run: take the employee off the run, or delete the draft run, to delete the claim or pay it out otherwise."},
	{ExpenseClaimInPaymentBatch, s409, GroupEndpoint, "Utlägget ligger i en betalfil och betalas när bankens dragning matchas.", "The expense claim is in a payment batch and is paid when the bank's debit is matched.", "details.batch_id names the batch: cancel it first to pay the claim out otherwise or delete it."},
	{AssetNotFound, s404, GroupEndpoint, "Anläggningstillgången hittades inte.", "The asset was not found.", "Check the id; list the company's assets with GET /companies/{companyId}/assets."},
	{AssetDepreciationBooked, s409, GroupEndpoint, "Avskrivning är bokförd på tillgången; det den beräknas från ändras inte.", "Depreciation is booked on the asset; what it is reckoned from does not change.", "Change the name or dimensions only, or storno the months' depreciation verifikat (details.months) first."},
	{AssetDepreciationBehind, s409, GroupEndpoint, "Tillgången är inte avskriven fram till avyttringsmånaden.", "The asset is not depreciated up to the month of its disposal.", "Run POST /assets/depreciation through the month before (details.through) first; details.months lists what is missing."},
	{AssetDisposed, s409, GroupEndpoint, "Tillgången är avyttrad.", "The asset has been disposed of.", "A disposed asset changes no more; storno the disposal's verifikat (details.disposal_entry_id) to undo it."},
	{PaymentBatchNotFound, s404, GroupEndpoint, "Betalningsuppdraget hittades inte.", "The payment batch was not found.", "List the company's batches with GET /companies/{companyId}/supplier-payment-batches."},
	{PaymentBatchCancelled, s409, GroupEndpoint, "Betalningsuppdraget är makulerat.", "The payment batch has been cancelled.", "Its invoices are released: make a new batch of them."},
	{PaymentBatchInvoiceNotPayable, s409, GroupEndpoint, "Leverantörsfakturan kan inte betalas med betalfil.", "The supplier invoice cannot be paid by payment file.", "details.reason says why (not_approved: approve it first; no_account: give the supplier a bankgiro, plusgiro, IBAN or bank account; nothing_left, credit_note); details.index names it."},
	{PaymentBatchInvoiceReserved, s409, GroupEndpoint, "Leverantörsfakturan ligger redan i ett betalningsuppdrag.", "The supplier invoice is already in a payment batch.", "details.batch_id names the batch: cancel it first to pay the invoice another way."},
	{PaymentBatchPayerAccount, s400, GroupEndpoint, "Bankkontot saknar uppgifter för betalfilen.", "The cash account lacks what the payment file needs.", "Give the cash account its IBAN, or pay from the primary account with the company's bankgiro set."},
	{SIDeleteInPaymentBatch, s409, GroupEndpoint, "Leverantörsfakturan ligger i ett betalningsuppdrag och kan inte tas bort.", "The supplier invoice is in a payment batch and cannot be deleted.", "Cancel the batch (details.batch_id) first."},
	{CustomerDuplicateOrgNumber, s409, GroupCustomers, "Det finns redan en kund med det organisationsnumret.", "A customer with this organisation number already exists.", "Use the existing customer."},
	{CustomerHasInvoices, s409, GroupCustomers, "Kunden har öppna fakturor.", "The customer has open invoices.", "Settle or credit the customer's open invoices first."},
	{InvoiceAlreadySent, s409, GroupCustomers, "Fakturan är redan skickad.", "The invoice is already sent.", "Credit the invoice (POST invoices/{invoiceId}/credit) and issue a new one instead of changing it."},
	{InvoiceBookConflict, s409, GroupCustomers, "Fakturan bokförs redan av en annan begäran.", "The invoice is being booked by another request.", "Read the invoice again."},
	{InvoiceCancelRace, s409, GroupCustomers, "Fakturan ändrades samtidigt av en annan begäran.", "The invoice was changed by another request at the same time.", "Read the invoice again."},
	{InvoiceUpdateNotDraft, s409, GroupCustomers, "Fakturan är inte längre ett utkast och ändras inte.", "The invoice is no longer a draft and is not changed.", "Credit the invoice and issue a new one."},
	{InvoiceDeleteNotDraft, s409, GroupCustomers, "Bara utkast kan tas bort.", "Only drafts can be deleted.", "Credit the invoice instead."},
	{InvoicePaidLikelyDuplicate, s409, GroupCustomers, "En likadan betalning är redan registrerad på fakturan.", "A payment like this one is already recorded on the invoice.", "If it is a second payment, send it again with force: true and a new Idempotency-Key."},
	{InvoiceQuoteAlreadyInvoiced, s409, GroupCustomers, "Offerten har redan fakturerats.", "The quote has already been invoiced.", "details.invoice_id names the invoice made from it."},
	{CustomerPersonalNumberUnreadable, s422, GroupCustomers, "Kundens personnummer kunde inte läsas.", "The customer's personal number could not be read.", "The server's KONTERA_PII_KEY does not open it: ask the operator, or send the personal_number again."},
	{CustomerCreateFailed, s500, GroupCustomers, "Kunden kunde inte skapas.", "The customer could not be created.", "Retry later; nothing was changed."},
	{CustomerDeleteFailed, s500, GroupCustomers, "Kunden kunde inte arkiveras.", "The customer could not be archived.", "Retry later; nothing was changed."},
	{CustomerUpdateFailed, s500, GroupCustomers, "Kunden kunde inte uppdateras.", "The customer could not be updated.", "Retry later; nothing was changed."},
	{InvoiceBookFailed, s500, GroupCustomers, "Fakturan kunde inte bokföras.", "The invoice could not be booked.", "Retry later; nothing was changed."},

	// Endpoint-specific.
	{SupplierNotFound, s404, GroupEndpoint, "Leverantören hittades inte.", "The supplier was not found.", "Check the id; list the company's suppliers with GET /companies/{companyId}/suppliers."},
	{SupplierDuplicateOrgNumber, s409, GroupEndpoint, "Det finns redan en leverantör med det organisationsnumret.", "A supplier with this organisation number already exists.", "Use the existing supplier."},
	{SupplierHasInvoices, s409, GroupEndpoint, "Leverantören har öppna leverantörsfakturor.", "The supplier has open supplier invoices.", "Pay or credit the open invoices first."},
	{SICreateDuplicateInvoiceNumber, s409, GroupEndpoint, "Leverantörsfakturan är redan registrerad.", "This supplier invoice number is already registered.", "See details.existing."},
	{SIFXRateMissing, s400, GroupEndpoint, "Valutakurs saknas för fakturadatumet.", "No exchange rate is available for the invoice date.", "Send exchange_rate."},
	{SICreateSLPInvalidAccount, s400, GroupEndpoint, "Särskild löneskatt kan bara bokas på 741x-konton.", "Special payroll tax can only be booked on 741x accounts.", "Book special payroll tax (särskild löneskatt) on an account of 741x."},
	{SICreateInvalidInput, s400, GroupEndpoint, "Leverantörsfakturan innehåller ogiltiga uppgifter.", "The supplier invoice contains invalid input.", "Fix the fields named in details and send the supplier invoice again."},
	{SICreateNoFiscalPeriod, s400, GroupEndpoint, "Inget räkenskapsår täcker fakturadatumet.", "No fiscal period covers the invoice date.", "Create the fiscal period first."},
	{SupplierInvoiceNotFound, s404, GroupEndpoint, "Leverantörsfakturan hittades inte.", "The supplier invoice was not found.", "Check the id; list the company's supplier invoices with GET /companies/{companyId}/supplier-invoices."},
	{SIApproveNotRegistered, s400, GroupEndpoint, "Bara registrerade leverantörsfakturor kan attesteras.", "Only registered supplier invoices can be approved.", "details.current_status says where it is."},
	{SIDeleteHasBooking, s400, GroupEndpoint, "Leverantörsfakturan är bokförd eller betald och kan inte tas bort.", "The supplier invoice is booked or paid and cannot be deleted.", "Credit it instead."},
	{SIDeleteCreditNote, s400, GroupEndpoint, "En kreditnota tas inte bort; ångra krediteringen i stället.", "A credit note is not deleted; undo the credit instead.", "POST …/uncredit on the original invoice."},
	{SIDeleteInvalidStatus, s400, GroupEndpoint, "Leverantörsfakturan kan inte tas bort i sin nuvarande status.", "The supplier invoice cannot be deleted in its current status.", "Only a draft is deleted; credit a registered supplier invoice instead (POST supplier-invoices/{supplierInvoiceId}/credit)."},
	{SIEditVerifikatLocked, s400, GroupEndpoint, "Fakturadatum och fakturanummer hör till en bokförd verifikation och ändras inte.", "The invoice date and number belong to a posted journal entry and are not changed.", "Credit the invoice and register it again."},
	{SIPaidAlready, s409, GroupEndpoint, "Leverantörsfakturan är redan betald.", "The supplier invoice is already paid.", "Nothing to pay: read its payments with GET supplier-invoices/{supplierInvoiceId}."},
	{SIPaidLikelyDuplicate, s409, GroupEndpoint, "En likadan betalning är redan registrerad på leverantörsfakturan.", "A payment like this one is already recorded on the supplier invoice.", "If it is a second payment, send it again with force: true and a new Idempotency-Key."},
	{SINotDraft, s400, GroupEndpoint, "Bara en registrerad leverantörsfaktura kan ändras.", "Only a registered supplier invoice can be changed.", "details.current_status says where it is; credit it to undo it."},
	{SIBankEnteredNotPayable, s400, GroupEndpoint, "Leverantörsfakturan kan inte läggas in i internetbanken i sin nuvarande status.", "The supplier invoice cannot be marked as entered in the internet bank in its current status.", "Approve it first; details.currentStatus says where it is."},
	{SIBookAlreadyBooked, s400, GroupEndpoint, "Leverantörsfakturan är redan bokförd.", "The supplier invoice is already booked.", "See registration_journal_entry_id."},
	{SIBookInvalidStatus, s400, GroupEndpoint, "Leverantörsfakturan kan inte bokföras i sin nuvarande status.", "The supplier invoice cannot be booked in its current status.", "Only a draft is booked; read the supplier invoice for its status."},
	{SIBookCashMethod, s400, GroupEndpoint, "Med kontantmetoden bokförs leverantörsfakturan när den betalas.", "Under the cash method a supplier invoice is booked when it is paid.", "Record the payment with POST …/mark-paid."},
	{SIBookNoFiscalPeriod, s400, GroupEndpoint, "Inget räkenskapsår täcker fakturadatumet.", "No fiscal period covers the invoice date.", "Create the fiscal period first."},
	{SICreditPartial, s400, GroupEndpoint, "En leverantörsfaktura krediteras i sin helhet.", "A supplier invoice is credited whole.", "Leave out amount, or register the supplier's partial credit note as an invoice of its own."},
	{SICreditAlreadyCredited, s409, GroupEndpoint, "Leverantörsfakturan är redan krediterad.", "The supplier invoice is already credited.", "Undo the credit first with POST …/uncredit."},
	{SICreditPeriodLocked, s400, GroupEndpoint, "Perioden för krediteringsdatumet är låst.", "The period of the credit date is locked.", "Credit on a date in an open period."},
	{SICreditDocumentMismatch, s400, GroupEndpoint, "Underlaget hör inte ihop med inkorgsposten.", "The document does not belong to the inbox item.", "Send the inbox item's own document, or only one of them."},
	{SIUncreditFailed, s400, GroupEndpoint, "Krediteringen kunde inte ångras.", "The credit could not be undone.", "details.reason says why."},
	{SIItemAccountSettled, s409, GroupEndpoint, "Radens kostnad är redan bokförd av en betalning eller periodisering och flyttas inte här.", "The line's cost is already booked by a payment or an accrual release and is not moved here.", "Correct those verifikationer with a rättelse or a storno."},
	{SIItemAccountNoMatchingLine, s409, GroupEndpoint, "Verifikationen har ingen rad som motsvarar fakturaraden.", "The journal entry has no line matching the invoice line.", "The verifikat was corrected by hand; correct it further there."},
	{SIPaidSEKUnresolved, s409, GroupEndpoint, "Beloppet i kronor avviker mer än 10 % från fakturans bokförda kurs.", "The amount in kronor differs by more than 10 % from the invoice's booked rate.", "Check amount_sek; if it is right, send it again with force: true and a new Idempotency-Key."},
	{TxNotFound, s404, GroupEndpoint, "Banktransaktionen finns inte i företaget.", "The bank transaction does not exist in the company.", "List the company's transactions and use an id from there."},
	{TxCategorizeInvalidAccount, s400, GroupEndpoint, "Kontot kan inte användas för att kategorisera en banktransaktion.", "The account cannot be used to categorize a bank transaction.", "Settle customer and supplier invoices (1510, 2440) with match-invoice or match-supplier-invoice."},
	{TxCategorizeSuggestSIMatch, s409, GroupEndpoint, "Betalningen ser ut att betala en leverantörsfaktura.", "The payment looks like it pays a supplier invoice.", "Match it to the supplier invoice (details.supplier_invoice_ids), or categorize again with confirm_no_match: true."},
	{TxUncategorizeNotBooked, s400, GroupEndpoint, "Banktransaktionen är inte bokförd.", "The bank transaction is not booked.", "Only a booked transaction can be uncategorized."},
	{TxIgnoreAlreadyBooked, s409, GroupEndpoint, "En bokförd banktransaktion kan inte ignoreras.", "A booked bank transaction cannot be ignored.", "Uncategorize it first."},
	{TransactionTitleLocked, s409, GroupEndpoint, "Texten på en bokförd banktransaktion kan inte ändras.", "The text of a booked bank transaction cannot be changed.", "Uncategorize it first."},
	{TransactionMoveBooked, s409, GroupEndpoint, "En bokförd banktransaktion kan inte flyttas till ett annat konto.", "A booked bank transaction cannot move to another account.", "Uncategorize it first."},
	{TransactionMoveUnknownAccount, s404, GroupEndpoint, "Företaget har inget kassakonto på det bokföringskontot.", "The company has no cash account on that ledger account.", "Name the ledger account of one of the company's cash accounts."},
	{TransactionMoveCurrency, s400, GroupEndpoint, "Kassakontot har en annan valuta än transaktionen.", "The cash account holds another currency than the transaction.", "Move it to a cash account in the transaction's currency."},
	{TransactionDeleteBooked, s409, GroupEndpoint, "En bokförd banktransaktion kan inte tas bort.", "A booked bank transaction cannot be deleted.", "Uncategorize it first."},
	{TransactionDeleteImported, s409, GroupEndpoint, "En transaktion från banken eller en bankfil kan inte tas bort.", "A transaction from the bank or a bank file cannot be deleted.", "Ignore it instead."},
	{TransactionDeleteHasAudit, s409, GroupEndpoint, "Banktransaktionen har varit bokförd och har en historik som ska sparas.", "The bank transaction has been booked and has a history to keep.", "Ignore it instead."},
	{BulkBookTxsNotFound, s404, GroupEndpoint, "Någon av banktransaktionerna finns inte i företaget.", "Some of the bank transactions do not exist in the company.", "details.missing lists them."},
	{BulkBookTxAlreadyBooked, s409, GroupEndpoint, "Någon av banktransaktionerna är redan bokförd eller ignorerad.", "Some of the bank transactions are already booked or ignored.", "Leave them out (details.transaction_ids)."},
	{BulkBookMixedCurrency, s400, GroupEndpoint, "Banktransaktionerna har olika valutor.", "The bank transactions have different currencies.", "Book transactions of one currency together."},
	{BulkBookForeignCurrency, s400, GroupEndpoint, "Bara transaktioner i kronor kan bokföras tillsammans.", "Only transactions in kronor can be booked together.", "Categorize foreign transactions one by one."},
	{BulkBookDateMismatch, s400, GroupEndpoint, "Banktransaktionerna har olika datum.", "The bank transactions have different dates.", "Book one day's transactions together."},
	{BulkBookDirectionMismatch, s400, GroupEndpoint, "Banktransaktionerna går åt olika håll.", "The bank transactions go different ways.", "Book money in and money out apart."},
	{BulkBookAccountMismatch, s400, GroupEndpoint, "Banktransaktionerna ligger på olika bankkonton.", "The bank transactions are on different bank accounts.", "Book one cash account's transactions together."},
	{BulkBookInvalidAccount, s400, GroupEndpoint, "Kontot kan inte användas för en samlingsverifikation.", "The account cannot be used in a collective verifikat.", "Settle invoices (1510, 2440) with the match endpoints."},
	{BulkBookTemplateNotFound, s404, GroupEndpoint, "Mallen finns inte.", "The template does not exist.", "Use an id from GET transaction-templates."},
	{BulkBookVoucherNotFound, s404, GroupEndpoint, "Verifikationen finns inte i företaget.", "The verifikat does not exist in the company.", "Use a posted verifikat's id."},
	{BulkBookVoucherNotPosted, s409, GroupEndpoint, "Verifikationen är inte bokförd.", "The verifikat is not posted.", "Commit it first."},
	{BulkBookAmountMismatch, s400, GroupEndpoint, "Verifikationens belopp på bankkontot är inte transaktionernas summa.", "The verifikat's amount on the bank account is not the transactions' sum.", "details.expected and details.actual say by how much."},
	{BulkBookUnbalanced, s400, GroupEndpoint, "Raderna balanserar inte.", "The lines do not balance.", "Debit and credit must be equal."},
	{BankFileUnreadable, s400, GroupEndpoint, "Bankfilen kan inte läsas.", "The bank file cannot be read.", "details.rows names each row that cannot be read and why; details.reason says what else is wrong. Nothing was imported."},
	{BankFileAccountMismatch, s400, GroupEndpoint, "Bankfilens konto eller valuta är inte kassakontots.", "The bank file's account or currency is not the cash account's.", "details.file_account and details.file_currency are the statement's; details.cash_accounts the company's. Name the cash account the file is of (cash_account_id), or add one with that IBAN and currency. Nothing was imported."},
	{BankFileImportNotFound, s404, GroupEndpoint, "Bankfilsimporten finns inte i företaget.", "The bank file import does not exist in the company.", "Use bank_file_import_id from the import operation's result."},
	{BankAggregatorNotConfigured, s503, GroupEndpoint, "Ingen bankkopplingstjänst är konfigurerad på servern.", "No bank aggregator is configured on the server.", "Import bank files (POST imports/bank) or ingest transactions instead; the operator sets KONTERA_BANK_AGGREGATOR."},
	{BankConnectionNotFound, s404, GroupEndpoint, "Bankkopplingen finns inte i företaget.", "The bank connection does not exist in the company.", "List the company's bank connections and use an id from there."},
	{TxExchangeRateBooked, s409, GroupEndpoint, "Kursen på en bokförd banktransaktion kan inte ändras.", "The rate of a booked bank transaction cannot change.", "Uncategorize it first."},
	{TxExchangeRateUnavailable, s502, GroupEndpoint, "Ingen växelkurs finns för transaktionens dag.", "No exchange rate is known for the transaction's day.", "Retry later, or load rates with kontera fx import; details.reason says why."},
	{LinkTxAlreadyLinked, s409, GroupEndpoint, "Banktransaktionen är redan bokförd.", "The bank transaction is already booked.", "Uncategorize it first."},
	{LinkTxEntryNotFound, s404, GroupEndpoint, "Verifikationen finns inte i företaget.", "The verifikat does not exist in the company.", "Use a posted verifikat's id."},
	{LinkTxEntryNotPosted, s409, GroupEndpoint, "Verifikationen är inte bokförd.", "The verifikat is not posted.", "Commit it first."},
	{LinkTxNoMatchingLine, s400, GroupEndpoint, "Verifikationen har ingen rad på transaktionens bankkonto med dess belopp.", "The verifikat has no line on the transaction's bank account with its amount.", "Link the verifikat that books this very movement (details.ledger_account, details.amount)."},
	{MatchInvoiceNotInvoiceType, s400, GroupEndpoint, "Dokumentet är ingen faktura som kan betalas.", "The document is not an invoice that can be paid.", "Proformas, delivery notes, quotes and credit notes are not matched to money in; match an issued invoice."},
	{MatchInvoiceNotIncome, s400, GroupEndpoint, "Bara en inbetalning kan matchas mot en kundfaktura.", "Only money in can be matched to a customer invoice.", "Match money out to a supplier invoice with match-supplier-invoice."},
	{MatchInvoiceNotOpen, s409, GroupEndpoint, "Fakturan väntar inte på betalning.", "The invoice is not waiting for payment.", "Only a sent, overdue or partially paid invoice is matched (details.current_status)."},
	{MatchInvoiceTxAlreadyBooked, s409, GroupEndpoint, "Banktransaktionen är redan bokförd.", "The bank transaction is already booked.", "Uncategorize it first, then match it."},
	{MatchInvoiceAmountExceedsRemaining, s400, GroupEndpoint, "Inbetalningen är större än det som återstår av fakturan.", "The payment is more than what is left of the invoice.", "A part of a match-batch is at most what is left of its invoice; match the whole payment to its invoice with match-invoice, which keeps the excess as the customer's credit."},
	{MatchCurrencyMismatch, s400, GroupEndpoint, "Transaktionens valuta passar inte fakturans.", "The transaction's currency does not fit the invoice's.", "Money in the invoice's currency, or in kronor, settles it."},
	{MatchSINotExpense, s400, GroupEndpoint, "Bara en utbetalning kan matchas mot en leverantörsfaktura.", "Only money out can be matched to a supplier invoice.", "Match money in to a customer invoice with match-invoice."},
	{MatchSITxAlreadyLinked, s409, GroupEndpoint, "Banktransaktionen är redan bokförd.", "The bank transaction is already booked.", "Uncategorize it first (details.existingSupplierInvoiceId names the invoice it pays)."},
	{MatchSINotFound, s404, GroupEndpoint, "Leverantörsfakturan finns inte i företaget.", "The supplier invoice does not exist in the company.", "List the company's open supplier invoices and use an id from there."},
	{MatchSIAlreadyPaid, s409, GroupEndpoint, "Leverantörsfakturan är redan betald eller krediterad.", "The supplier invoice is already paid or credited.", "details.current_status says which."},
	{MatchSIAmountExceedsRemaining, s400, GroupEndpoint, "Utbetalningen är mer än 5 000 kr större än det som återstår av leverantörsfakturan.", "The payment is more than 5,000 kronor above what is left of the supplier invoice.", "Split it over several invoices with match-batch, or categorize it."},
	{BatchTxNotFound, s404, GroupEndpoint, "Banktransaktionen finns inte i företaget.", "The bank transaction does not exist in the company.", "List the company's transactions and use an id from there."},
	{BatchTxAlreadyBooked, s409, GroupEndpoint, "Banktransaktionen är redan bokförd eller ignorerad.", "The bank transaction is already booked or ignored.", "Uncategorize it, or restore it with DELETE …/ignore, first."},
	{BatchTxZeroAmount, s400, GroupEndpoint, "Banktransaktionen har inget belopp att fördela.", "The bank transaction has no amount to allocate.", "Ignore it instead."},
	{BatchDirectionMismatch, s400, GroupEndpoint, "Fördelningarna går åt fel håll för transaktionen.", "The allocations go the wrong way for the transaction.", "Money in settles customer invoices, money out supplier invoices."},
	{BatchMixedKindsUnsupported, s400, GroupEndpoint, "En fördelning kan inte blanda kund- och leverantörsfakturor.", "One allocation cannot mix customer and supplier invoices.", "Allocate to one kind of invoice."},
	{BatchAmountExceedsTx, s400, GroupEndpoint, "Fördelningarna är större än transaktionens belopp.", "The allocations are more than the transaction's amount.", "Allocate exactly the transaction's amount (details.expected)."},
	{BatchAmountBelowTx, s400, GroupEndpoint, "Fördelningarna är mindre än transaktionens belopp.", "The allocations are less than the transaction's amount.", "Allocate exactly the transaction's amount (details.expected)."},
	{BatchInvoiceNotFound, s404, GroupEndpoint, "En kundfaktura i fördelningen finns inte i företaget.", "A customer invoice of the allocations does not exist in the company.", "details.index names the allocation."},
	{BatchSupplierInvoiceNotFound, s404, GroupEndpoint, "En leverantörsfaktura i fördelningen finns inte i företaget.", "A supplier invoice of the allocations does not exist in the company.", "details.index names the allocation."},
	{BatchInvoiceNotOpen, s409, GroupEndpoint, "En kundfaktura i fördelningen väntar inte på betalning.", "A customer invoice of the allocations is not waiting for payment.", "details.index names the allocation, details.current_status its state."},
	{BatchSupplierInvoiceNotOpen, s409, GroupEndpoint, "En leverantörsfaktura i fördelningen väntar inte på betalning.", "A supplier invoice of the allocations is not waiting for payment.", "details.index names the allocation, details.current_status its state."},
	{BatchTxPossibleDuplicate, s409, GroupEndpoint, "En betalning med samma belopp och dag finns redan på en av fakturorna.", "A payment of the same amount and day is already on one of the invoices.", "Check details.candidates; if this payment is another, send force: true with a new Idempotency-Key."},
	{BatchPeriodLocked, s400, GroupEndpoint, "Perioden för transaktionens datum är låst.", "The period of the transaction's date is locked.", "Unlock the period, or settle the invoices by hand in an open period."},
	{CashAccountNotFound, s404, GroupEndpoint, "Kassakontot finns inte i företaget.", "The cash account does not exist in the company.", "List the company's cash accounts and use an id from there."},
	{WebhookNotFound, s404, GroupEndpoint, "Webhooken finns inte i företaget.", "The webhook does not exist in the company.", "List the company's webhooks and use an id from there."},
	{WebhookDeliveryNotFound, s404, GroupEndpoint, "Leveransen finns inte.", "The webhook delivery does not exist.", "Use a delivery id from the webhook's delivery list."},
	{WebhookDeliveryNotRetryable, s409, GroupEndpoint, "Leveransen kan inte skickas om: bara en levererad eller död leverans till en aktiv webhook kan det.", "The delivery cannot be retried: only a delivered or dead delivery to an active webhook can.", "Wait until a pending or failed delivery ends (details.status), or re-enable its webhook (details.reason)."},
	{WebhookInactive, s409, GroupEndpoint, "Webhooken är pausad eller avstängd.", "The webhook is paused or disabled.", "Re-enable it with PATCH active: true, then try again."},
	{DimensionValidationFailed, s400, GroupEndpoint, "En dimension på raden är okänd, arkiverad eller utanför sin giltighetstid.", "A dimension on the line is unknown, archived or outside its validity.", "Use an active value valid on the entry date."},
	{DimensionSystemRename, s400, GroupEndpoint, "Systemdimensioner kan inte byta namn.", "System dimensions cannot be renamed.", "Rename a dimension you added; the system dimensions 1 and 6 keep their names."},
	{DimensionNumberTaken, s409, GroupEndpoint, "Dimensionsnumret används redan.", "The dimension number is already taken.", "Omit sie_dim_no to get the next free number."},
	{DimensionValueDuplicateCode, s409, GroupEndpoint, "Koden finns redan i dimensionen.", "The code already exists in the dimension.", "Use another code, or update the existing value (PATCH dimensions/{dimensionId}/values/{valueId})."},
	{CashAccountIBANDuplicate, s409, GroupEndpoint, "Ett konto med samma IBAN finns redan.", "An account with the same IBAN already exists.", "Use the existing cash account (details.cash_account_id)."},
	{CashAccountLedgerTaken, s409, GroupEndpoint, "Bokföringskontot används redan av ett annat likvidkonto.", "The ledger account is already used by another cash account.", "Leave ledger_account out to get the next free one, or name another 19xx account."},
	{BankSyncCooldown, s429, GroupEndpoint, "Kopplingen synkades nyss. Vänta innan nästa synk.", "The connection was synced recently. Wait before syncing again.", "Retry after details.next_allowed_at."},
	{BankRateLimited, s429, GroupEndpoint, "Banken begränsar antalet anrop för samtycket.", "The bank limits the calls for this consent.", "Retry after details.next_allowed_at."},
	{BankSessionExpired, s409, GroupEndpoint, "Bankens samtycke har gått ut.", "The bank consent has expired.", "Renew the consent with BankID."},
	{BankSyncFailed, s502, GroupEndpoint, "Banken eller bankkopplingstjänsten svarade inte som väntat.", "The bank or the bank aggregator did not answer as expected.", "Retry later; the connection's error_message says what the user sees. Nothing was imported."},
	{CapabilityBlocked, s403, GroupEndpoint, "Företagets abonnemang omfattar inte den här funktionen.", "The company's plan does not include this capability.", "Ask the operator to grant the capability (kontera capabilities grant), or use the company's trial while it lasts."},
	{TestKeyWriteBlocked, s403, GroupEndpoint, "Testnycklar kan inte utföra den här skrivningen.", "Test keys cannot perform this write.", "Use a live key; this operation has no dry run."},
	{RoleReadOnly, s403, GroupEndpoint, "Din roll i företaget har bara läsbehörighet.", "Your role in the company is read-only.", "Ask an owner or admin for a role with write access."},
	{ConnectionReadOnly, s403, GroupEndpoint, "Nyckeln har bara läsbehörighet till företaget.", "The key has read-only access to the company.", "Use a key with read-write access to the company."},
	{BankFileUndoForbidden, s403, GroupEndpoint, "Bara ägare eller administratörer kan ångra en bankfilsimport.", "Only owners or admins can undo a bank file import.", "Ask an owner or an admin of the company to undo the import."},
	{DocAttachOtherVerifikat, s409, GroupEndpoint, "Underlaget hör redan till en annan verifikation.", "The document already belongs to another journal entry.", "Upload the document again for this entry; a document belongs to one verifikat."},
	{DocAttachReplacesPosted, s409, GroupEndpoint, "Underlaget till en bokförd verifikation kan inte bytas ut.", "The document of a posted journal entry cannot be replaced.", "Attach the new document to a correcting verifikat (correct) instead of replacing the posted one's."},
	{DocAttachPeriodLocked, s409, GroupEndpoint, "Perioden är låst; underlaget kan inte kopplas.", "The period is locked; the document cannot be attached.", "Attach it to a verifikat in an open period, or unlock the period first."},
	{InboxItemAlreadyConverted, s409, GroupEndpoint, "Inkorgsposten är redan omvandlad.", "The inbox item is already converted.", "Nothing to do: read the item for what it became (GET inbox-items/{inboxItemId})."},
	{BankFileUndoNotCompleted, s409, GroupEndpoint, "Bara slutförda importer kan ångras.", "Only completed imports can be undone.", "Wait until the import has succeeded (poll its operation), then undo it."},
	{SIEImportLegacyReviewRequired, s409, GroupEndpoint, "Importen måste granskas innan den kan återupptas.", "The import needs review before it can be resumed.", "Read the import (GET imports/sie/{importId}), review what it booked, then resume or undo it."},
	{SIEImportInvalidFile, s400, GroupEndpoint, "SIE-filen kan inte importeras; inget skrevs.", "The SIE file cannot be imported; nothing was written.", "Fix the rows in details.errors (line, record, issue) in the program that wrote the file, and import it again."},
	{SIEImportPeriodNotEmpty, s409, GroupEndpoint, "Räkenskapsåret har redan bokförda verifikationer.", "The fiscal year already holds posted journal entries.", "Import into an empty year, or replace an earlier import of it with options.onExistingPeriod=replace and options.supersedesImportId."},
	{SIEImportActionConflict, s409, GroupEndpoint, "Importen kan inte göra det i sitt nuvarande läge.", "The import cannot do that in its current state.", "See details.reason; wait for the run in progress, or reverse the corrections listed first."},
	{SIEImportNotFound, s404, GroupEndpoint, "SIE-importen hittades inte.", "The SIE import was not found.", "Check the id; list the company's SIE imports with GET /companies/{companyId}/imports/sie."},
	{SIEImportUnsupportedFile, s400, GroupEndpoint, "Filen är inte en SIE-fil (.se, .sie eller .si).", "The file is not a SIE file (.se, .sie or .si).", "Send a SIE 4 file with the extension .se, .sie or .si."},
	{SIEUploadInvalid, s400, GroupEndpoint, "Lagringssökvägen pekar inte på en uppladdad fil som går att använda.", "The storage path does not name an uploaded file that can be used.", "Ask for a new upload (POST imports/sie/upload), PUT the file to its uploadUrl and import within two hours."},
	{SIEUploadTokenInvalid, s401, GroupEndpoint, "Uppladdningslänken är ogiltig eller har gått ut.", "The upload link is invalid or has expired.", "Ask for a new upload (POST imports/sie/upload)."},
	{SIEUploadSizeMismatch, s400, GroupEndpoint, "Filen har inte den storlek som uppladdningen angav.", "The file is not the size the upload named.", "Send exactly the size given when the upload was asked for, or ask for a new upload."},
	{SIEUploadAlreadyReceived, s409, GroupEndpoint, "Filen är redan uppladdad.", "The file was uploaded already.", "Import it with its storagePath, or ask for a new upload."},
	{DocNotFound, s404, GroupEndpoint, "Underlaget hittades inte.", "The document was not found.", "Check the id; list the company's documents with GET /companies/{companyId}/documents."},
	{InboxItemNotFound, s404, GroupEndpoint, "Inkorgsposten hittades inte.", "The inbox item was not found.", "Check the id; list the company's inbox with GET /companies/{companyId}/inbox-items."},
	{VacationBalanceNotFound, s404, GroupEndpoint, "Semestersaldo saknas ännu.", "No vacation balance exists yet.", "Register the employee's opening balances (PUT opening-balances) or run a salary run first."},
	{AbsenceRangeTooLarge, s400, GroupEndpoint, "Intervallet får vara högst 92 dagar.", "The range may be at most 92 days.", "Split the range into parts of at most 92 days."},
	{DocUploadTooLarge, s413, GroupEndpoint, "Filen är större än 10 MB.", "The file is larger than 10 MB.", "Upload a file of at most 10 MB."},
	{DocUploadUnsupportedType, s415, GroupEndpoint, "Filtypen stöds inte.", "The file type is not supported.", "Upload a PDF, an image or an office document."},
	{DocStoreUnavailable, s503, GroupEndpoint, "Arkivet för underlagens filer svarar inte; inget sparades.", "The store of documents' files did not answer; nothing was saved.", "Retry in a moment with the same Idempotency-Key."},
	{ReportGenerationFailed, s409, GroupEndpoint, "Rapporten kan inte tas fram ur bokföringen som den ser ut nu.", "The report cannot be produced from the books as they stand.", "See details: fix the books (for a balance sheet, find why assets and equity plus liabilities differ), then ask again."},
	{VATESKDOrgNumberInvalid, s400, GroupEndpoint, "Företagets organisationsnummer saknas eller är ogiltigt; eSKD-filen kan inte skrivas.", "The company's organisation number is missing or invalid; the eSKD file cannot be written.", "Set a valid org_number on the company (NNNNNN-NNNN)."},
	{VATFilingPeriodNotEnded, s400, GroupEndpoint, "Momsperioden har inte tagit slut.", "The VAT period has not ended.", "Record the filing after the period's last day."},
	{VATFilingDateBeforePeriodEnd, s400, GroupEndpoint, "Deklarationsdagen ligger före periodens slut.", "The filing date is before the period ended.", "Send the day the return was filed, after details.period_end."},
	{VATFilingDateInFuture, s400, GroupEndpoint, "Deklarationsdagen ligger i framtiden.", "The filing date is in the future.", "Send the day the return was filed, today at the latest."},
	{VATFilingNotFound, s404, GroupEndpoint, "Momsperioden är inte markerad som deklarerad.", "The VAT period is not marked as filed.", "List the filings with GET /reports/vat-declaration/filings."},
	{VATFilingConfirmedBySkatteverket, s409, GroupEndpoint, "Deklarationen är bekräftad av Skatteverket och kan inte avmarkeras.", "The return is confirmed by Skatteverket and cannot be unmarked.", "File a corrected return with Skatteverket instead."},
	{VATSettlementProposalChanged, s409, GroupEndpoint, "Momsavräkningen har ändrats sedan förslaget hämtades.", "The VAT settlement has changed since the proposal was read.", "Read the settlement proposal again and send its fingerprint."},
	{VATSettlementAlreadyBooked, s409, GroupEndpoint, "Momsavräkningen för perioden är redan bokförd.", "The VAT settlement of the period is already booked.", "See details.journal_entry_id; reverse it first to book it again."},
	{SkattekontoFileInvalid, s400, GroupEndpoint, "Skattekontofilen kan inte läsas.", "The skattekonto file cannot be read.", "details.line and details.column name where; details.reason says what is wrong. Nothing was imported."},
	{SkattekontoSaldoConflict, s409, GroupEndpoint, "Saldot i filen stämmer inte med skattekontots sparade rader.", "The file's saldo disagrees with the skattekonto rows already stored.", "details names the day and both saldos; check the rows stored for that period (GET /skattekonto/transactions) before importing again."},
	{SkatteverketNotConnected, s401, GroupEndpoint, "Företaget är inte anslutet till Skatteverket.", "The company is not connected to Skatteverket.", "Use state=submitted for what was filed; decided returns need a Skatteverket connection."},
	{PSReportMissingFilerInfo, s400, GroupEndpoint, "Uppgifter om uppgiftslämnaren saknas för den periodiska sammanställningen.", "Filer details are missing for the EU sales list.", "Set vat_number, tax_contact_name and tax_contact_phone in the company settings (details.missing)."},
	{PSReportCSVBlockedByErrors, s400, GroupEndpoint, "Den periodiska sammanställningen har fel och kan inte skrivas som fil.", "The EU sales list has errors and cannot be written as a file.", "Fix the rows in details.errors (GET /reports/periodisk-sammanstallning lists them)."},
	{TaxDeclINK2WrongLegalForm, s400, GroupEndpoint, "INK2 gäller bara aktiebolag.", "INK2 applies to limited companies (aktiebolag) only.", "An enskild firma files NE (GET /reports/ne-bilaga)."},
	{TaxDeclNEWrongLegalForm, s400, GroupEndpoint, "NE-bilagan gäller bara enskild firma.", "The NE appendix applies to sole traders (enskild firma) only.", "An aktiebolag files INK2 (GET /reports/ink2)."},
	{CashFlowTaxAllocationRequired, s422, GroupEndpoint, "Inkomstskatten kan inte skiljas från andra skatter i kassaflödesanalysen.", "Income tax cannot be told from other taxes in the cash flow statement.", "Book income tax on 2510-2519 and its cost on 8910-8930 (details.accounts)."},
	{AccountTypeClassConflict, s400, GroupChart, "Kontotypen passar inte kontoklassen.", "The account type does not fit the account class.", "Use a type from details.allowed_types: class 1 asset, 2 equity/untaxed_reserves/liability, 3 revenue, 4-7 expense, 8 revenue or expense."},
	{AccountVATTreatmentClass, s400, GroupChart, "Momsbehandling kan bara anges på konton i klass 3-8.", "A VAT treatment can only be set on accounts of classes 3-8.", "Set a VAT treatment only on an account of classes 3 to 8."},
	{AccountNothingToUpdate, s400, GroupChart, "Inget att ändra på kontot.", "Nothing to update on the account.", "Send account_name, description or is_active."},
	{AccountSystemDelete, s400, GroupChart, "Systemkonton kan inte tas bort.", "System accounts cannot be deleted.", "Rename the account instead; the bookkeeping relies on it."},
	{AccountSystemDeactivate, s400, GroupChart, "Systemkonton kan inte inaktiveras.", "System accounts cannot be deactivated.", "Leave the system account active; deactivate an account of your own instead."},
	{AccountNotFound, s404, GroupChart, "Kontot finns inte i företagets kontoplan.", "The account is not in the company's chart.", "List the chart with GET /accounts, or add the account with POST /accounts."},
	{AccountExists, s409, GroupChart, "Kontot finns redan i kontoplanen.", "The account already exists in the chart.", "Nothing to add: change the account with PATCH accounts/{accountNumber}."},
	{AccountExistsInactive, s409, GroupChart, "Kontot finns redan men är inaktiverat.", "The account exists but is deactivated.", "Activate it with PATCH /accounts/{number} and is_active: true."},
	{AccountInUse, s409, GroupChart, "Kontot har bokförts på och kan inte tas bort.", "The account has been booked on and cannot be deleted.", "Deactivate it with PATCH is_active: false instead."},
	{FiscalPeriodNotContiguous, s400, GroupPeriods, "Räkenskapsåret måste ansluta till det föregående eller följande.", "The fiscal period must adjoin its neighbour.", "Use details.expected_start or details.expected_end."},
	{FiscalPeriodTooLong, s400, GroupPeriods, "Ett räkenskapsår får vara högst 18 månader.", "A fiscal period may last at most 18 months.", "Make the fiscal year at most 18 months (Bokföringslagen 3 kap.)."},
	{FiscalPeriodOverlap, s409, GroupPeriods, "Räkenskapsåret överlappar ett befintligt.", "The fiscal period overlaps an existing one.", "Choose dates outside the company's other fiscal years (GET fiscal-periods)."},
	{FiscalPeriodHasPostedEntries, s409, GroupPeriods, "Räkenskapsåret har bokförda verifikationer; datumen kan inte ändras.", "The fiscal period has posted entries; its dates cannot change.", "Keep the dates; a year with posted verifikat cannot be moved."},
	{FiscalPeriodUpdateLocked, s409, GroupPeriods, "Räkenskapsåret är låst.", "The fiscal period is locked.", "Unlock it first."},
	{FiscalPeriodUpdateClosed, s409, GroupPeriods, "Räkenskapsåret är stängt.", "The fiscal period is closed.", "A closed year does not change; work in the next open year."},
	{AccountingMethodChangeMidYear, s409, GroupChart, "Bokföringsmetoden kan inte bytas när årets bokföring har börjat.", "The accounting method cannot change once the current year has posted entries.", "Change it from the first day of the next fiscal year."},
	{JournalEntryNotDraft, s409, GroupBookkeeping, "Verifikationen är inte ett utkast.", "The journal entry is not a draft.", "Only a draft can be committed; read the entry to see its status (details.current_status)."},
	{JournalEntryNotPosted, s409, GroupBookkeeping, "Verifikationen är inte bokförd.", "The journal entry is not posted.", "Commit the draft first."},
	{CannotEditNonDraft, s409, GroupBookkeeping, "Bara utkast kan ändras; en bokförd verifikation rättas med storno eller rättelse.", "Only drafts can be edited; a posted entry is changed by storno or correction.", "Use POST /journal-entries/{id}/correct, /reverse or /correct-metadata."},
	{CannotCancelNonDraft, s409, GroupBookkeeping, "Bara utkast kan makuleras.", "Only drafts can be cancelled.", "Reverse a posted entry with POST /journal-entries/{id}/reverse."},
	{EntryAlreadyReversed, s409, GroupBookkeeping, "Verifikationen är redan makulerad med storno.", "The journal entry has already been reversed.", "Read details.reversed_by_id; correct that entry instead."},
	{VoucherGapAlreadyExplained, s409, GroupBookkeeping, "Luckan är redan förklarad: intervallet överlappar en förklaring i serien.", "The gap is already explained: the range overlaps an explanation in the series.", "Read the explanation in details.existing (GET voucher-gap-explanations); an explanation is never changed, so explain only numbers not yet covered."},
	{VoucherGapNotMissing, s409, GroupBookkeeping, "Intervallet är ingen lucka: det innehåller nummer som finns eller som serien inte har nått.", "The range is no gap: it holds numbers in use or beyond the series' last.", "Explain only missing numbers below the series' last: details.used lists those in use, details.last_number where the series ends; the compliance check voucher_gaps lists the gaps."},
	{CorrectionChainTooDeep, s409, GroupBookkeeping, "Kedjan av rättelser är för lång.", "The chain of corrections is too deep.", "Check the chain, then send allow_deep_chain: true if it is intended."},
	{TargetPeriodClosed, s409, GroupBookkeeping, "Räkenskapsåret för det nya datumet är stängt.", "The fiscal period of the new date is closed.", "Choose a date in an open period."},
	{TargetPeriodLocked, s409, GroupBookkeeping, "Perioden för det nya datumet är låst.", "The period of the new date is locked.", "Unlock the period or choose a date in an open period."},
	{NoOpenPeriodForDate, s400, GroupBookkeeping, "Det finns inget räkenskapsår för datumet.", "No fiscal period covers the date.", "Open the fiscal period with POST /fiscal-periods first."},
	{MeaninglessCorrection, s400, GroupBookkeeping, "Rättelsen ändrar ingenting.", "The correction changes nothing.", "Send the lines as they should be; a correction must change at least one."},
	{YearEndAlreadyRun, s409, GroupPeriods, "Bokslutet har redan körts för räkenskapsåret.", "The year-end run has already been performed for the fiscal period.", "Nothing changed since it ran: close the period, or post the change first and run it again."},
	{OBPnLAccount, s400, GroupPeriods, "Ingående balanser får bara avse balanskonton (klass 1–2, eller konton i klass 3–8 som en SIE-fil angett som tillgång eller skuld), inte resultatkonton.", "Opening balances apply only to balance-sheet accounts (classes 1-2, or accounts of classes 3-8 an SIE file declared an asset or a liability), not income-statement accounts.", "Send opening balances on balance-sheet accounts only; a year's result reaches equity through the year-end."},
	{OBNonBalanceSheetAccount, s400, GroupPeriods, "Ingående balanser får bara avse balanskonton (klass 1–2).", "Opening balances apply only to balance-sheet accounts (classes 1-2).", "Send opening balances on accounts of classes 1 and 2 only."},
	{OBUnbalanced, s400, GroupPeriods, "De ingående balanserna balanserar inte.", "The opening balances do not balance.", "Make debits equal credits (details.diff)."},
	{OBPeriodAlreadyHasBalances, s409, GroupPeriods, "Räkenskapsåret har redan ingående balanser.", "The fiscal period already has opening balances.", "Reverse the existing opening-balance entry (details.existing_entry_id) first."},
	{OBPeriodLocked, s400, GroupPeriods, "Räkenskapsåret är låst.", "The fiscal period is locked.", "Unlock it first."},
	{OBPeriodClosed, s400, GroupPeriods, "Räkenskapsåret är stängt.", "The fiscal period is closed.", "Register opening balances in an open fiscal year."},
	{OBSetCompanyLockDate, s409, GroupPeriods, "Bokföringen är låst till och med ett datum i räkenskapsåret.", "The books are locked through a date inside the fiscal period.", "Move the bookkeeping lock before the period start first."},
	{FiscalPeriodCloseExternalNativeBookkeeping, s409, GroupPeriods, "Räkenskapsåret har bokföring i Kontera och stängs med bokslut här.", "The fiscal year has bookkeeping in Kontera and is closed by its year-end here.", "Lock it, run the year-end and close it."},
	{AccrualsPending, s409, GroupPeriods, "Periodiseringar daterade i perioden är inte bokförda.", "Accrual releases dated in the period are not booked yet.", "details.months lists them; book them with POST /accruals/release, or send release_accruals: true on the lock or the year-end."},
	{FiscalYearNotEnded, s409, GroupPeriods, "Räkenskapsåret har inte tagit slut: bokslut och stängning görs efter dess sista dag.", "The fiscal year has not ended: its year-end and close come after its last day.", "details.period_end is its last day; book the rest of the year first."},
	{FiscalPeriodCloseExternalNotEnded, s409, GroupPeriods, "Räkenskapsåret har inte tagit slut.", "The fiscal year has not ended yet.", "Close it externally after its last day."},
	{AccountBalanceOutOfRange, s400, GroupBookkeeping, "Kontots saldo skulle passera 999 999 999 999,99 kronor.", "The account's balance would pass 999,999,999,999.99 kronor.", "Book the amount on another account, or split the business over companies."},
	{OpeningBalanceMismatch, s400, GroupPeriods, "Nästa års ingående balans stämmer inte med årets utgående balans.", "The next year's opening balance differs from this year's closing balance.", "Run the year-end again: it replaces the next year's opening balance."},
	{OBPreviousYearClosed, s409, GroupPeriods, "Föregående räkenskapsår är stängt: årets ingående balans ligger fast.", "The previous fiscal year is closed: this year's opening balance is fixed.", "Only a year closed outside Kontera can be re-opened (POST .../reopen-external)."},
	{OBPreviousYearInBooks, s409, GroupPeriods, "Ingående balans följer av föregående års bokföring i Kontera.", "The opening balance follows from the previous year's bookkeeping in Kontera.", "Run the previous year's year-end: it sets and replaces this opening balance."},
	{EntryOwnedByYearEnd, s409, GroupBookkeeping, "Verifikationen skapades av bokslutet och ändras bara genom att köra bokslutet igen.", "The entry was written by the year-end and changes only by running the year-end again.", "Post the change in the year, then run its year-end again."},
	{OperationNotFound, s404, GroupGeneric, "Operationen hittades inte.", "The operation was not found.", "Check the id; an operation's id is in the 202 answer that started it (operation_id)."},
	{CustomerOrgNumberIsPersonal, s400, GroupCustomers, "Organisationsnumret är ett personnummer, vilket bara går för privatpersoner och enskilda firmor.", "The organisation number is a personal number, which only individuals and Swedish sole traders may have.", "Use customer_type individual (or swedish_business for a sole trader), or the company's own registration number."},
	{DimensionNotFound, s404, GroupEndpoint, "Dimensionen hittades inte.", "The dimension was not found.", "List the dimensions with GET /dimensions; the path takes the row id, not sie_dim_no."},
	{DimensionValueNotFound, s404, GroupEndpoint, "Dimensionsvärdet hittades inte.", "The dimension value was not found.", "Check the id; list the dimension's values with GET /companies/{companyId}/dimensions."},
	{DimensionSystemDelete, s400, GroupEndpoint, "Systemdimensionerna 1 och 6 kan inte tas bort.", "The system dimensions 1 and 6 cannot be deleted.", "Archive it with PATCH is_active: false instead."},
	{DimensionInUse, s409, GroupEndpoint, "Dimensionen har bokförts på och kan inte tas bort.", "The dimension has been booked on and cannot be deleted.", "Archive it with PATCH is_active: false instead."},
	{DimensionValueInUse, s409, GroupEndpoint, "Dimensionsvärdet har bokförts på och kan inte tas bort.", "The dimension value has been booked on and cannot be deleted.", "Archive it with PATCH is_active: false instead."},
	{CustomerPersonalNumberConflict, s400, GroupCustomers, "org_number är ett personnummer som skiljer sig från personal_number.", "org_number is a personal number that differs from personal_number.", "Send the personal number once, in personal_number."},
	{InvoiceSendNoCustomerEmail, s400, GroupCustomers, "Kunden har ingen e-postadress att skicka fakturan till.", "The customer has no e-mail address to send the invoice to.", "Set the customer's email (PATCH /customers/{id}), or issue it with mark-sent and deliver it yourself."},
	{InvoiceSendEmailNotConfigured, s503, GroupCustomers, "E-post är avstängt på den här servern; inget skickades och inget ändrades.", "E-mail is turned off on this server; nothing was sent and nothing changed.", "Issue the invoice with mark-sent and deliver the PDF yourself, or ask the operator to configure KONTERA_MAIL_TRANSPORT."},
	{InvoiceEmailNotFound, s404, GroupCustomers, "Fakturan har inget sådant e-postmeddelande.", "The invoice has no such e-mail.", "List them with GET /invoices/{id}/emails."},
	{InvoiceEmailNotFailed, s409, GroupCustomers, "Bara ett misslyckat e-postmeddelande skickas igen.", "Only a failed e-mail is sent again.", "details.status says where it is; a queued one is on its way."},
	{PeppolNotReady, s422, GroupCustomers, "Fakturan kan inte skickas som e-faktura ännu; inget ändrades.", "The invoice cannot be sent as an e-invoice yet; nothing changed.", "details.blockers names each rule and the field to fix (GET /invoices/{id}/peppol lists them too)."},
	{PeppolNotConfigured, s503, GroupCustomers, "Ingen Peppol-accesspunkt är konfigurerad på den här servern; inget skickades och inget ändrades.", "No Peppol access point is configured on this server; nothing was sent and nothing changed.", "Send the invoice by e-mail (POST /invoices/{id}/send), or ask the operator to configure KONTERA_PEPPOL_AP."},
	{PeppolAlreadyDelivered, s409, GroupCustomers, "Fakturan är redan skickad som e-faktura.", "The invoice has been sent as an e-invoice already.", "Follow it with GET /invoices/{id}/peppol/deliveries; only a rejected or abandoned delivery may be followed by another."},
	{PeppolSubmissionRejected, s422, GroupCustomers, "Accesspunkten eller mottagaren avvisade e-fakturan.", "The access point or the receiver rejected the e-invoice.", "Read the delivery's error_message, fix the cause (often the customer's peppol_id) and send again."},
	{PeppolSubmissionFailed, s502, GroupCustomers, "E-fakturan kunde inte lämnas till accesspunkten.", "The e-invoice could not be handed to the access point.", "It is tried again by itself; next_attempt_at says when."},
	{EmployeeNotFound, s404, GroupEndpoint, "Den anställda hittades inte.", "The employee was not found.", "List the employees with GET /employees (include_inactive=true shows those who left)."},
	{EmployeeDuplicatePersonnummer, s409, GroupEndpoint, "Företaget har redan en anställd med det personnumret.", "The company already has an employee with that personnummer.", "details.existing_employee_id names them; update that employee instead."},
	{AbsenceHoursConflict, s409, GroupEndpoint, "Frånvaron blir mer än 24 timmar en dag; inget ändrades.", "The absence comes to more than 24 hours on a day; nothing changed.", "details.date and details.hours say where; lower the hours or delete the day's other absence first."},
	{SalaryRegisterDatesLockedByRun, s409, GroupEndpoint, "En beräknad lönekörning har läst dagarna; inget ändrades.", "A calculated salary run has read these days; nothing changed.", "details.salary_run_id names the run: return it to draft (edit it) or correct it, then change the absence."},
	{SalaryRunNotFound, s404, GroupEndpoint, "Lönekörningen hittades inte.", "The salary run was not found.", "List the runs with GET /salary-runs."},
	{SalaryRunDuplicatePeriod, s409, GroupEndpoint, "Det finns redan en lönekörning för perioden.", "A salary run for the period exists already.", "details.existing_salary_run_id names it; add the employees to that run, or correct it if it is booked."},
	{SalaryLineNotFound, s404, GroupEndpoint, "Lönearten hittades inte på lönekörningen.", "The payslip line was not found on the salary run.", "Read the payslip with GET /salary-runs/{id}/employees/{employeeId} to see its lines."},
	{SalaryLineCalculated, s400, GroupEndpoint, "Raden räknas fram av lönekörningen och kan inte läggas till eller ändras för hand.", "The line is calculated by the salary run and cannot be added or changed by hand.", "Register absence with PUT /employees/{id}/absence and calculate again; absence, sjuklön, karens and vacation lines follow from it."},
	{SalaryRunInvalidState, s409, GroupEndpoint, "Lönekörningen är inte i ett läge där det går.", "The salary run is not in a state that allows this.", "details.status says where the run is and details.allowed where it must be; unapprove an approved run before editing it."},
	{SalaryRunNoEmployees, s400, GroupEndpoint, "Lönekörningen har inga anställda.", "The salary run has no employees.", "Add employees with POST /salary-runs/{id}/employees."},
	{SalaryRunApproveValidationFailed, s400, GroupEndpoint, "Lönekörningen kan inte godkännas: uppgifter saknas för några anställda.", "The salary run cannot be approved: some employees lack details.", "details.employees lists each employee and what is missing (bank account, tax table, calculation)."},
	{SalaryPayrollConfigMissing, s409, GroupEndpoint, "Lönekonfiguration saknas för året: skattetabeller eller arbetsgivaravgifter.", "Payroll configuration is missing for the year: tax tables or employer contributions.", "details.missing says which; the operator loads Skatteverket's month tables with `kontera payroll tax-tables YEAR FILE`."},
	{SalaryRunBookingInProgress, s409, GroupEndpoint, "Lönekörningen bokförs redan av en annan begäran.", "The salary run is being booked by another request.", "Wait a moment and read the run; it is booked once."},
	{SalaryRunAlreadyCorrected, s409, GroupEndpoint, "Lönekörningen är redan rättad.", "The salary run has been corrected already.", "details.correction_run_id names the correction run."},
	{AGIIncompleteData, s400, GroupEndpoint, "Arbetsgivardeklarationen saknar uppgifter.", "The employer declaration lacks details.", "details.missing lists them: the company's organisation number, the AGI contact (PATCH /salary/settings) or an employee's personnummer."},
	{VacationYearAlreadyClosed, s409, GroupEndpoint, "Semesteråret är redan stängt.", "The vacation year has been closed already.", "details.closed_at says when; read the balances with GET /employees/{id}/vacation-balance."},
	{APIKeyNotFound, s404, GroupEndpoint, "API-nyckeln finns inte, eller hör till någon vars nycklar du inte hanterar.", "The API key does not exist, or belongs to someone whose keys you do not manage.", "List the keys you may manage (GET /api/v1/api-keys) and use an id from there."},
	{APIKeyGrantExceeded, s403, GroupEndpoint, "En ny nyckel kan inte få mer än nyckeln som skapar den.", "A new key cannot hold more than the key that creates it.", "Ask for what details.field names within the calling key's grant (GET /api/v1/api-key), or create the key with a key that holds it."},
	{APIKeyRevoked, s409, GroupEndpoint, "API-nyckeln är återkallad eller har gått ut.", "The API key is revoked or has expired.", "Create a new key instead (POST /api/v1/api-keys)."},
}

var byCode = func() map[Code]Entry {
	m := make(map[Code]Entry, len(entries))
	for _, e := range entries {
		if _, dup := m[e.Code]; dup {
			panic("apierr: duplicate code " + string(e.Code))
		}
		m[e.Code] = e
	}
	return m
}()

// Lookup returns the catalogue entry of code.
func Lookup(code Code) (Entry, bool) {
	e, ok := byCode[code]
	return e, ok
}

// Catalogue returns every entry, in catalogue order.
func Catalogue() []Entry {
	out := make([]Entry, len(entries))
	copy(out, entries)
	return out
}
