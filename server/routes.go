package server

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/memory"
)

func (s *Server) routes() {
	s.route("POST /v1/memories", auth.Agent, s.addMemory)
	s.route("POST /v1/memories/batch", auth.Agent, s.addBatch)
	s.route("GET /v1/memories", auth.Agent, s.listMemories)
	s.route("GET /v1/memories/{id}", auth.Agent, s.getMemory)
	s.route("POST /v1/memories/{id}/revoke", auth.Agent, s.revokeMemory)
	s.route("DELETE /v1/memories/{id}", auth.Agent, s.forgetMemory)
	s.route("POST /v1/search", auth.Agent, s.search)
	s.route("POST /v1/admit", auth.Agent, s.admit)
	s.route("POST /v1/gate/admit", auth.Agent, s.gateAdmit)
	s.route("POST /v1/bind", auth.Agent, s.bind)
	s.route("GET /v1/audit", auth.Reviewer, s.audit)
	s.route("GET /v1/quarantine", auth.Reviewer, s.quarantine)
	s.route("POST /v1/quarantine/{item}/{verdict}", auth.Reviewer, s.review)
	s.mem0Routes()
	s.extraRoutes()
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /readyz", s.ready)
	if !s.o.SeparateMetrics {
		s.mux.Handle("GET /metrics", s.m.handler())
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no_route", "", r.Method+" "+r.URL.Path+" is not a memgate route")
	})
}

// ready answers 200 once the engine's store answers and its index, if
// remote, is ready. Probes are not authenticated: the answer names the part
// that is not ready, and the log has the cause.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if err := s.eng.Ready(r.Context()); err != nil {
		part := "engine"
		if nr, ok := errors.AsType[*memgate.NotReadyError](err); ok {
			part = nr.Part
		}
		s.o.Logger.LogAttrs(r.Context(), slog.LevelWarn, "not ready", slog.String("error", err.Error()))
		writeError(w, http.StatusServiceUnavailable, "not_ready", "", "the "+part+" is not ready; the server's log says why")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// checkWrite applies the key's scope and authority cap to a memory it
// writes: its user must be one the key acts for (the key's only user when
// none is given), its id is memgate's to choose unless the key is an
// admin's, and a source authority above the cap is refused, or
// lowered to it with Options.LowerAuthority. A memory without an authority
// gets the cap.
func (s *Server) checkWrite(p *auth.Principal, m *memory.Memory) error {
	u, err := user(p, m.UserID)
	if err != nil {
		return err
	}
	// Ids are unique across the store: a caller who may choose one could
	// learn from a conflict that another tenant uses it. Only admin keys
	// may; the others get ids from memgate.
	if m.ID != "" && p.Role != auth.Admin {
		return invalid("id", "is assigned by memgate for %s keys (only admin keys may choose ids)", p.Role)
	}
	m.UserID = u
	if err := p.CapAuthority(m, s.o.LowerAuthority); err != nil {
		return forbidden("%v", err)
	}
	return nil
}

func (s *Server) addMemory(r *http.Request, p *auth.Principal) (int, any, error) {
	var m memory.Memory
	if err := decode(r, &m); err != nil {
		return 0, nil, err
	}
	if err := s.checkWrite(p, &m); err != nil {
		return 0, nil, err
	}
	out, err := s.eng.Add(r.Context(), m)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, out, nil
}

type batchBody struct {
	Memories []memory.Memory `json:"memories"`
}

func (s *Server) addBatch(r *http.Request, p *auth.Principal) (int, any, error) {
	var b batchBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	if len(b.Memories) == 0 || len(b.Memories) > s.o.MaxBatch {
		return 0, nil, invalid("memories", "has %d memories; want 1 to %d", len(b.Memories), s.o.MaxBatch)
	}
	for i := range b.Memories {
		if err := s.checkWrite(p, &b.Memories[i]); err != nil {
			return 0, nil, &httpError{status: classify(err).status, code: "batch", field: "memories[" + strconv.Itoa(i) + "]",
				msg: "memories[" + strconv.Itoa(i) + "]: " + err.Error()}
		}
	}
	out, err := s.eng.AddBatch(r.Context(), b.Memories)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, batchBody{Memories: out}, nil
}

type listBody struct {
	Memories []memory.Memory `json:"memories"`
	Next     int64           `json:"next,omitempty"`
}

