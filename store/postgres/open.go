package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/store"
)

// Errors of the store's database, beside the store package's (ErrReadOnly,
// ErrNoStore, ErrConflict, …), returned wrapped; test with errors.Is.
var (
	// ErrUnreachable: the PostgreSQL server could not be reached or
	// refused the connection (address, credentials, TLS).
	ErrUnreachable = errors.New("cannot reach the PostgreSQL server")
	// ErrDiskFull: the server's disk is full; nothing of the write was
	// stored.
	ErrDiskFull = errors.New("the PostgreSQL server's disk is full")
)

// Options control OpenWith. The zero value is Open: create the schema if
// there is none, and open the store for reading and writing.
type Options struct {
	// MustExist refuses to create a store: a database (or schema) without
	// memgate's tables, or a database that does not exist, fails with an
	// error wrapping store.ErrNoStore, and nothing is created.
	MustExist bool
	// ReadOnly opens an existing store for reading only: every
	// connection's transactions are read-only (default_transaction_read_only),
	// so every write fails with an error wrapping store.ErrReadOnly. It
	// implies MustExist, and a store of an older schema is refused (open
	// it once writable to upgrade it).
	ReadOnly bool
	// MaxConns bounds the connection pool; 0 keeps the URL's
	// pool_max_conns, or else 16.
	MaxConns int32
}

// Store is a memgate store in a PostgreSQL database (the schema first on
// the connection's search_path). It is safe for concurrent use, also by
// several processes.
type Store struct {
	pool     *pgxpool.Pool
	display  string
	readOnly bool
	// auditLock and memoriesLock are the advisory lock keys of this
	// store's schema (see lock); drainLock is the index outbox's.
	auditLock, memoriesLock, drainLock int64
}

// urlForm is the form of a PostgreSQL URL, for error messages.
const urlForm = "want postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=…]"

// CheckURL reports whether rawURL, a postgres:// or postgresql:// URL, is
// one Open can use, without connecting: a command line checks it with its
// other flags, so that a malformed URL is a usage error found before any
// store is opened. It splits the URL as pgx does (libpq's rules, not
// net/url's), and refuses what pgx would read with part of the password
// elsewhere: the password would then show in a message that names the host
// or the database. Then it asks pgx's own parser about the URL, with every
// setting pgx would take from a file or the environment (certificates, a
// password or service file, PG* variables) replaced by one it accepts
// (see probeURL), and refuses what pgx refuses: a value of a setting, a
// port, a query it cannot split. What the files and the environment hold
// is Open's to report, as is a URL that names a service (service=, or
// $PGSERVICE), whose file may set anything. Its errors never quote the
// URL, nor anything pgx quotes from a URL it cannot split. Other connection
// strings (keyword=value) pass unchecked.
func CheckURL(rawURL string) error {
	if strings.TrimSpace(rawURL) == "" {
		return errors.New("empty PostgreSQL URL")
	}
	p, ok := afterScheme(rawURL)
	if !ok {
		return nil
	}
	bad := func(problem string) error {
		return fmt.Errorf("the PostgreSQL URL cannot be read: %s (%s)", problem, urlForm)
	}
	if strings.ContainsFunc(rawURL, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return bad("it holds a control character")
	}
	for i := 0; i < len(rawURL); i++ {
		if rawURL[i] != '%' {
			continue
		}
		if i+2 >= len(rawURL) || !isHex(rawURL[i+1]) || !isHex(rawURL[i+2]) {
			return bad("a %-escape in it is malformed (write % itself as %25)")
		}
		i += 2
	}
	// The user and password end at the first '@' before any '/'.
	userinfo, hasPassword := false, false
	if i := userEnd(p); i >= 0 {
		hasPassword = strings.Contains(p[:i], ":")
		p, userinfo = p[i+1:], true
	}
	hosts, _, _ := strings.Cut(p, "/")
	hosts, _, _ = strings.Cut(hosts, "?")
	switch {
	case strings.Contains(hosts, "@") || hasPassword && strings.Contains(p, "@"):
		// pgx ends the user part at the first '@'. A later one in the
		// hosts, or anywhere after a password, may be the rest of the
		// password ("alex:pw@?x=y@db", "alex:pw@QXJ?@db"), which pgx would
		// read as a host or a setting and send where it was not meant to
		// go; a URL cannot tell, so such an '@' must be encoded.
		return bad("an '@' follows the user part's end: percent-encode an '@' in the user name, the password, the database or a setting as %40")
	case !userinfo && strings.Contains(p, "@"):
		// Without a user part, an '@' anywhere is likely the end of a
		// password a '/' cut short, its rest now read as the database or
		// a setting: refused, since pgx's messages show those.
		return bad("an '@' follows its host, as when a password holds a '/': percent-encode '/' as %2F, and an '@' in a setting as %40")
	}
	for _, h := range strings.Split(hosts, ",") {
		if strings.HasPrefix(h, "[") { // an IPv6 address
			end := strings.IndexByte(h, ']')
			if end < 0 {
				return bad("an IPv6 host has no closing ']'")
			}
			h = h[end+1:]
		}
		if _, port, found := strings.Cut(h, ":"); found && strings.Trim(port, "0123456789") != "" {
			return bad("a port is not a number")
		}
	}
	probe, ok := probeURL(rawURL, p, hosts)
	if !ok {
		return nil
	}
	if _, err := pgxpool.ParseConfig(probe); err != nil {
		return openError(rawURL, err)
	}
	return nil
}

