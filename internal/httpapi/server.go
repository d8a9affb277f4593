// Package httpapi is the HTTP face of Kontera: the Echo server, the
// middleware chain every request passes through, and the composition of
// the domains' handlers into the generated strict server interface.
package httpapi

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"go.uber.org/zap"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/articles"
	"github.com/kontera/kontera/internal/assets"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/capability"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/discovery"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/expenses"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/inbox"
	"github.com/kontera/kontera/internal/incometax"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/mcp"
	"github.com/kontera/kontera/internal/metrics"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/parties"
	"github.com/kontera/kontera/internal/payables"
	"github.com/kontera/kontera/internal/payfiles"
	"github.com/kontera/kontera/internal/payroll"
	"github.com/kontera/kontera/internal/peppol"
	"github.com/kontera/kontera/internal/portfolio"
	"github.com/kontera/kontera/internal/ratelimit"
	"github.com/kontera/kontera/internal/reconciliation"
	"github.com/kontera/kontera/internal/reports"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/sieexport"
	"github.com/kontera/kontera/internal/sieimport"
	"github.com/kontera/kontera/internal/standby"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/internal/vat"
	"github.com/kontera/kontera/internal/vies"
	"github.com/kontera/kontera/internal/webhooks"
	"github.com/kontera/kontera/openapi"
	"github.com/kontera/kontera/skills"
)

// Config is what the server needs from its environment.
type Config struct {
	DB *store.DB
	// Log receives access and error logs.
	Log *zap.Logger
	// BaseURL is the public URL of the server, without a trailing slash.
	BaseURL string
	// Secret signs cursors.
	Secret []byte
	// RateLimitPerMinute is the per-key limit; 0 turns it off.
	RateLimitPerMinute int
	// AuthFailures limits failed authentications per client address;
	// nil: ratelimit.DefaultFailuresPerMinute.
	AuthFailures *ratelimit.Failures
	// Capabilities are held for good by every new company (the operator's
	// KONTERA_CAPABILITIES); none: the trial only.
	Capabilities []capability.Capability
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client address the failed-authentication limit counts.
	TrustedProxies []netip.Prefix
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// WorkerPoll is how often an idle operations worker looks for work;
	// 0 means the worker's default.
	WorkerPoll time.Duration
	// ImportBatch is how many vouchers an import posts per step; 0 means
	// ledger.BatchSize.
	ImportBatch int
	// AccrualsAtOnce is how many waiting accrued months a release request
	// books itself, more going to an operation; 0 means accrual.Large.
	AccrualsAtOnce int
	// DepreciationsAtOnce is how many asset-months a depreciation request
	// books itself before it queues an operation; 0 is
	// assets.Large (tests lower it).
	DepreciationsAtOnce int
	// PIIKey seals personnummer at rest (32 bytes).
	PIIKey []byte
	// VIES checks EU VAT numbers; nil means offline.
	VIES vies.Checker
	// Blobs keeps documents' bytes (config.Config.Blobs); nil serves no
	// bytes (a catalogue 500 names the missing store).
	Blobs documents.Blobs
	// Mail sends the outbox's e-mails (config.Config.Mail); nil turns
	// sending off (503 INVOICE_SEND_EMAIL_NOT_CONFIGURED).
	Mail mail.Transport
	// MailFrom is the address e-mails are sent from.
	MailFrom string
	// Peppol is the access point e-invoices go through; nil when none is
	// configured (send-peppol answers 503 PEPPOL_NOT_CONFIGURED).
	Peppol peppol.AccessPoint
	// InboundSecret signs the e-mails a mail provider posts to
	// /inbound/email (KONTERA_INBOUND_EMAIL_SECRET); empty: the route
	// is 404.
	InboundSecret []byte
	// Rates is where exchange rates missing from fx_rates are fetched
	// (the Riksbank); nil is offline: only stored rates are known.
	Rates fx.Source
	// Webhooks is how webhooks are delivered (DeliverWebhooks).
	Webhooks WebhookConfig
	// Aggregator is the bank-data service bank connections go through
	// (aggregator.EnableBanking); nil: none (503
	// BANK_AGGREGATOR_NOT_CONFIGURED).
	Aggregator banking.Aggregator
	// Standby is the read replica the reads marked x-replica-read may go
	// to (KONTERA_READ_DATABASE_URL); nil: the primary answers everything.
	// Its pool must be cfg.DB's reader (store.DB.SetReader).
	Standby *standby.Standby
}