func (s *Server) listMemories(r *http.Request, p *auth.Principal) (int, any, error) {
	q := r.URL.Query()
	u, err := user(p, q.Get("userId"))
	if err != nil {
		return 0, nil, err
	}
	limit, err := intParam(r, "limit", 1, 1000)
	if err != nil {
		return 0, nil, err
	}
	after, err := intParam(r, "after", 0, 1<<62)
	if err != nil {
		return 0, nil, err
	}
	if limit == 0 {
		limit = 100
	}
	f := memory.Filter{WorkspaceID: q.Get("workspaceId"), ProjectID: q.Get("projectId"), Domain: q.Get("domain")}
	page, err := s.eng.ForUser(u).List(r.Context(), memgate.ListOptions{Scope: f, IncludeRevoked: q.Get("includeRevoked") == "true",
		After: after, Limit: int(limit)})
	if err != nil {
		return 0, nil, err
	}
	if page.Memories == nil {
		page.Memories = []memory.Memory{}
	}
	return http.StatusOK, listBody{Memories: page.Memories, Next: page.Next}, nil
}

func (s *Server) getMemory(r *http.Request, p *auth.Principal) (int, any, error) {
	u, err := user(p, r.URL.Query().Get("userId"))
	if err != nil {
		return 0, nil, err
	}
	m, err := s.eng.ForUser(u).Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, m, nil
}