// probeSettings are the settings probeURL adds to a URL, each with a value
// pgx accepts, in place of what pgx would otherwise take from the
// environment (PG* variables) or from files (in the home directory, or
// named by the URL), so that pgx reads no file and no variable changes its
// verdict. Those marked always replace the URL's own value too (the last
// of a repeated setting wins): they name files, or the passphrase of one.
// The others are added only where the URL gives none.
var probeSettings = []struct {
	key, value string
	always     bool
}{
	{"user", "probe", true}, // else pgx looks the OS user up
	{"passfile", "", true},
	{"servicefile", "", true},
	{"sslrootcert", "", true},
	{"sslcert", "", true},
	{"sslkey", "", true},
	{"sslpassword", "", true},
	{"host", "localhost", false},
	{"port", "5432", false},
	{"connect_timeout", "0", false},
	{"sslmode", "disable", false},
	{"target_session_attrs", "any", false},
	{"min_protocol_version", "", false},
	{"max_protocol_version", "", false},
	{"channel_binding", "", false},
	{"require_auth", "", false},
	{"sslnegotiation", "", false},
	{"sslsni", "", false},
}

// probeURL returns rawURL with probeSettings added to its query, for
// CheckURL to give pgx's parser; p is rawURL after its user part and hosts
// its list of hosts, as CheckURL split them. It returns false when the URL
// cannot be judged on its own: a service (named by the URL or by
// $PGSERVICE) is read from a file that may set anything, and pgx reads it
// whatever the URL says.
func probeURL(rawURL, p, hosts string) (string, bool) {
	given := map[string]bool{
		// pgx takes a port list from the hosts when one has a port, or
		// there is more than one.
		"port": strings.Contains(hosts, ","),
	}
	for _, h := range strings.Split(hosts, ",") {
		name, port, _ := strings.Cut(h, ":")
		if strings.HasPrefix(h, "[") { // an IPv6 address: CheckURL saw its ']'
			end := strings.IndexByte(h, ']')
			name, port = h[:end+1], strings.TrimPrefix(h[end+1:], ":")
		}
		if port != "" {
			given["port"] = true
		}
		if name != "" { // ":5432" names no host: pgx takes $PGHOST's
			given["host"] = true
		}
	}
	_, query, hasQuery := strings.Cut(p, "?")
	ssl := "" // the last ssl=, libpq's alias: "true" is sslmode=require
	for _, pair := range strings.Split(query, "&") {
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, ok1 := uriDecode(rawKey)
		value, ok2 := uriDecode(rawValue)
		if !ok1 || !ok2 {
			continue // pgx refuses it; CheckURL has refused a bad escape
		}
		given[key] = value != "" || key != "host" // an empty host= is none
		if key == "ssl" {
			ssl = value
		}
	}
	if ssl == "true" {
		given["sslmode"] = true
	}
	if given["service"] || os.Getenv("PGSERVICE") != "" {
		return "", false
	}
	var b strings.Builder
	b.WriteString(rawURL)
	sep := "&"
	switch {
	case !hasQuery:
		sep = "?"
	case query == "" || strings.HasSuffix(query, "&"):
		sep = ""
	}
	for _, ps := range probeSettings {
		if !ps.always && given[ps.key] {
			continue
		}
		b.WriteString(sep + ps.key + "=" + ps.value)
		sep = "&"
	}
	return b.String(), true
}

