package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/rs/cors"
	"golang.org/x/net/publicsuffix"
)

// corsHeaders are the request headers a browser page may send across
// origins: the API key, JSON bodies, the MCP streamable HTTP transport's
// session, protocol version and stream-resumption headers, and the
// headers the Mem0 platform client (npm mem0ai) names itself with, which
// the server ignores but a browser must be allowed to send.
var corsHeaders = []string{"Authorization", "Content-Type",
	"Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID",
	"Mem0-User-ID", "X-Mem0-Client", "X-Mem0-Source", "X-Application"}

// corsExposed are the response headers a page may read beyond the
// CORS-safelisted ones: the reason a request was refused. (The MCP
// transport is stateless and sends no session header to expose.)
var corsExposed = []string{"WWW-Authenticate"}

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

// CheckOrigin returns an error unless s names, as a browser sends it, the
// origin of pages allowed to call the server (Options.CORSOrigins): "*"
// for any page, a scheme and host with an optional port
// ("https://app.example.com", "http://127.0.0.1:5173"), or one with a
// wildcard for the subdomains of a registered domain
// ("https://*.example.com", but not "https://*.github.io"); case does not
// matter. What a browser never sends as an Origin (a path, a user, the
// scheme's own port, an IP address or a host name not in its canonical
// ASCII form) is refused here rather than left to match nothing.
func CheckOrigin(s string) error {
	if s == "*" {
		return nil
	}
	if strings.TrimSpace(s) != s {
		return fmt.Errorf("origin %q has surrounding spaces (list origins separated by commas alone, or repeat the flag)", s)
	}
	host, wild := s, false
	if scheme, rest, ok := strings.Cut(s, "://*."); ok {
		host, wild = scheme+"://"+rest, true
	}
	u, err := url.Parse(host)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("origin %q: %v", s, err)
	}
	name := u.Hostname()
	switch {
	case u.Scheme != "http" && u.Scheme != "https": // url.Parse lowercases it
		return fmt.Errorf("origin %q: want http:// or https:// and a host (or * for any origin)", s)
	case u.Host == "" || name == "":
		return fmt.Errorf("origin %q names no host", s)
	case u.User != nil, u.Path != "", u.RawQuery != "", u.ForceQuery, u.Fragment != "", strings.HasSuffix(s, "#"):
		return fmt.Errorf("origin %q: an origin is a scheme, a host and an optional port; nothing else", s)
	case strings.Contains(host, "*"):
		return fmt.Errorf("origin %q: a wildcard may stand only for the subdomains, as in https://*.example.com", s)
	case strings.HasSuffix(u.Host, ":"):
		return fmt.Errorf("origin %q: empty port", s)
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		switch {
		case wild:
			return fmt.Errorf("origin %q: an IP address has no subdomains", s)
		case ip.Zone() != "":
			return fmt.Errorf("origin %q: browsers send no IPv6 zone", s)
		case ip.String() != strings.ToLower(name):
			return fmt.Errorf("origin %q: browsers send the address as %s", s, ip)
		}
	} else if err := checkHostName(strings.ToLower(name), wild); err != nil {
		return fmt.Errorf("origin %q: %v", s, err)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		switch {
		case err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p:
			return fmt.Errorf("origin %q: port %q is not a port number as browsers write it", s, p)
		case defaultPorts[u.Scheme] == n:
			// A browser leaves the scheme's own port out of Origin.
			return fmt.Errorf("origin %q: browsers send it without the port %d of %s", s, n, u.Scheme)
		}
	}
	return nil
}

// checkHostName checks a lower-case host name as a browser sends it in an
// Origin: ASCII (an international name in its xn-- form), labels of
// letters, digits and inner hyphens, and, after a wildcard, a registered
// domain rather than a public suffix (*.com, *.github.io), which would
// let in every site under it.
func checkHostName(name string, wild bool) error {
	labels := strings.Split(name, ".")
	for _, l := range labels {
		switch {
		case l == "":
			return errors.New("an empty label in the host name")
		case strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "":
			return fmt.Errorf("host name label %q: browsers send a host name in ASCII, an international one in its xn-- form", l)
		case l[0] == '-' || l[len(l)-1] == '-':
			return fmt.Errorf("host name label %q begins or ends with a hyphen", l)
		}
	}
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		// The URL standard reads such a host as an IPv4 address.
		return fmt.Errorf("host %q ends in a number, which browsers read as an IPv4 address; write the address in full, as 127.0.0.1", name)
	}
	if wild {
		if _, err := publicsuffix.EffectiveTLDPlusOne(name); err != nil || !strings.Contains(name, ".") {
			return fmt.Errorf("*.%s would allow every site under a public suffix; name a registered domain", name)
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
			return errors.New(`origin "*" allows every origin; give it alone`)
		}
	}
	return nil
}
