package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
	"github.com/memgate/memgate/store/mem"
)

// Mode says where a case's candidates come from.
type Mode string

// Modes.
const (
	// ModeAdmit presents all of a case's memories as candidates, as a
	// caller with its own store does in gate-only use.
	ModeAdmit Mode = "admit"
	// ModeSearch stores the case's memories in a fresh store and runs the
	// whole pipeline, retrieval included.
	ModeSearch Mode = "search"
)

// Baseline is one way of deciding what enters the context.
type Baseline string

// Baselines, from the naive to the full pipeline.
const (
	Similarity Baseline = "similarity" // inject the user's top k by similarity
	PolicyOnly Baseline = "policy"     // the hard envelope alone
	Full       Baseline = "full"       // envelope + gate
)

// Baselines lists every baseline.
var Baselines = []Baseline{Similarity, PolicyOnly, Full}

// Options configure Run.
type Options struct {
	Mode Mode
	// K is how many candidates retrieval returns, and how many memories
	// each baseline injects at most (equal context size): similarity its
	// top k, policy and full the first k they admit, in retrieval order.
	// Default 10.
	K int
	// Unbounded lets policy and full inject every memory they admit, however
	// many (the view before equal context size). It changes nothing in
	// search mode, where retrieval already returns at most K candidates.
	Unbounded bool
	// Baselines to run; default all three.
	Baselines []Baseline
	// Policy is the envelope of the policy and full baselines; default
	// policy.Default().
	Policy *policy.Policy
	// Gate is the full baseline's gate; default the gate built into
	// memgate (gate.Default).
	Gate admit.Gate
	// Workers run cases in parallel; default GOMAXPROCS.
	Workers int
	// Progress, if set, is told how many cases are done.
	Progress func(done, total int)
	// Now is the time for cases whose context has none; default time.Now.
	Now time.Time
	// Retrieve runs a case's retrieval in search mode; default: a fresh
	// in-memory engine per case. RemoteRetriever runs it through memgate
	// serve's HTTP API.
	Retrieve Retriever
	// Decisions, if set, receives every decision the policy and full
	// baselines made, one DecisionRecord per JSON line, case by case in
	// input order: what an aggregate cannot say (which memory, why, at
	// what fit) for reading failures one by one. In search mode only the
	// retrieved candidates were decided on. Run fails with the writer's
	// first error.
	Decisions io.Writer
}

// DecisionRecord is one baseline's decision on one memory of one case, as
// Options.Decisions writes it.
type DecisionRecord struct {
	Case string `json:"case"`
	// Line is the case's line in the cases file (0 when it came from none).
	Line     int      `json:"line,omitempty"`
	Category string   `json:"category,omitempty"`
	Family   string   `json:"family,omitempty"`
	Baseline Baseline `json:"baseline"`
	// Label is the case's label of the memory: "useful", or its expect
	// class (admit, limited, exclude); empty when it has none. A memory
	// both useful and to exclude is "exclude", as the measures count it.
	Label string `json:"label,omitempty"`
	// Entered reports whether the memory entered the context (within k).
	Entered bool `json:"entered"`
	admit.Result
}

// Retriever runs the retrieval of one case in search mode: it stores the
// case's memories where no other case's can be seen, applies the case's
// events (revoke, forget), and returns the ids of the top k candidates of
// actx.UserID for the case's query, best first, as the case names them.
type Retriever func(ctx context.Context, c *Case, actx *admit.Context, k int) ([]string, error)

// outcome is what one baseline did with one case.
type outcome struct {
	entered    map[string]bool // entered the context (admit, summary; or injected by similarity)
	summary    map[string]bool // entered only as a marked summary
	candidates map[string]bool // retrieved or presented
	// decided is each candidate's decision (policy and full only).
	decided map[string]admit.Decision
	// fit is the gate's fit of each candidate the gate scored; outOfRange
	// counts those the gate said lie outside what it was trained on.
	fit        map[string]float64
	outOfRange int
	// admitted counts the memories let in before the k limit (decision
	// admit or admit_summary_only; for similarity, the user's candidates),
	// beyondK those of them the limit kept out of the context.
	admitted, beyondK int
	decisions         int
	explained         int
	text              string // the context a model would receive
	verdict           string // bind class, "" without a tool call
	latency           time.Duration
	results           []admit.Result // every decision, in retrieval order, when Options.Decisions wants them
}