// password returns the password of a postgres:// URL as pgx reads it (up
// to the first '@' before any '/'), still percent-encoded; "" for none.
func password(rawURL string) string {
	p, _ := afterScheme(rawURL)
	if i := userEnd(p); i >= 0 {
		_, pw, _ := strings.Cut(p[:i], ":")
		return pw
	}
	return ""
}

// afterScheme returns rawURL after its "postgresql://" or "postgres://",
// and whether it has one of them.
func afterScheme(rawURL string) (string, bool) {
	if p, ok := strings.CutPrefix(rawURL, "postgresql://"); ok {
		return p, true
	}
	return strings.CutPrefix(rawURL, "postgres://")
}

// uriDecode decodes a key or a value of a URL's query as pgx does: its
// %-escapes ('+' is itself) and no surrounding spaces; false when an
// escape is malformed.
func uriDecode(raw string) (string, bool) {
	d, err := url.PathUnescape(raw)
	return strings.Trim(d, " "), err == nil
}

// userEnd returns the index of the '@' that ends the user part of p, a
// URL after its "scheme://", as pgx (libpq) finds it: the first '@'
// before any '/'; -1 when there is no user part.
func userEnd(p string) int {
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		return i
	}
	return -1
}

// RedactURL returns a postgres:// URL without its password, for display,
// split as pgx splits it (libpq's rules): the user part ends at the first '@' before
// any '/'. Where more '@' follow it in the hosts, or anywhere after a
// password, only the user's name is shown (the rest may be the
// password's), and where one comes with no user part (a password holding
// '/' or '?'), nothing is. A query that gives a password is not shown:
// any setting beside it may be a piece of it. Of the query, only the
// values of settings that hold no secret are shown.
func RedactURL(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	end := -1 // the end of the credentials in rest
	if i := userEnd(rest); i >= 0 {
		hosts, _, _ := strings.Cut(rest[i+1:], "/")
		hosts, _, _ = strings.Cut(hosts, "?")
		if strings.Contains(hosts, "@") || strings.Contains(rest[:i], ":") && strings.Contains(rest[i+1:], "@") {
			// Any later '@' may end a password that holds '@', and
			// what follows the first may be the password's rest (CheckURL
			// refuses such a URL): only the user's name is shown.
			name, _, hasPassword := strings.Cut(rest[:i], ":")
			if hasPassword {
				name += ":xxxxx"
			}
			return scheme + "://" + name + "@…"
		}
		end = i
	} else if strings.Contains(rest, "@") {
		// With no user part, an '@' anywhere may end a password that a
		// '/' or a '?' cut short (CheckURL refuses it): nothing is shown.
		return scheme + "://…"
	}
	user := ""
	if end >= 0 {
		name, _, hasPassword := strings.Cut(rest[:end], ":")
		user = name
		if hasPassword {
			user += ":xxxxx"
		}
		user += "@"
		rest = rest[end+1:]
	}
	hostPath, query, hasQuery := strings.Cut(rest, "?")
	out := scheme + "://" + user + hostPath
	if !hasQuery {
		return out
	}
	if _, inQuery := secrets(s); inQuery {
		// Any setting beside a password may be a piece of it: "?password=
		// pre&host=QXJ" reads as a host "QXJ".
		return out + "?…"
	}
	q := url.Values{}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return out + "?…"
		}
		if key = strings.TrimSpace(key); !shownSettings[key] {
			val = "xxxxx"
		}
		q.Add(key, val)
	}
	return out + "?" + q.Encode()
}

