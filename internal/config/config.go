// Package config reads Kontera's configuration from the environment, with
// safe local defaults.
package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/kontera/kontera/internal/aggregator"
	"github.com/kontera/kontera/internal/capability"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/peppol"
	"github.com/kontera/kontera/internal/ratelimit"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/standby"
)

// Config is the configuration of a Kontera process.
type Config struct {
	DatabaseURL string // DATABASE_URL: the application role the server connects as
	// MigrateDatabaseURL is KONTERA_MIGRATE_DATABASE_URL: the owner role
	// that runs the migrations; empty means DATABASE_URL migrates (a
	// setup with one role, or a schema already migrated).
	MigrateDatabaseURL string
	Addr               string // KONTERA_ADDR, default 127.0.0.1:8080
	// AdminAddr is KONTERA_ADMIN_ADDR: where /metrics and /debug/pprof/
	// listen, apart from the API. Empty (or "off") means no admin
	// listener; `kontera dev` defaults it to 127.0.0.1:9090.
	AdminAddr string
	BaseURL   string // KONTERA_BASE_URL, default http://<Addr>
	Secret    []byte // KONTERA_SECRET: signs cursors and URLs
	LogLevel  zapcore.Level
	// RateLimitPerMinute is KONTERA_RATE_LIMIT_PER_MINUTE (default 100, 0 = off).
	RateLimitPerMinute int
	// Capabilities is KONTERA_CAPABILITIES: the paid capabilities every
	// new company holds for good beside its trial ("all", "none" or a
	// list); empty: the trial only.
	Capabilities []capability.Capability
	// DataDir is where `kontera dev` keeps its database and secret (.data).
	DataDir string
	// PIIKey is KONTERA_PII_KEY, 64 hexadecimal digits: the AES-256 key
	// that seals personnummer at rest.
	PIIKey []byte
	// VIESURL is KONTERA_VIES_URL, the EU VIES REST endpoint; empty means
	// offline (no VAT number is ever validated).
	VIESURL string
	// VIESTimeout is KONTERA_VIES_TIMEOUT (default 5s).
	VIESTimeout time.Duration
	// RiksbankURL is KONTERA_RIKSBANK_URL, the Riksbank's exchange rate
	// API (fx.RiksbankURL); empty means offline: a foreign amount books at
	// a rate sent with it, or one loaded with kontera fx import.
	RiksbankURL string
	// InboundSecret is KONTERA_INBOUND_EMAIL_SECRET, the key a mail
	// provider signs the e-mails it posts to /inbound/email with; empty
	// turns the route off (404).
	InboundSecret []byte
	// ImportBatch is KONTERA_IMPORT_BATCH (default 5000): how many
	// vouchers a SIE import posts per committed chunk.
	ImportBatch int
	// WebhookWorkers is KONTERA_WEBHOOK_WORKERS, how many webhook
	// attempts a replica makes at once (default 4).
	WebhookWorkers int
	// WebhookAllowLoopback is KONTERA_WEBHOOK_ALLOW_LOOPBACK=true: webhooks
	// may be delivered to 127.0.0.0/8 and ::1. For tests only; logged as a
	// warning at start.
	WebhookAllowLoopback bool
	// WebhookCAFile is KONTERA_WEBHOOK_CA_FILE, a PEM bundle the webhook
	// client trusts besides the system's (a test receiver's certificate).
	WebhookCAFile string
	// WebhookSweep is KONTERA_WEBHOOK_SWEEP, how often the dispatcher and
	// idle webhook workers look for work no wake-up announced (default 1m).
	WebhookSweep time.Duration
	// EventsKept is KONTERA_EVENTS_KEPT, how long events and ended webhook
	// deliveries are kept (default 720h, 30 days).
	EventsKept time.Duration
	// RiksbankTimeout is KONTERA_RIKSBANK_TIMEOUT (default 5s).
	RiksbankTimeout time.Duration
	// ShutdownTimeout is KONTERA_SHUTDOWN_TIMEOUT (default 20s): how long
	// a stopping server lets requests in flight finish.
	ShutdownTimeout time.Duration
	// AccrualsEvery is KONTERA_ACCRUALS_EVERY (default 1h): how often a
	// replica looks for accrued months that have come due (one replica
	// at a time books them, under a lease); the first look is a minute
	// after the start, or sooner when this is shorter.
	AccrualsEvery time.Duration
	// DBMaxConns is KONTERA_DB_MAX_CONNS (default 32): the pool's size.
	DBMaxConns int
	// ReadDatabaseURL is KONTERA_READ_DATABASE_URL (optional): a hot
	// standby of DATABASE_URL's server, as the application role, that
	// answers the reads marked x-replica-read (docs/scaling.md §3).
	ReadDatabaseURL string
	// ReadMaxWait is KONTERA_READ_MAX_WAIT (default 2s): how long a read
	// with a consistency token waits for the replica before the primary
	// answers it.
	ReadMaxWait time.Duration
	// ReadMaxLag is KONTERA_READ_MAX_LAG (default 10s): further behind
	// than this, the replica is passed over.
	ReadMaxLag time.Duration
	// ReadSticky is KONTERA_READ_STICKY (default 5s, 0 off): for how long
	// after a write a key's reads wait for it on the replica without
	// bringing its token.
	ReadSticky time.Duration
	// StatementTimeout is KONTERA_STATEMENT_TIMEOUT (default 60s; 0 is
	// none): the longest one statement of the server may take.
	StatementTimeout time.Duration
	// DBPrepared is KONTERA_DB_PREPARED (default on): statements with
	// arguments are prepared once per connection. Off for a connection
	// pooler that cannot keep protocol-level prepared statements
	// (PgBouncer before 1.21, or max_prepared_statements 0).
	DBPrepared bool
	// TrustedProxies is KONTERA_TRUSTED_PROXIES (default none): the
	// addresses or CIDR ranges of the proxies in front of Kontera, whose
	// X-Forwarded-For names the client for the failed-authentication limit.
	TrustedProxies []netip.Prefix
	// BlobStore is KONTERA_BLOB_STORE, where documents' bytes are kept:
	// "fs" (default) under BlobDir, or "s3" in the bucket of S3.
	BlobStore string
	// BlobDir is KONTERA_BLOB_DIR (default <KONTERA_DATA_DIR>/documents).
	// One replica, or replicas sharing the volume.
	BlobDir string
	// S3 is the bucket of KONTERA_S3_ENDPOINT, _BUCKET, _REGION,
	// _ACCESS_KEY, _SECRET_KEY, _USE_SSL (default true) and _PREFIX.
	S3 documents.S3Config
	// MailTransport is KONTERA_MAIL_TRANSPORT: "drop" (default: e-mails
	// are written as .eml files to MailDropDir, stored and not sent),
	// "smtp" (sent through KONTERA_SMTP_*) or "off" (sending is refused).
	MailTransport string
	// MailFrom is KONTERA_MAIL_FROM, the address every e-mail is sent
	// from (named as the company); required with smtp.
	MailFrom string
	// MailDropDir is KONTERA_MAIL_DROP_DIR (default <KONTERA_DATA_DIR>/mail).
	MailDropDir string
	// SMTP is KONTERA_SMTP_HOST, _PORT (default 587), _USERNAME,
	// _PASSWORD and _TLS: starttls (default, required), tls or none.
	SMTP mail.SMTP
	// Peppol is KONTERA_PEPPOL_AP (phoss, or off: the default, nothing
	// is sent and send-peppol answers 503), _URL and _TOKEN.
	Peppol peppol.Config
	// BankAggregator is KONTERA_BANK_AGGREGATOR: enable_banking, or none
	// (the default: no bank connections; transactions come by bank file
	// or ingest). enable_banking needs KONTERA_ENABLEBANKING_APP_ID and
	// KONTERA_ENABLEBANKING_KEY_FILE (the application's RSA private key,
	// PEM); KONTERA_ENABLEBANKING_URL (default the live API) and
	// KONTERA_BANK_TIMEOUT (default 30s) may be set.
	BankAggregator string
	bank           *aggregator.EnableBanking
}

