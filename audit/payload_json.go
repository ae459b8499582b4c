package audit

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends p encoded as encoding/json encodes it, byte for byte,
// and returns the result. Every admission records a payload per candidate,
// and encoding/json's reflection over Scores cost a few microseconds each:
// a twentieth of a whole admission. It fails where json.Marshal fails (a
// score that is NaN or infinite).
func (p *DecisionPayload) AppendJSON(dst []byte) ([]byte, error) {
	b := append(dst, `{"reasons":`...)
	if p.Reasons == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, r := range p.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(r))
		}
		b = append(b, ']')
	}
	b = append(b, `,"constraints":{`...)
	n := 0
	for _, f := range []struct {
		name string
		on   bool
	}{{"requireCitation", p.Constraints.RequireCitation}, {"requireUserConfirmation", p.Constraints.RequireUserConfirmation},
		{"forbidToolBinding", p.Constraints.ForbidToolBinding}} {
		if f.on {
			b = appendKey(b, n, f.name)
			b = append(b, "true"...)
			n++
		}
	}
	s := &p.Scores
	b = append(b, `},"scores":{"similarity":`...)
	var ok bool
	if b, ok = appendFloat(b, s.Similarity); !ok {
		_, err := json.Marshal(p)
		return dst, err
	}
	if b, ok = appendOptional(b, "lexical", s.Lexical); ok {
		b, ok = appendOptional(b, "retrieval", s.Retrieval)
	}
	b = appendKey(b, 1, "effectiveAuthority")
	b = appendString(b, string(s.EffectiveAuthority))
	if ok {
		if b, ok = appendOptional(b, "gateFit", s.GateFit); ok {
			b, ok = appendOptional(b, "gateThreshold", s.GateThreshold)
		}
	}
	if !ok {
		_, err := json.Marshal(p) // its error, on the score it could not encode
		return dst, err
	}
	if len(s.GateFactors) > 0 {
		b = appendKey(b, 1, "gateFactors")
		b = append(b, '[')
		for i, f := range s.GateFactors {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f)
		}
		b = append(b, ']')
	}
	if s.GateScored {
		b = append(appendKey(b, 1, "gateScored"), "true"...)
	}
	if b, ok = appendOptional(b, "gateInstruction", s.GateInstruction); !ok {
		_, err := json.Marshal(p)
		return dst, err
	}
	if s.GateOutOfRange {
		b = append(appendKey(b, 1, "gateOutOfRange"), "true"...)
	}
	b = append(b, '}')
	if p.GateOnly {
		b = append(b, `,"gateOnly":true`...)
	}
	return append(b, '}'), nil
}

// appendKey appends a member's name, after a comma unless it is the
// object's first (n == 0).
func appendKey(b []byte, n int, name string) []byte {
	if n > 0 {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, `":`...)
}

// appendString appends s as encoding/json does: a string of plain
// printable ASCII as it is, any other through encoding/json itself (which
// escapes HTML characters and replaces invalid UTF-8).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat appends f as encoding/json encodes a float64; false if f is
// NaN or infinite, which JSON cannot hold.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 → e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendOptional appends a score member that is left out when zero (JSON's
// omitempty), as a later member; false if v cannot be encoded.
func appendOptional(b []byte, name string, v float64) ([]byte, bool) {
	if v == 0 {
		return b, true
	}
	return appendFloat(appendKey(b, 1, name), v)
}
