package postgres

import (
	"errors"
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
		{"postgres://memgate:s3cret@db/db@prod", ""},                    // a database with an '@'
		{"postgres://memgate:s3cret@[::1/memgate", "IPv6"},
		{"host=db password=s3cr@t dbname=x", ""}, // keyword=value: pgx's business
	} {
		err := CheckURL(tc.url)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckURL(%q): %v", tc.url, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckURL(%q): %v, want an error saying %q", tc.url, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "s3"):
			t.Errorf("CheckURL(%q): the error shows the password: %v", tc.url, err)
		}
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
	if err := openError("postgres://memgate:s3cret@db/x", errors.New("cannot parse `postgres://memgate:s3cret@db/x`: s3cret is odd")); strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a reason that holds the password is passed on: %v", err)
	}
}