// FromEnv reads the configuration. The secret may be absent here: Serve
// refuses to start without one, and `kontera dev` makes one under DataDir.
func FromEnv() (Config, error) {
	c := Config{
		DatabaseURL:        os.Getenv("DATABASE_URL"),
		MigrateDatabaseURL: os.Getenv("KONTERA_MIGRATE_DATABASE_URL"),
		Addr:               env("KONTERA_ADDR", "127.0.0.1:8080"),
		AdminAddr:          os.Getenv("KONTERA_ADMIN_ADDR"),
		RateLimitPerMinute: ratelimit.DefaultPerMinute,
		DataDir:            env("KONTERA_DATA_DIR", ".data"),
		VIESURL:            os.Getenv("KONTERA_VIES_URL"),
		VIESTimeout:        5 * time.Second,
		RiksbankURL:        os.Getenv("KONTERA_RIKSBANK_URL"),
		InboundSecret:      []byte(os.Getenv("KONTERA_INBOUND_EMAIL_SECRET")),
		RiksbankTimeout:    5 * time.Second,
		ShutdownTimeout:    20 * time.Second,
		AccrualsEvery:      time.Hour,
		DBMaxConns:         32,
		ReadDatabaseURL:    os.Getenv("KONTERA_READ_DATABASE_URL"),
		ReadMaxWait:        standby.DefaultMaxWait,
		ReadMaxLag:         standby.DefaultMaxLag,
		ReadSticky:         standby.DefaultSticky,
		StatementTimeout:   time.Minute,
		DBPrepared:         true,
		WebhookWorkers:     4,
		WebhookCAFile:      os.Getenv("KONTERA_WEBHOOK_CA_FILE"),
		EventsKept:         30 * 24 * time.Hour,
		WebhookSweep:       time.Minute,
	}
	if err := c.readWebhooks(); err != nil {
		return c, err
	}
	caps, err := capability.Parse(os.Getenv("KONTERA_CAPABILITIES"))
	if err != nil {
		return c, fmt.Errorf("KONTERA_CAPABILITIES: %w", err)
	}
	c.Capabilities = caps
	if s := os.Getenv("KONTERA_PII_KEY"); s != "" {
		key, err := seal.ParseKey(s)
		if err != nil {
			return c, fmt.Errorf("KONTERA_PII_KEY: %w", err)
		}
		c.PIIKey = key
	}
	for _, d := range []struct {
		name, example string
		into          *time.Duration
	}{{"KONTERA_VIES_TIMEOUT", "5s", &c.VIESTimeout}, {"KONTERA_RIKSBANK_TIMEOUT", "5s", &c.RiksbankTimeout},
		{"KONTERA_SHUTDOWN_TIMEOUT", "20s", &c.ShutdownTimeout}, {"KONTERA_ACCRUALS_EVERY", "1h", &c.AccrualsEvery},
		{"KONTERA_READ_MAX_WAIT", "2s", &c.ReadMaxWait}, {"KONTERA_READ_MAX_LAG", "10s", &c.ReadMaxLag}} {
		if s := os.Getenv(d.name); s != "" {
			v, err := time.ParseDuration(s)
			if err != nil || v <= 0 {
				return c, fmt.Errorf("%s must be a positive duration such as %s, got %q", d.name, d.example, s)
			}
			*d.into = v
		}
	}
	if s := os.Getenv("KONTERA_STATEMENT_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return c, fmt.Errorf("KONTERA_STATEMENT_TIMEOUT must be a duration such as 30s (0 for none), got %q", s)
		}
		c.StatementTimeout = d
	}
	if s := os.Getenv("KONTERA_READ_STICKY"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return c, fmt.Errorf("KONTERA_READ_STICKY must be a duration such as 5s (0 for off), got %q", s)
		}
		c.ReadSticky = d
	}
	if s := os.Getenv("KONTERA_DB_MAX_CONNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return c, fmt.Errorf("KONTERA_DB_MAX_CONNS must be a whole number of 1 or more, got %q", s)
		}
		c.DBMaxConns = n
	}
	for _, f := range strings.FieldsFunc(os.Getenv("KONTERA_TRUSTED_PROXIES"), func(r rune) bool { return r == ',' || r == ' ' }) {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return c, fmt.Errorf("KONTERA_TRUSTED_PROXIES: %q is neither an address nor a CIDR range", f)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	switch s := os.Getenv("KONTERA_DB_PREPARED"); s {
	case "", "on", "true", "1":
	case "off", "false", "0":
		c.DBPrepared = false
	default:
		return c, fmt.Errorf("KONTERA_DB_PREPARED must be on or off, got %q", s)
	}
	c.BlobStore, c.BlobDir = env("KONTERA_BLOB_STORE", "fs"), env("KONTERA_BLOB_DIR", filepath.Join(c.DataDir, "documents"))
	c.S3 = documents.S3Config{Endpoint: os.Getenv("KONTERA_S3_ENDPOINT"), Bucket: os.Getenv("KONTERA_S3_BUCKET"),
		Region: os.Getenv("KONTERA_S3_REGION"), AccessKey: os.Getenv("KONTERA_S3_ACCESS_KEY"),
		SecretKey: os.Getenv("KONTERA_S3_SECRET_KEY"), UseSSL: os.Getenv("KONTERA_S3_USE_SSL") != "false",
		Prefix: os.Getenv("KONTERA_S3_PREFIX")}
	if c.BlobStore != "fs" && c.BlobStore != "s3" {
		return c, fmt.Errorf("KONTERA_BLOB_STORE must be fs or s3, got %q", c.BlobStore)
	}
	if err := c.readMail(); err != nil {
		return c, err
	}
	if err := c.readPeppol(); err != nil {
		return c, err
	}
	if err := c.readBank(); err != nil {
		return c, err
	}
	c.BaseURL = strings.TrimRight(env("KONTERA_BASE_URL", "http://"+c.Addr), "/")
	if s := os.Getenv("KONTERA_SECRET"); s != "" {
		if len(s) < 32 {
			return c, errors.New("KONTERA_SECRET must be at least 32 characters")
		}
		c.Secret = []byte(s)
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("KONTERA_LOG_LEVEL", "info"))); err != nil {
		return c, fmt.Errorf("KONTERA_LOG_LEVEL: %w", err)
	}
	if s := os.Getenv("KONTERA_RATE_LIMIT_PER_MINUTE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return c, fmt.Errorf("KONTERA_RATE_LIMIT_PER_MINUTE must be a whole number >= 0, got %q", s)
		}
		c.RateLimitPerMinute = n
	}
	return c, nil
}

