package cli

import (
	"io"
	"net/http"
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