// shownSettings are the connection settings whose values RedactURL
// shows: none of them is a secret.
var shownSettings = map[string]bool{"sslmode": true, "user": true, "dbname": true, "host": true, "port": true,
	"application_name": true, "connect_timeout": true, "search_path": true, "target_session_attrs": true,
	"pool_max_conns": true, "pool_min_conns": true, "sslrootcert": true, "sslcert": true, "sslkey": true}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

// openError is the error of a URL pgx refuses (a setting's value, a
// certificate file it cannot read): pgx's reason, without the URL that its
// message quotes, whose password pgx redacts only on a best-effort basis.
// Where pgx cannot split a URL it quotes the piece it stopped at, raw (a
// quote or a backslash in it ends nothing), and it names some settings'
// values unquoted; either may be part of a password given in the query
// ("?password=pre&s3cret": "s3cret" reads as a setting). So the reason is
// cut at its first quote, and left out when the URL gives a password in
// its query or when it holds a password of the URL.
func openError(rawURL string, err error) error {
	generic := fmt.Errorf("the PostgreSQL URL cannot be used (%s)", urlForm)
	msg := err.Error()
	detail := ""
	if strings.HasPrefix(msg, "cannot parse `") && !strings.Contains(rawURL, "`") {
		if i := strings.Index(msg, "`: "); i > 0 {
			detail = msg[i+3:]
		}
	}
	if i := strings.IndexAny(detail, "\"'`\\"); i >= 0 { // what follows may be a piece of the URL
		detail = strings.TrimRight(detail[:i], " ") + " …)"
	}
	pws, inQuery := secrets(rawURL)
	if detail == "" || inQuery || strings.Contains(detail, "://") {
		return generic
	}
	for _, pw := range pws {
		if strings.Contains(detail, pw) {
			return generic
		}
	}
	return fmt.Errorf("the PostgreSQL URL cannot be used: %s", detail)
}

// secrets returns the passwords of a postgres:// URL, as written and
// percent-decoded: the user part's (as pgx splits it) and the values of
// password and sslpassword in the query; inQuery reports whether the query
// names either.
func secrets(rawURL string) (pws []string, inQuery bool) {
	raw := []string{password(rawURL)}
	p, _ := afterScheme(rawURL)
	if i := userEnd(p); i >= 0 {
		p = p[i+1:]
	}
	if _, query, ok := strings.Cut(p, "?"); ok {
		for _, pair := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(pair, "=")
			if k, ok := uriDecode(k); ok && (k == "password" || k == "sslpassword") {
				raw, inQuery = append(raw, v), true
			}
		}
	}
	for _, s := range raw {
		if d, ok := uriDecode(s); ok && d != strings.Trim(s, " ") {
			pws = append(pws, d)
		}
		pws = append(pws, strings.Trim(s, " "))
	}
	return slices.DeleteFunc(pws, func(s string) bool { return s == "" }), inQuery
}

// Open opens the store at url (postgres://user:password@host:port/db?… or
// a libpq keyword/value string; pool_max_conns and the like as pgxpool
// reads them), creating its schema if the database has none and upgrading
// it if it is older than this build. Several processes may open, and
// create, the same store at the same time. Open is OpenWith with the zero
// Options.
func Open(ctx context.Context, url string) (*Store, error) {
	return OpenWith(ctx, url, Options{})
}