// Server is the HTTP API.
type Server struct {
	echo     *echo.Echo
	contract *openapi.Contract
	db       *store.DB
	auth     *auth.Store
	limiter  *ratelimit.Limiter
	failures *ratelimit.Failures
	// trustedProxies: see Config.TrustedProxies.
	trustedProxies []netip.Prefix
	log            *zap.Logger
	base           string
	bodyLimit      int64
	validator      *validator
	grants         *capability.Store
	now            func() time.Time
	worker         *jobs.Worker
	people         *parties.Store
	companies      *company.Store
	deadlines      *deadline.Store
	metrics        *metrics.Metrics
	// outside is the work of an operation that must happen before its
	// transaction opens: I/O to the outside world, such as a registry
	// lookup, is never done inside one (ARCHITECTURE rule 3).
	outside map[string]outsideWork
	// outsideDry are the operations whose outside work only reads, and
	// runs for a dry run too (an exchange rate looked up).
	outsideDry map[string]bool
	// streamed reads the body of an operation that takes it as a stream.
	streamed map[string]streamReader
	docs     *documents.Store
	blobs    documents.Blobs
	sales    *invoicing.Sales
	bought   *payables.Payables
	// ops are the operations, and the leases of the periodic jobs; id
	// names this replica as a lease's holder.
	ops     *jobs.Store
	id      uuid.UUID
	postman *mail.Postman
	// hooks, hookWorker and hookCfg deliver webhooks (DeliverWebhooks).
	hooks      *webhooks.Store
	hookWorker *webhooks.Worker
	hookCfg    WebhookConfig
	// sealedReplies are the operations whose answers carry a secret (a
	// webhook's signing secret) or a personnummer in full (an employee,
	// an AGI file): their stored replays are sealed.
	sealedReplies map[string]bool
	box           *seal.Box
	bank          *banking.Bank
	standby       *standby.Standby
}

// outsideWork reads a validated write (its raw body and path) before its
// transaction and returns the context the handler then gets. It never
// runs for a dry run.
type outsideWork func(ctx context.Context, op string, raw []byte, param func(string) string) context.Context

// The domains' handler types under names of their own, so that handlers
// can embed them all (embedded fields are named after their type).
type (
	discoveryAPI  = discovery.Handler
	authAPI       = auth.Handler
	companyAPI    = company.Handler
	auditAPI      = audit.Handler
	chartAPI      = chart.Handler
	fiscalAPI     = fiscal.Handler
	deadlineAPI   = deadline.Handler
	capabilityAPI = capability.Handler
	ledgerAPI     = ledger.Handler
	jobsAPI       = jobs.Handler
	reportsAPI    = reports.Handler
	partiesAPI    = parties.Handler
	dimensionsAPI = dimensions.Handler
	articlesAPI   = articles.Handler
	portfolioAPI  = portfolio.Handler
	expensesAPI   = expenses.Handler
	assetsAPI     = assets.Handler
	payfilesAPI   = payfiles.Handler
	documentsAPI  = documents.Handler
	invoicingAPI  = invoicing.Handler
	payablesAPI   = payables.Handler
	inboxAPI      = inbox.Handler
	webhooksAPI   = webhooks.Handler
	bankingAPI    = banking.Handler
	bankTxAPI     = banking.TxHandler
	vatAPI        = vat.Handler
	incometaxAPI  = incometax.Handler
	sieAPI        = sieimport.Handler
	sieExportAPI  = sieexport.Handler
	reconAPI      = reconciliation.Handler
	payrollAPI    = payroll.Handler
	accrualAPI    = accrual.Handler
)

// handlers composes the domains' slices of the generated interface; the
// compiler names any operation of the document that no domain serves.
type handlers struct {
	*discoveryAPI
	*authAPI
	*companyAPI
	*auditAPI
	*chartAPI
	*fiscalAPI
	*deadlineAPI
	*capabilityAPI
	*ledgerAPI
	*jobsAPI
	*reportsAPI
	*partiesAPI
	*dimensionsAPI
	*articlesAPI
	*portfolioAPI
	*expensesAPI
	*assetsAPI
	*payfilesAPI
	*documentsAPI
	*invoicingAPI
	*payablesAPI
	*inboxAPI
	*webhooksAPI
	*bankingAPI
	*bankTxAPI
	*vatAPI
	*incometaxAPI
	*sieAPI
	*sieExportAPI
	*reconAPI
	*payrollAPI
	*accrualAPI
}

var _ gen.StrictServerInterface = handlers{}

