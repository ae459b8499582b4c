package memgate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// Decided is one candidate with its admission decision.
type Decided struct {
	Memory memory.Memory `json:"memory"`
	admit.Result
	VectorRank  int `json:"vectorRank,omitempty"`
	LexicalRank int `json:"lexicalRank,omitempty"`
}

// Admission is the outcome of admitting one task's candidates: every
// candidate with its decision, reasons, constraints and scores, in retrieval
// order. It is recorded in the audit trail under SearchID.
type Admission struct {
	SearchID int64         `json:"searchId"`
	Context  admit.Context `json:"context"`
	Query    string        `json:"query,omitempty"`
	Items    []Decided     `json:"items"`
	// GateOnly marks an admission of candidates the caller supplied
	// (AdmitCandidates): its decisions are about the caller's memories,
	// never memgate's, so they justify no tool call in Bind and its
	// context is built from the candidates as given.
	GateOnly bool `json:"gateOnly,omitempty"`
}

// Admitted returns the items whose decision lets them into the context.
func (a *Admission) Admitted() []Decided {
	var out []Decided
	for _, it := range a.Items {
		if it.Decision.Injectable() {
			out = append(out, it)
		}
	}
	return out
}

// Admit retrieves the task's candidates (see Search) and decides each one:
// the hard policy envelope first, then the gate. q.Scope.UserID defaults to
// the context's user and must equal it. The search, every decision and the
// quarantined memories are recorded before Admit returns.
func (e *Engine) Admit(ctx context.Context, actx admit.Context, q Query) (*Admission, error) {
	if err := e.checkContext(&actx); err != nil {
		return nil, errorf("admit", err)
	}
	if q.Scope.UserID == "" {
		q.Scope.UserID = actx.UserID
	}
	q.Scope.Normalize() // as checkContext normalised actx: the same id typed two ways is one id
	if q.Scope.UserID != actx.UserID {
		return nil, fmt.Errorf("admit: %w", &memory.FieldError{Field: "scope.userId",
			Problem: fmt.Sprintf("%q differs from context userId %q: retrieval never crosses users", q.Scope.UserID, actx.UserID)})
	}
	found, err := e.search(ctx, q, e.gateVectors)
	if err != nil {
		return nil, err
	}
	cands, qvec := found.cands, found.qvec
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.Memory.ID
	}
	anc, err := e.store.Ancestors(ctx, ids)
	if err != nil {
		return nil, errorf("admit", err)
	}
	acs := make([]admit.Candidate, len(cands))
	if !e.gateVectors {
		qvec = nil // not the embedding the gate was trained on: it embeds the texts itself
	}
	for i, c := range cands {
		var vec []float32
		if e.gateVectors {
			vec = found.vecs[i]
		}
		acs[i] = admit.Candidate{Memory: c.Memory, Similarity: c.Similarity, Lexical: c.Lexical, Retrieval: c.Score,
			Lineage: lineage.Of(&c.Memory, anc[c.Memory.ID]), Query: q.Text, QueryVector: qvec, Vector: vec}
	}
	adm, err := e.decide(ctx, actx, q.Text, acs, "search")
	if err != nil {
		return nil, err
	}
	for i := range adm.Items {
		adm.Items[i].VectorRank, adm.Items[i].LexicalRank = cands[i].VectorRank, cands[i].LexicalRank
	}
	return adm, nil
}

// GateCandidate is a candidate from the caller's own store, for gate-only use.
type GateCandidate struct {
	Memory     memory.Memory `json:"memory"`
	Similarity float64       `json:"similarity,omitempty"`
}

// AdmitCandidates decides candidates that the caller retrieved from its own
// store (Mem0, Qdrant, pgvector, …): memgate acts as the gate between any
// store and any model. Lineage and supersession are resolved within the
// given set; a memory whose lineage names an id outside the set counts that
// source's authority as unknown, the lowest. The decisions are audited like a
// search's.
func (e *Engine) AdmitCandidates(ctx context.Context, actx admit.Context, query string, cands []GateCandidate) (*Admission, error) {
	if err := e.checkContext(&actx); err != nil {
		return nil, errorf("admit candidates", err)
	}
	acs, err := PrepareCandidates(cands)
	if err != nil {
		return nil, errorf("admit candidates", err)
	}
	adm, err := e.decide(ctx, actx, query, acs, "gate")
	if adm != nil {
		adm.GateOnly = true
	}
	return adm, err
}

