package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		// Ordinary text is untouched: ASCII, accents, CJK, RTL scripts, emoji.
		{"hello, world", "hello, world"},
		{"café naïve e\u0301", "café naïve e\u0301"},
		{"验血报告 日本語 한국어", "验血报告 日本語 한국어"},
		{"مرحبا بالعالم", "مرحبا بالعالم"},
		{"prix\u202f: 10\u00a0€ 全角\u3000空白", "prix\u202f: 10\u00a0€ 全角\u3000空白"},
		{"I ❤️ NY 👍🏽 🇫🇷 😀", "I ❤️ NY 👍🏽 🇫🇷 😀"},
		{"family 👨\u200d👩\u200d👧 rainbow 🏳️\u200d🌈", "family 👨\u200d👩\u200d👧 rainbow 🏳️\u200d🌈"},
		{"Scotland 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "Scotland 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"},
		{"می\u200cخواهم", "می\u200cخواهم"},   // ZWNJ in Persian
		{"क्\u200dष", "क्\u200dष"},           // ZWJ in Devanagari
		{`C:\Users\u200b`, `C:\Users\u200b`}, // backslashes are text
		{"\u0600\u0661", "\u0600\u0661"},     // Arabic number sign is visible
		{"", ""},
		// Controls, NUL, terminal escapes, invalid UTF-8.
		{"a\x00b", `a\u0000b`},
		{"\x1b[31mred\x1b[0m", `\u001b[31mred\u001b[0m`},
		{"del\x7f c1\u009b2J", `del\u007f c1\u009b2J`},
		{"bad \xff\xfe byte", `bad \xff\xfe byte`},
		{"line\r\noverwritten", `line\r\noverwritten`},
		{"tab\there", `tab\there`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		// Zero-width and invisible characters.
		{"u\u200b1", `u\u200b1`},
		{"u\u200d1", `u\u200d1`},
		{"a\u200cb", `a\u200cb`},
		{"\ufeffbom", `\ufeffbom`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		{"word\u2060joiner", `word\u2060joiner`},
		{"hangul\u3164filler", `hangul\u3164filler`},
		{"cgj\u034f", `cgj\u034f`},
		// Bidi controls.
		{"invoice\u202egnp.exe", `invoice\u202egnp.exe`},
		{"\u2066isolate\u2069 \u200e\u200f \u061c", `\u2066isolate\u2069 \u200e\u200f \u061c`},
		// Tags outside a flag sequence smuggle invisible ASCII.
		{"hi\U000e0041\U000e0042", `hi\U000e0041\U000e0042`},
		{"🏴\U000e0041\U000e0042\U000e0043\U000e0044\U000e0045\U000e0046\U000e0047\U000e007f", `🏴\U000e0041\U000e0042\U000e0043\U000e0044\U000e0045\U000e0046\U000e0047\U000e007f`},
		// Variation selectors: one after a visible base is presentation,
		// more hide data.
		{"x\ufe0f", "x\ufe0f"},
		{"😀\U000e0100\U000e0101", "😀\U000e0100" + `\U000e0101`},
		{"\ufe0fstart", `\ufe0fstart`},
		{"a \ufe0f", `a \ufe0f`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapeText(t *testing.T) {
	in := "line one\n\tindented \u200b\r\x1b"
	want := "line one\n\tindented " + `\u200b\r\u001b`
	if got := EscapeText(in); got != want {
		t.Errorf("EscapeText(%q) = %q, want %q", in, got, want)
	}
}

func TestInvisible(t *testing.T) {
	for _, r := range []rune{' ', '\t', '\n', 0, 0x1b, 0x85, 0xa0, 0x200b, 0x200d, 0x202e, 0x2028, 0x2060, 0xfeff, 0xfe0f, 0xe0100, 0x3164, 0x115f, 0x34f, 0xe0041, 0x2800, 0x180e} {
		if !Invisible(r) {
			t.Errorf("Invisible(%U) = false", r)
		}
	}
	for _, r := range []rune{'a', '1', '!', 'é', '验', '😀', 0x301, 0x600, 0xe000, utf8.RuneError} {
		if Invisible(r) {
			t.Errorf("Invisible(%U) = true", r)
		}
	}
}

func TestHasVisible(t *testing.T) {
	for s, want := range map[string]bool{"": false, " \t\n": false, "\u200b\u202e": false, "\ufe0f": false,
		"a": true, "😀": true, "\u200bx": true, "\xff": true, "!": true} {
		if got := HasVisible(s); got != want {
			t.Errorf("HasVisible(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzEscape: the output is valid UTF-8, has no character a terminal would
// hide or act on, and text without such characters passes unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"hello", "a\x00b\x1b[2J", "u\u200b1", "\u202e", "🏴\U000e0067\U000e007f", "\xff", "😀\ufe0f\ufe0f", "👨\u200d👩"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Escape(%q) = %q is not valid UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidi(r) || r == 0x200b || r == 0x2028 || r == 0x2029 {
				t.Fatalf("Escape(%q) = %q keeps %U", s, out, r)
			}
		}
		if !strings.ContainsFunc(s, func(r rune) bool { return Invisible(r) && r != ' ' }) && utf8.ValidString(s) && out != s {
			t.Fatalf("Escape(%q) = %q changed text with nothing to escape", s, out)
		}
		if e := EscapeText(s); !utf8.ValidString(e) || strings.ContainsAny(e, "\r\x00\x1b") {
			t.Fatalf("EscapeText(%q) = %q", s, e)
		}
	})
}

func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