// New builds the server on cfg.
func New(cfg Config) (*Server, error) {
	contract, err := openapi.Load()
	if err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	audits := audit.NewStore(cfg.DB)
	keys := auth.NewStore(cfg.DB, audits)
	cursors := cursor.New(cfg.Secret)
	s := &Server{
		echo: echo.New(), contract: contract, db: cfg.DB, auth: keys,
		limiter: ratelimit.New(cfg.RateLimitPerMinute), log: cfg.Log, base: cfg.BaseURL,
		failures: cmp.Or(cfg.AuthFailures, ratelimit.NewFailures(cfg.DB, ratelimit.DefaultFailuresPerMinute)), trustedProxies: cfg.TrustedProxies,
		bodyLimit: 1 << 20,
	}
	if s.validator, err = sharedValidator(); err != nil {
		return nil, err
	}
	periods := fiscal.NewStore(cfg.DB, audits)
	accounts := chart.NewStore(cfg.DB, audits)
	grants := capability.NewStore(cfg.DB)
	grants.Default = cfg.Capabilities
	s.grants, s.now = grants, cfg.Now
	deadlines := deadline.NewStore(cfg.DB)
	companies := company.NewStore(cfg.DB, audits, company.Books{
		Chart: accounts, Periods: periods, Deadlines: deadlines, Capabilities: grants})
	s.companies, s.deadlines = companies, deadlines
	journal := ledger.NewStore(cfg.DB, audits, accounts, periods, companies.Ledger)
	journal.PeriodsChanged = companies.RegenerateDeadlines
	dims := dimensions.NewStore(cfg.DB, audits, journal.TagUse)
	journal.CheckDimensions = dims.Check
	ops := jobs.NewStore(cfg.DB)
	var pool *sql.DB // nil in unit tests that start no database
	if cfg.DB != nil {
		pool = cfg.DB.DB.DB
	}
	s.metrics = metrics.New(pool, metrics.Backlogs{
		Operations: func(ctx context.Context) ([]metrics.Queue, error) {
			b, err := ops.Backlogs(ctx)
			out := make([]metrics.Queue, len(b))
			seen := map[string]bool{}
			for i, q := range b {
				out[i] = metrics.Queue{Type: q.Type, Count: q.Count, OldestSeconds: q.Oldest}
				seen[q.Type] = true
			}
			// Every type the worker runs has its series, at 0 when idle,
			// so an alert on it reads a value rather than nothing.
			for _, typ := range s.worker.Types() {
				if !seen[typ] {
					out = append(out, metrics.Queue{Type: typ})
				}
			}
			return out, err
		},
		Outbox: func(ctx context.Context) (metrics.Queue, error) {
			n, oldest, err := outbox.Backlog(ctx, cfg.DB)
			return metrics.Queue{Count: n, OldestSeconds: oldest}, err
		},
	})
	if s.standby = cfg.Standby; s.standby != nil {
		var replica *sql.DB
		if r := cfg.DB.ReadPool(); r != nil {
			replica = r.DB.DB
		}
		s.metrics.WatchReplica(s.standby.State, replica, standby.Reasons)
	}
	s.worker = jobs.NewWorker(ops, cfg.Log)
	s.ops, s.id = ops, uuid.New()
	s.worker.Handle(ledger.YearEndOperation, journal.YearEndJob)
	if cfg.WorkerPoll > 0 {
		s.worker.Poll = cfg.WorkerPoll
	}
	box, err := seal.New(cfg.PIIKey)
	if err != nil {
		return nil, fmt.Errorf("PII key: %w", err)
	}
	s.box, s.sealedReplies = box, map[string]bool{"createWebhook": true, // answers that carry a secret or a personnummer
		"rotateWebhookSecret": true, "createApiKey": true, "rotateApiKey": true,
		"createEmployee": true, "updateEmployee": true, "deactivateEmployee": true, "generateAgi": true}
	people := parties.NewStore(cfg.DB, audits, box)
	s.people = people
	journal.PartyName = people.PartyName
	sales := invoicing.NewStore(cfg.DB)
	var bought *payables.Payables // set below; the registry asks it only once requests run
	registry := parties.NewRegistry(people, parties.Books{
		InvoiceDefaultDays: companies.InvoiceDefaultDays,
		EnsureAccount: func(ctx context.Context, company uuid.UUID, number string) error {
			_, err := accounts.Ensure(ctx, company, []string{number})
			return err
		},
		OpenCustomerInvoices: func(ctx context.Context, company, customer uuid.UUID) ([]parties.OpenInvoice, error) {
			rows, err := sales.Open(ctx, company, customer, ledger.Today(cfg.Now()))
			out := make([]parties.OpenInvoice, len(rows))
			for i, r := range rows {
				out[i] = parties.OpenInvoice{ID: r.ID, Number: r.Number, Status: r.State(), InvoiceDate: r.InvoiceDate,
					DueDate: r.DueDate, Currency: r.Currency, Total: r.Total, BalanceDue: r.Remaining()}
			}
			return out, err
		},
		OpenSupplierInvoices: func(ctx context.Context, company, supplier uuid.UUID) ([]parties.OpenInvoice, error) {
			rows, err := bought.Open(ctx, company, supplier)
			out := make([]parties.OpenInvoice, len(rows))
			for i, r := range rows {
				number := r.Number
				out[i] = parties.OpenInvoice{ID: r.ID, Number: &number, Status: r.State(), InvoiceDate: r.InvoiceDate,
					DueDate: r.DueDate, Currency: r.Currency, Total: r.Total, BalanceDue: r.Remaining()}
			}
			return out, err
		}}, cfg.VIES, cfg.Now)
	s.outside = map[string]outsideWork{"createCustomer": registry.LookupVAT, "bulkCreateCustomers": registry.LookupVAT,
		"updateCustomer": registry.LookupVAT}
	docs := documents.NewStore(cfg.DB)
	s.docs, s.blobs = docs, cfg.Blobs
	journal.Underlag = docs.Underlag
	archive := documents.NewArchive(docs, journal, audits, cfg.Blobs, cfg.Now, func(err error) {
		cfg.Log.Error("documents: after a commit", zap.Error(err))
	})
	journal.MoveUnderlag, journal.HasDocument = archive.MoveUnderlag, documents.HasDocumentSQL
	signer, err := documents.NewSigner(cfg.Secret)
	if err != nil {
		return nil, err
	}
	docsAPI := documents.NewHandler(archive, cfg.Blobs, cursors, documents.URLs{
		Signer: signer, BaseURL: cfg.BaseURL, Now: cfg.Now, Audit: audits})
	s.streamed = map[string]streamReader{"uploadDocument": func(ctx context.Context, r *http.Request) (streamed, context.Context, error) {
		u, err := docsAPI.ReadUpload(r)
		if err != nil {
			return nil, ctx, err
		}
		return u, documents.WithUpload(ctx, u), nil
	}}
	inspect := readUpload(companies)
	s.outside["uploadDocument"] = func(ctx context.Context, _ string, _ []byte, param func(string) string) context.Context {
		company := uuid.MustParse(param("companyId"))
		docsAPI.PutUpload(ctx, company)
		return inspect(ctx, company)
	}
	rates := fx.New(cfg.DB, cfg.Rates)
	bank := newBank(cfg.DB, audits, accounts, companies, journal, rates, docs, archive, sales, ops,
		func() *invoicing.Sales { return s.sales }, func() *payables.Payables { return bought }) // set below; asked only once requests run
	s.worker.Handle(banking.ImportOperation, bank.RunImport)
	s.bank = bank
	if cfg.Aggregator != nil {
		bank.UseAggregator(banking.Consents{Aggregator: cfg.Aggregator, Secret: cfg.Secret, Box: box, Now: cfg.Now,
			Callback: cfg.BaseURL + "/api/v1/bank-connections/callback"})
		s.outside["createBankConnection"] = func(ctx context.Context, _ string, raw []byte, param func(string) string) context.Context {
			var b gen.BankConnectionCreate
			company, err := uuid.Parse(param("companyId"))
			if err != nil || json.Unmarshal(raw, &b) != nil {
				return ctx
			}
			return bank.AskConsent(ctx, company, banking.ConnectRequestOf(b))
		}
		s.outside["syncBankConnection"] = func(ctx context.Context, _ string, _ []byte, param func(string) string) context.Context {
			company, err1 := uuid.Parse(param("companyId"))
			id, err2 := uuid.Parse(param("connectionId"))
			if err1 != nil || err2 != nil {
				return ctx
			}
			return bank.FetchSync(ctx, company, id)
		}
	}
	journal.LockBlocked = bank.LockBlocked
	journal.Now = cfg.Now
	outbox := mail.NewStore(cfg.DB)
	register := articleStore(cfg.DB, audits, accounts)
	s.sales = invoicing.NewSales(sales, invoicing.Books{
		Articles: register.Lines,
		Customer: func(ctx context.Context, company, id uuid.UUID) (invoicing.Customer, error) {
			c, err := people.Customer(ctx, company, id, false)
			if err == nil && c.ArchivedAt != nil {
				return invoicing.Customer{Name: c.Name}, apierr.New(apierr.CustomerNotFound, map[string]any{"customer_id": id,
					"field": "customer_id", "reason": "archived"})
			}
			if apierr.Is(err, apierr.CustomerNotFound) {
				return invoicing.Customer{}, apierr.New(apierr.CustomerNotFound, map[string]any{"customer_id": id, "field": "customer_id"})
			}
			return invoicing.Customer{ID: c.ID, Name: c.Name, PaymentTerms: c.PaymentTerms, Buyer: invoicing.Buyer{
				Type: string(c.Type), Country: c.Country, VATNumber: c.VATNumber != nil, VATValidated: c.VATValidated}}, err
		},
		Settings: func(ctx context.Context, company uuid.UUID) (invoicing.Settings, error) {
			m, err := companies.Settings(ctx, company)
			return invoicing.SettingsOf(m), err
		},
		Rate: rates.Rate,
		HoldCustomer: func(ctx context.Context, company, id uuid.UUID) (invoicing.Party, error) {
			c, err := people.HoldCustomer(ctx, company, id)
			return invoicing.AddresseeOf(c).Party(), err
		},
		Parties: func(ctx context.Context, company, customer uuid.UUID) (invoicing.Party, invoicing.Party, error) {
			m, err := companies.Settings(ctx, company)
			if err != nil {
				return invoicing.Party{}, invoicing.Party{}, err
			}
			org, _ := m["org_number"].(string)
			c, err := people.Customer(ctx, company, customer, false)
			return invoicing.SellerOf(m, org, nil).Party(), invoicing.AddresseeOf(c).Party(), err
		},
		PersonalNumber: people.PersonalNumber,
		KnownAccounts:  accounts.Known,
	}, invoicing.Ledger{
		TakeNumber: func(ctx context.Context, company uuid.UUID) (invoicing.Number, error) {
			n, err := companies.TakeInvoiceNumber(ctx, company)
			out := invoicing.Number{N: n.Number, ShowOCR: n.ShowOCR != nil && *n.ShowOCR, Cash: n.AccountingMethod == "cash",
				DeferBooking: n.DeferBooking != nil && *n.DeferBooking, Seller: sellerParty(n)}
			if n.Prefix != nil {
				out.Prefix = *n.Prefix
			}
			return out, err
		},
		Post:     journal.Post,
		Postable: journal.Postable,
	}, shelf(companies, people, docs, archive, cfg.Blobs, mailroom(outbox, cfg), network(grants, cfg),
		bank.Store().Payees), audits, cfg.Now)
	if cfg.Mail != nil {
		s.postman = mail.NewPostman(outbox, cfg.DB.InTx, cfg.Mail, cfg.MailFrom, s.attach, cfg.Now)
		s.postman.OnFailed(s.sales.EmailFailed)
	}
	staff := payroll.New(cfg.DB, box, audits, payrollBooks(cfg.DB, dims, companies, accounts, bank, journal), cfg.Now)
	var batches *payfiles.Batches // made once payables are: each asks the other
	bought = payables.New(cfg.DB, payables.Books{
		Reserved: func(ctx context.Context, c, id uuid.UUID) (*uuid.UUID, error) { return batches.Reserving(ctx, c, id) },
		Employee: func(ctx context.Context, company, id uuid.UUID) error {
			_, err := staff.Employee(ctx, company, id, false)
			return err
		},
		Supplier: func(ctx context.Context, company, id uuid.UUID) (payables.Supplier, error) {
			sup, err := people.HoldSupplier(ctx, company, id)
			return payables.Supplier{ID: sup.ID, Name: sup.Name, Type: string(sup.Type), ExpenseAccount: sup.ExpenseAccount,
				Currency: sup.Currency}, err
		},
		Facts: func(ctx context.Context, company uuid.UUID) (payables.Facts, error) {
			a, err := companies.ArrivalFacts(ctx, company)
			return arrivalFacts(a), err
		},
		ArrivalSQL:      company.ArrivalSQL,
		Linked:          underlagOf(docs),
		Link:            linkUnderlag(archive),
		Postable:        journal.Postable,
		KnownAccounts:   accounts.Known,
		EnsureAccounts:  ensureAccounts(accounts),
		CheckDimensions: dims.Check,
		Post:            journal.Post,
		Entry:           journal.Get,
		Reverse:         journal.Reverse,
		Strike:          journal.StrikeLines,
		Rate:            rates.Rate,
	}, audits, cfg.Now)
	s.outsideDry = map[string]bool{}
	for op, work := range rateLookups(rates, people, bought, s.sales, bank.Store(), cfg.Now) {
		s.outside[op], s.outsideDry[op] = work, true
	}
	mailbox := inbox.New(inbox.NewStore(cfg.DB), inbox.Books{
		Keep: func(ctx context.Context, c uuid.UUID, f inbox.File, item uuid.UUID) (uuid.UUID, error) {
			st, err := archive.Upload(ctx, c, documents.New{File: documents.Spooled{Size: f.Size, SHA256: f.SHA256},
				Name: f.Name, MimeType: f.Mime, Source: f.Source, InboxItemID: &item})
			return st.Doc.ID, err
		},
		Stamp: linkUnderlag(archive),
		Supplier: func(ctx context.Context, c, id uuid.UUID) error {
			_, err := people.HoldSupplier(ctx, c, id)
			return err
		},
		Match:    people.Matching,
		Register: bought.Create,
		Transaction: func(ctx context.Context, c, id uuid.UUID) error {
			_, err := bank.Store().Transaction(ctx, c, id, false)
			return err
		},
	}, audits, cfg.Now)
	bought.SetInbox(mailbox)
	archive.InboxLinked = mailbox.Linked
	docsAPI.Received = func(ctx context.Context, c uuid.UUID, d documents.Doc) error {
		mime := ""
		if d.MimeType != nil {
			mime = *d.MimeType
		}
		return mailbox.FromUpload(ctx, c, d.FileName, mime, d.Source, d.ID, *d.InboxItemID)
	}
	s.streamed["importBankFile"] = readBankFile
	s.streamed["importSkattekontoStatement"] = readBankFile
	recon := reconciliation.New(cfg.DB, bank, journal, audits, ops, cfg.Now)
	recon.OCRs = sales.OCRsPaidBy
	bank.Changed, bank.Released = recon.Changed, recon.Released
	s.worker.Handle(reconciliation.ProposeOperation, recon.RunPropose)
	s.streamed["receiveInboundEmail"] = inboundEmail(cfg.InboundSecret, companies,
		inbox.Receiver{Blobs: cfg.Blobs}, cfg.Now)
	batches = paymentBatches(cfg.DB, audits, bought, people, bank.Store(), companies, staff, cfg.Now)
	fixed := assetRegister(cfg.DB, audits, companies, accounts, dims, journal, bought, cfg.Now)
	bought.SetAssets(func(ctx context.Context, c uuid.UUID, a payables.AssetLine) error {
		account, invoice := a.Account, a.InvoiceID
		_, err := fixed.Create(ctx, c, assets.Input{Name: a.Name, Class: a.Draft.Class, AcquisitionDate: a.Date,
			AcquisitionValue: a.Value, AssetAccount: &account, LifeMonths: a.Draft.LifeMonths, ResidualValue: a.Draft.Residual,
			DepreciationStart: a.Draft.Start, Dimensions: a.Dimensions, JournalEntryID: a.EntryID, SupplierInvoiceID: &invoice})
		return err
	})
	outlays := expenseClaims(cfg.DB, audits, companies, staff, docs, archive, inbox.NewStore(cfg.DB), accounts, dims,
		journal, rates, batches, cfg.Now)
	bank.SetBatchPayments(batches.Payments, func(ctx context.Context, c, batch, claim uuid.UUID, day time.Time,
		account string) (uuid.UUID, error) {
		_, e, err := outlays.Pay(ctx, c, expenses.PayoutInput{Claims: []uuid.UUID{claim}, Date: day, CashAccount: account,
			Batch: &batch})
		return e.ID, err
	})
	s.outside["createExpenseClaim"], s.outsideDry["createExpenseClaim"] = expenseRate(rates), true
	journal.Reversed = func(ctx context.Context, company uuid.UUID, orig, st ledger.Entry) error {
		if err := bought.Reversed(ctx, company, orig, st); err != nil {
			return err
		}
		if err := outlays.Reversed(ctx, company, orig, st); err != nil {
			return err
		}
		if err := fixed.Reversed(ctx, company, orig, st); err != nil {
			return err
		}
		if err := s.sales.Reversed(ctx, company, orig, st); err != nil {
			return err
		}
		return bank.Reversed(ctx, company, orig, st)
	}
	journal.Replaced = func(ctx context.Context, company uuid.UUID, orig, e ledger.Entry) error {
		if err := bought.Replaced(ctx, company, orig, e); err != nil {
			return err
		}
		if err := outlays.Replaced(ctx, company, orig, e); err != nil {
			return err
		}
		if err := fixed.Replaced(ctx, company, orig, e); err != nil {
			return err
		}
		return s.sales.Replaced(ctx, company, orig, e)
	}
	s.bought = bought
	accruals := accrual.Book{s.sales, bought}
	journal.Accruals = accruals
	journal.Registers, journal.Rates = []ledger.Register{s.sales, bought, bank}, rates
	s.outside["runFiscalYearEnd"] = closingRates(journal, rates, false)
	s.outside["revalueFiscalPeriodCurrencies"] = closingRates(journal, rates, true)
	s.outsideDry["revalueFiscalPeriodCurrencies"] = true
	s.worker.Handle(ledger.RevaluationOperation, journal.RevaluationJob)
	accrualH := accrual.NewHandler(accruals, ops, cursors, cfg.Now)
	if cfg.AccrualsAtOnce > 0 {
		accrualH.Large = cfg.AccrualsAtOnce
	}
	s.worker.Handle(accrual.ReleaseOperation, accrualH.Job)
	salesAPI := invoicing.NewHandler(s.sales, cursors)
	hooksAPI, err := s.webhooks(cfg, box, audits, keys, cursors)
	if err != nil {
		return nil, err
	}
	vatR := vatReturns(cfg, journal, accounts, periods, audits, companies, sales, people)
	companyH := company.NewHandler(companies, keys, cursors, cfg.Now)
	companyH.AccrualsPending = func(ctx context.Context, c uuid.UUID, through time.Time) error {
		return accruals.Pending(ctx, c, through, "lock_date")
	}
	sieH, err := s.sieImports(cfg, journal, accounts, dims, periods, ops, audits, companies, companyH, cursors)
	if err != nil {
		return nil, err
	}
	assetsH := assets.NewHandler(fixed, ops)
	if cfg.DepreciationsAtOnce > 0 {
		assetsH.Large = cfg.DepreciationsAtOnce
	}
	s.worker.Handle(assets.DepreciationOperation, assetsH.Job)
	reportSrc := reportSources(companies, sales, cfg, vatR, bank.Store(), audits, ops, accruals, recon.SignoffsAt)
	reportSrc.DepreciationPending = func(ctx context.Context, c uuid.UUID, through time.Time) (int, any, error) {
		p, err := fixed.Pending(ctx, c, through)
		return len(p), p, err
	}
	h := handlers{
		sieAPI:     sieH,
		reconAPI:   reconciliation.NewHandler(recon, cursors),
		payrollAPI: payroll.NewHandler(staff, cursors),
		accrualAPI: accrualH,
		sieExportAPI: sieexport.NewHandler(cfg.DB, journal, periods, accounts, dims,
			func(ctx context.Context, c uuid.UUID) (sieexport.Company, error) {
				id, err := companies.Identity(ctx, c)
				out := sieexport.Company{Name: id.Name, Form: id.Form}
				if id.OrgNumber != nil {
					out.OrgNumber = *id.OrgNumber
				}
				return out, err
			}, openapi.APIVersion, cfg.Now, cfg.Log),
		invoicingAPI: salesAPI,
		payablesAPI:  payables.NewHandler(bought, cursors),
		inboxAPI:     inbox.NewHandler(mailbox, cursors),
		webhooksAPI:  hooksAPI,
		bankingAPI:   banking.NewHandler(bank),
		bankTxAPI:    banking.NewTxHandler(bank, cursors, cfg.Now),
		partiesAPI:   parties.NewHandler(registry, cursors),
		ledgerAPI:    ledger.NewHandler(journal, ops, cursors, cfg.Now),
		reportsAPI:   reports.NewHandler(journal, periods, accounts, dims, cursors, reportSrc),
		incometaxAPI: incometax.NewHandler(journal, periods, accounts, func(ctx context.Context, c uuid.UUID) (incometax.Company, error) {
			id, err := companies.Identity(ctx, c)
			return incometax.Company{Name: id.Name, Form: id.Form, OrgNumber: id.OrgNumber, PostalCode: id.PostalCode,
				City: id.City}, err
		}, cfg.Now),
		vatAPI:        vat.NewHandler(vatReturns(cfg, journal, accounts, periods, audits, companies, sales, people), nil),
		dimensionsAPI: dimensions.NewHandler(dims),
		articlesAPI:   articles.NewHandler(register, cursors),
		expensesAPI:   expenses.NewHandler(outlays, cursors),
		assetsAPI:     assetsH,
		payfilesAPI:   payfiles.NewHandler(batches, cursors),
		portfolioAPI: portfolio.NewHandler(portfolioSources(keys, companies, bank.Store(), inbox.NewStore(cfg.DB), journal,
			sales, deadlines, reconciliation.NewStore(cfg.DB), cfg.Now), cursors),
		documentsAPI: docsAPI,
		jobsAPI: jobs.NewHandler(ops, func(ctx context.Context, company uuid.UUID) (bool, error) {
			a, err := keys.Access(ctx, auth.KeyFrom(ctx), company)
			return a != nil, err
		}),
		discoveryAPI:  discovery.NewHandler(contract, cfg.DB, cfg.BaseURL, cfg.Now),
		authAPI:       auth.NewHandler(keys, cursors, cfg.Now),
		companyAPI:    companyH,
		chartAPI:      chart.NewHandler(accounts),
		fiscalAPI:     fiscal.NewHandler(periods, companies.RegenerateDeadlines),
		deadlineAPI:   deadline.NewHandler(deadlines, cfg.Now),
		capabilityAPI: capability.NewHandler(grants, cfg.Now),
		auditAPI: audit.NewHandler(audits, cursors, func(ctx context.Context) bool {
			a := auth.AccessFrom(ctx)
			return a != nil && a.SeesSnapshots()
		}),
	}

	e := s.echo
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(s.requestID, s.accessLog, s.recover)
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: "1M", Skipper: s.streams}))
	e.Use(s.guard, s.beforeWork, s.unitOfWork, s.replicaRead)
	gen.RegisterHandlers(e, gen.NewStrictHandler(h, nil))
	resources := []mcp.Resource{
		{URI: "kontera:llms.txt", Name: "llms.txt", MIMEType: "text/markdown", Path: "/llms.txt",
			Description: "Read first: what Kontera is, its conventions and how to use the API."},
		{URI: "kontera:skills/index.json", Name: "skills", MIMEType: "application/json", Path: "/.well-known/skills/index.json",
			Description: "The skills index: the skill and its reference files."},
		{URI: "kontera:skills/kontera-api/SKILL.md", Name: "SKILL.md", MIMEType: "text/markdown",
			Path: "/.well-known/skills/kontera-api/SKILL.md", Description: "The skill: how to keep a company's books through the API."},
		{URI: "kontera:openapi.json", Name: "openapi.json", MIMEType: "application/json", Path: "/api/v1/openapi.json",
			Description: "The OpenAPI 3.1 document the tools are made from."},
	}
	skill, err := fs.Sub(skills.Files, skills.Name)
	if err != nil {
		return nil, err
	}
	guides, err := discovery.Guides(skill)
	if err != nil {
		return nil, err
	}
	for _, g := range guides {
		name := strings.TrimSuffix(g.File, ".md")
		resources = append(resources, mcp.Resource{URI: "kontera:skills/kontera-api/references/" + g.File, Name: g.File,
			Title: g.Title, Description: "Task guide: " + g.Title + ", step by step with the tools in order.",
			MIMEType: "text/markdown", Path: "/.well-known/skills/kontera-api/references/" + g.File, Prompt: name})
	}
	agents := mcp.Handler(contract, openapi.Document, s, openapi.APIVersion, resources)
	// MCP (streamable HTTP) for agents: a tool per operation, each call
	// made through this server as its request.
	e.Any("/mcp", echo.WrapHandler(agents))
	return s, nil
}

