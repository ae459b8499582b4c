package server

// The Mem0-compatible subset: the routes and shapes the npm package mem0ai
// (3.x) MemoryClient uses, so that an application using Mem0's platform
// client can switch to memgate by changing its host (new MemoryClient({
// apiKey: MEMGATE_KEY, host: "http://memgate:8080" })). The client sends
// "Authorization: Token KEY", which authenticate accepts.
//
//	GET    /v1/ping/                    {"status":"ok",...}
//	POST   /v3/memories/add/            add: one memory per user message
//	POST   /v3/memories/search/         search, through admission
//	POST   /v3/memories/?page=&page_size=  get all, paginated
//	GET    /v1/memories/{id}/           get one
//	PUT    /v1/memories/{id}/           update: a new version supersedes it
//	DELETE /v1/memories/{id}/           delete: forget it and its versions
//	GET    /v1/memories/{id}/history/   history: ADD, UPDATE, DELETE
//
// The paths end in a slash, as the client sends them; without it, the
// native routes of the same names answer (GET /v1/memories/{id} is memgate's
// get, not Mem0's). Errors are memgate's JSON errors: Mem0's clients read
// only the status (400 ValidationError, 401/403 AuthenticationError, 404
// MemoryNotFoundError, …) and keep the body as the message.
//
// Mapping:
//
//   - user_id is memgate's userId; the key must allow it, and a key for one
//     user may leave it out. agent_id, app_id and run_id have no memgate
//     counterpart and are refused, except the wildcard "*" in filters.
//   - add stores the content of each user message verbatim: memgate runs no
//     LLM to extract facts. With infer false, assistant messages are stored
//     too, as model_inferred. Each memory gets the key's authority cap (an
//     agent's: tool_verified), as the native add does.
//   - metadata maps these keys to memgate's fields, both ways:
//     source_authority (refused above the key's cap, or lowered to it with
//     --lower-authority), kind, classification, workspace_id, project_id,
//     domain. Other metadata keys are not stored: memgate keeps no
//     free-form metadata.
//   - search runs an admission (intent answer, no tools, the principal and
//     role of the key) and returns only the memories admission lets into a
//     model's context (admit and admit_summary_only), each with its score
//     (cosine similarity in [0,1]), decision, reasons and constraints. A
//     summary-only memory's "memory" is the bounded summary marked
//     UNVERIFIED that a prompt may receive, not its full text. The
//     admission and the injection are recorded in the audit trail.
//   - A Mem0 memory keeps its id across updates; memgate's memories are
//     immutable, so update stores a new version that supersedes the old one
//     and returns it with its new id. Every id of a chain of versions
//     addresses the chain: get answers its latest version, update extends
//     it, delete forgets all of it (so no earlier text stands again), and
//     history tells all of it.
//   - get all lists the latest versions (latest_only: false lists every
//     one), without expired memories unless show_expired, within
//     start_date and end_date if given: {count, next, previous, results}.
//   - history lists events oldest first, with memory_id the id asked for and
//     version_id the version each event concerns. A forgotten version keeps
//     no text: its DELETE has no old_memory.
//   - Ids the key's users do not own read like missing ones.
//
// Not supported (answered 404 no_route, or 400 naming the field): Mem0's
// LLM extraction, graph memory, event polling (/v1/event/, add completes
// before it answers: status SUCCEEDED, no event_id), entities (users,
// deleteUsers), deleteAll, batch update and delete, projects, webhooks,
// feedback, exports, profiles, filter operators other than AND and "*",
// categories, and the v1/v2 add, search and list routes of older clients.
// rerank, keyword_search, fields, output_format and the like are ignored.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/memory"
)

// mem0Routes registers the Mem0-compatible subset (see above).
func (s *Server) mem0Routes() {
	s.route("GET /v1/ping/{$}", auth.Agent, s.mem0Ping)
	s.route("POST /v3/memories/add/{$}", auth.Agent, s.mem0Add)
	s.route("POST /v3/memories/search/{$}", auth.Agent, s.mem0Search)
	s.route("POST /v3/memories/{$}", auth.Agent, s.mem0List)
	s.route("GET /v1/memories/{id}/{$}", auth.Agent, s.mem0Get)
	s.route("PUT /v1/memories/{id}/{$}", auth.Agent, s.mem0Update)
	s.route("DELETE /v1/memories/{id}/{$}", auth.Agent, s.mem0Delete)
	s.route("GET /v1/memories/{id}/history/{$}", auth.Agent, s.mem0History)
}