// readMail reads the KONTERA_MAIL_* and KONTERA_SMTP_* settings.
func (c *Config) readMail() error {
	c.MailTransport = env("KONTERA_MAIL_TRANSPORT", "drop")
	c.MailFrom = env("KONTERA_MAIL_FROM", "kontera@localhost")
	c.MailDropDir = env("KONTERA_MAIL_DROP_DIR", filepath.Join(c.DataDir, "mail"))
	c.SMTP = mail.SMTP{Host: os.Getenv("KONTERA_SMTP_HOST"), Port: 587, Username: os.Getenv("KONTERA_SMTP_USERNAME"),
		Password: os.Getenv("KONTERA_SMTP_PASSWORD"), TLS: env("KONTERA_SMTP_TLS", "starttls")}
	if s := os.Getenv("KONTERA_SMTP_PORT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("KONTERA_SMTP_PORT must be a port number, got %q", s)
		}
		c.SMTP.Port = n
	}
	switch c.SMTP.TLS {
	case "starttls", "tls", "none":
	default:
		return fmt.Errorf("KONTERA_SMTP_TLS must be starttls, tls or none, got %q", c.SMTP.TLS)
	}
	switch c.MailTransport {
	case "drop", "off":
	case "smtp":
		if c.SMTP.Host == "" || os.Getenv("KONTERA_MAIL_FROM") == "" {
			return errors.New("KONTERA_MAIL_TRANSPORT=smtp needs KONTERA_SMTP_HOST and KONTERA_MAIL_FROM")
		}
	default:
		return fmt.Errorf("KONTERA_MAIL_TRANSPORT must be smtp, drop or off, got %q", c.MailTransport)
	}
	return nil
}

