// Package pgtest gives integration tests a PostgreSQL database of their own
// on the server named by MEMGATE_TEST_POSTGRES (scripts/scaleout-up.sh
// starts one and prints the variable). Without it the tests skip, so that
// go test ./... needs no server.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Env names the PostgreSQL server the integration tests use: a URL (or a
// keyword/value string) whose role may CREATE DATABASE.
const Env = "MEMGATE_TEST_POSTGRES"

// ServerURL returns the server's URL, or skips t if Env is not set.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		t.Skip(Env + " is not set: this test needs a PostgreSQL server where its role may CREATE DATABASE " +
			`(eval "$(bash scripts/scaleout-up.sh DIR)" starts one)`)
	}
	return u
}

var serial atomic.Int64

// WithDatabase is base, a URL or a keyword/value string, naming database
// name instead of its own.
func WithDatabase(t testing.TB, base, name string) string {
	t.Helper()
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatalf("%s is not a URL: %v", Env, err)
		}
		u.Path, u.RawPath = "/"+name, ""
		return u.String()
	}
	return base + " dbname=" + name
}

// AdminExec runs statements on the test server's own database.
func AdminExec(t testing.TB, stmts ...string) {
	t.Helper()
	admin(t, func(ctx context.Context, conn *pgx.Conn) {
		for _, st := range stmts {
			if _, err := conn.Exec(ctx, st); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
		}
	})
}

// admin runs f on a connection to the test server's own database, with a
// minute for it all.
func admin(t testing.TB, f func(ctx context.Context, conn *pgx.Conn)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, ServerURL(t))
	if err != nil {
		t.Fatalf("connect to %s: %v", Env, err)
	}
	defer conn.Close(ctx)
	f(ctx, conn)
}

// Fresh creates an empty database, dropped when t ends, and returns its
// URL.
func Fresh(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	name := fmt.Sprintf("memgate_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000, serial.Add(1))
	ident := pgx.Identifier{name}.Sanitize()
	AdminExec(t, "CREATE DATABASE "+ident)
	t.Cleanup(func() { drop(t, ident) })
	return WithDatabase(t, base, name)
}

// drop drops the database ident. A plain DROP DATABASE stops an autovacuum
// worker busy in it (a test that wrote many rows may just have started
// one), which WITH (FORCE) may not do for a role that is not a superuser:
// it must be allowed to signal every backend, the worker's too. FORCE is
// kept for what a test left connected; each is retried while a worker or
// a closing connection is in the way.
func drop(t testing.TB, ident string) {
	t.Helper()
	admin(t, func(ctx context.Context, conn *pgx.Conn) {
		var last error
		for attempt := range 20 {
			stmt := "DROP DATABASE IF EXISTS " + ident
			if attempt%2 == 1 {
				stmt += " WITH (FORCE)"
			}
			if _, last = conn.Exec(ctx, stmt); last == nil {
				return
			}
			var pgErr *pgconn.PgError
			// 55006: in use by other sessions; 42501: FORCE may not signal one.
			if !errors.As(last, &pgErr) || pgErr.Code != "55006" && pgErr.Code != "42501" {
				break
			}
			time.Sleep(time.Duration(attempt+1) * 50 * time.Millisecond)
		}
		t.Fatalf("DROP DATABASE %s: %v", ident, last)
	})
}