// vatReturns are the VAT returns over the books, the EU sales list read
// from the invoices with each buyer's VAT number.
func vatReturns(cfg Config, journal *ledger.Store, accounts *chart.Store, periods *fiscal.Store, audits *audit.Store,
	companies *company.Store, sales *invoicing.Store, people *parties.Store) *vat.Returns {
	r := vat.NewReturns(cfg.DB, journal, accounts, periods, vat.NewStore(cfg.DB, audits),
		func(ctx context.Context, c uuid.UUID) (vat.Declarant, error) {
			var d vat.Declarant
			return d, companies.Declarant(ctx, c, &d)
		}, cfg.Now)
	r.Sales = func(ctx context.Context, c uuid.UUID, from, to time.Time) ([]vat.Sale, error) {
		rows, err := sales.EUSalesIn(ctx, c, from, to)
		if err != nil {
			return nil, err
		}
		buyers := map[uuid.UUID]*string{}
		out := make([]vat.Sale, len(rows))
		for i, s := range rows {
			vatNumber, ok := buyers[s.CustomerID]
			if !ok {
				cust, err := people.Addressee(ctx, c, s.CustomerID)
				if err != nil {
					return nil, err
				}
				vatNumber, buyers[s.CustomerID] = cust.VATNumber, cust.VATNumber
			}
			kind := map[string]string{"eu_goods": vat.Goods, "eu_services": vat.Services,
				"eu_triangulation": vat.Triangulation}[s.Treatment]
			out[i] = vat.Sale{InvoiceID: s.ID, CustomerID: s.CustomerID, CustomerName: s.CustomerName,
				VATNumber: vatNumber, Kind: kind, Amount: s.AmountSEK, Unvalidated: !s.Validated}
		}
		return out, nil
	}
	return r
}