// readPeppol reads the KONTERA_PEPPOL_* settings and checks them.
func (c *Config) readPeppol() error {
	c.Peppol = peppol.Config{Kind: env("KONTERA_PEPPOL_AP", "off"), URL: os.Getenv("KONTERA_PEPPOL_URL"),
		Token: os.Getenv("KONTERA_PEPPOL_TOKEN")}
	_, err := peppol.New(c.Peppol)
	return err
}

// readBank reads the KONTERA_BANK_* and KONTERA_ENABLEBANKING_* settings
// and makes the aggregator's client.
func (c *Config) readBank() error {
	c.BankAggregator = env("KONTERA_BANK_AGGREGATOR", "none")
	timeout := 30 * time.Second
	if s := os.Getenv("KONTERA_BANK_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("KONTERA_BANK_TIMEOUT must be a positive duration such as 30s, got %q", s)
		}
		timeout = d
	}
	switch c.BankAggregator {
	case "none":
		return nil
	case "enable_banking":
	default:
		return fmt.Errorf("KONTERA_BANK_AGGREGATOR must be enable_banking or none, got %q", c.BankAggregator)
	}
	app, file := os.Getenv("KONTERA_ENABLEBANKING_APP_ID"), os.Getenv("KONTERA_ENABLEBANKING_KEY_FILE")
	if app == "" || file == "" {
		return errors.New("KONTERA_BANK_AGGREGATOR=enable_banking needs KONTERA_ENABLEBANKING_APP_ID and KONTERA_ENABLEBANKING_KEY_FILE")
	}
	key, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("KONTERA_ENABLEBANKING_KEY_FILE: %w", err)
	}
	c.bank, err = aggregator.NewEnableBanking(env("KONTERA_ENABLEBANKING_URL", aggregator.EnableBankingURL), app, key, timeout)
	return err
}

