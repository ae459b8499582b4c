package origin

import (
	"net/url"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in      string
		refused string // a piece of the error; "" for accepted
	}{
		{"*", ""},
		{"https://app.example.com", ""},
		{"http://127.0.0.1:5173", ""},
		{"http://[::1]:8080", ""},
		{"https://*.example.com", ""},
		{"HTTPS://App.Example.com", ""}, // browsers send lower case; matching ignores case
		{"", "want http:// or https://"},
		{"app.example.com", "want http:// or https://"},
		{"ftp://example.com", "want http:// or https://"},
		{"https://", "names no host"},
		{"https://:8080", "names no host"},
		{"https://app.example.com/", "nothing else"},
		{"https://app.example.com/ui", "nothing else"},
		{"https://app.example.com?x=1", "nothing else"},
		{"https://app.example.com?", "nothing else"},
		{"https://app.example.com#", "nothing else"},
		{"https://u@app.example.com", "nothing else"},
		{"https://app.example.com:", "empty port"},
		{"https://app.example.com:0", "not a port number"},
		{"https://app.example.com:99999", "not a port number"},
		{"https://app.example.com:443", "without the port 443"},
		{"http://app.example.com:80", "without the port 80"},
		{"https://app.*.com", "only for the subdomains"},
		{"https://*.*.example.com", "only for the subdomains"},
		{"*.example.com", "want http:// or https://"},
		{"https://*.127.0.0.1", "an IP address"},
		{"https://app.example.com\n", "surrounding spaces"},
		{" https://b.example", "surrounding spaces"},
		{"http://localhost:3000", ""},
		{"https://xn--bcher-kva.example", ""},
		{"https://bücher.example", "xn-- form"},
		{"https://*.co.uk", "public suffix"},
		{"https://*.github.io", "public suffix"},
		{"https://*.com", "public suffix"},
		{"https://*.shop.co.uk", ""},
		{"https://*..example.com", "empty label"},
		{"https://*.-", "hyphen"},
		{"https://-app.example.com", "hyphen"},
		{"http://127.1:8080", "IPv4 address"},
		{"http://0x7f.0.0.1:8080", "IPv4 address"},
		{"http://[0:0::1]:8080", "browsers send the address as ::1"},
		{"http://[fe80::1%25eth0]:8080", "zone"},
		{"http://app.example.com:08080", "as browsers write it"},
		{"http://[::1:8080", "missing ']' in host"},
		{"http://a b.example", "invalid character"},
	} {
		err := Check(tc.in)
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("Check(%q) = %v, want accepted", tc.in, err)
		case tc.refused != "" && err == nil:
			t.Errorf("Check(%q) accepted, want refused", tc.in)
		case tc.refused != "" && !strings.Contains(err.Error(), tc.refused):
			t.Errorf("Check(%q) = %v, want it to say %q", tc.in, err, tc.refused)
		}
	}
	if err := CheckList([]string{"*", "https://a.example"}); err == nil {
		t.Error(`CheckList accepted "*" beside another origin`)
	}
	if err := CheckList([]string{"https://a.example", "https://b.example:8443"}); err != nil {
		t.Errorf("CheckList: %v", err)
	}
}

// FuzzCheck: Check never panics, and what it accepts is "*" or an http or
// https origin with a host and nothing after it, which CheckList accepts
// too.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"*", "https://app.example.com", "http://[::1]:8080", "https://*.example.com",
		"https://*.github.io", "http://127.1", "https://a.example:443", "https://xn--bcher-kva.example", "http://a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Check(s) != nil || s == "*" {
			return
		}
		u, err := url.Parse(strings.Replace(s, "://*.", "://", 1))
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
			t.Fatalf("Check accepted %q (%v)", s, err)
		}
		if err := CheckList([]string{s}); err != nil {
			t.Fatalf("Check accepted %q, CheckList refused it: %v", s, err)
		}
	})
}
