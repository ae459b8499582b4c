package postgres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TestCheckURL: a URL whose form is wrong is refused, with the reason and
// without the password; one whose form is right passes, whatever files or
// variables pgx would read for it when the store is opened.
func TestCheckURL(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"postgres://memgate:s3cret@db:5432/memgate", ""},
		{"postgresql://memgate:s3%2Fcret@db/memgate?sslmode=verify-full&sslrootcert=/missing", ""},
		{"postgres://memgate:p@ss:s3cret@db/memgate", "%40"},
		{"postgres:///memgate?host=/var/run/postgresql", ""},
		{"postgres://db1:5432,db2:5433/memgate", ""},
		{"postgres://[::1]:5432/memgate", ""},
		{"postgres://db/memgate?user=a@b", "%40"},
		{"postgres://db/memgate?user=a%40b", ""},
		{"postgres://u:12/s3cret?x=s3crtail@127.0.0.1:1/db", "%2F"},
		{"postgres://u:12,s3cret/?a=@127.0.0.1:1/db", "%2F"},
		{"", "empty"},
		{"postgres://memgate:s3cret@db:port/memgate", "port is not a number"},
		{"postgres://memgate:s3cret@db1:5432,db2:x/memgate", "port is not a number"},
		{"postgres://memgate:s3%zzcret@db/memgate", "%-escape"},
		{"postgres://memgate:12/s3cret@db:5432/memgate", "percent-encode '/' as %2F"},
		{"postgres://memgate:/s3cret@db/memgate", "percent-encode '/' as %2F"},
		{"postgres://memgate:s3cret\x7f@db/memgate", "character"},
		{"postgres://memgate:pre@s3cret@db/memgate", "%40"},             // pgx: host "s3cret@db"
		{"postgres://memgate:s3#cret@db:5432/memgate", ""},              // libpq takes these raw
		{"postgres://memgate:s3?cret@db/memgate", ""},                   //
		{"postgres://memgate:s3[cr]et@db/memgate", ""},                  //
		{"postgres://memgate:s3cret@127.0.0.1:1,localhost/memgate", ""}, // a later host without a port
		{"postgres://memgate:s3cret@[::1]:1,[::1]/memgate", ""},         //
		{"postgres://memgate:s3cret@db/db%40prod", ""},                  // a database with an '@', encoded
		{"postgres://memgate:s3cret@db/db@prod", "an '@' follows"},
		{"postgres://memgate:s3cret@[::1/memgate", "IPv6"},
		{"host=db password=s3cr@t dbname=x", ""}, // keyword=value: pgx's business
		// What pgx's parser refuses in the URL itself, as Open would.
		{"postgres://memgate:s3cret@db/memgate?sslmode=bogus", "sslmode is invalid"},
		{"postgres://memgate:s3cret@db/memgate?pool_max_conns=abc", "pool_max_conns"},
		{"postgres://memgate:s3cret@db/memgate?pool_max_conns=0", "pool_max_conns too small"},
		{"postgres://memgate:s3cret@db/memgate?pool_max_conn_lifetime=soon", "pool_max_conn_lifetime"},
		{"postgres://memgate:s3cret@db/memgate?statement_cache_capacity=many", "statement_cache_capacity"},
		{"postgres://memgate:s3cret@db/memgate?default_query_exec_mode=fast", "default_query_exec_mode"},
		{"postgres://memgate:s3cret@db/memgate?connect_timeout=soon", "connect_timeout"},
		{"postgres://memgate:s3cret@db/memgate?connect_timeout=-1", "connect_timeout"},
		{"postgres://memgate:s3cret@db/memgate?target_session_attrs=fastest", "target_session_attrs"},
		{"postgres://memgate:s3cret@db/memgate?channel_binding=maybe", "channel_binding"},
		{"postgres://memgate:s3cret@db/memgate?min_protocol_version=9", "min_protocol_version"},
		{"postgres://memgate:s3cret@db/memgate?min_protocol_version=3.2&max_protocol_version=3.0", "min_protocol_version"},
		{"postgres://memgate:s3cret@db/memgate?require_auth=telepathy", "require_auth"},
		{"postgres://memgate:s3cret@db:0/memgate", "invalid port"},
		{"postgres://memgate:s3cret@db:65536/memgate", "invalid port"},
		{"postgres://memgate:s3cret@db/memgate?port=x", "invalid port"},
		{"postgres://memgate:s3cret@db1,db2,db3/memgate?port=1,2", "could not match"},
		{"postgres://memgate:s3cret@db/memgate?sslmode", "failed to parse as URL"},
		// an '&' in a password given in the query: pgx's reason would quote
		// the piece after it
		{"postgres://memgate:s3cret@db/memgate?password=pre&s3cret", "cannot be used (want"},
		// an '@' after the user part and no host: the rest of a password
		{"postgres://alex:c0rrect@?battery=s3aple@db:5432/memgate", "an '@' follows the user part's end"},
		{"postgres://memgate:s3cret@db/memgate?sslmode=require&ssl=true&sslmode=bogus", "sslmode is invalid"},
		{"postgres://memgate:s3cret@[]/memgate", "IPv6"},
		{"postgres://memgate:s3%00cret@db/memgate", "password"},
		// What pgx accepts, or reads from files or the environment when the
		// store is opened: Open's to report.
		{"postgres://memgate:s3cret@db/memgate?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", ""},
		{"postgres://memgate:s3cret@db/memgate?sslrootcert=system", ""},
		{"postgres://memgate:s3cret@db/memgate?sslcert=/nonexistent/c.pem&sslkey=/nonexistent/c.key", ""},
		{"postgres://memgate:s3cret@db/memgate?sslcert=/nonexistent/c.pem", ""}, // a key may come from PGSSLKEY
		{"postgres://memgate:s3cret@db/memgate?passfile=/nonexistent&servicefile=/nonexistent", ""},
		{"postgres://memgate:s3cret@db/memgate?service=nosuch", ""}, // the service file's business
		{"postgres://memgate:s3cret@db/memgate?ssl=true", ""},
		{"postgres://memgate:s3cret@db/memgate?sslmode=bogus&ssl=true", ""}, // the alias comes last, and wins
		{"postgres://memgate:s3cret@db/memgate?sslmode=disable&ssl=false", ""},
		{"postgres://memgate:s3cret@db/memgate?pool_max_conns=4&connect_timeout=5&target_session_attrs=read-write&application_name=x", ""},
		{"postgres://memgate:s3cret@/memgate?host=/var/run/postgresql&sslmode=bogus", ""}, // no TLS over a socket
		{"postgres://memgate:s3cret@db1,db2/memgate", ""},
		{"postgres://memgate:s3cret@db1,db2/memgate?port=5432", ""},
		{"postgres://memgate:s3cret@db/memgate?", ""},
		{"postgres://memgate:s3cret@db/memgate?sslmode=require&", ""},
		{"postgres://memgate:s3cret@db/memgate?dbname=other", ""},
		{"postgres://db", ""},
		{"postgres://", ""},
	} {
		checkURL(t, tc.url, tc.want)
	}
}

