package memgate

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	module       = "github.com/memgate/memgate"
	sqliteStore  = module + "/store/sqlite"
	sqliteDriver = "modernc.org/sqlite"
)

// TestEngineCompilesAgainstTheContracts checks the seams: the packages of the
// read path and the evaluation never import a store or index implementation
// (only the store and index contracts), the engine's one file that wires in
// the embedded default is the only importer of store/sqlite among them, and
// store/sqlite is the only package that imports the SQLite driver.
func TestEngineCompilesAgainstTheContracts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	type pkg struct {
		ImportPath string
		Imports    []string
		Standard   bool
	}
	out, err := exec.Command("go", "list", "-deps", "-json", ".", "./eval", "./gate/train", "./config").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var all []pkg
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	// Only the engine's wiring and config import the SQLite store.
	mayImportSQLiteStore := []string{module, module + "/config"}
	for _, p := range all {
		for _, imp := range p.Imports {
			switch {
			case imp == sqliteDriver || strings.HasPrefix(imp, sqliteDriver+"/"):
				if p.ImportPath != sqliteStore && !strings.HasPrefix(p.ImportPath, sqliteDriver) {
					t.Errorf("%s imports the SQLite driver %s; only %s may", p.ImportPath, imp, sqliteStore)
				}
			case imp == sqliteStore:
				if !slices.Contains(mayImportSQLiteStore, p.ImportPath) {
					t.Errorf("%s imports %s; the engine's contracts should be enough", p.ImportPath, imp)
				}
			}
		}
	}
	// Within the root package, one file wires in the SQLite store.
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var importers []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range af.Imports {
			if path, _ := strconv.Unquote(is.Path.Value); path == sqliteStore {
				importers = append(importers, f)
			}
		}
	}
	if !slices.Equal(importers, []string{"sqlite.go"}) {
		t.Errorf("root files importing %s: %v, want only sqlite.go", sqliteStore, importers)
	}
}

// TestConfigStaysBelowTheServer checks that reading a configuration needs
// no HTTP server: package config validates CORS origins with server/origin,
// not by importing server (and, with it, the MCP SDK and every handler).
func TestConfigStaysBelowTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "./config").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == module+"/server" || p == module+"/mcp" {
			t.Errorf("config depends on %s", p)
		}
	}
}