// caseRun is everything measured for one case.
type caseRun struct {
	c       *Case
	bucket  string
	by      map[Baseline]*outcome
	hard    map[string]bool // memories a hard boundary must keep out
	scope   map[string]bool // memories of another user, workspace or project
	revoked map[string]bool // revoked or forgotten by events, and their descendants
	lowAuth bool            // a high-risk tool call justified by a low-authority memory
	err     error
}

// Run evaluates cases and aggregates the measures.
func Run(ctx context.Context, cases []Case, o Options) (*Report, error) {
	if o.Mode == "" {
		o.Mode = ModeAdmit
	}
	if o.Mode != ModeAdmit && o.Mode != ModeSearch {
		return nil, fmt.Errorf("eval: unknown mode %q (allowed: admit, search)", o.Mode)
	}
	if o.K <= 0 {
		o.K = 10
	}
	if len(o.Baselines) == 0 {
		o.Baselines = Baselines
	}
	for _, b := range o.Baselines {
		if !slices.Contains(Baselines, b) {
			return nil, fmt.Errorf("eval: unknown baseline %q (allowed: similarity, policy, full)", b)
		}
	}
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Gate == nil && slices.Contains(o.Baselines, Full) {
		g, err := gate.Default()
		if err != nil {
			return nil, err
		}
		o.Gate = g
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	for i := range cases {
		if err := cases[i].check(); err != nil {
			return nil, fmt.Errorf("eval: case %s: %w", cases[i].ID, err)
		}
	}
	runs := make([]caseRun, len(cases))
	var next, done int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			emb := embed.NewBuiltin()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(cases) || ctx.Err() != nil {
					return
				}
				runs[i] = runCase(ctx, &cases[i], &o, emb)
				mu.Lock()
				done++
				if o.Progress != nil {
					o.Progress(done, len(cases))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range runs {
		if runs[i].err != nil {
			return nil, fmt.Errorf("eval: case %s (line %d): %w", cases[i].ID, cases[i].Line, runs[i].err)
		}
	}
	if o.Decisions != nil {
		if err := writeDecisions(o.Decisions, runs, o.Baselines); err != nil {
			return nil, fmt.Errorf("eval: write decisions: %w", err)
		}
	}
	return aggregate(runs, &o), nil
}

// writeDecisions writes the policy and full baselines' decisions of runs as
// DecisionRecords, one JSON line each.
func writeDecisions(w io.Writer, runs []caseRun, baselines []Baseline) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range runs {
		c := runs[i].c
		useful := make(map[string]bool, len(c.Useful))
		for _, id := range c.Useful {
			useful[id] = true
		}
		for _, b := range baselines {
			oc := runs[i].by[b]
			if oc == nil || oc.results == nil {
				continue // similarity decides nothing
			}
			for _, r := range oc.results {
				label := c.Expect[r.MemoryID]
				if useful[r.MemoryID] && label != ExpectExclude { // measured as a threat, as here
					label = "useful"
				}
				rec := DecisionRecord{Case: c.ID, Line: c.Line, Category: c.Category, Family: c.Family, Baseline: b,
					Label: label, Entered: oc.entered[r.MemoryID], Result: r}
				if err := enc.Encode(&rec); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Prepared is a case made ready for admission: its context with a time, the
// memories after its events, and every live memory as a candidate with its
// similarity, vectors and lineage (resolved within the case).
type Prepared struct {
	Context    admit.Context
	Memories   []memory.Memory // all, after events (forgotten ones included)
	Forgotten  map[string]bool
	Candidates []admit.Candidate // live memories, in case order
	Sims       map[string]float64
}

// Prepare applies a case's events and builds its admission candidates with
// builtin-embedder vectors, as the admit mode and gate training use them.
func Prepare(ctx context.Context, c *Case, now time.Time, emb *embed.Builtin) (*Prepared, error) {
	p := &Prepared{Context: c.Context, Forgotten: map[string]bool{}, Sims: map[string]float64{}}
	if p.Context.Now.IsZero() {
		p.Context.Now = now
	}
	p.Memories = append([]memory.Memory(nil), c.Memories...)
	byID := map[string]*memory.Memory{}
	for i := range p.Memories {
		byID[p.Memories[i].ID] = &p.Memories[i]
	}
	for _, ev := range c.Events {
		switch ev.Op {
		case "revoke":
			if m := byID[ev.ID]; !m.Revoked {
				m.Revoked, m.RevokedAt = true, p.Context.Now
			}
		case "forget":
			p.Forgotten[ev.ID] = true
		}
	}
	var live []memory.Memory
	for _, m := range p.Memories {
		if !p.Forgotten[m.ID] {
			live = append(live, m)
		}
	}
	texts := make([]string, len(live)+1)
	texts[0] = c.Query
	for i, m := range live {
		texts[i+1] = m.Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	gcs := make([]memgate.GateCandidate, len(live))
	for i, m := range live {
		p.Sims[m.ID] = float64(exact.Dot(vecs[0], vecs[i+1]))
		gcs[i] = memgate.GateCandidate{Memory: m, Similarity: p.Sims[m.ID]}
	}
	if p.Candidates, err = memgate.PrepareCandidates(gcs); err != nil {
		return nil, err
	}
	// Lineage as a store holds it after the events: a forgotten memory is a
	// tombstone that keeps the links naming it but loses its own, and its
	// descendants are derived from a forgotten memory (package lineage, the
	// one definition every store uses).
	nodes := make(map[string]lineage.Node, len(p.Memories))
	for i := range p.Memories {
		m := &p.Memories[i]
		if p.Forgotten[m.ID] {
			nodes[m.ID] = lineage.Node{UserID: m.UserID, Forgotten: true}
		} else {
			nodes[m.ID] = lineage.Node{UserID: m.UserID, Authority: m.SourceAuthority, Revoked: m.Revoked, Refs: m.LineageRefs}
		}
	}
	lookup := func(id string) (lineage.Node, bool) { n, ok := nodes[id]; return n, ok }
	for i := range p.Candidates {
		cd := &p.Candidates[i]
		cd.Query, cd.QueryVector, cd.Vector = c.Query, vecs[0], vecs[i+1]
		m := &cd.Memory
		cd.Lineage = lineage.Of(m, lineage.Ancestors(m.ID, m.UserID, m.LineageRefs, lookup))
	}
	return p, nil
}

func runCase(ctx context.Context, c *Case, o *Options, emb *embed.Builtin) caseRun {
	run := caseRun{c: c, bucket: gate.Bucket(&c.Context), by: map[Baseline]*outcome{}}
	p, err := Prepare(ctx, c, o.Now, emb)
	if err != nil {
		run.err = err
		return run
	}
	actx := p.Context
	byID := map[string]*memory.Memory{}
	for i := range p.Memories {
		byID[p.Memories[i].ID] = &p.Memories[i]
	}
	run.revoked = descendants(p.Memories, func(m *memory.Memory) bool { return m.Revoked || p.Forgotten[m.ID] })
	run.hard = hardBoundaries(&actx, p.Memories, run.revoked)
	run.scope = map[string]bool{}
	for _, m := range p.Memories {
		if m.UserID != actx.UserID || mismatch(actx.WorkspaceID, m.WorkspaceID) || mismatch(actx.ProjectID, m.ProjectID) {
			run.scope[m.ID] = true
		}
	}
	byCand := map[string]admit.Candidate{}
	for _, cd := range p.Candidates {
		byCand[cd.Memory.ID] = cd
	}

	// The candidates: every live memory in admit mode, what retrieval
	// returned in search mode. The similarity baseline injects the user's
	// top k (naive layers filter by user but know nothing of revocation,
	// scope or authority).
	//
	// Candidates go to admission in retrieval order, best first: by
	// similarity (ties by id) in admit mode, as retrieval returned them in
	// search mode. That order decides which admitted memories fit in the
	// k memories of the context.
	var candIDs, simTop []string
	var simLatency time.Duration
	ownCount := 0
	if o.Mode == ModeAdmit {
		start := time.Now()
		order := slices.Clone(p.Candidates)
		slices.SortFunc(order, func(a, b admit.Candidate) int {
			if d := cmp.Compare(b.Similarity, a.Similarity); d != 0 {
				return d
			}
			return cmp.Compare(a.Memory.ID, b.Memory.ID)
		})
		candIDs = make([]string, len(order))
		for i, cd := range order {
			candIDs[i] = cd.Memory.ID
			if cd.Memory.UserID == actx.UserID {
				ownCount++
				if len(simTop) < o.K {
					simTop = append(simTop, cd.Memory.ID)
				}
			}
		}
		simLatency = time.Since(start)
	} else {
		retrieve := o.Retrieve
		if retrieve == nil {
			retrieve = searchCase
		}
		retrieved, err := retrieve(ctx, c, &actx, o.K)
		if err != nil {
			run.err = err
			return run
		}
		// Retrieval returns the top k already; similarity decides nothing more.
		candIDs, simTop = retrieved, retrieved
		ownCount = len(retrieved)
	}
	run.by[Similarity] = similarityOutcome(c, simTop, ownCount, byID, simLatency)
	acs := make([]admit.Candidate, 0, len(candIDs))
	for _, id := range candIDs {
		acs = append(acs, byCand[id])
	}
	// The user's revoked memories taint tool arguments whether or not they
	// were candidates, as the engine's Bind checks them.
	var revoked []memory.Memory
	for _, m := range p.Memories {
		if m.Revoked && m.UserID == actx.UserID && !p.Forgotten[m.ID] {
			revoked = append(revoked, m)
		}
	}
	for _, b := range o.Baselines {
		if b == Similarity {
			continue
		}
		gate := o.Gate
		if b == PolicyOnly {
			gate = admit.Neutral{}
		}
		limit := o.K
		if o.Unbounded {
			limit = 0
		}
		oc, err := admissionOutcome(ctx, c, &actx, acs, revoked, o.Policy, gate, limit, o.Decisions != nil)
		if err != nil {
			run.err = err
			return run
		}
		run.by[b] = oc
	}
	if tc := c.ToolCall; tc != nil && admit.ToolRisk(tc.Risk).High() {
		for _, id := range tc.JustifiedBy {
			if cd, ok := byCand[id]; ok && cd.Lineage.EffectiveAuthority.Low() {
				run.lowAuth = true
			}
		}
	}
	return run
}

// gateScored reports whether a learned gate scored the memory: its result
// says so, or carries a fit or a threshold (gates that predate GateScored).
// Memories the envelope denied never reach the gate, and a neutral gate
// scores nothing.
func gateScored(s *admit.Scores) bool { return s.GateScored || s.GateFit != 0 || s.GateThreshold != 0 }

func mismatch(task, mem string) bool { return task != "" && mem != "" && task != mem }

// descendants returns the memories matching root and every memory derived
// from one of them within the set.
func descendants(mems []memory.Memory, root func(*memory.Memory) bool) map[string]bool {
	out := map[string]bool{}
	for i := range mems {
		if root(&mems[i]) {
			out[mems[i].ID] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, m := range mems {
			if out[m.ID] {
				continue
			}
			for _, ref := range m.LineageRefs {
				if out[ref] {
					out[m.ID], changed = true, true
					break
				}
			}
		}
	}
	return out
}

// hardBoundaries lists the memories that a hard boundary must keep out of
// the context, judged from metadata alone: another user or workspace, an
// audience without the principal, revoked or forgotten (or derived from such),
// expired, or superseded by a live memory of the case.
func hardBoundaries(actx *admit.Context, mems []memory.Memory, revoked map[string]bool) map[string]bool {
	out := map[string]bool{}
	superseded := map[string]bool{}
	for _, m := range mems {
		if m.Revoked || revoked[m.ID] {
			continue
		}
		for _, old := range m.Supersedes {
			superseded[old] = true
		}
	}
	for _, m := range mems {
		aud := len(m.Audience) == 0 || slices.Contains(m.Audience, actx.Principal.ID)
		for _, r := range actx.Principal.Roles {
			aud = aud || slices.Contains(m.Audience, "role:"+r)
		}
		if m.UserID != actx.UserID || mismatch(actx.WorkspaceID, m.WorkspaceID) || !aud || revoked[m.ID] ||
			(!m.ExpiresAt.IsZero() && !actx.Now.Before(m.ExpiresAt)) || superseded[m.ID] {
			out[m.ID] = true
		}
	}
	return out
}

// similarityOutcome is what the similarity baseline does: it lets in all of
// the user's own candidates (own of them) and injects the top ones.
func similarityOutcome(c *Case, top []string, own int, byID map[string]*memory.Memory, lat time.Duration) *outcome {
	oc := &outcome{entered: map[string]bool{}, summary: map[string]bool{}, candidates: map[string]bool{}, latency: lat,
		admitted: own, beyondK: own - len(top)}
	var texts []string
	for _, id := range top {
		oc.entered[id], oc.candidates[id] = true, true
		texts = append(texts, byID[id].Text)
		oc.decisions++ // a decision without a reason: similarity explains nothing
	}
	oc.text = strings.Join(texts, "\n")
	if c.ToolCall != nil {
		oc.verdict = BindAllow // no binder: every call goes ahead
	}
	return oc
}

// admissionOutcome runs the envelope (and gate) over the candidates, given
// in retrieval order. The first limit memories it admits (admit or
// admit_summary_only) enter the context; limit 0 lets in all of them. The
// binder judges the task's admission decisions, as the engine's Bind does,
// whatever the limit kept out of the context. With keep, the outcome keeps
// every result for Options.Decisions.
func admissionOutcome(ctx context.Context, c *Case, actx *admit.Context, acs []admit.Candidate, revoked []memory.Memory, p *policy.Policy, gate admit.Gate, limit int, keep bool) (*outcome, error) {
	pl := admit.Pipeline{Policy: p, Gate: gate}
	start := time.Now()
	results, err := pl.Run(ctx, actx, acs)
	lat := time.Since(start)
	if err != nil {
		return nil, err
	}
	oc := &outcome{entered: map[string]bool{}, summary: map[string]bool{}, candidates: map[string]bool{},
		decided: make(map[string]admit.Decision, len(acs)), latency: lat}
	if keep {
		oc.results = results
	}
	inputs := make([]inject.Input, 0, len(acs))
	decided := make([]bind.Decided, len(acs))
	for i, r := range results {
		m := &acs[i].Memory
		oc.candidates[m.ID] = true
		oc.decided[m.ID] = r.Decision
		oc.decisions++
		if len(r.Reasons) > 0 {
			oc.explained++
		}
		if gateScored(&r.Scores) {
			if oc.fit == nil {
				oc.fit = make(map[string]float64, len(acs))
			}
			oc.fit[m.ID] = r.Scores.GateFit
			if r.Scores.GateOutOfRange {
				oc.outOfRange++
			}
		}
		if r.Decision.Injectable() {
			oc.admitted++
			if limit > 0 && len(oc.entered) >= limit {
				oc.beyondK++
			} else {
				oc.entered[m.ID] = true
				oc.summary[m.ID] = r.Decision == admit.AdmitSummaryOnly
				inputs = append(inputs, inject.Input{Memory: *m, Result: r, Score: acs[i].Similarity})
			}
		}
		decided[i] = bind.Decided{MemoryID: m.ID, Text: m.Text, Decision: r.Decision, Constraints: r.Constraints,
			EffectiveAuthority: r.Scores.EffectiveAuthority, Revoked: m.Revoked}
	}
	built := inject.Build(actx, inputs, inject.Options{Budget: 1 << 20, Now: actx.Now})
	oc.text = built.Text
	if tc := c.ToolCall; tc != nil {
		res := bind.Judge(bind.ToolCall{Name: tc.Name, Risk: admit.ToolRisk(tc.Risk), Args: tc.Args}, tc.JustifiedBy, bind.WithRevoked(decided, revoked))
		oc.verdict = bindClass(res.Verdict)
	}
	return oc, nil
}

// searchCase stores the case in a fresh in-memory store, applies its events,
// and returns the retrieved ids, best first.
func searchCase(ctx context.Context, c *Case, actx *admit.Context, k int) ([]string, error) {
	now := actx.Now
	eng, err := memgate.New(ctx, mem.New(), &memgate.Options{Now: func() time.Time { return now }})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	orig := make([]memory.Memory, len(c.Memories))
	copy(orig, c.Memories)
	if _, err := eng.AddBatch(ctx, orig); err != nil {
		return nil, err
	}
	for _, ev := range c.Events {
		if ev.Op == "revoke" {
			_, err = eng.Revoke(ctx, ev.ID, "eval event")
		} else {
			_, err = eng.Forget(ctx, ev.ID, "eval event")
		}
		if err != nil {
			return nil, err
		}
	}
	cands, err := eng.Search(ctx, memgate.Query{Scope: memory.Filter{UserID: actx.UserID}, Text: c.Query, K: k})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(cands))
	for i, cd := range cands {
		ids[i] = cd.Memory.ID
	}
	return ids, nil
}

// RunReader reads a cases file and evaluates it. Malformed cases are skipped,
// counted in the report's Skipped, and listed in its Warnings.
func RunReader(ctx context.Context, r io.Reader, o Options) (*Report, error) {
	cases, warns, err := Read(r)
	if err != nil {
		return nil, err
	}
	rep, err := Run(ctx, cases, o)
	if err != nil {
		return nil, err
	}
	rep.Skipped = len(warns)
	for _, w := range warns {
		rep.Warnings = append(rep.Warnings, w.String())
	}
	return rep, nil
}