// PrepareCandidates validates caller-supplied candidates and resolves their
// lineage and supersession within the set (lineage.Within), as
// AdmitCandidates does, without a store. Evaluation uses it to admit cases
// in isolation.
func PrepareCandidates(cands []GateCandidate) ([]admit.Candidate, error) {
	seen := make(map[string]bool, len(cands))
	ms := make([]memory.Memory, len(cands))
	for i, c := range cands {
		m := c.Memory
		m.Normalize()
		at := fmt.Sprintf("candidates[%d].memory.", i)
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("candidate %d (%s): %w", i, m.ID, memory.PrefixFields(err, at))
		}
		if m.ID == "" {
			return nil, fmt.Errorf("candidate %d: %w", i, &memory.FieldError{Field: at + "id", Problem: "is required"})
		}
		if seen[m.ID] {
			return nil, fmt.Errorf("candidate %d: %w", i, &memory.FieldError{Field: at + "id", Problem: fmt.Sprintf("%q repeats", m.ID)})
		}
		seen[m.ID] = true
		ms[i] = m
	}
	lins := lineage.Within(ms)
	acs := make([]admit.Candidate, len(ms))
	for i := range ms {
		acs[i] = admit.Candidate{Memory: ms[i], Similarity: cands[i].Similarity, Lineage: lins[i]}
	}
	return acs, nil
}

func (e *Engine) checkContext(actx *admit.Context) error {
	if err := actx.Validate(); err != nil {
		return memory.PrefixFields(err, "context.")
	}
	if actx.Now.IsZero() {
		actx.Now = e.now().UTC()
	}
	return nil
}

// topKEntry is what the audit trail keeps of one retrieved candidate: ids
// and metadata, never the memory's text.
type topKEntry struct {
	ID          string           `json:"id"`
	Similarity  float64          `json:"similarity"`
	Lexical     float64          `json:"lexical,omitempty"`
	Authority   memory.Authority `json:"authority,omitempty"`
	WorkspaceID string           `json:"workspaceId,omitempty"`
	ProjectID   string           `json:"projectId,omitempty"`
	Domain      string           `json:"domain,omitempty"`
}

func (e *Engine) decide(ctx context.Context, actx admit.Context, query string, acs []admit.Candidate, mode string) (*Admission, error) {
	// The gate compares candidates with what the user revoked: a memory
	// that restates a revoked one is treated like it.
	revoked, err := e.store.Revoked(ctx, actx.UserID, gate.MaxWithdrawn)
	if err != nil {
		return nil, errorf("admit", err)
	}
	actx.Withdrawn = make([]string, len(revoked))
	for i := range revoked {
		actx.Withdrawn[i] = revoked[i].Text
	}
	pl := admit.Pipeline{Policy: e.policy, Gate: e.gate}
	results, err := pl.Run(ctx, &actx, acs)
	actx.Withdrawn = nil
	if err != nil {
		return nil, errorf("admit", err)
	}
	adm := &Admission{Context: actx, Query: query, Items: make([]Decided, len(acs))}
	top := make([]topKEntry, len(acs))
	for i, c := range acs {
		adm.Items[i] = Decided{Memory: c.Memory, Result: results[i]}
		m := &c.Memory
		top[i] = topKEntry{ID: m.ID, Similarity: c.Similarity, Lexical: c.Lexical, Authority: m.SourceAuthority,
			WorkspaceID: m.WorkspaceID, ProjectID: m.ProjectID, Domain: m.Domain}
	}
	search, _ := json.Marshal(map[string]any{"mode": mode, "query": query, "context": actx, "topK": top})
	rec := audit.Admission{
		Search:    audit.Event{Kind: audit.Search, At: actx.Now, TaskID: actx.TaskID, UserID: actx.UserID, PrincipalID: actx.Principal.ID, Payload: search},
		Decisions: make([]audit.Event, 0, len(results)),
	}
	ctxJSON, _ := json.Marshal(actx)
	buf := make([]byte, 0, 512*len(results)) // the payloads, back to back: about 470 bytes each
	for _, r := range results {
		start := len(buf)
		var p []byte // none, as json.Marshal gives, if a score cannot be encoded
		if b, err := (&audit.DecisionPayload{Reasons: r.Reasons, Constraints: r.Constraints, Scores: r.Scores, GateOnly: mode == "gate"}).AppendJSON(buf); err == nil {
			buf, p = b, b[start:len(b):len(b)]
		}
		rec.Decisions = append(rec.Decisions, audit.Event{Kind: audit.Decision, At: actx.Now, TaskID: actx.TaskID, UserID: actx.UserID,
			PrincipalID: actx.Principal.ID, MemoryID: r.MemoryID, Decision: string(r.Decision), Payload: p})
		if r.Decision == admit.Quarantine {
			reasons, _ := json.Marshal(r.Reasons)
			rec.Quarantine = append(rec.Quarantine, audit.QuarantineItem{MemoryID: r.MemoryID, UserID: actx.UserID, TaskID: actx.TaskID,
				At: actx.Now, Query: query, Context: ctxJSON, Reasons: reasons, Status: audit.Pending})
		}
	}
	if adm.SearchID, err = e.store.RecordAdmission(ctx, &rec); err != nil {
		return nil, errorf("admit: audit", err)
	}
	return adm, nil
}