// reportSources are what the reports read of the company and the
// invoice registers.
func reportSources(companies *company.Store, sales *invoicing.Store, cfg Config, vatR *vat.Returns, bank *banking.Store,
	audits *audit.Store, ops *jobs.Store, accruals accrual.Book,
	signoffs func(context.Context, uuid.UUID, time.Time) (map[string]gen.ReconciliationSignoff, error)) reports.Sources {
	bought := payables.NewStore(cfg.DB)
	return reports.Sources{
		Now: cfg.Now, Audit: audits, Operations: ops, AccrualsWaiting: accruals.Waiting, Signoffs: signoffs,
		VATStatuses: func(ctx context.Context, c uuid.UUID, from, to time.Time) ([]reports.VATStatus, error) {
			list, err := vatR.Statuses(ctx, c, from, to)
			out := make([]reports.VATStatus, len(list))
			for i, s := range list {
				out[i] = reports.VATStatus{Label: s.Period.Label(), TaxPeriod: s.Period.TaxPeriod(), Start: s.Period.Start,
					End: s.Period.End, Filed: s.Filed, Settled: s.Settled, Accounts: s.Accounts}
			}
			return out, err
		},
		CashBalances: func(ctx context.Context, c uuid.UUID, day time.Time) ([]reports.CashBalance, error) {
			list, err := bank.BalancesOn(ctx, c, day)
			out := make([]reports.CashBalance, len(list))
			for i, b := range list {
				out[i] = reports.CashBalance{ID: b.ID, Account: b.Account, Name: b.Name, Currency: b.Currency, Balance: b.Balance}
			}
			return out, err
		},
		Company: func(ctx context.Context, c uuid.UUID) (reports.Company, error) {
			id, err := companies.Identity(ctx, c)
			return reports.Company{Name: id.Name, Form: id.Form, OrgNumber: id.OrgNumber, AccountingMethod: id.AccountingMethod}, err
		},
		Receivables: func(ctx context.Context, c uuid.UUID, day time.Time) ([]reports.Outstanding, error) {
			rows, err := sales.OutstandingOn(ctx, c, day)
			out := make([]reports.Outstanding, len(rows))
			for i, r := range rows {
				out[i] = reports.Outstanding{ID: r.ID, Number: r.Number, PartyID: r.CustomerID, PartyName: r.CustomerName,
					InvoiceDate: r.InvoiceDate, DueDate: r.DueDate, Currency: r.Currency, CreditNote: r.CreditNote,
					Total: r.Total, Paid: r.Paid, Open: r.Open, OpenDeduction: r.OpenDeduction, OpenSEK: r.OpenSEK}
			}
			return out, err
		},
		Payables: func(ctx context.Context, c uuid.UUID, day time.Time) ([]reports.Outstanding, error) {
			rows, err := bought.OutstandingOn(ctx, c, day)
			out := make([]reports.Outstanding, len(rows))
			for i, r := range rows {
				number := r.Number
				out[i] = reports.Outstanding{ID: r.ID, Number: &number, PartyID: r.SupplierID, PartyName: r.SupplierName,
					InvoiceDate: r.InvoiceDate, DueDate: r.DueDate, Currency: r.Currency, CreditNote: r.CreditNote,
					Total: r.Total, Paid: r.Paid, Open: r.Open, OpenSEK: r.OpenSEK}
			}
			return out, err
		},
		ReceivablesOpen: sales.OpenTotalOn,
		PayablesOpen:    bought.OpenTotalOn,
		FirstInvoice:    sales.FirstIssued,
		PaymentDays:     sales.PaymentDays,
		TopSuppliers: func(ctx context.Context, c uuid.UUID, from, to time.Time, n int) ([]reports.SupplierTotal, error) {
			rows, err := bought.TopSuppliers(ctx, c, from, to, n)
			out := make([]reports.SupplierTotal, len(rows))
			for i, r := range rows {
				out[i] = reports.SupplierTotal{ID: r.SupplierID, Name: r.Name, Total: r.TotalSEK, Count: r.Count}
			}
			return out, err
		},
	}
}

