// Package origin checks the browser origins a memgate server lets call it
// across origins (CORS), as a browser sends them in its Origin header. It
// stands apart from the server so that what only reads a configuration
// (package config, the command line) can refuse a bad origin without
// importing the HTTP server.
package origin

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Check returns an error unless s names, as a browser sends it, the
// origin of pages allowed to call the server (server.Options.CORSOrigins): "*"
// for any page, a scheme and host with an optional port
// ("https://app.example.com", "http://127.0.0.1:5173"), or one with a
// wildcard for the subdomains of a registered domain
// ("https://*.example.com", but not "https://*.github.io"); case does not
// matter. What a browser never sends as an Origin (a path, a user, the
// scheme's own port, an IP address or a host name not in its canonical
// ASCII form) is refused here rather than left to match nothing.
func Check(s string) error {
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

// CheckList checks every origin of a list (Check), and that "*" comes
// alone: next to it, another origin would mean nothing.
func CheckList(origins []string) error {
	for _, o := range origins {
		if err := Check(o); err != nil {
			return err
		}
		if o == "*" && len(origins) > 1 {
			return errors.New(`origin "*" allows every origin; give it alone`)
		}
	}
	return nil
}