// checkURL fails t unless CheckURL accepts rawURL (want "") or refuses it
// with an error saying want, and unless its error shows nothing of the
// password, whose pieces all begin "s3".
func checkURL(t *testing.T, rawURL, want string) {
	t.Helper()
	err := CheckURL(rawURL)
	switch {
	case want == "" && err != nil:
		t.Errorf("CheckURL(%q): %v", rawURL, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("CheckURL(%q): %v, want an error saying %q", rawURL, err, want)
	case err != nil && strings.Contains(err.Error(), "s3"):
		t.Errorf("CheckURL(%q): the error shows the password: %v", rawURL, err)
	}
}

// TestCheckURLIgnoresTheEnvironment: CheckURL's verdict is the URL's
// alone. PG* variables and files in the home directory that pgx reads,
// all of them wrong, neither make it refuse a good URL nor hide what is
// wrong in a bad one; they are Open's to report.
func TestCheckURLIgnoresTheEnvironment(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".postgresql"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"root.crt", "postgresql.crt", "postgresql.key"} {
		if err := os.WriteFile(filepath.Join(home, ".postgresql", name), []byte("not PEM"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	for k, v := range map[string]string{
		"PGHOST": "a,b,c", "PGPORT": "x", "PGCONNECT_TIMEOUT": "x", "PGSSLMODE": "bogus",
		"PGSSLROOTCERT": "/nonexistent/ca.pem", "PGSSLCERT": "/nonexistent/c.pem", "PGSSLKEY": "/nonexistent/c.key",
		"PGSSLPASSWORD": "x", "PGPASSFILE": "/nonexistent", "PGSERVICEFILE": "/nonexistent",
		"PGTARGETSESSIONATTRS": "x", "PGMINPROTOCOLVERSION": "x", "PGMAXPROTOCOLVERSION": "x",
		"PGCHANNELBINDING": "x", "PGREQUIREAUTH": "x", "PGSSLNEGOTIATION": "x", "PGSSLSNI": "x",
		"PGUSER": "x", "PGDATABASE": "x", "PGAPPNAME": "x",
	} {
		t.Setenv(k, v)
	}
	if _, err := pgxpool.ParseConfig("postgres://memgate:s3cret@db:5432/memgate"); err == nil {
		t.Fatal("pgx accepts a good URL in this environment: the test sets nothing pgx reads")
	}
	for _, tc := range []struct{ url, want string }{
		{"postgres://memgate:s3cret@db:5432/memgate", ""},
		{"postgres://memgate:s3cret@db1,db2/memgate?sslmode=verify-full", ""},
		{"postgres:///memgate", ""},
		{"postgres://memgate:s3cret@db/memgate?sslmode=bogus", "sslmode is invalid"},
		{"postgres://memgate:s3cret@db/memgate?connect_timeout=x", "connect_timeout"},
		{"postgres://memgate:s3cret@db:0/memgate", "invalid port"},
		// what the environment would fill in is not the URL's: judged the
		// same with and without it (helper-58)
		{"postgres://memgate:s3cret@:5432/memgate?sslmode=bogus", "sslmode is invalid"},
		{"postgres://memgate:s3cret@db/memgate?ssl=true&ssl=false", ""},
		{"postgres://memgate:s3cret@db/memgate?host=&sslmode=verify-full", ""},
		{"postgres://memgate:s3cret@[::1]:5432/memgate", ""},
	} {
		checkURL(t, tc.url, tc.want)
	}
	// A service named in the environment may set anything: the URL is
	// then judged by Open alone.
	t.Setenv("PGSERVICE", "nosuch")
	if err := CheckURL("postgres://memgate:s3cret@db:5432/memgate"); err != nil {
		t.Errorf("with $PGSERVICE set: %v", err)
	}
}

// TestOpenError: what pgx refuses in a URL of the right form is said
// without the URL.
func TestOpenError(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"postgres://memgate:s3cret@db/memgate?sslmode=bogus", "sslmode is invalid"},
		{"postgres://memgate:s3cret@db/memgate?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", "/nonexistent/ca.pem"},
		{"postgres://memgate:s3cret@db/memgate?pool_max_conns=abc", "pool_max_conns"},
	} {
		_, perr := pgxpool.ParseConfig(tc.url)
		if perr == nil {
			t.Fatalf("pgx accepts %q", tc.url)
		}
		err := openError(tc.url, perr)
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("openError(%q) = %v, want it to say %q without the password", tc.url, err, tc.want)
		}
	}
	for _, tc := range []struct{ url, reason, want string }{
		{"postgres://memgate:s3cret@db/x", "s3cret is odd", ""},
		{"postgres://db/x?password=s3cret", "s3cret is odd", ""},
		{"postgres://db/x?sslpassword=s3%2Fcret", "s3/cret is odd", ""},
		// pgx quotes the pieces of a URL it cannot split; one may be part
		// of a password (an '&' in it).
		{"postgres://db/x?password=pre&s3cret", `failed to parse as URL (missing key/value separator "=" in URI query parameter: "s3cret")`, "cannot be used (want"},
		// pgx quotes raw ("%s", not %q): a quote or a backslash in the piece
		// ends nothing, so nothing after the first quote is shown
		{"postgres://db/x?sslmode&s3\\", `failed to parse as URL (missing key/value separator "=" in URI query parameter: "s3\\")`, "failed to parse as URL (missing key/value separator …)"},
		{"postgres://db/x?sslmode&s\"3cret", `failed to parse as URL (missing key/value separator "=" in URI query parameter: "s"3cret")`, "failed to parse as URL"},
		{"postgres://db/x`: s3cret?sslmode=bogus", "sslmode is invalid", ""},
		{"postgres://db/x?pool_max_conns=abc", `cannot parse pool_max_conns (strconv.ParseInt: parsing "abc": invalid syntax)`, `cannot parse pool_max_conns (strconv.ParseInt: parsing …)`},
	} {
		err := openError(tc.url, errors.New("cannot parse `"+tc.url+"`: "+tc.reason))
		if strings.Contains(err.Error(), "s3") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("openError(%q, %q) = %v, want it to say %q without the secret", tc.url, tc.reason, err, tc.want)
		}
	}
}