// mem0MaxChain bounds the versions a chain is followed through.
const mem0MaxChain = 1000

// mem0Writes serialises updates and deletes, each of which reads a chain's
// latest version and then writes: two concurrent updates of one memory
// would otherwise both supersede the same version and fork the chain.
var mem0Writes sync.Mutex

// mem0Memory is a memory as Mem0 answers it, with memgate's relations and,
// in search results, its admission.
type mem0Memory struct {
	ID             string         `json:"id"`
	Memory         string         `json:"memory"`
	UserID         string         `json:"user_id"`
	Metadata       map[string]any `json:"metadata"`
	Categories     []string       `json:"categories"`
	CreatedAt      string         `json:"created_at"`
	UpdatedAt      string         `json:"updated_at"`
	ExpirationDate *string        `json:"expiration_date"`
	Supersedes     []string       `json:"supersedes,omitempty"`
	SupersededBy   []string       `json:"superseded_by,omitempty"`
	Revoked        bool           `json:"revoked,omitempty"`

	Score       *float64         `json:"score,omitempty"`
	Decision    admit.Decision   `json:"decision,omitempty"`
	Reasons     []admit.Reason   `json:"reasons,omitempty"`
	Constraints *mem0Constraints `json:"constraints,omitempty"`
	Citation    string           `json:"citation,omitempty"`
}

type mem0Constraints struct {
	RequireCitation         bool `json:"require_citation"`
	RequireUserConfirmation bool `json:"require_user_confirmation"`
	ForbidToolBinding       bool `json:"forbid_tool_binding"`
}

// mem0Added is one result of an add or an update.
type mem0Added struct {
	mem0Memory
	Event string            `json:"event"`
	Data  map[string]string `json:"data"`
}

func mem0Time(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func mem0Of(m *memory.Memory) mem0Memory {
	out := mem0Memory{ID: m.ID, Memory: m.Text, UserID: m.UserID, Metadata: mem0Meta(m), Categories: []string{},
		CreatedAt: mem0Time(m.CreatedAt), UpdatedAt: mem0Time(m.CreatedAt),
		Supersedes: m.Supersedes, SupersededBy: m.SupersededBy, Revoked: m.Revoked}
	if !m.ExpiresAt.IsZero() {
		e := m.ExpiresAt.UTC()
		s := e.Format(time.RFC3339Nano)
		if e.Equal(e.Truncate(24 * time.Hour)) {
			s = e.Format(time.DateOnly)
		}
		out.ExpirationDate = &s
	}
	return out
}

// mem0Meta is the metadata a memory answers with: its fields that the
// metadata of an add or update sets; nil when there are none.
func mem0Meta(m *memory.Memory) map[string]any {
	md := map[string]any{}
	for k, v := range map[string]string{"source_authority": string(m.SourceAuthority), "kind": string(m.Kind),
		"classification": string(m.Classification), "workspace_id": m.WorkspaceID, "project_id": m.ProjectID, "domain": m.Domain} {
		if v != "" {
			md[k] = v
		}
	}
	if len(md) == 0 {
		return nil
	}
	return md
}

// mem0ApplyMeta sets m's fields from Mem0 metadata (see mem0Meta) and reports
// whether it set the source authority. Other keys are ignored.
func mem0ApplyMeta(m *memory.Memory, md map[string]any) (authority bool, err error) {
	str := func(k string) (string, bool, error) {
		v, ok := md[k]
		if !ok || v == nil {
			return "", false, nil
		}
		s, isStr := v.(string)
		if !isStr {
			return "", false, invalid("metadata."+k, "must be a string")
		}
		return s, true, nil
	}
	var errs []error
	set := func(k string, apply func(string) error) bool {
		s, ok, err := str(k)
		if err == nil && ok {
			err = apply(s)
		}
		if err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) {
				err = invalid("metadata."+k, "%v", err)
			}
			errs = append(errs, err)
		}
		return ok
	}
	authority = set("source_authority", func(s string) (err error) { m.SourceAuthority, err = memory.ParseAuthority(s); return })
	set("kind", func(s string) (err error) { m.Kind, err = memory.ParseKind(s); return })
	set("classification", func(s string) (err error) { m.Classification, err = memory.ParseClassification(s); return })
	set("workspace_id", func(s string) error { m.WorkspaceID = s; return nil })
	set("project_id", func(s string) error { m.ProjectID = s; return nil })
	set("domain", func(s string) error { m.Domain = s; return nil })
	return authority, errors.Join(errs...)
}

