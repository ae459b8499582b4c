// Package termsafe makes untrusted text safe to show on a terminal, and says
// which characters a reader cannot see.
//
// Memory text, ids and reasons come from users, tools and models. Printed raw,
// a NUL or an escape sequence can rewrite the screen, a bidi override can
// reverse what is shown ("invoice\u202egnp.exe" shows as an .exe), and a
// zero-width character can make two different ids look the same ("u\u200b1"
// and "u1"). Escape turns
// every such character into a visible escape like \u200b, and leaves ordinary
// text (accents, CJK, right-to-left scripts, emoji) exactly as it is.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Invisible reports whether r shows nothing by itself, or only changes how
// other characters are shown: whitespace (including U+2028 and U+2029),
// control characters (Cc), format characters (Cf: zero-width characters, bidi
// controls, tags, the soft hyphen, …) other than the visible Arabic number
// signs, variation selectors, the other default-ignorable code points (Hangul
// fillers, U+034F, …) and the blank braille pattern U+2800.
//
// Ids must contain none of these (plain spaces aside, for labels), and a
// memory's text must contain something else.
func Invisible(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return r <= ' ' || r == 0x7f
	case unicode.IsSpace(r), unicode.Is(unicode.Cc, r), r == 0x2800:
		return true
	case unicode.Is(unicode.Cf, r):
		return !unicode.Is(unicode.Prepended_Concatenation_Mark, r)
	}
	return unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// HasVisible reports whether s has at least one character that is not
// Invisible. A byte that is not valid UTF-8 counts as visible: it is content,
// if damaged.
func HasVisible(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return !Invisible(r) })
}

// Escape returns s with every character a terminal would hide, act on or use
// to disguise other text replaced by a visible Go-style escape, so the result
// is one line of plain, printable text:
//
//   - control characters, including NUL, ESC, DEL, C1 controls, CR, LF and
//     tab: \u0000, \u001b, …, \r, \n, \t;
//   - bytes that are not valid UTF-8: \xff;
//   - line and paragraph separators, zero-width characters, bidi controls,
//     the soft hyphen, tags, default-ignorable fillers: \u200b, \u202e,
//     \U000e0041, …;
//   - variation selectors other than one directly after a visible character.
//
// What is kept as is: every visible character, spaces of any width, a
// zero-width joiner inside an emoji sequence (the family emoji is man, ZWJ,
// woman, ZWJ, girl), a zero-width joiner or non-joiner between letters of a
// script that needs them (Arabic, Persian, Indic scripts, … but not Latin,
// Greek or Cyrillic), a flag's tag sequence (U+1F3F4 followed by up to 6 tag
// letters or digits and a cancel tag), and a variation selector after a
// visible character (a red heart is U+2764 U+FE0F). Backslashes are not
// escaped: an escape in the output may also be literal text of the input.
func Escape(s string) string { return escape(s, false) }

// EscapeText is Escape for multi-line text blocks: it keeps newlines and tabs
// as they are and escapes everything else Escape does, including CR.
func EscapeText(s string) string { return escape(s, true) }

func escape(s string, multiline bool) string {
	i := firstUnsafe(s, multiline)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	prev := lastRune(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			writeHex(&b, uint32(s[i]), 2)
			prev = 0
		case keep(s, i, r, prev, multiline):
			if !isTag(r) {
				b.WriteString(s[i : i+size])
				prev = r
				break
			}
			// A flag's tag sequence: copy it whole.
			n := flagTagsLen(s[i:])
			b.WriteString(s[i : i+n])
			size, prev = n, 0xe007f
		default:
			writeEscape(&b, r)
			prev = r
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the offset of the first byte that needs an escape, or
// len(s). Most text has none, so it is returned without copying.
func firstUnsafe(s string, multiline bool) int {
	var prev rune
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
		if !keep(s, i, r, prev, multiline) {
			return i
		}
		if isTag(r) {
			return i // keep says this starts a flag; let escape copy it
		}
		prev = r
	}
	return len(s)
}

// keep reports whether r, at offset i of s after the character prev (0 at
// the start), is shown as is.
func keep(s string, i int, r, prev rune, multiline bool) bool {
	if r == ' ' || (multiline && (r == '\n' || r == '\t')) {
		return true
	}
	if !Invisible(r) {
		return true
	}
	switch {
	case unicode.Is(unicode.Zs, r):
		return true // a visible gap: no-break, ideographic, thin spaces
	case unicode.Is(unicode.Variation_Selector, r):
		return prev != 0 && !Invisible(prev)
	case r == 0x200d: // zero-width joiner
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		return (emojiLike(prev) && emojiLike(next)) || joiningScript(prev, next)
	case r == 0x200c: // zero-width non-joiner
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		return joiningScript(prev, next)
	case isTag(r):
		return prev == 0x1f3f4 && flagTagsLen(s[i:]) > 0
	}
	return false
}

// emojiLike reports whether r can sit next to a joiner in an emoji sequence:
// a symbol, a skin tone modifier or the emoji presentation selector.
func emojiLike(r rune) bool {
	return r == 0xfe0f || (r >= 0x1f3fb && r <= 0x1f3ff) || (r > 0x7f && unicode.Is(unicode.So, r))
}

// joiningScript reports whether a joiner between prev and next can be
// ordinary text: both are letters or marks, of a script other than Latin,
// Greek and Cyrillic (which never need one).
func joiningScript(prev, next rune) bool {
	for _, r := range []rune{prev, next} {
		if r < utf8.RuneSelf || !unicode.In(r, unicode.L, unicode.M) ||
			unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic) {
			return false
		}
	}
	return true
}

func isTag(r rune) bool { return r >= 0xe0000 && r <= 0xe007f }

// flagTagsLen returns the byte length of a flag's tag sequence at the start
// of s (1 to 6 tag digits or lower-case letters and the cancel tag U+E007F),
// or 0 if s does not start with one.
func flagTagsLen(s string) int {
	n := 0
	for i, r := range s {
		switch {
		case r == 0xe007f && n > 0:
			return i + utf8.RuneLen(r)
		case n < 6 && ((r >= 0xe0030 && r <= 0xe0039) || (r >= 0xe0061 && r <= 0xe007a)):
			n++
		default:
			return 0
		}
	}
	return 0
}

func lastRune(s string) rune {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		if r > 0xffff {
			b.WriteString(`\U`)
			writeHex(b, uint32(r), 8)
		} else {
			b.WriteString(`\u`)
			writeHex(b, uint32(r), 4)
		}
	}
}

func writeHex(b *strings.Builder, v uint32, digits int) {
	const hex = "0123456789abcdef"
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[(v>>shift)&0xf])
	}
}
