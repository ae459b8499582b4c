package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeMetricsAddr: with --metrics-addr, /metrics is served on that
// address alone, and the API's listener answers it as any unknown route.
func TestServeMetricsAddr(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	_, api, lines := startServeLines(t, "with --metrics-addr",
		[]string{"MEMGATE_STORE=" + db, serveArgsEnv + "=--metrics-addr\n127.0.0.1:0"})
	metrics := ""
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, "memgate: metrics on "); ok {
			metrics = rest
		}
	}
	if metrics == "" {
		t.Fatalf("serve did not say where the metrics are:\n%s", strings.Join(lines, "\n"))
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(api + "/metrics"); code != http.StatusNotFound {
		t.Errorf("GET /metrics on the API's address: %d, want 404", code)
	}
	if code, body := get(metrics); code != http.StatusOK || !strings.Contains(body, "memgate_audit_queue") {
		t.Errorf("GET %s: %d, want 200 with memgate's metrics:\n%.300s", metrics, code, body)
	}
}

// A --metrics-addr that is no address, or the API's own, is a usage error.
func TestServeMetricsAddrRefused(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--metrics-addr", "nope"},
		{"serve", "--addr", "127.0.0.1:18080", "--metrics-addr", "127.0.0.1:18080"},
	} {
		if r := run(t, "", append([]string{"--store", "mem:"}, args...)...); r.code != 2 || !strings.Contains(r.stderr, "--metrics-addr") {
			t.Errorf("%v: %+v, want a usage error naming --metrics-addr", args, r)
		}
	}
}

// TestServeCORSOrigins: the configuration file's serve.corsOrigins reach
// the server, and a --cors-origin flag replaces them.
func TestServeCORSOrigins(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "memgate.yaml")
	if err := os.WriteFile(cfg, []byte("serve:\n  corsOrigins: [https://app.example.com]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	allowed := func(api, origin string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodOptions, api+"/v1/search", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", http.MethodPost)
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("Access-Control-Allow-Origin")
	}
	env := []string{"MEMGATE_STORE=" + filepath.Join(dir, "m.db"), "MEMGATE_CONFIG=" + cfg}
	_, api, _ := startServeLines(t, "with the file's origins", env)
	if got := allowed(api, "https://app.example.com"); got != "https://app.example.com" {
		t.Errorf("the file's origin: Allow-Origin %q", got)
	}
	_, api, _ = startServeLines(t, "with --cors-origin", append(env, serveArgsEnv+"=--cors-origin\nhttp://127.0.0.1:5173"))
	if got := allowed(api, "https://app.example.com"); got != "" {
		t.Errorf("the file's origin, replaced by the flag's: Allow-Origin %q", got)
	}
	if got := allowed(api, "http://127.0.0.1:5173"); got != "http://127.0.0.1:5173" {
		t.Errorf("the flag's origin: Allow-Origin %q", got)
	}
	_, api, lines := startServeLines(t, "with --cors-origin *", append(env, serveArgsEnv+"=--cors-origin\n*"))
	if got := allowed(api, "https://anyone.example"); got != "*" {
		t.Errorf(`"*": Allow-Origin %q`, got)
	}
	if !strings.Contains(strings.Join(lines, "\n"), "any web page may call the API") {
		t.Errorf("serve did not warn about --cors-origin *:\n%s", strings.Join(lines, "\n"))
	}
}

// An origin a browser never sends is a usage error naming the flag.
func TestServeCORSOriginRefused(t *testing.T) {
	for _, origin := range []string{"https://app.example.com/", "app.example.com", "*,https://a.example"} {
		r := run(t, "", "--store", "mem:", "serve", "--cors-origin", origin)
		if r.code != 2 || !strings.Contains(r.stderr, "--cors-origin") {
			t.Errorf("--cors-origin %s: %+v, want a usage error naming --cors-origin", origin, r)
		}
	}
}
