// Package gate is memgate's learned, task-conditioned admission gate. It runs
// after the hard policy envelope, on the candidates the envelope did not
// deny, and judges the soft boundaries rules cannot see: does this memory fit
// this task, or could it leak across life domains, steer a tool call, flatter
// the user or act as an injected instruction? It may only lower decisions.
//
// The model is a small multilayer perceptron over query-conditioned features:
// the interaction of the query and memory embeddings (q⊙m and |q−m|) and their
// cosine, the memory's metadata and scope relations to the task, the task's
// intent and tool risk, and content signals. It is trained and run in pure Go,
// deterministically; thresholds are calibrated per intent × tool-risk bucket.
package gate

import (
	"bytes"
	"math"
	"time"
	"unsafe"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// SchemaVersion identifies the feature layout; a model records the schema
// it was trained on and is refused by a build with another.
const SchemaVersion = 1

// Feature groups, in order, after the two embedding-interaction blocks.
// Group names appear in decisions as the factors that drove them.
var metaGroups = []struct {
	name string
	size int
}{
	{"similarity", 1},
	{"intent", len(admit.Intents)},
	{"tool_risk", len(admit.ToolRisks)},
	{"effective_authority", len(authorities)},
	{"source_authority", len(authorities)},
	{"kind", len(memory.Kinds) + 1},
	{"classification", len(memory.Classifications) + 1},
	{"age", 3},
	{"scope_project", 3},
	{"scope_workspace", 3},
	{"scope_domain", 3},
	{"envelope_decision", 4},
	{"lineage", 1},
	{"content", len(signals)},
	{"length", 1},
}

// authorities in feature order; the empty authority is "unknown".
var authorities = []memory.Authority{memory.AuthoritySystem, memory.AuthorityUserConfirmed, memory.AuthorityToolVerified,
	memory.AuthorityModelInferred, memory.AuthorityExternal, ""}

// metaDim is the number of metadata features.
var metaDim = func() int {
	n := 0
	for _, g := range metaGroups {
		n += g.size
	}
	return n
}()

// Dim is the feature dimension for an embedding dimension.
func Dim(embedDim int) int { return 2*embedDim + metaDim }

// signal is a content cue: keywords found in the lower-cased memory text.
type signal struct {
	name     string
	keywords []string
}

// signals are generic cues of memories that act on the agent rather than
// inform it. They are keyword lists, not regular expressions, so that
// extraction allocates nothing and costs a few microseconds.
var signals = []signal{
	{"addressed_to_agent", []string{"assistant", "ai agent", "note to the", "system:", "language model", "reading this", "agents must", "chatbot"}},
	{"override", []string{"ignore previous", "ignore all previous", "disregard", "you are now", "new instructions", "maintenance mode", "from now on", "override"}},
	{"exfiltration", []string{"forward all", "forward every", "upload", "send your", "send all", "copy all", "exfiltrate", "reveal", "paste", " as well"}},
	{"imperative", []string{"always ", "never ", "must ", "make sure to", "do not tell", "don't tell"}},
	{"url", []string{"http://", "https://", "www."}},
	{"email_address", []string{"@"}},
	{"credential", []string{"password", "api key", "token", "secret", " pin ", "pin:", "passcode", "private key", "keys"}},
	{"shell", []string{"curl ", "| sh", "| bash", "sudo ", "rm -rf", "chmod ", "wget "}},
	{"agreement_pressure", []string{"praise", "agree with", "flatter", "upset", "likes being told", "always tell", "wants to hear", "compliment"}},
}

// Input is one candidate as the gate sees it.
type Input struct {
	Candidate *admit.Candidate
	Decision  admit.Decision // the envelope's decision (never deny)
}

// extractor holds reusable buffers so extraction allocates nothing.
type extractor struct {
	lower []byte
}

// features writes the feature vector of in for task actx into x, which must
// have length Dim(len(q)). q and m are the query and memory embeddings.
func (e *extractor) features(x []float32, actx *admit.Context, in *Input, q, m []float32, now time.Time) (signalsFired uint32) {
	d := len(q)
	for i := range d {
		x[i] = q[i] * m[i]
		x[d+i] = float32(math.Abs(float64(q[i] - m[i])))
	}
	f := x[2*d:]
	clear(f)
	c := in.Candidate
	mem := &c.Memory
	o := 0
	put := func(size, idx int) {
		if idx >= 0 && idx < size {
			f[o+idx] = 1
		}
		o += size
	}
	f[o] = float32(c.Similarity)
	o++
	put(len(admit.Intents), indexOf(admit.Intents, actx.Intent))
	put(len(admit.ToolRisks), indexOf(admit.ToolRisks, actx.ToolRisk))
	put(len(authorities), indexOf(authorities, c.Lineage.EffectiveAuthority))
	put(len(authorities), indexOf(authorities, mem.SourceAuthority))
	put(len(memory.Kinds)+1, unknownLast(memory.Kinds, mem.Kind))
	put(len(memory.Classifications)+1, unknownLast(memory.Classifications, mem.Classification))
	age := 0.0
	if !mem.CreatedAt.IsZero() {
		age = math.Max(0, now.Sub(mem.CreatedAt).Hours()/24)
	}
	f[o] = float32(math.Log1p(age) / 6)
	if !mem.ExpiresAt.IsZero() {
		f[o+1] = 1
		f[o+2] = float32(math.Log1p(math.Max(0, mem.ExpiresAt.Sub(now).Hours()/24)) / 6)
	}
	o += 3
	put(3, relation(actx.ProjectID, mem.ProjectID))
	put(3, relation(actx.WorkspaceID, mem.WorkspaceID))
	put(3, relation(actx.Domain, mem.Domain))
	put(4, indexOf([]admit.Decision{admit.Admit, admit.AdmitSummaryOnly, admit.RankDown, admit.Quarantine}, in.Decision))
	if len(mem.LineageRefs) > 0 {
		f[o] = 1
	}
	o++
	e.lower = appendLower(e.lower[:0], mem.Text)
	for i, s := range signals {
		for _, k := range s.keywords {
			if containsASCII(e.lower, k) {
				f[o+i] = 1
				signalsFired |= 1 << i
				break
			}
		}
	}
	o += len(signals)
	f[o] = float32(math.Log1p(float64(len(mem.Text))) / 8)
	return signalsFired
}

// relation codes a scope axis: 0 same, 1 other, 2 unknown (either unset).
func relation(task, mem string) int {
	switch {
	case task == "" || mem == "":
		return 2
	case task == mem:
		return 0
	}
	return 1
}

func indexOf[T comparable](xs []T, v T) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

func unknownLast[T comparable](xs []T, v T) int {
	if i := indexOf(xs, v); i >= 0 {
		return i
	}
	return len(xs)
}

// appendLower appends s lower-cased (ASCII letters only: keywords are ASCII).
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func containsASCII(hay []byte, needle string) bool {
	return bytes.Index(hay, unsafe.Slice(unsafe.StringData(needle), len(needle))) >= 0
}

// signalInstruction is the set of content cues that make a memory look like
// an instruction to the agent: a low-fit memory with one of them is
// quarantined rather than ranked down.
var signalInstruction = uint32(1<<indexOf(signalNames(), "addressed_to_agent") | 1<<indexOf(signalNames(), "override") | 1<<indexOf(signalNames(), "exfiltration"))

func signalNames() []string {
	out := make([]string, len(signals))
	for i, s := range signals {
		out[i] = s.name
	}
	return out
}

// groupRanges returns each feature group's [start, end) in a vector for the
// embedding dimension d; the first is the embedding interaction.
func groupRanges(d int) (names []string, starts, ends []int) {
	names = append(names, "embedding_interaction")
	starts, ends = append(starts, 0), append(ends, 2*d)
	o := 2 * d
	for _, g := range metaGroups {
		names, starts, ends = append(names, g.name), append(starts, o), append(ends, o+g.size)
		o += g.size
	}
	return names, starts, ends
}

// Extractor computes feature vectors, for training and inspection.
type Extractor struct {
	dim int
	ext extractor
}

// NewExtractor returns an extractor for embeddings of dimension embedDim.
func NewExtractor(embedDim int) *Extractor { return &Extractor{dim: embedDim} }

// Features returns the feature vector of candidate c, whose envelope
// decision is d, in task actx. c must carry its query and memory vectors.
func (e *Extractor) Features(actx *admit.Context, c *admit.Candidate, d admit.Decision) []float32 {
	x := make([]float32, Dim(e.dim))
	e.ext.features(x, actx, &Input{Candidate: c, Decision: d}, c.QueryVector, c.Vector, actx.Now)
	return x
}