// WriteTimeout is how long the server may take to answer a request: the
// statement timeout and half a minute more (at least a minute), so a
// statement the database cancels still reaches the client as 503
// DATABASE_TIMEOUT rather than as a dropped connection; none when the
// statements have no timeout either.
func (c Config) WriteTimeout() time.Duration {
	if c.StatementTimeout == 0 {
		return 0
	}
	return max(time.Minute, c.StatementTimeout+30*time.Second)
}

// Aggregator answers the bank aggregator the configuration names; nil
// when none is.
func (c Config) Aggregator() *aggregator.EnableBanking { return c.bank }

// AccessPoint answers the Peppol access point the configuration names;
// nil when none is.
func (c Config) AccessPoint() peppol.AccessPoint {
	ap, _ := peppol.New(c.Peppol) // checked by FromEnv
	return ap
}

// Rates is the source of exchange rates: the Riksbank at RiksbankURL, or
// none (offline).
func (c Config) Rates() fx.Source {
	if c.RiksbankURL == "" {
		return nil
	}
	return fx.NewRiksbank(c.RiksbankURL, c.RiksbankTimeout)
}

// Mail answers the mail transport the configuration names; nil is off.
func (c Config) Mail() mail.Transport {
	switch c.MailTransport {
	case "smtp":
		return c.SMTP
	case "off":
		return nil
	}
	return mail.Drop{Dir: c.MailDropDir}
}

// Blobs opens the blob store the configuration names.
func (c Config) Blobs() (documents.Blobs, error) {
	if c.BlobStore == "s3" {
		return documents.NewS3(c.S3)
	}
	return documents.FS{Dir: c.BlobDir}, nil
}

// DevSecret returns the secret kept in dir/secret, making one the first
// time. It is for development only; production sets KONTERA_SECRET.
func DevSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, "secret")
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return []byte(strings.TrimSpace(string(b))), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	buf := make([]byte, 32)
	_, _ = rand.Read(buf)
	s := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// DevPIIKey returns the personnummer key kept in dir/pii.key, making one
// the first time. It is for development only: production sets
// KONTERA_PII_KEY, and a lost key makes every sealed personnummer
// unreadable.
func DevPIIKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, "pii.key")
	if b, err := os.ReadFile(path); err == nil {
		return seal.ParseKey(string(b))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := seal.NewKey()
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return nil, err
	}
	return seal.ParseKey(s)
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// readWebhooks reads the KONTERA_WEBHOOK_* settings, KONTERA_EVENTS_KEPT
// and KONTERA_IMPORT_BATCH (the workers' settings).
func (c *Config) readWebhooks() error {
	if s := os.Getenv("KONTERA_IMPORT_BATCH"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 50000 {
			return fmt.Errorf("KONTERA_IMPORT_BATCH must be a whole number from 1 to 50000, got %q", s)
		}
		c.ImportBatch = n
	}
	if s := os.Getenv("KONTERA_WEBHOOK_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 256 {
			return fmt.Errorf("KONTERA_WEBHOOK_WORKERS must be a whole number from 1 to 256, got %q", s)
		}
		c.WebhookWorkers = n
	}
	switch s := os.Getenv("KONTERA_WEBHOOK_ALLOW_LOOPBACK"); s {
	case "", "false", "0", "off":
	case "true", "1", "on":
		c.WebhookAllowLoopback = true
	default:
		return fmt.Errorf("KONTERA_WEBHOOK_ALLOW_LOOPBACK must be true or false, got %q", s)
	}
	if s := os.Getenv("KONTERA_WEBHOOK_SWEEP"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Second {
			return fmt.Errorf("KONTERA_WEBHOOK_SWEEP must be a duration of a second or more such as 1m, got %q", s)
		}
		c.WebhookSweep = d
	}
	if s := os.Getenv("KONTERA_EVENTS_KEPT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Hour {
			return fmt.Errorf("KONTERA_EVENTS_KEPT must be a duration of an hour or more such as 720h, got %q", s)
		}
		c.EventsKept = d
	}
	return nil
}
