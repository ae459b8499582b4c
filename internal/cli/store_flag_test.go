package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memgate/memgate/config"
)

// TestStoreLocation: --store and $MEMGATE_STORE choose the store, --store
// wins over --db, and a location this build cannot open is a usage error
// that names the flag, before any store is touched.
func TestStoreLocation(t *testing.T) {
	dir := t.TempDir()
	fromEnv := filepath.Join(dir, "env.db")
	fromFlag := filepath.Join(dir, "flag.db")
	fromDB := filepath.Join(dir, "db.db")
	t.Setenv(config.EnvStore, fromEnv)

	if r := run(t, "", "add", "--user", "alex", "--id", "e1", "kept in the environment's store"); r.code != 0 {
		t.Fatalf("add via $%s: %d %s", config.EnvStore, r.code, r.stderr)
	}
	if r := run(t, "", "--store", "sqlite:"+fromFlag, "add", "--user", "alex", "--id", "f1", "kept in the flag's store"); r.code != 0 {
		t.Fatalf("add via --store: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "--db", fromDB, "add", "--user", "alex", "--id", "d1", "kept in --db's store"); r.code != 0 {
		t.Fatalf("add via --db: %d %s", r.code, r.stderr)
	}
	tests := []struct {
		args []string
		want string // the id that store holds
	}{
		{[]string{"get", "e1"}, "e1"},
		{[]string{"--store", fromFlag, "get", "f1"}, "f1"},
		{[]string{"--db", fromDB, "get", "d1"}, "d1"},
		{[]string{"--db", fromDB, "--store", fromFlag, "get", "f1"}, "f1"},
	}
	for _, tt := range tests {
		if r := run(t, "", tt.args...); r.code != 0 || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("memgate %v = %d %q %q, want %s", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
	// Each store holds only what was written to it.
	if r := run(t, "", "--store", fromFlag, "get", "e1"); r.code != 1 {
		t.Errorf("e1 found in the flag's store: %d %s", r.code, r.stdout)
	}

	for _, bad := range [][]string{
		{"--store", "redis://127.0.0.1/memgate", "stats"},
		{"--store", "sqlite:", "stats"},
		{"--store", "postgres://alex:s3cret@db.internal:port/memgate", "stats"},          // a port that is no number
		{"--store", "postgres://alex:s3%zzcret@db.internal:5432/memgate", "stats"},       // a broken escape
		{"--store", "postgres://alex:s3cret@db.internal/memgate?sslmode=bogus", "stats"}, // a value pgx refuses
		{"--store", "postgres://alex:s3cret@db.internal:65536/memgate", "stats"},         // a port out of range
		{"--store", "postgres://db.internal/memgate?password=pre&s3cret", "stats"},       // an '&' in the password
		{"--index", "hnsw", "stats"},
		{"--index", "Weaviate://s3cretkey@127.0.0.1:1", "stats"}, // not a scheme this build knows, with a key
		{"--index", "weaviate:s3cretkey@h", "stats"},
	} {
		r := run(t, "", bad...)
		if r.code != 2 || !strings.Contains(r.stderr, bad[0]+":") {
			t.Errorf("memgate %v = %d %q, want a usage error naming %s", bad, r.code, r.stderr, bad[0])
		}
		if strings.Contains(r.stderr, "s3") {
			t.Errorf("memgate %v prints the password: %s", bad, r.stderr)
		}
		if field := strings.TrimPrefix(bad[0], "--"); strings.Contains(r.stderr, bad[0]+": "+field+":") {
			t.Errorf("memgate %v names the field twice: %s", bad, r.stderr)
		}
	}
	// A refused value is reported under the name it was given by.
	for _, tc := range []struct {
		env, value string
		args       []string
		want       string
	}{
		{"", "", []string{"--db", "redis://x", "stats"}, "memgate: --db: scheme"},
		{config.EnvStore, "redis://x", []string{"stats"}, "memgate: $" + config.EnvStore + ": scheme"},
		{config.EnvIndex, "hnsw", []string{"stats"}, "memgate: $" + config.EnvIndex + ": \"hnsw\""},
		{config.EnvIndex, "hnsw", []string{"--index", "hnsw2", "stats"}, "memgate: --index: \"hnsw2\""},
	} {
		if tc.env != "" {
			t.Setenv(tc.env, tc.value)
		}
		if r := run(t, "", tc.args...); r.code != 2 || !strings.HasPrefix(r.stderr, tc.want) {
			t.Errorf("$%s=%q memgate %v = %d %q, want it to begin %q", tc.env, tc.value, tc.args, r.code, r.stderr, tc.want)
		}
		if tc.env != "" {
			t.Setenv(tc.env, "")
		}
	}
}

// TestConfigFile: a configuration file names the store (and the rest);
// flags and the environment win over it; a bad file is an error naming it.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, "")
	fileStore := filepath.Join(dir, "file.db")
	cfg := filepath.Join(dir, "memgate.yaml")
	if err := os.WriteFile(cfg, []byte("store: sqlite:"+fileStore+"\nserve:\n  addr: 127.0.0.1:0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "--config", cfg, "add", "--user", "alex", "--id", "c1", "kept where the file says"); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "--db", fileStore, "get", "c1"); r.code != 0 {
		t.Errorf("the memory is not in the file's store: %d %s", r.code, r.stderr)
	}
	flagStore := filepath.Join(dir, "flag.db")
	if r := run(t, "", "--config", cfg, "--db", flagStore, "add", "--user", "alex", "--id", "c2", "the flag wins"); r.code != 0 {
		t.Fatalf("add with --db: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "--db", fileStore, "get", "c2"); r.code != 1 {
		t.Errorf("--db did not win over the file: %d", r.code)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("stroe: x.db\n"), 0o600)
	if r := run(t, "", "--config", bad, "stats"); r.code != 1 || !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "stroe") {
		t.Errorf("a bad config file: %d %q", r.code, r.stderr)
	}
}

// --help shows $MEMGATE_STORE as the --store default, without its password.
func TestHelpHidesThePassword(t *testing.T) {
	t.Setenv("MEMGATE_STORE", "postgres://memgate:S3CRETPW@db.internal/memgate?password=S3CRETPW")
	r := run(t, "", "stats", "--help")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "S3CRETPW") || !strings.Contains(r.stdout, "postgres://memgate:xxxxx@db.internal/memgate") {
		t.Errorf("stats --help: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