// mem0Decode reads one JSON object into v. Unlike decode it ignores unknown
// fields: Mem0's clients send options memgate has no use for.
func mem0Decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var (
			mb  *http.MaxBytesError
			ute *json.UnmarshalTypeError
		)
		switch {
		case errors.As(err, &mb):
			return err
		case errors.Is(err, io.EOF):
			return invalid("body", "a JSON object is required")
		case errors.As(err, &ute):
			return invalid(ute.Field, "expected %s, got JSON %s", ute.Type, ute.Value)
		}
		return invalid("body", "%v", err)
	}
	if dec.More() {
		return invalid("body", "one JSON object is allowed, not several")
	}
	return nil
}

// mem0User is user for Mem0's user_id.
func mem0User(p *auth.Principal, given string) (string, error) {
	if given == auth.AllUsers {
		return "", invalid("user_id", "%q is not a user", given)
	}
	u, err := user(p, given)
	var fe *memory.FieldError
	if errors.As(err, &fe) && fe.Field == "userId" {
		fe.Field = "user_id"
	}
	return u, err
}

// mem0Entities are Mem0's entity ids outside filters.
type mem0Entities struct {
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
	AppID   string `json:"app_id"`
	RunID   string `json:"run_id"`
}

// noEntities refuses entity ids at the top level of a search or listing,
// as Mem0's v3 API does.
func (e *mem0Entities) noEntities() error {
	for _, f := range []struct{ name, v string }{{"user_id", e.UserID}, {"agent_id", e.AgentID}, {"app_id", e.AppID}, {"run_id", e.RunID}} {
		if f.v != "" {
			return invalid(f.name, "pass entity ids inside filters, e.g. {\"filters\": {\"user_id\": ...}}")
		}
	}
	return nil
}

func mem0Unsupported(field string) error {
	return invalid(field, "is not supported: memgate scopes memories by user_id (and by workspace_id, project_id and domain in metadata)")
}

// mem0Scope reads Mem0 filters: user_id, workspace_id, project_id and
// domain as exact strings, "*" for agent_id, app_id and run_id, and AND of
// such objects.
func mem0Scope(filters map[string]any) (memory.Filter, error) {
	var f memory.Filter
	var walk func(prefix string, obj map[string]any) error
	walk = func(prefix string, obj map[string]any) error {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v, field := obj[k], prefix+k
			var target *string
			switch k {
			case "AND":
				list, ok := v.([]any)
				if !ok {
					return invalid(field, "must be a list of filter objects")
				}
				for i, e := range list {
					o, ok := e.(map[string]any)
					if !ok {
						return invalid(fmt.Sprintf("%s[%d]", field, i), "must be a filter object")
					}
					if err := walk(fmt.Sprintf("%s[%d].", field, i), o); err != nil {
						return err
					}
				}
				continue
			case "agent_id", "app_id", "run_id":
				if v == "*" {
					continue // matches every memory: memgate has no such ids
				}
				return mem0Unsupported(field)
			case "user_id":
				target = &f.UserID
			case "workspace_id":
				target = &f.WorkspaceID
			case "project_id":
				target = &f.ProjectID
			case "domain":
				target = &f.Domain
			default:
				return invalid(field, "is not supported (filters may hold user_id, workspace_id, project_id, domain, AND, and \"*\" for agent_id, app_id, run_id)")
			}
			s, ok := v.(string)
			if !ok || s == "" {
				return invalid(field, "must be a non-empty string: memgate matches it exactly, with no operators")
			}
			if *target != "" && *target != s {
				return invalid(field, "%q conflicts with %q elsewhere in filters", s, *target)
			}
			*target = s
		}
		return nil
	}
	if err := walk("filters.", filters); err != nil {
		return memory.Filter{}, err
	}
	f.Normalize()
	if err := f.Validate(); err != nil {
		return memory.Filter{}, err
	}
	return f, nil
}