// OpenWith opens the store at url as o says; see Options and Open.
func OpenWith(ctx context.Context, url string, o Options) (*Store, error) {
	if strings.TrimSpace(url) == "" {
		return nil, errors.New("open store: empty PostgreSQL URL")
	}
	if err := CheckURL(url); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", openError(url, err))
	}
	s := &Store{display: display(cfg.ConnConfig), readOnly: o.ReadOnly}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	} else if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 16
	}
	if o.ReadOnly {
		if cfg.ConnConfig.RuntimeParams == nil {
			cfg.ConnConfig.RuntimeParams = map[string]string{}
		}
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("open store %s: %w", s.display, describe(err))
	}
	if err := s.open(ctx, o.MustExist || o.ReadOnly); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("open store %s: %w", s.display, describe(err))
	}
	return s, nil
}

// display is where the store is, for messages: never the password.
func display(c *pgx.ConnConfig) string {
	host := c.Host
	if strings.HasPrefix(host, "/") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s", c.User, host, c.Port, c.Database)
}

// Path is where the store is (the URL without its password), for display.
func (s *Store) Path() string { return s.display }

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Close closes the connection pool, waiting for the connections in use to
// be released. Closing a closed store does nothing.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Pool is the store's connection pool, for tools and tests that need the
// database itself.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// lockKey is the advisory lock key of name in schema: advisory locks are
// per database, and each schema of a database may hold a store.
func lockKey(schema, name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("memgate\x00" + schema + "\x00" + name))
	return int64(h.Sum64())
}

// open checks the connection, brings the schema up to date and computes the
// store's lock keys.
func (s *Store) open(ctx context.Context, mustExist bool) error {
	var schema *string
	if err := s.pool.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	if schema == nil {
		return errors.New("no schema to create memgate's tables in: the search_path names no schema that exists")
	}
	s.auditLock, s.memoriesLock = lockKey(*schema, "audit"), lockKey(*schema, "memories")
	s.drainLock = lockKey(*schema, "outbox")
	return s.migrate(ctx, *schema, mustExist)
}

// schemaState is what the database holds of memgate's schema.
type schemaState struct {
	migrations bool // a schema_migrations table exists
	foreign    bool // without it, a memories table does: not memgate's
	version    int
}