// FuzzURLHidesThePassword: whatever a password holds, and wherever a URL
// gives it (the user part, password=, sslpassword=), neither CheckURL's
// error nor RedactURL shows a piece of it. The password's middle is a
// marker ("QXJ") that no other part of the URL holds.
func FuzzURLHidesThePassword(f *testing.F) {
	for _, s := range [][2]string{{"pre&", ""}, {"pre&", `\`}, {"pre&s\"", ""}, {"c0rrect@?x=", "@db"}, {"a/b", ""}, {"", "&sslmode"}, {"%", "%41"}, {"pre&host=", ""}, {"pre&user=", ""}, {"pre&application_name=", "&sslmode=require"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, before, after string) {
		pw := before + "QXJ" + after
		for _, u := range []string{
			"postgres://alex:" + pw + "@db:5432/memgate?sslmode=require",
			"postgres://db/memgate?password=" + pw + "&connect_timeout=5",
			"postgres://alex@db/memgate?sslmode=require&sslpassword=" + pw,
		} {
			if strings.Count(u, "QXJ") != 1 {
				return // the marker must be the password's own
			}
			if err := CheckURL(u); err != nil && strings.Contains(err.Error(), "QXJ") {
				t.Fatalf("CheckURL(%q) shows the password: %v", u, err)
			}
			if r := RedactURL(u); strings.Contains(r, "QXJ") {
				t.Fatalf("RedactURL(%q) = %q shows the password", u, r)
			}
		}
	})
}