// BuildContext renders an admission's admitted memories for a model prompt
// (see package inject) and records what was injected in the audit trail.
//
// The memories are re-read from the store first: one revoked, forgotten or
// expired since the admission, or derived from a revoked or forgotten one,
// is omitted (why: "revoked_since_admission"), and a stored memory is
// rendered as it is now, not as the admission carried it. A revocation thus
// wins over every admission made before it. The candidates of a gate-only
// admission (AdmitCandidates) come from the caller's own store and are
// rendered as given.
func (e *Engine) BuildContext(ctx context.Context, adm *Admission, o inject.Options) (inject.Context, error) {
	return e.buildContext(ctx, adm, o, !adm.GateOnly) // gate-only candidates are the caller's, rendered as given
}

// AdmitContext admits a task's candidates (Admit) and renders the admitted
// ones (BuildContext) in one call, from the records the admission has just
// read rather than reading them again: what a service does per request.
// Both the admission and the injection are recorded in the audit trail.
func (e *Engine) AdmitContext(ctx context.Context, actx admit.Context, q Query, o inject.Options) (*Admission, inject.Context, error) {
	adm, err := e.Admit(ctx, actx, q)
	if err != nil {
		return nil, inject.Context{}, err
	}
	out, err := e.buildContext(ctx, adm, o, false)
	return adm, out, err
}

// buildContext is BuildContext; reread says whether to read the admitted
// memories' current state from the store first.
func (e *Engine) buildContext(ctx context.Context, adm *Admission, o inject.Options, reread bool) (inject.Context, error) {
	if o.Now.IsZero() {
		o.Now = adm.Context.Now
	}
	ids := make([]string, len(adm.Items))
	for i, it := range adm.Items {
		ids[i] = it.Memory.ID
	}
	var now map[string]currentMemory
	if reread {
		var err error
		if now, err = e.current(ctx, adm.Context.UserID, ids, e.now().UTC()); err != nil {
			return inject.Context{}, errorf("build context", err)
		}
	}
	inputs := make([]inject.Input, 0, len(adm.Items))
	var withdrawn []inject.Omission
	for _, it := range adm.Items {
		cur, known := now[it.Memory.ID]
		if known && cur.withdrawn {
			withdrawn = append(withdrawn, inject.Omission{MemoryID: it.Memory.ID, Decision: it.Decision, Why: inject.WhyRevoked})
			continue
		}
		m := it.Memory
		if known {
			m = cur.memory
		}
		score := it.Scores.Retrieval
		if score == 0 {
			score = it.Scores.Similarity
		}
		inputs = append(inputs, inject.Input{Memory: m, Result: it.Result, Score: score})
	}
	out := inject.Build(&adm.Context, inputs, o)
	out.Omitted = append(out.Omitted, withdrawn...)
	injected := make([]string, len(out.Items))
	for i, it := range out.Items {
		injected[i] = it.MemoryID
	}
	p, _ := json.Marshal(map[string]any{"injected": injected, "omitted": out.Omitted, "tokens": out.Tokens, "budget": out.Budget})
	a := adm.Context
	if _, err := e.store.AppendEvents(ctx, []audit.Event{{Kind: audit.Injection, At: a.Now, TaskID: a.TaskID, UserID: a.UserID,
		PrincipalID: a.Principal.ID, SearchID: adm.SearchID, Payload: p}}); err != nil {
		return out, errorf("build context: audit", err)
	}
	return out, nil
}