// mem0Timestamp parses Mem0's timestamp: Unix seconds, as a number or a
// string, or an RFC 3339 time.
func mem0Timestamp(raw json.RawMessage) (time.Time, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e12 {
		return time.Time{}, invalid("timestamp", "%s is neither Unix seconds nor an RFC 3339 time", raw)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

// mem0Date parses a date (YYYY-MM-DD, midnight UTC) or an RFC 3339 time.
func mem0Date(field, s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, invalid(field, "%q is neither a date (YYYY-MM-DD) nor an RFC 3339 time", s)
}

func (s *Server) mem0Ping(r *http.Request, p *auth.Principal) (int, any, error) {
	return http.StatusOK, map[string]any{"status": "ok", "message": "pong", "principal": p.ID, "role": p.Role, "users": p.Users}, nil
}

type mem0AddBody struct {
	mem0Entities
	Messages       json.RawMessage `json:"messages"`
	Metadata       map[string]any  `json:"metadata"`
	Infer          *bool           `json:"infer"`
	Timestamp      json.RawMessage `json:"timestamp"`
	ExpirationDate string          `json:"expiration_date"`
}

type mem0Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// mem0Messages reads messages: a list of {role, content} or one string (a
// user message).
func mem0Messages(raw json.RawMessage) ([]mem0Message, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		c, _ := json.Marshal(one)
		return []mem0Message{{Role: "user", Content: c}}, nil
	}
	var ms []mem0Message
	if err := json.Unmarshal(raw, &ms); err != nil || len(ms) == 0 {
		return nil, invalid("messages", "a list of at least one {role, content} is required")
	}
	return ms, nil
}

func (s *Server) mem0Add(r *http.Request, p *auth.Principal) (int, any, error) {
	var b mem0AddBody
	if err := mem0Decode(r, &b); err != nil {
		return 0, nil, err
	}
	for _, f := range []struct{ name, v string }{{"agent_id", b.AgentID}, {"app_id", b.AppID}, {"run_id", b.RunID}} {
		if f.v != "" {
			return 0, nil, mem0Unsupported(f.name)
		}
	}
	u, err := mem0User(p, b.UserID)
	if err != nil {
		return 0, nil, err
	}
	msgs, err := mem0Messages(b.Messages)
	if err != nil {
		return 0, nil, err
	}
	created, err := mem0Timestamp(b.Timestamp)
	if err != nil {
		return 0, nil, err
	}
	var expires time.Time
	if b.ExpirationDate != "" {
		if expires, err = mem0Date("expiration_date", b.ExpirationDate); err != nil {
			return 0, nil, err
		}
	}
	infer := b.Infer == nil || *b.Infer
	var ms []memory.Memory
	for i, msg := range msgs {
		if msg.Role != "user" && (infer || msg.Role != "assistant") {
			continue // memgate extracts nothing: it keeps what the user said
		}
		var text string
		if err := json.Unmarshal(msg.Content, &text); err != nil {
			return 0, nil, invalid(fmt.Sprintf("messages[%d].content", i), "must be text: memgate stores no images or parts")
		}
		m := memory.Memory{Text: text, UserID: u, CreatedAt: created, ExpiresAt: expires}
		if _, err := mem0ApplyMeta(&m, b.Metadata); err != nil {
			return 0, nil, err
		}
		if err := s.checkWrite(p, &m); err != nil {
			return 0, nil, err
		}
		if msg.Role == "assistant" && m.SourceAuthority.Rank() > memory.AuthorityModelInferred.Rank() {
			m.SourceAuthority = memory.AuthorityModelInferred // what the model said, not the user
		}
		ms = append(ms, m)
	}
	if len(ms) > s.o.MaxBatch {
		return 0, nil, invalid("messages", "has %d messages to store; the limit is %d", len(ms), s.o.MaxBatch)
	}
	results := []mem0Added{}
	if len(ms) > 0 {
		out, err := s.eng.AddBatch(r.Context(), ms)
		if err != nil {
			return 0, nil, err
		}
		for i := range out {
			results = append(results, mem0Added{mem0Memory: mem0Of(&out[i]), Event: "ADD", Data: map[string]string{"memory": out[i].Text}})
		}
	}
	return http.StatusOK, map[string]any{"status": "SUCCEEDED", "message": fmt.Sprintf("%d memories added", len(results)),
		"results": results}, nil
}

type mem0SearchBody struct {
	mem0Entities
	Query      *string        `json:"query"`
	Filters    map[string]any `json:"filters"`
	TopK       *int           `json:"top_k"`
	Threshold  *float64       `json:"threshold"`
	Categories []string       `json:"categories"`
	Metadata   map[string]any `json:"metadata"`
}

func (s *Server) mem0Search(r *http.Request, p *auth.Principal) (int, any, error) {
	var b mem0SearchBody
	if err := mem0Decode(r, &b); err != nil {
		return 0, nil, err
	}
	if err := b.noEntities(); err != nil {
		return 0, nil, err
	}
	if b.Query == nil || strings.TrimSpace(*b.Query) == "" {
		return 0, nil, invalid("query", "is required")
	}
	if len(b.Categories) > 0 {
		return 0, nil, invalid("categories", "is not supported: memgate does not categorise memories")
	}
	if len(b.Metadata) > 0 {
		return 0, nil, invalid("metadata", "is not supported in search: filter by workspace_id, project_id or domain in filters")
	}
	k := memgate.DefaultK
	if b.TopK != nil {
		if *b.TopK < 1 || *b.TopK > memgate.MaxK {
			return 0, nil, invalid("top_k", "%d is not from 1 to %d", *b.TopK, memgate.MaxK)
		}
		k = *b.TopK
	}
	if b.Threshold != nil && (*b.Threshold < 0 || *b.Threshold > 1) {
		return 0, nil, invalid("threshold", "%g is not from 0 to 1", *b.Threshold)
	}
	scope, err := mem0Scope(b.Filters)
	if err != nil {
		return 0, nil, err
	}
	if scope.UserID, err = mem0User(p, scope.UserID); err != nil {
		return 0, nil, err
	}
	actx := admit.Context{UserID: scope.UserID, WorkspaceID: scope.WorkspaceID, ProjectID: scope.ProjectID, Domain: scope.Domain,
		Intent: admit.IntentAnswer, ToolRisk: admit.RiskNone}
	if err := taskContext(p, &actx); err != nil {
		return 0, nil, err
	}
	// The memories a prompt may receive: admitted and summary-only ones,
	// within no budget but top_k's.
	adm, built, err := s.eng.AdmitContext(r.Context(), actx, memgate.Query{Scope: scope, Text: *b.Query, K: k},
		inject.Options{Budget: math.MaxInt32})
	if err != nil {
		return 0, nil, err
	}
	s.m.decisions(adm)
	decided := make(map[string]*memgate.Decided, len(adm.Items))
	for i := range adm.Items {
		decided[adm.Items[i].Memory.ID] = &adm.Items[i]
	}
	results := []mem0Memory{}
	for _, it := range built.Items {
		d := decided[it.MemoryID]
		if d == nil || !it.Decision.Injectable() {
			continue
		}
		score := min(max(d.Scores.Similarity, 0), 1)
		if b.Threshold != nil && score < *b.Threshold {
			continue
		}
		out := mem0Of(&d.Memory)
		if it.Summary {
			out.Memory = it.Text // the bounded summary marked UNVERIFIED, never the full text
		}
		c := d.Constraints
		out.Score, out.Decision, out.Reasons, out.Citation = &score, d.Decision, d.Reasons, it.Citation
		out.Constraints = &mem0Constraints{RequireCitation: c.RequireCitation, RequireUserConfirmation: c.RequireUserConfirmation,
			ForbidToolBinding: c.ForbidToolBinding}
		results = append(results, out)
	}
	return http.StatusOK, map[string]any{"results": results}, nil
}

type mem0ListBody struct {
	mem0Entities
	Filters     map[string]any `json:"filters"`
	StartDate   string         `json:"start_date"`
	EndDate     string         `json:"end_date"`
	LatestOnly  *bool          `json:"latest_only"`
	ShowExpired bool           `json:"show_expired"`
	Categories  []string       `json:"categories"`
}

func (s *Server) mem0List(r *http.Request, p *auth.Principal) (int, any, error) {
	var b mem0ListBody
	if r.ContentLength != 0 {
		if err := mem0Decode(r, &b); err != nil {
			return 0, nil, err
		}
	}
	if err := b.noEntities(); err != nil {
		return 0, nil, err
	}
	if len(b.Categories) > 0 {
		return 0, nil, invalid("categories", "is not supported: memgate does not categorise memories")
	}
	page, err := intParam(r, "page", 1, 1<<30)
	if err != nil {
		return 0, nil, err
	}
	size, err := intParam(r, "page_size", 1, 1000)
	if err != nil {
		return 0, nil, err
	}
	page, size = max(page, 1), cmp.Or(size, 100)
	var from, to time.Time
	if b.StartDate != "" {
		if from, err = mem0Date("start_date", b.StartDate); err != nil {
			return 0, nil, err
		}
	}
	if b.EndDate != "" {
		if to, err = mem0Date("end_date", b.EndDate); err != nil {
			return 0, nil, err
		}
		if len(b.EndDate) == len(time.DateOnly) {
			to = to.Add(24*time.Hour - time.Nanosecond) // the whole day
		}
	}
	scope, err := mem0Scope(b.Filters)
	if err != nil {
		return 0, nil, err
	}
	if scope.UserID, err = mem0User(p, scope.UserID); err != nil {
		return 0, nil, err
	}
	// Versions an update replaced are left out unless latest_only is
	// false: a Mem0 memory is one id, whatever its updates.
	latestOnly := b.LatestOnly == nil || *b.LatestOnly
	now := s.o.Now()
	skip := (page - 1) * size
	count := int64(0)
	results := []mem0Memory{}
	var after int64
	for {
		pg, err := s.eng.ForUser(scope.UserID).List(r.Context(), memgate.ListOptions{Scope: scope, After: after, Limit: 1000})
		if err != nil {
			return 0, nil, err
		}
		for i := range pg.Memories {
			m := &pg.Memories[i]
			switch {
			case latestOnly && len(m.SupersededBy) > 0,
				!b.ShowExpired && !m.ExpiresAt.IsZero() && !now.Before(m.ExpiresAt),
				!from.IsZero() && m.CreatedAt.Before(from),
				!to.IsZero() && m.CreatedAt.After(to):
				continue
			}
			if count >= skip && count < skip+size {
				results = append(results, mem0Of(m))
			}
			count++
		}
		if after = pg.Next; after == 0 {
			break
		}
	}
	link := func(n int64) any {
		if n < 1 || (n-1)*size >= count {
			return nil
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		u := url.URL{Scheme: scheme, Host: r.Host, Path: r.URL.Path,
			RawQuery: url.Values{"page": {strconv.FormatInt(n, 10)}, "page_size": {strconv.FormatInt(size, 10)}}.Encode()}
		return u.String()
	}
	return http.StatusOK, map[string]any{"count": count, "next": link(page + 1), "previous": link(page - 1), "results": results}, nil
}

// mem0Owner finds the user whose memory id names: the user_id parameter,
// else the key's only user, else the owner of id if the key may act for
// it. An id of no such user reads like a missing one.
func (s *Server) mem0Owner(ctx context.Context, p *auth.Principal, r *http.Request, id string) (string, error) {
	if given := r.URL.Query().Get("user_id"); given != "" || (len(p.Users) == 1 && p.Users[0] != auth.AllUsers) {
		return mem0User(p, given)
	}
	id = memory.NormalizeID(id)
	m, err := s.eng.Get(ctx, id)
	switch {
	case err == nil && p.MayActFor(m.UserID):
		return m.UserID, nil
	case err != nil && !errors.Is(err, memgate.ErrNotFound):
		return "", err
	}
	ts, err := s.eng.Store().Tombstones(ctx, []string{id})
	if err != nil {
		return "", err
	}
	if t, ok := ts[id]; ok && p.MayActFor(t.UserID) {
		return t.UserID, nil
	}
	return "", &memgate.NotFoundError{What: "id", IDs: []string{id}}
}

// mem0Latest returns the latest version of the chain id belongs to: the
// memory that superseded it, and so on, while there is exactly one.
func mem0Latest(ctx context.Context, us *memgate.UserScope, id string) (memory.Memory, error) {
	m, err := us.Get(ctx, id)
	if err != nil {
		return m, err
	}
	for range mem0MaxChain {
		if len(m.SupersededBy) != 1 {
			break
		}
		next, err := us.Get(ctx, m.SupersededBy[0])
		if err != nil {
			break
		}
		m = next
	}
	return m, nil
}

// mem0Versions returns latest and every version it superseded,
// transitively, that is stored (newest first, as found), and the ids of
// those that were forgotten.
func mem0Versions(ctx context.Context, us *memgate.UserScope, latest memory.Memory) ([]memory.Memory, []string, error) {
	out, seen := []memory.Memory{latest}, map[string]bool{latest.ID: true}
	var gone []string
	queue := slices.Clone(latest.Supersedes)
	for len(queue) > 0 && len(out)+len(gone) < mem0MaxChain {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		m, err := us.Get(ctx, id)
		if errors.Is(err, memgate.ErrNotFound) {
			gone = append(gone, id)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, m)
		queue = append(queue, m.Supersedes...)
	}
	return out, gone, nil
}

func (s *Server) mem0Scope(r *http.Request, p *auth.Principal) (*memgate.UserScope, error) {
	u, err := s.mem0Owner(r.Context(), p, r, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return s.eng.ForUser(u).As(p.ID), nil
}

func (s *Server) mem0Get(r *http.Request, p *auth.Principal) (int, any, error) {
	us, err := s.mem0Scope(r, p)
	if err != nil {
		return 0, nil, err
	}
	m, err := mem0Latest(r.Context(), us, r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, mem0Of(&m), nil
}

type mem0UpdateBody struct {
	Text           *string         `json:"text"`
	Metadata       map[string]any  `json:"metadata"`
	Timestamp      json.RawMessage `json:"timestamp"`
	ExpirationDate json.RawMessage `json:"expiration_date"`
}

func mem0Conflict(format string, args ...any) error {
	return &httpError{status: http.StatusConflict, code: "conflict", msg: fmt.Sprintf(format, args...)}
}

func (s *Server) mem0Update(r *http.Request, p *auth.Principal) (int, any, error) {
	var b mem0UpdateBody
	if err := mem0Decode(r, &b); err != nil {
		return 0, nil, err
	}
	if b.Text == nil && b.Metadata == nil && len(b.Timestamp) == 0 && len(b.ExpirationDate) == 0 {
		return 0, nil, invalid("body", "give at least one of text, metadata, timestamp and expiration_date")
	}
	us, err := s.mem0Scope(r, p)
	if err != nil {
		return 0, nil, err
	}
	mem0Writes.Lock()
	defer mem0Writes.Unlock()
	old, err := mem0Latest(r.Context(), us, r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	switch {
	case old.Revoked:
		return 0, nil, mem0Conflict("memory %q is revoked; a revoked memory is not updated", old.ID)
	case len(old.SupersededBy) > 0:
		return 0, nil, mem0Conflict("memory %q has several newer versions (%s); update one of them", old.ID, strings.Join(old.SupersededBy, ", "))
	}
	// The new version: the old one's scope, labels, lineage and audience,
	// with what the request changes.
	n := memory.Memory{Text: old.Text, UserID: old.UserID, WorkspaceID: old.WorkspaceID, ProjectID: old.ProjectID, Domain: old.Domain,
		SourceAuthority: old.SourceAuthority, Kind: old.Kind, Classification: old.Classification, ExpiresAt: old.ExpiresAt,
		LineageRefs: old.LineageRefs, Supersedes: []string{old.ID}, Audience: old.Audience}
	if b.Text != nil {
		n.Text = *b.Text
	}
	setAuthority, err := mem0ApplyMeta(&n, b.Metadata)
	if err != nil {
		return 0, nil, err
	}
	if n.CreatedAt, err = mem0Timestamp(b.Timestamp); err != nil {
		return 0, nil, err
	}
	if len(b.ExpirationDate) > 0 {
		var e *string
		if json.Unmarshal(b.ExpirationDate, &e) != nil {
			return 0, nil, invalid("expiration_date", "must be a date (YYYY-MM-DD) or null")
		}
		n.ExpiresAt = time.Time{}
		if e != nil && *e != "" {
			if n.ExpiresAt, err = mem0Date("expiration_date", *e); err != nil {
				return 0, nil, err
			}
		}
	}
	if setAuthority {
		if err := s.checkWrite(p, &n); err != nil { // as an add: refused above the cap
			return 0, nil, err
		}
	} else if limit := p.AuthorityCap(); limit != "" && n.SourceAuthority.Rank() > limit.Rank() {
		n.SourceAuthority = limit // the key's write: never above its cap, never raised
	}
	added, err := s.eng.Add(r.Context(), n)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, mem0Added{mem0Memory: mem0Of(&added), Event: "UPDATE", Data: map[string]string{"memory": added.Text}}, nil
}

func (s *Server) mem0Delete(r *http.Request, p *auth.Principal) (int, any, error) {
	us, err := s.mem0Scope(r, p)
	if err != nil {
		return 0, nil, err
	}
	mem0Writes.Lock()
	defer mem0Writes.Unlock()
	latest, err := mem0Latest(r.Context(), us, r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	versions, _, err := mem0Versions(r.Context(), us, latest)
	if err != nil {
		return 0, nil, err
	}
	// Oldest first: should one fail, the latest version still stands and
	// no earlier text comes back.
	for i := len(versions) - 1; i >= 0; i-- {
		if _, err := us.Forget(r.Context(), versions[i].ID, "deleted through the Mem0 API"); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, map[string]string{"message": "Memory deleted successfully!"}, nil
}

// mem0HistoryEntry is one event of a memory's history, as Mem0 answers it.
type mem0HistoryEntry struct {
	ID        string         `json:"id"`
	MemoryID  string         `json:"memory_id"`
	VersionID string         `json:"version_id"` // the memgate memory the event concerns
	Input     []mem0Message  `json:"input"`
	OldMemory *string        `json:"old_memory"`
	NewMemory *string        `json:"new_memory"`
	UserID    string         `json:"user_id"`
	Event     string         `json:"event"`
	Metadata  map[string]any `json:"metadata"`
	Category  []string       `json:"categories"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt string         `json:"updated_at"`
	at        time.Time
}

// mem0History answers the history of the chain id belongs to, oldest
// event first: ADD for its first version, UPDATE for each later one, DELETE
// for each forgotten or revoked one. A forgotten memory keeps no text.
func (s *Server) mem0History(r *http.Request, p *auth.Principal) (int, any, error) {
	ctx := r.Context()
	us, err := s.mem0Scope(r, p)
	if err != nil {
		return 0, nil, err
	}
	id := memory.NormalizeID(r.PathValue("id"))
	var (
		versions []memory.Memory
		gone     []string
	)
	latest, err := mem0Latest(ctx, us, id)
	switch {
	case err == nil:
		if versions, gone, err = mem0Versions(ctx, us, latest); err != nil {
			return 0, nil, err
		}
	case errors.Is(err, memgate.ErrNotFound):
		ts, terr := s.eng.Store().Tombstones(ctx, []string{id})
		if terr != nil {
			return 0, nil, terr
		}
		if t, ok := ts[id]; !ok || t.UserID != us.UserID() {
			return 0, nil, err
		}
		gone = []string{id}
	default:
		return 0, nil, err
	}
	text := make(map[string]string, len(versions))
	for _, v := range versions {
		text[v.ID] = v.Text
	}
	entry := func(event, version string, at time.Time, old, new *string, md map[string]any) mem0HistoryEntry {
		return mem0HistoryEntry{ID: strings.ToLower(event) + ":" + version, MemoryID: id, VersionID: version, Input: []mem0Message{},
			OldMemory: old, NewMemory: new, UserID: us.UserID(), Event: event, Metadata: md, Category: []string{},
			CreatedAt: mem0Time(at), UpdatedAt: mem0Time(at), at: at}
	}
	var out []mem0HistoryEntry
	slices.Reverse(versions) // oldest first, for events at the same time
	for _, v := range versions {
		md := mem0Meta(&v)
		if len(v.Supersedes) == 0 {
			out = append(out, entry("ADD", v.ID, v.CreatedAt, nil, &v.Text, md))
		} else {
			var old *string
			if t, ok := text[v.Supersedes[0]]; ok && len(v.Supersedes) == 1 {
				old = &t
			}
			out = append(out, entry("UPDATE", v.ID, v.CreatedAt, old, &v.Text, md))
		}
		if v.Revoked {
			out = append(out, entry("DELETE", v.ID, v.RevokedAt, &v.Text, nil, md))
		}
	}
	if len(gone) > 0 {
		ts, err := s.eng.Store().Tombstones(ctx, gone)
		if err != nil {
			return 0, nil, err
		}
		for _, g := range gone {
			if t, ok := ts[g]; ok && t.UserID == us.UserID() {
				out = append(out, entry("DELETE", g, t.ForgottenAt, nil, nil, nil))
			}
		}
	}
	slices.SortStableFunc(out, func(a, b mem0HistoryEntry) int { return a.at.Compare(b.at) })
	if out == nil {
		out = []mem0HistoryEntry{}
	}
	return http.StatusOK, out, nil
}