func readSchema(ctx context.Context, q pgxQuerier, schema string) (schemaState, error) {
	var sc schemaState
	err := q.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'schema_migrations'),
		EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'memories')`, schema).Scan(&sc.migrations, &sc.foreign)
	if err != nil || !sc.migrations {
		return sc, err
	}
	sc.foreign = false
	err = q.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&sc.version)
	return sc, err
}

// check refuses a schema this build cannot use.
func (sc schemaState) check(schema string, mustExist bool) error {
	switch {
	case sc.foreign:
		return fmt.Errorf("not a memgate store: schema %q has a memories table but no schema_migrations", schema)
	case sc.version > len(migrations):
		return fmt.Errorf("store schema v%d was written by a newer memgate; this build reads up to v%d", sc.version, len(migrations))
	case mustExist && sc.version == 0:
		return fmt.Errorf("schema %q: %w", schema, store.ErrNoStore)
	}
	return nil
}

// pgxQuerier is what reads need of a pool, a connection or a transaction.
type pgxQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// migrate brings the schema up to date, each migration recorded in
// schema_migrations, all in one transaction. Several processes may do it at
// once: the transaction first takes an advisory lock, and the schema is read
// again under it, so the one that waited sees what the other created and
// does nothing.
func (s *Store) migrate(ctx context.Context, schema string, mustExist bool) error {
	sc, err := readSchema(ctx, s.pool, schema)
	if err != nil {
		return err
	}
	if err := sc.check(schema, mustExist); err != nil {
		return err
	}
	if sc.version == len(migrations) {
		return nil
	}
	if s.readOnly {
		return fmt.Errorf("its schema v%d is older than this memgate's v%d, and a store opened read-only is not upgraded: %w; "+
			"open it once writable (any memgate command that writes upgrades it)", sc.version, len(migrations), store.ErrReadOnly)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey(schema, "migrate")); err != nil {
			return err
		}
		if sc, err = readSchema(ctx, tx, schema); err != nil {
			return err
		}
		if err := sc.check(schema, mustExist); err != nil {
			return err
		}
		if !sc.migrations {
			if _, err := tx.Exec(ctx, `CREATE TABLE schema_migrations (
				version    int4 PRIMARY KEY,
				applied_at timestamptz NOT NULL DEFAULT now()
			)`); err != nil {
				return fmt.Errorf("create schema_migrations: %w", err)
			}
		}
		for v := sc.version; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate schema to v%d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", v+1); err != nil {
				return fmt.Errorf("migrate schema to v%d: %w", v+1, err)
			}
		}
		return nil
	})
}

// SchemaVersion is the schema version of the open store.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	return v, describe(err)
}

// lockKind names an advisory lock a write takes first (see write).
type lockKind int

const (
	noLock lockKind = iota
	// auditLock is held by every write that appends to the audit trail
	// (and so by revocations, forgettings and verdicts): sequence numbers
	// are allocated under it, so the trail commits in sequence order and
	// a reader that continues After a sequence number never misses an
	// event committed later with a smaller one.
	auditLock
	// memoriesLock is held by inserts (and SetIdentity), for the same
	// reason: a List cursor never skips a memory committed later.
	memoriesLock
)

// write runs fn in one transaction and commits it, after taking the
// advisory lock lk. A deadlock or serialization failure the server reports
// is retried a few times; fn must be safe to run again.
func (s *Store) write(ctx context.Context, what string, lk lockKind, fn func(pgx.Tx) error) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = s.writeOnce(ctx, lk, fn)
		if err == nil {
			return nil
		}
		var pe *pgconn.PgError
		if attempt < 3 && errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001") && ctx.Err() == nil {
			time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
			continue
		}
		return fmt.Errorf("%s: %w", what, describe(err))
	}
}

func (s *Store) writeOnce(ctx context.Context, lk lockKind, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		switch lk {
		case auditLock:
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.auditLock); err != nil {
				return err
			}
		case memoriesLock:
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.memoriesLock); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// describe turns the server's and the driver's errors about the database
// (rather than about a request) into a sentence that wraps one of the
// errors callers test for. Other errors are returned as they are.
func describe(err error) error {
	if err == nil {
		return nil
	}
	for _, known := range []error{store.ErrReadOnly, store.ErrNoStore, store.ErrConflict, ErrDiskFull, ErrUnreachable} {
		if errors.Is(err, known) {
			return err // described already
		}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "25006": // read_only_sql_transaction
			return fmt.Errorf("%w: nothing was written (PostgreSQL: %w)", store.ErrReadOnly, err)
		case pe.Code == "53100": // disk_full
			return fmt.Errorf("%w: nothing was written; free some space on the server and retry (PostgreSQL: %w)", ErrDiskFull, err)
		case pe.Code == "23505": // unique_violation
			return fmt.Errorf("%w: %w", store.ErrConflict, err)
		case pe.Code == "3D000", pe.Code == "3F000": // invalid_catalog_name, invalid_schema_name
			return fmt.Errorf("%w: %w", store.ErrNoStore, err)
		case pe.Code == "42501": // insufficient_privilege
			return fmt.Errorf("the PostgreSQL role may not do this; memgate's role must own its database or schema (PostgreSQL: %w)", err)
		case pe.Code == "28000", pe.Code == "28P01", strings.HasPrefix(pe.Code, "08"), pe.Code == "57P03":
			return fmt.Errorf("%w: %w", ErrUnreachable, err)
		}
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return err
}

// Identity returns the embedder identity recorded in the store, and false if
// none is recorded yet (a new store).
func (s *Store) Identity(ctx context.Context) (embed.Identity, bool, error) {
	var name, dim *string
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT value FROM meta WHERE key = 'embedder_name'),
		(SELECT value FROM meta WHERE key = 'embedder_dim')`).Scan(&name, &dim)
	if err != nil {
		return embed.Identity{}, false, fmt.Errorf("read embedder identity: %w", describe(err))
	}
	if name == nil || *name == "" {
		return embed.Identity{}, false, nil
	}
	d := 0
	if dim != nil {
		d, _ = strconv.Atoi(*dim)
	}
	if d <= 0 {
		return embed.Identity{}, false, fmt.Errorf("read embedder identity: corrupt dimension %q", deref(dim))
	}
	return embed.Identity{Name: *name, Dim: d}, true, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// SetIdentity records the embedder identity of a store that has none. It