// currentMemory is a memory's state in the store at a later use of an
// admission.
type currentMemory struct {
	memory memory.Memory
	// withdrawn: revoked or forgotten, or derived from a revoked or
	// forgotten memory.
	withdrawn bool
}

// current reads the memories of userID among ids as the store holds them
// at time at. Ids of forgotten memories of userID map to withdrawn, and so
// do memories expired at at; ids the store does not hold for userID
// (another user's, or never stored) are left out.
func (e *Engine) current(ctx context.Context, userID string, ids []string, at time.Time) (map[string]currentMemory, error) {
	out := make(map[string]currentMemory, len(ids))
	stored, err := e.store.Get(ctx, ids, false)
	if err != nil {
		return nil, err
	}
	var mine, missing []string
	for _, m := range stored {
		if m.UserID == userID {
			expired := !m.ExpiresAt.IsZero() && !at.Before(m.ExpiresAt)
			out[m.ID] = currentMemory{memory: m, withdrawn: m.Revoked || expired}
			mine = append(mine, m.ID)
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		ts, err := e.store.Tombstones(ctx, missing)
		if err != nil {
			return nil, err
		}
		for id, t := range ts {
			if t.UserID == userID {
				out[id] = currentMemory{withdrawn: true}
			}
		}
	}
	anc, err := e.store.Ancestors(ctx, mine)
	if err != nil {
		return nil, err
	}
	for id, as := range anc {
		if lineage.Withdrawn(as) {
			c := out[id]
			c.withdrawn = true
			out[id] = c
		}
	}
	return out, nil
}

// Bind decides whether the memories in justifiedBy may justify call in the
// task actx.TaskID of user actx.UserID, using the decisions recorded for
// that user's task (see package bind). Only memories of that user, decided
// in that user's task, can justify a call: another user's decisions under the
// same task id count for nothing. A justification revoked or forgotten since
// it was admitted (or derived from one that was) is refused. Arguments are
// checked for taint against the task's non-bindable memories and all of the
// user's revoked memories. Ids that name no memory of the user, stored or
// forgotten, are an error that reads the same for another user's ids as for
// ids that do not exist. The binding is recorded in the audit trail.
func (e *Engine) Bind(ctx context.Context, actx admit.Context, call bind.ToolCall, justifiedBy []string) (bind.Result, error) {
	if err := e.checkContext(&actx); err != nil {
		return bind.Result{}, errorf("bind", err)
	}
	if actx.TaskID == "" {
		return bind.Result{}, fmt.Errorf("bind: %w", &memory.FieldError{Field: "context.taskId",
			Problem: "is required: justifications are judged by the task's admission"})
	}
	if call.Name == "" {
		return bind.Result{}, fmt.Errorf("bind: %w", &memory.FieldError{Field: "call.name", Problem: "is required"})
	}
	if _, err := admit.ParseToolRisk(string(call.Risk)); err != nil || call.Risk == "" {
		return bind.Result{}, fmt.Errorf("bind: %w", &memory.FieldError{Field: "call.risk", Problem: errOr(err, "is required")})
	}
	justifiedBy = memory.NormalizeIDs(justifiedBy)
	cited, err := e.current(ctx, actx.UserID, justifiedBy, actx.Now)
	if err != nil {
		return bind.Result{}, errorf("bind", err)
	}
	var unknown []string
	for _, id := range justifiedBy {
		if _, ok := cited[id]; !ok && !slices.Contains(unknown, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		return bind.Result{}, &NotFoundError{What: "justifiedBy", IDs: unknown}
	}
	decisions, err := store.Decisions(ctx, e.store, actx.UserID, actx.TaskID)
	if err != nil {
		return bind.Result{}, errorf("bind", err)
	}
	latest := map[string]audit.Decided{} // the task's most recent decision per memory
	for _, d := range decisions {
		if d.GateOnly {
			continue // about the caller's own memories, whatever their ids
		}
		latest[d.MemoryID] = d
	}
	ids := make([]string, 0, len(latest))
	for id := range latest {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	now, err := e.current(ctx, actx.UserID, ids, actx.Now)
	if err != nil {
		return bind.Result{}, errorf("bind", err)
	}
	// A forgotten memory has no text: it justifies nothing (it is
	// withdrawn) and taints nothing. A memory withdrawn since its
	// decision keeps its text as a taint source.
	decidedMems := make([]bind.Decided, 0, len(ids))
	for _, id := range ids {
		c, ok := now[id]
		if !ok {
			continue // not a memory of this user (a gate-only candidate, say)
		}
		d := latest[id]
		decidedMems = append(decidedMems, bind.Decided{MemoryID: id, Text: c.memory.Text, Decision: d.Decision, Constraints: d.Constraints,
			EffectiveAuthority: d.Scores.EffectiveAuthority, Revoked: c.withdrawn})
	}
	// A revoked memory is excluded in every task, retrieved or not: its
	// values taint arguments even when this task never saw it.
	revoked, err := e.store.Revoked(ctx, actx.UserID, 0)
	if err != nil {
		return bind.Result{}, errorf("bind", err)
	}
	res := bind.Judge(call, justifiedBy, bind.WithRevoked(decidedMems, revoked))
	p, _ := json.Marshal(map[string]any{"tool": call, "justifiedBy": justifiedBy, "verdict": res.Verdict, "reasons": res.Reasons,
		"accepted": res.Accepted, "tainted": res.Tainted})
	if _, err := e.store.AppendEvents(ctx, []audit.Event{{Kind: audit.Binding, At: actx.Now, TaskID: actx.TaskID, UserID: actx.UserID,
		PrincipalID: actx.Principal.ID, Decision: string(res.Verdict), Payload: p}}); err != nil {
		return res, errorf("bind: audit", err)
	}
	return res, nil
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// Audit lists audit events.
func (e *Engine) Audit(ctx context.Context, f audit.Filter) ([]audit.Event, error) {
	f.TaskID, f.UserID, f.MemoryID = memory.NormalizeID(f.TaskID), memory.NormalizeID(f.UserID), memory.NormalizeID(f.MemoryID)
	return e.store.Events(ctx, f)
}

// ReviewQueue lists quarantined memories with the given status (pending,
// approved, rejected; "" for all).
func (e *Engine) ReviewQueue(ctx context.Context, status string) ([]audit.QuarantineItem, error) {
	if err := checkStatus(status); err != nil {
		return nil, err
	}
	return e.store.Queue(ctx, audit.QueueFilter{Status: status})
}

// checkStatus checks a review status filter.
func checkStatus(status string) error {
	switch status {
	case "", audit.Pending, audit.Approved, audit.Rejected:
		return nil
	}
	return fmt.Errorf("review queue: %w", &memory.FieldError{Field: "status",
		Problem: fmt.Sprintf("unknown value %q (allowed: pending, approved, rejected)", status)})
}

// Review records a reviewer's verdict on a quarantined memory; the verdict
// becomes a labelled example for training the gate.
func (e *Engine) Review(ctx context.Context, item int64, approve bool, reviewer, note string) (audit.QuarantineItem, error) {
	if err := memory.CheckNote("note", note); err != nil {
		return audit.QuarantineItem{}, fmt.Errorf("review %d: %w", item, err)
	}
	return e.store.Review(ctx, audit.Review{Item: item, Approve: approve, Reviewer: reviewer, Note: note, At: e.now()})
}
