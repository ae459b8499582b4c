package eval

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
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
	// K is how many candidates retrieval returns, and how many the
	// similarity baseline injects. Default 10.
	K int
	// Baselines to run; default all three.
	Baselines []Baseline
	// Policy is the envelope of the policy and full baselines; default
	// policy.Default().
	Policy *policy.Policy
	// Gate is the full baseline's gate; default admit.Neutral{}.
	Gate admit.Gate
	// Workers run cases in parallel; default GOMAXPROCS.
	Workers int
	// Progress, if set, is told how many cases are done.
	Progress func(done, total int)
	// Now is the time for cases whose context has none; default time.Now.
	Now time.Time
}

// outcome is what one baseline did with one case.
type outcome struct {
	entered    map[string]bool // entered the context (admit, summary; or injected by similarity)
	summary    map[string]bool // entered only as a marked summary
	candidates map[string]bool // retrieved or presented
	decisions  int
	explained  int
	text       string // the context a model would receive
	verdict    string // bind class, "" without a tool call
	latency    time.Duration
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
	if o.Gate == nil {
		o.Gate = admit.Neutral{}
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	var tmp string
	if o.Mode == ModeSearch {
		var err error
		if tmp, err = os.MkdirTemp("", "memgate-eval-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
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
				runs[i] = runCase(ctx, &cases[i], &o, emb, tmp)
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
	return aggregate(runs, &o), nil
}

func runCase(ctx context.Context, c *Case, o *Options, emb *embed.Builtin, tmp string) caseRun {
	run := caseRun{c: c, bucket: string(c.Context.Intent) + "×" + string(c.Context.ToolRisk), by: map[Baseline]*outcome{}}
	actx := c.Context
	if actx.Now.IsZero() {
		actx.Now = o.Now
	}
	// Apply the events.
	forgotten := map[string]bool{}
	mems := make([]memory.Memory, 0, len(c.Memories))
	byID := map[string]*memory.Memory{}
	for _, m := range c.Memories {
		mems = append(mems, m)
	}
	for i := range mems {
		byID[mems[i].ID] = &mems[i]
	}
	for _, ev := range c.Events {
		switch ev.Op {
		case "revoke":
			m := byID[ev.ID]
			if !m.Revoked {
				m.Revoked, m.RevokedAt = true, actx.Now
			}
		case "forget":
			forgotten[ev.ID] = true
		}
	}
	var live []memory.Memory
	for _, m := range mems {
		if !forgotten[m.ID] {
			live = append(live, m)
		}
	}
	run.revoked = descendants(mems, func(m *memory.Memory) bool { return m.Revoked || forgotten[m.ID] })
	forgottenDesc := descendants(mems, func(m *memory.Memory) bool { return forgotten[m.ID] })
	run.hard = hardBoundaries(&actx, mems, run.revoked)
	run.scope = map[string]bool{}
	for _, m := range mems {
		if m.UserID != actx.UserID || mismatch(actx.WorkspaceID, m.WorkspaceID) || mismatch(actx.ProjectID, m.ProjectID) {
			run.scope[m.ID] = true
		}
	}

	// Similarity of each live memory to the query.
	sims := map[string]float64{}
	var retrieved []string // in search mode, what retrieval returned, best first
	if o.Mode == ModeAdmit {
		texts := make([]string, len(live)+1)
		texts[0] = c.Query
		for i, m := range live {
			texts[i+1] = m.Text
		}
		vecs, _ := emb.Embed(ctx, texts)
		for i, m := range live {
			sims[m.ID] = float64(exact.Dot(vecs[0], vecs[i+1]))
		}
	} else {
		var err error
		if retrieved, err = searchCase(ctx, c, &actx, mems, o.K, tmp, sims); err != nil {
			run.err = err
			return run
		}
	}

	// The similarity baseline: the user's top k (naive layers filter by
	// user but know nothing of revocation, scope or authority).
	simTop := retrieved
	if o.Mode == ModeAdmit {
		var own []memory.Memory
		for _, m := range live {
			if m.UserID == actx.UserID {
				own = append(own, m)
			}
		}
		slices.SortFunc(own, func(a, b memory.Memory) int {
			if d := cmp.Compare(sims[b.ID], sims[a.ID]); d != 0 {
				return d
			}
			return cmp.Compare(a.ID, b.ID)
		})
		start := time.Now()
		for i := 0; i < len(own) && i < o.K; i++ {
			simTop = append(simTop, own[i].ID)
		}
		run.by[Similarity] = similarityOutcome(c, simTop, byID, time.Since(start))
	} else {
		run.by[Similarity] = similarityOutcome(c, simTop, byID, 0)
	}

	// The admission baselines run on the candidates: every live memory in
	// admit mode, what retrieval returned in search mode.
	candIDs := make([]string, 0, len(live))
	if o.Mode == ModeAdmit {
		for _, m := range live {
			candIDs = append(candIDs, m.ID)
		}
	} else {
		candIDs = retrieved
	}
	gcs := make([]memgate.GateCandidate, len(live))
	for i, m := range live {
		gcs[i] = memgate.GateCandidate{Memory: m, Similarity: sims[m.ID]}
	}
	prepared, err := memgate.PrepareCandidates(gcs)
	if err != nil {
		run.err = err
		return run
	}
	byCand := map[string]admit.Candidate{}
	for _, p := range prepared {
		if forgottenDesc[p.Memory.ID] {
			p.Lineage.ForgottenAncestors = append(p.Lineage.ForgottenAncestors, "(forgotten)")
		}
		byCand[p.Memory.ID] = p
	}
	acs := make([]admit.Candidate, 0, len(candIDs))
	for _, id := range candIDs {
		acs = append(acs, byCand[id])
	}
	for _, b := range o.Baselines {
		if b == Similarity {
			continue
		}
		gate := o.Gate
		if b == PolicyOnly {
			gate = admit.Neutral{}
		}
		oc, err := admissionOutcome(ctx, c, &actx, acs, o.Policy, gate)
		if err != nil {
			run.err = err
			return run
		}
		run.by[b] = oc
	}
	if tc := c.ToolCall; tc != nil && admit.ToolRisk(tc.Risk).High() {
		for _, id := range tc.JustifiedBy {
			if p, ok := byCand[id]; ok && p.Lineage.EffectiveAuthority.Low() {
				run.lowAuth = true
			}
		}
	}
	return run
}

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

func similarityOutcome(c *Case, top []string, byID map[string]*memory.Memory, lat time.Duration) *outcome {
	oc := &outcome{entered: map[string]bool{}, summary: map[string]bool{}, candidates: map[string]bool{}, latency: lat}
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

func admissionOutcome(ctx context.Context, c *Case, actx *admit.Context, acs []admit.Candidate, p *policy.Policy, gate admit.Gate) (*outcome, error) {
	pl := admit.Pipeline{Policy: p, Gate: gate}
	start := time.Now()
	results, err := pl.Run(ctx, actx, acs)
	lat := time.Since(start)
	if err != nil {
		return nil, err
	}
	oc := &outcome{entered: map[string]bool{}, summary: map[string]bool{}, candidates: map[string]bool{}, latency: lat}
	inputs := make([]inject.Input, len(acs))
	decided := make([]bind.Decided, len(acs))
	for i, r := range results {
		m := &acs[i].Memory
		oc.candidates[m.ID] = true
		oc.decisions++
		if len(r.Reasons) > 0 {
			oc.explained++
		}
		if r.Decision.Injectable() {
			oc.entered[m.ID] = true
			oc.summary[m.ID] = r.Decision == admit.AdmitSummaryOnly
		}
		inputs[i] = inject.Input{Memory: *m, Result: r, Score: acs[i].Similarity}
		decided[i] = bind.Decided{MemoryID: m.ID, Text: m.Text, Decision: r.Decision, Constraints: r.Constraints,
			EffectiveAuthority: r.Scores.EffectiveAuthority, Revoked: m.Revoked}
	}
	built := inject.Build(actx, inputs, inject.Options{Budget: 1 << 20, Now: actx.Now})
	oc.text = built.Text
	if tc := c.ToolCall; tc != nil {
		res := bind.Judge(bind.ToolCall{Name: tc.Name, Risk: admit.ToolRisk(tc.Risk), Args: tc.Args}, tc.JustifiedBy, decided)
		oc.verdict = bindClass(res.Verdict)
	}
	return oc, nil
}

// searchCase stores the case in a fresh store, applies its events, and
// retrieves; it fills sims and returns the retrieved ids, best first.
func searchCase(ctx context.Context, c *Case, actx *admit.Context, mems []memory.Memory, k int, tmp string, sims map[string]float64) ([]string, error) {
	dir, err := os.MkdirTemp(tmp, "case-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	now := actx.Now
	eng, err := memgate.Open(ctx, filepath.Join(dir, "case.db"), &memgate.Options{Now: func() time.Time { return now }})
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
		sims[cd.Memory.ID] = cd.Similarity
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
