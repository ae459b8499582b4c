package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/store/mem"
)

// TestNewRefusesOrigins: a library caller's origins are checked as the
// CLI's and the config file's are, and the error names the option.
func TestNewRefusesOrigins(t *testing.T) {
	eng, err := memgate.New(context.Background(), mem.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, origins := range [][]string{{"https://*.com"}, {"*", "https://a.example"}, {"app.example.com"}} {
		s, err := New(eng, mem.New(), Options{CORSOrigins: origins})
		if err == nil || s != nil || !strings.Contains(err.Error(), "CORSOrigins") {
			t.Errorf("New with origins %q: %v, %v; want no server and an error naming CORSOrigins", origins, s, err)
		}
	}
}

// preflight sends a browser's CORS preflight for a POST with a key and a
// JSON body, and returns the answer's status and headers.
func preflight(t *testing.T, f *fixture, path, origin string, headers string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, f.srv.URL+path, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", http.MethodPost)
	req.Header.Set("Access-Control-Request-Headers", headers)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// withOrigin sends a POST from a page of origin and returns the answer's
// status and headers.
func withOrigin(t *testing.T, f *fixture, key, path, origin, body string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

func TestCORS(t *testing.T) {
	const app, other = "https://app.example.com", "https://evil.example"
	search := `{"query":{"scope":{"userId":"alice"},"text":"anything"}}`

	t.Run("off by default", func(t *testing.T) {
		f := newFixture(t, Options{})
		_, h := preflight(t, f, "/v1/search", app, "authorization,content-type")
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("preflight allowed %q with no origins configured", v)
		}
		status, h := withOrigin(t, f, f.alice, "/v1/search", app, search)
		if status != http.StatusOK || h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("search from a page: %d, Allow-Origin %q; want 200 and no CORS header", status, h.Get("Access-Control-Allow-Origin"))
		}
	})

	t.Run("allowed origin", func(t *testing.T) {
		f := newFixture(t, Options{CORSOrigins: []string{app}})
		status, h := preflight(t, f, "/v1/search", app, "authorization,content-type")
		if status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != app ||
			!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "authorization") ||
			!strings.Contains(h.Get("Access-Control-Allow-Methods"), http.MethodPost) ||
			h.Get("Access-Control-Max-Age") != "600" || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("preflight: %d %v", status, h)
		}
		status, h = withOrigin(t, f, f.alice, "/v1/search", app, search)
		if status != http.StatusOK || h.Get("Access-Control-Allow-Origin") != app ||
			!strings.Contains(h.Get("Vary"), "Origin") {
			t.Errorf("search: %d %v", status, h)
		}
		// A page of an allowed origin still needs a key, and can read why
		// it was refused.
		status, h = withOrigin(t, f, "", "/v1/search", app, search)
		if status != http.StatusUnauthorized || h.Get("Access-Control-Allow-Origin") != app ||
			!strings.Contains(h.Get("Access-Control-Expose-Headers"), "Www-Authenticate") {
			t.Errorf("search without a key: %d %v", status, h)
		}
		// The key's tenant is still the only one it reaches.
		status, _ = withOrigin(t, f, f.alice, "/v1/search", app, `{"query":{"scope":{"userId":"bob"},"text":"anything"}}`)
		if status != http.StatusForbidden {
			t.Errorf("alice's key searched bob's memories from a page: %d", status)
		}
	})

	t.Run("other origin", func(t *testing.T) {
		f := newFixture(t, Options{CORSOrigins: []string{app}})
		_, h := preflight(t, f, "/v1/search", other, "authorization,content-type")
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("preflight of %s allowed %q", other, v)
		}
		_, h = withOrigin(t, f, f.alice, "/v1/search", other, search)
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("search from %s allowed %q", other, v)
		}
		// A header the API does not read is not allowed either.
		_, h = preflight(t, f, "/v1/search", app, "authorization,x-forwarded-user")
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("preflight with an unknown header allowed %q", v)
		}
	})

	t.Run("subdomains and any", func(t *testing.T) {
		f := newFixture(t, Options{CORSOrigins: []string{"https://*.example.com"}})
		for origin, want := range map[string]string{
			"https://ui.example.com": "https://ui.example.com",
			"https://example.com":    "",
			"http://ui.example.com":  "",
			"https://ui.example.org": "",
		} {
			if _, h := preflight(t, f, "/v1/search", origin, "authorization"); h.Get("Access-Control-Allow-Origin") != want {
				t.Errorf("%s: Allow-Origin %q, want %q", origin, h.Get("Access-Control-Allow-Origin"), want)
			}
		}
		f = newFixture(t, Options{CORSOrigins: []string{"*"}})
		if _, h := preflight(t, f, "/v1/search", other, "authorization"); h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf(`"*": Allow-Origin %q`, h.Get("Access-Control-Allow-Origin"))
		}
	})

	t.Run("mcp", func(t *testing.T) {
		f := newFixture(t, Options{CORSOrigins: []string{app}})
		status, h := preflight(t, f, "/mcp", app, "authorization,content-type,mcp-protocol-version,mcp-session-id")
		if status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != app {
			t.Fatalf("MCP preflight: %d %v", status, h)
		}
		_, h = withOrigin(t, f, f.alice, "/mcp", app,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`)
		if h.Get("Access-Control-Allow-Origin") != app {
			t.Errorf("MCP initialize: %v", h)
		}
	})
}