type changeBody struct {
	UserID string `json:"userId,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (s *Server) revokeMemory(r *http.Request, p *auth.Principal) (int, any, error) {
	var b changeBody
	if r.ContentLength != 0 {
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
	}
	u, err := user(p, b.UserID)
	if err != nil {
		return 0, nil, err
	}
	m, err := s.eng.ForUser(u).As(p.ID).Revoke(r.Context(), r.PathValue("id"), b.Reason)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, m, nil
}

func (s *Server) forgetMemory(r *http.Request, p *auth.Principal) (int, any, error) {
	q := r.URL.Query()
	u, err := user(p, q.Get("userId"))
	if err != nil {
		return 0, nil, err
	}
	t, err := s.eng.ForUser(u).As(p.ID).Forget(r.Context(), r.PathValue("id"), q.Get("reason"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, t, nil
}

type searchBody struct {
	Query memgate.Query `json:"query"`
}

func (s *Server) search(r *http.Request, p *auth.Principal) (int, any, error) {
	var b searchBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	u, err := user(p, b.Query.Scope.UserID)
	if err != nil {
		return 0, nil, err
	}
	b.Query.Scope.UserID = u
	cands, err := s.eng.Search(r.Context(), b.Query)
	if err != nil {
		return 0, nil, err
	}
	if cands == nil {
		cands = []memgate.Candidate{}
	}
	return http.StatusOK, map[string]any{"candidates": cands}, nil
}

// admitBody asks for an admission: the task's context (its principal and
// roles are the key's, whatever the body says), the query, and how to
// build the model's context.
type admitBody struct {
	Context admit.Context  `json:"context"`
	Query   memgate.Query  `json:"query"`
	Inject  inject.Options `json:"inject"`
}

type admitAnswer struct {
	Admission *memgate.Admission `json:"admission"`
	Context   inject.Context     `json:"context"`
}

// taskContext fills an admission context's user and principal from the
// request's key.
func taskContext(p *auth.Principal, actx *admit.Context) error {
	u, err := user(p, actx.UserID)
	if err != nil {
		return err
	}
	actx.UserID = u
	actx.Principal = admit.Principal{ID: p.ID, Roles: []string{string(p.Role)}}
	return nil
}

func (s *Server) admit(r *http.Request, p *auth.Principal) (int, any, error) {
	var b admitBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	if err := taskContext(p, &b.Context); err != nil {
		return 0, nil, err
	}
	if b.Query.Scope.UserID != "" && memory.NormalizeID(b.Query.Scope.UserID) != b.Context.UserID {
		return 0, nil, invalid("query.scope.userId", "differs from context.userId: retrieval never crosses users")
	}
	b.Query.Scope.UserID = b.Context.UserID
	adm, built, err := s.eng.AdmitContext(r.Context(), b.Context, b.Query, b.Inject)
	if err != nil {
		return 0, nil, err
	}
	s.m.decisions(adm)
	return http.StatusOK, admitAnswer{Admission: adm, Context: built}, nil
}

type gateBody struct {
	Context    admit.Context           `json:"context"`
	Query      string                  `json:"query"`
	Candidates []memgate.GateCandidate `json:"candidates"`
	Inject     inject.Options          `json:"inject"`
}

func (s *Server) gateAdmit(r *http.Request, p *auth.Principal) (int, any, error) {
	var b gateBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	if err := taskContext(p, &b.Context); err != nil {
		return 0, nil, err
	}
	if len(b.Candidates) > s.o.MaxBatch {
		return 0, nil, invalid("candidates", "has %d candidates; the limit is %d", len(b.Candidates), s.o.MaxBatch)
	}
	adm, err := s.eng.AdmitCandidates(r.Context(), b.Context, b.Query, b.Candidates)
	if err != nil {
		return 0, nil, err
	}
	s.m.decisions(adm)
	built, err := s.eng.BuildContext(r.Context(), adm, b.Inject)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, admitAnswer{Admission: adm, Context: built}, nil
}

type bindBody struct {
	Context     admit.Context `json:"context"`
	Call        bind.ToolCall `json:"call"`
	JustifiedBy []string      `json:"justifiedBy"`
}

func (s *Server) bind(r *http.Request, p *auth.Principal) (int, any, error) {
	var b bindBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	if err := taskContext(p, &b.Context); err != nil {
		return 0, nil, err
	}
	res, err := s.eng.Bind(r.Context(), b.Context, b.Call, b.JustifiedBy)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

func (s *Server) audit(r *http.Request, p *auth.Principal) (int, any, error) {
	q := r.URL.Query()
	u, err := user(p, q.Get("userId"))
	if err != nil {
		return 0, nil, err
	}
	kind, err := audit.ParseKind(q.Get("kind"))
	if err != nil {
		return 0, nil, invalid("kind", "%v", err)
	}
	after, err := intParam(r, "after", 0, 1<<62)
	if err != nil {
		return 0, nil, err
	}
	search, err := intParam(r, "searchId", 0, 1<<62)
	if err != nil {
		return 0, nil, err
	}
	limit, err := intParam(r, "limit", 1, 10000)
	if err != nil {
		return 0, nil, err
	}
	if limit == 0 {
		limit = 1000
	}
	evs, err := s.eng.ForUser(u).Audit(r.Context(), audit.Filter{Kind: kind, TaskID: q.Get("taskId"), MemoryID: q.Get("memoryId"),
		Decision: q.Get("decision"), SearchID: search, After: after, Limit: int(limit)})
	if err != nil {
		return 0, nil, err
	}
	if evs == nil {
		evs = []audit.Event{}
	}
	return http.StatusOK, map[string]any{"events": evs}, nil
}

func (s *Server) quarantine(r *http.Request, p *auth.Principal) (int, any, error) {
	q := r.URL.Query()
	u, err := user(p, q.Get("userId"))
	if err != nil {
		return 0, nil, err
	}
	items, err := s.eng.ForUser(u).ReviewQueue(r.Context(), q.Get("status"))
	if err != nil {
		return 0, nil, err
	}
	if items == nil {
		items = []audit.QuarantineItem{}
	}
	return http.StatusOK, map[string]any{"items": items}, nil
}

type reviewBody struct {
	UserID string `json:"userId,omitempty"`
	Note   string `json:"note,omitempty"`
}

func (s *Server) review(r *http.Request, p *auth.Principal) (int, any, error) {
	item, err := strconv.ParseInt(r.PathValue("item"), 10, 64)
	if err != nil || item <= 0 {
		return 0, nil, invalid("item", "%q is not a review item number", r.PathValue("item"))
	}
	var approve bool
	switch r.PathValue("verdict") {
	case "approve":
		approve = true
	case "reject":
	default:
		return 0, nil, invalid("verdict", "%q: want approve or reject", r.PathValue("verdict"))
	}
	var b reviewBody
	if r.ContentLength != 0 {
		if err := decode(r, &b); err != nil {
			return 0, nil, err
		}
	}
	u, err := user(p, b.UserID)
	if err != nil {
		return 0, nil, err
	}
	it, err := s.eng.ForUser(u).As(p.ID).Review(r.Context(), item, approve, b.Note)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, it, nil
}