// arrivalFacts are the company's settings as payables reads them.
func arrivalFacts(a company.Arrival) payables.Facts {
	return payables.Facts{ArrivalNumber: a.Number, VATRegistered: a.VATRegistered, Cash: a.AccountingMethod == "cash",
		DeferBooking: a.DeferBooking != nil && *a.DeferBooking, EntityType: a.EntityType, Now: a.Now}
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// Work runs n operations workers (year-end, imports) until ctx ends.
func (s *Server) Work(ctx context.Context, n int) { s.worker.Run(ctx, n) }

// SealLegacy seals what was stored in clear before numbers were sealed
// (parties.Store.SealLegacy); the server runs it at start.
func (s *Server) SealLegacy(ctx context.Context) (int, error) { return s.people.SealLegacy(ctx) }

// SweepDocuments removes the blobs no document names, written more than
// a day ago (documents.Store.Sweep); the server runs it daily.
func (s *Server) SweepDocuments(ctx context.Context) (int, error) {
	if s.blobs == nil {
		return 0, nil
	}
	return s.docs.Sweep(ctx, s.blobs, s.now())
}

// Admin is the admin listener's handler: /metrics and /debug/pprof/.
func (s *Server) Admin() http.Handler { return s.metrics.Admin() }

// Contract returns the loaded document the server enforces.
func (s *Server) Contract() *openapi.Contract { return s.contract }

// sellerParty is the company as the law's check of an invoice sees it,
// read with its invoice number. The seller is a Swedish company wherever
// its settings say it sits.
func sellerParty(n company.InvoiceNumber) invoicing.Party {
	text := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	street := text(n.AddressLine1)
	if l2 := text(n.AddressLine2); l2 != "" {
		street = strings.TrimPrefix(street+", "+l2, ", ")
	}
	return invoicing.Party{Name: n.Name, Street: street, PostalCode: text(n.PostalCode), City: text(n.City), Country: "SE",
		HasVATNumber: text(n.VATNumber) != "", VATRegistered: n.VATRegistered}
}
