package config

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/memory"
)

func TestParseStore(t *testing.T) {
	tests := []struct {
		in   string
		want Location
		bad  bool
	}{
		{"", Location{Kind: "sqlite", Path: DefaultStore}, false},
		{"data/m.db", Location{Kind: "sqlite", Path: "data/m.db"}, false},
		{"sqlite:m.db", Location{Kind: "sqlite", Path: "m.db"}, false},
		{"sqlite:///var/m.db", Location{Kind: "sqlite", Path: "/var/m.db"}, false},
		{"mem:", Location{Kind: "mem"}, false},
		{"sqlite:", Location{}, true},
		{"postgres://localhost/memgate", Location{Kind: "postgres", Path: "postgres://localhost/memgate"}, false},
		{"weaviate://localhost", Location{}, true},
	}
	for _, tt := range tests {
		got, err := ParseStore(tt.in)
		if tt.bad {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field != "store" {
				t.Errorf("ParseStore(%q) = %v, want a FieldError for store", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseStore(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseStore(f *testing.F) {
	for _, s := range []string{"", "m.db", "sqlite:m.db", "mem:", "postgres://x", "redis://x", "sqlite://", "://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		loc, err := ParseStore(s)
		if err != nil {
			if !errors.Is(err, memory.ErrInvalid) {
				t.Fatalf("ParseStore(%q): error %v is not ErrInvalid", s, err)
			}
			return
		}
		if loc.Kind == "sqlite" && loc.Path == "" {
			t.Fatalf("ParseStore(%q) = a SQLite store with no path", s)
		}
	})
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{EnvStore: "mem:", EnvIndex: "exact", EnvEmbedder: "builtin", EnvPolicy: "p.yaml", EnvGate: "g.model"}
	c := FromEnv(func(k string) string { return env[k] })
	if c.Store != "mem:" || c.Index != "exact" || c.Embedder != "builtin" || c.Policy != "p.yaml" || c.Gate != "g.model" {
		t.Fatalf("FromEnv = %+v", c)
	}
}

// TestOpen builds engines from configurations: the in-memory store, a SQLite
// file that must exist or may be created, and settings that are refused.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	eng, err := Config{Store: "mem:", Access: Create}.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Add(ctx, memory.Memory{UserID: "alex", Text: "prefers aisle seats"}); err != nil {
		t.Fatal(err)
	}
	eng.Close()

	path := filepath.Join(t.TempDir(), "m.db")
	if _, err := (Config{Store: path, Access: Write}).Open(ctx); !errors.Is(err, memgate.ErrNoStore) {
		t.Fatalf("missing store opened for writing: %v", err)
	}
	eng, err = Config{Store: "sqlite:" + path, Access: Create}.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eng.Close()
	eng, err = Config{Store: path, Access: Read}.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Add(ctx, memory.Memory{UserID: "alex", Text: "x"}); !errors.Is(err, memgate.ErrReadOnly) {
		t.Errorf("write through a read-only engine: %v", err)
	}
	eng.Close()

	for _, c := range []Config{
		{Store: "mem:", Access: Read},
		{Store: "mem:", Access: Create, Index: "hnsw"},
		{Store: "mem:", Access: Create, Embedder: "word2vec"},
		{Store: "mem:", Access: Create, Gate: filepath.Join(t.TempDir(), "missing.model")},
	} {
		if eng, err := c.Open(ctx); err == nil {
			eng.Close()
			t.Errorf("%+v opened", c)
		}
	}
	var se *SettingError
	if _, err := (Config{Store: "mem:", Access: Create, Gate: "/nonexistent.model"}).Open(ctx); !errors.As(err, &se) || se.Setting != "gate" {
		t.Errorf("missing gate model: %v, want a SettingError for gate", err)
	}
}

// A PostgreSQL location shows without its password, and one whose form
// is wrong (store/postgres.CheckURL) is refused without showing it either.
func TestLocationHidesThePassword(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		refused  bool
	}{
		{"postgres://memgate:s3cret@127.0.0.1:5432/memgate", "postgres://memgate:xxxxx@127.0.0.1:5432/memgate", false},
		{"postgres://memgate:12/s3cret@db:5432/memgate?sslmode=disable", "postgres://…", true},
		{"postgres://memgate:p@ss:s3cret@db/memgate", "postgres://memgate:xxxxx@…", true},
		{"postgresql://db/memgate?user=memgate&password=s3cret&sslmode=require", "postgresql://db/memgate?…", false},
		{"postgres://db/memgate?sslpassword=s3cret", "postgres://db/memgate?…", false},
		// a key beside a password may be a piece of it
		{"postgres://db/memgate?password=ab&s3cret=ef&sslmode=require", "postgres://db/memgate?…", false},
		{"postgres://db/memgate?password=s3cret&bad=%zz", "postgres://db/memgate?…", true},
		{"postgres://memgate@db/memgate", "postgres://memgate@db/memgate", false},
		{"postgres://127.0.0.1:1/db?user=a@b&password=s3cret", "postgres://…", true},
		{"postgres://u@127.0.0.1:1/db?password=pre%40s3cret", "postgres://u@127.0.0.1:1/db?…", false},
		{"postgres://u@127.0.0.1:1/db?password=pre@s3cret", "postgres://u@127.0.0.1:1/db?…", false}, // no password in the user part to misroute
		// a password in the query hides the query: "pre&host=QXJ" reads as a host
		{"postgres://db/memgate?password=pre&host=s3cret&connect_timeout=5", "postgres://db/memgate?…", false},
		{"postgres://u@127.0.0.1:1/db? password=s3cret", "postgres://u@127.0.0.1:1/db?…", false},
		{"postgres://u@db/x?sslpassword=a%40s3cret&sslmode=verify-full", "postgres://u@db/x?…", false},
		{"postgres://u@db/x?application_name=memgate@laptop&sslmode=verify-full", "postgres://u@db/x?application_name=memgate%40laptop&sslmode=verify-full", false},
		{"postgres://u:pre@s3cret@db/x", "postgres://u:xxxxx@…", true},
		{"postgres://u:s3cret@db/db@prod", "postgres://u:xxxxx@…", true}, // "s3cret@db/db" and host prod?
		{"postgres://u:s3cret@db/db%40prod", "postgres://u:xxxxx@db/db%40prod", false},
	} {
		loc, err := ParseStore(tc.in)
		if (err != nil) != tc.refused {
			t.Errorf("ParseStore(%s): %v, want refused %v", tc.in, err, tc.refused)
		}
		if err != nil {
			if !errors.Is(err, memory.ErrInvalid) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("ParseStore(%s): %v, want an invalid-input error without the password", tc.in, err)
			}
			loc = Location{Kind: "postgres", Path: tc.in} // as a program may build one
		}
		if got := loc.String(); got != tc.want || strings.Contains(got, "s3cret") {
			t.Errorf("%s shows as %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseFile(t *testing.T) {
	f, err := ParseFile([]byte("store: sqlite:m.db\ngate: g.model\ndurableAudit: true\nindexWait: 30s\nserve:\n  addr: 127.0.0.1:9000\n  maxBodyBytes: 1024\n  drain: 5s\n  metricsAddr: 127.0.0.1:9090\n  corsOrigins: [https://app.example.com, 'http://127.0.0.1:5173']\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Store != "sqlite:m.db" || f.Gate != "g.model" || !f.DurableAudit || f.IndexWait.Seconds() != 30 || f.Serve.Addr != "127.0.0.1:9000" ||
		f.Serve.MaxBodyBytes != 1024 || f.Serve.Drain.Seconds() != 5 || f.Serve.MetricsAddr != "127.0.0.1:9090" ||
		!slices.Equal(f.Serve.CORSOrigins, []string{"https://app.example.com", "http://127.0.0.1:5173"}) {
		t.Errorf("ParseFile = %+v", f)
	}
	for _, bad := range []string{
		"stroe: m.db\n",                                       // a typo
		"serve:\n  maxBatch: -1\n",                            // out of range
		"store: redis://x\n",                                  // unsupported
		"store: [1, 2]\n",                                     // wrong type
		"serve:\n  addr: x\n  addr: y\n",                      // repeated
		"serve:\n  metricsAddr: nope\n",                       // not HOST:PORT
		"serve:\n  corsOrigins: [https://app.example.com/]\n", // a path: never an Origin
		"serve:\n  corsOrigins: ['*', https://a.example]\n",   // * with others
		"serve:\n  corsOrigins: https://a.example\n",          // not a list
	} {
		if _, err := ParseFile([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if f, err := ParseFile(nil); err != nil || !reflect.DeepEqual(f, File{}) {
		t.Errorf("empty file: %+v %v", f, err)
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte("store: m.db\nserve:\n  addr: 127.0.0.1:8080\n"))
	f.Add([]byte(`{"store": "mem:", "serve": {"maxBatch": 5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseFile(data) // must not panic
	})
}

// The example configurations in examples/ stay valid.
func TestExampleConfigs(t *testing.T) {
	paths, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example configurations: %v", err)
	}
	for _, p := range paths {
		f, err := LoadFile(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if f.Store == "" || f.Index == "" {
			t.Errorf("%s: no store or index: %+v", p, f)
		}
	}
}