// fails if a different identity is already recorded.
func (s *Store) SetIdentity(ctx context.Context, id embed.Identity) error {
	return s.write(ctx, "record embedder identity", memoriesLock, func(tx pgx.Tx) error {
		var name, dim *string
		if err := tx.QueryRow(ctx, `SELECT
			(SELECT value FROM meta WHERE key = 'embedder_name'),
			(SELECT value FROM meta WHERE key = 'embedder_dim')`).Scan(&name, &dim); err != nil {
			return err
		}
		if name != nil {
			d, _ := strconv.Atoi(deref(dim))
			if *name == id.Name && d == id.Dim {
				return nil
			}
			return fmt.Errorf("store already records embedder %s", embed.Identity{Name: *name, Dim: d})
		}
		_, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('embedder_name', $1), ('embedder_dim', $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, id.Name, strconv.Itoa(id.Dim))
		return err
	})
}

// Check verifies, cheaply, what the schema does not enforce by itself: the
// schema version, the audit trail's triggers, no id both stored and
// forgotten, lineage links that name no memory at all, and review items
// linked to a search event. It reads indexes and small tables; it is no
// substitute for PostgreSQL's own checks (amcheck) of its files.
func (s *Store) Check(ctx context.Context) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if v != len(migrations) {
		bad("schema v%d, want v%d", v, len(migrations))
	}
	var triggers int
	var bothID, danglingLink *string
	var badItem *int64
	err = s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM pg_trigger WHERE tgrelid = 'audit_events'::regclass AND NOT tgisinternal AND tgenabled <> 'D'),
		(SELECT m.id FROM memories m JOIN tombstones t ON t.id = m.id LIMIT 1),
		(SELECT l.source_id FROM lineage l WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.source_id)
			AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.id = l.source_id) LIMIT 1),
		(SELECT q.seq FROM quarantine q WHERE NOT EXISTS
			(SELECT 1 FROM audit_events e WHERE e.seq = q.search_id AND e.kind = 'search') LIMIT 1)`).
		Scan(&triggers, &bothID, &danglingLink, &badItem)
	if err != nil {
		return fmt.Errorf("integrity check: %w", describe(err))
	}
	if triggers < 2 {
		bad("the audit trail's append-only triggers are missing or disabled (%d of 2)", triggers)
	}
	if bothID != nil {
		bad("memory %s is both stored and forgotten", *bothID)
	}
	if danglingLink != nil {
		bad("a lineage link names %s, neither stored nor forgotten", *danglingLink)
	}
	if badItem != nil {
		bad("review item %d is not linked to a search event", *badItem)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	return nil
}

// Vacuum asks PostgreSQL to reclaim the space of deleted rows now, rather
// than when autovacuum gets to it: after Forget, the deleted row (its text
// and vector) stays in the table's file as a dead tuple until a vacuum
// removes it. See the package documentation for what still keeps it after.
func (s *Store) Vacuum(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "VACUUM (ANALYZE) memories, lineage, supersessions"); err != nil {
		return fmt.Errorf("vacuum: %w", describe(err))
	}
	return nil
}
