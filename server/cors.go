package server

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/rs/cors"
)

// corsHeaders are the request headers a browser page may send across
// origins: the API key, JSON bodies, the MCP streamable HTTP transport's
// session, protocol version and stream-resumption headers, and the
// headers the Mem0 platform client (npm mem0ai) names itself with, which
// the server ignores but a browser must be allowed to send.
var corsHeaders = []string{"Authorization", "Content-Type",
	"Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID",
	"Mem0-User-ID", "X-Mem0-Client", "X-Mem0-Source", "X-Application"}

// corsExposed are the response headers a page may read: the MCP session
// an MCP client must echo, and the reason a request was refused.
var corsExposed = []string{"Mcp-Session-Id", "WWW-Authenticate"}

// corsMaxAge is how long, in seconds, a browser may cache a preflight's
// answer.
const corsMaxAge = 600

// withCORS wraps h so that pages served from origins may call it from a
// browser. With no origins, h is returned as it is: the server sends no
// CORS headers, and browsers keep every other origin's pages out.
//
// Keys travel in the Authorization header, never in cookies, so no
// credentials mode is offered: a page of an allowed origin still needs a
// key, and a page of any other origin cannot read an answer even with one.
func withCORS(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return h // cors.Options treats an empty list as "*"
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete},
		AllowedHeaders: corsHeaders,
		ExposedHeaders: corsExposed,
		MaxAge:         corsMaxAge,
	}).Handler(h)
}

// CheckOrigin reports whether s may name the origin of browser pages
// allowed to call the server (Options.CORSOrigins): "*" for any page, a
// scheme and host with an optional port ("https://app.example.com",
// "http://127.0.0.1:5173"), or one with a wildcard for any subdomain
// ("https://*.example.com"); case does not matter. A browser sends an origin with no path, so a
// path, query, fragment or user would never match; they are refused here
// rather than left to match nothing.
func CheckOrigin(s string) error {
	if s == "*" {
		return nil
	}
	host, wild := s, false
	if scheme, rest, ok := strings.Cut(s, "://*."); ok {
		host, wild = scheme+"://"+rest, true
	}
	u, err := url.Parse(host)
	switch {
	case err != nil:
		return fmt.Errorf("origin %q: %v", s, err)
	case u.Scheme != "http" && u.Scheme != "https": // url.Parse lowercases it
		return fmt.Errorf("origin %q: want http:// or https:// and a host (or * for any origin)", s)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("origin %q names no host", s)
	case u.User != nil, u.Path != "", u.RawQuery != "", u.ForceQuery, u.Fragment != "", strings.HasSuffix(s, "#"):
		return fmt.Errorf("origin %q: an origin is a scheme, a host and an optional port; nothing else", s)
	case strings.Contains(host, "*"):
		return fmt.Errorf("origin %q: a wildcard may stand only for the subdomains, as in https://*.example.com", s)
	case wild && net.ParseIP(u.Hostname()) != nil:
		return fmt.Errorf("origin %q: an IP address has no subdomains", s)
	case strings.HasSuffix(u.Host, ":"):
		return fmt.Errorf("origin %q: empty port", s)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		switch {
		case err != nil || n < 1 || n > 65535:
			return fmt.Errorf("origin %q: port %q is not a port number", s, p)
		case defaultPorts[u.Scheme] == n:
			// A browser leaves the scheme's own port out of Origin.
			return fmt.Errorf("origin %q: browsers send it without the port %d of %s", s, n, u.Scheme)
		}
	}
	return nil
}

// defaultPorts are the ports a browser leaves out of an origin.
var defaultPorts = map[string]int{"http": 80, "https": 443}

// CheckOrigins checks every origin of a list (CheckOrigin), and that "*"
// comes alone: next to it, another origin would mean nothing.
func CheckOrigins(origins []string) error {
	for _, o := range origins {
		if err := CheckOrigin(o); err != nil {
			return err
		}
		if o == "*" && len(origins) > 1 {
			return fmt.Errorf("origin \"*\" allows every origin; give it alone")
		}
	}
	return nil
}
