package audit

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// TestAppendJSONMatchesEncodingJSON: AppendJSON writes what json.Marshal
// writes, byte for byte, for payloads with every field set or not, and
// fails where it fails.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, -3.2e-9, 1e20, 1e21, 1.5e300, 5e-324,
		0.1 + 0.2, 123456789.123, math.MaxFloat64, math.SmallestNonzeroFloat64}
	strs := []string{"", "topic_mismatch", "a<b>&c", `quo"te\`, "tab\tnew\nline", "ünïcödé", "\u2028\u2029", "bad \xff utf8", "\x00\x1f"}
	r := rand.New(rand.NewPCG(1, 2))
	pickF := func() float64 {
		if r.IntN(3) == 0 {
			return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		}
		return floats[r.IntN(len(floats))]
	}
	pickS := func() string { return strs[r.IntN(len(strs))] }
	for i := range 20000 {
		p := DecisionPayload{
			Constraints: admit.Constraints{RequireCitation: r.IntN(2) == 0, RequireUserConfirmation: r.IntN(2) == 0, ForbidToolBinding: r.IntN(2) == 0},
			Scores: admit.Scores{Similarity: pickF(), Lexical: pickF(), Retrieval: pickF(), EffectiveAuthority: memory.Authority(pickS()),
				GateFit: pickF(), GateThreshold: pickF(), GateScored: r.IntN(2) == 0, GateInstruction: pickF(), GateOutOfRange: r.IntN(2) == 0},
			GateOnly: r.IntN(2) == 0,
		}
		switch r.IntN(3) {
		case 0: // nil: null
		case 1:
			p.Reasons = []admit.Reason{}
		case 2:
			for range 1 + r.IntN(3) {
				p.Reasons = append(p.Reasons, admit.Reason(pickS()))
			}
		}
		switch r.IntN(3) {
		case 0:
		case 1:
			p.Scores.GateFactors = []string{}
		case 2:
			for range 1 + r.IntN(3) {
				p.Scores.GateFactors = append(p.Scores.GateFactors, pickS())
			}
		}
		want, wantErr := json.Marshal(p)
		got, err := p.AppendJSON([]byte("prefix"))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("case %d: error %v, json.Marshal's %v", i, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("case %d:\n got %s\nwant prefix%s", i, got, want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, p := range []DecisionPayload{{Scores: admit.Scores{Similarity: bad}}, {Scores: admit.Scores{GateFit: bad}}, {Scores: admit.Scores{GateInstruction: bad}}} {
			if _, err := p.AppendJSON(nil); err == nil {
				t.Fatalf("%+v: no error", p.Scores)
			}
		}
	}
}

func BenchmarkDecisionPayloadJSON(b *testing.B) {
	p := DecisionPayload{Reasons: []admit.Reason{"gate_low_fit", "topic_mismatch"}, Constraints: admit.Constraints{RequireCitation: true},
		Scores: admit.Scores{Similarity: 0.8123, Lexical: 3.2, Retrieval: 0.031, EffectiveAuthority: "user_confirmed", GateFit: 0.12,
			GateThreshold: 0.43, GateFactors: []string{"topic", "domain", "belief"}, GateScored: true, GateInstruction: 0.02}}
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(p)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = p.AppendJSON(buf[:0])
		}
	})
}
