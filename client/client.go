// Package client is a Go client for memgate's HTTP API (package server):
// memories, retrieval, admission, binding, the audit trail and the review
// queue, with the engine's own types.
//
//	c := client.New("http://localhost:8080", os.Getenv("MEMGATE_KEY"), nil)
//	m, err := c.Add(ctx, memory.Memory{Text: "Prefers aisle seats"})
//	adm, err := c.Admit(ctx, client.AdmitRequest{
//		Context: admit.Context{TaskID: "t1", Intent: admit.IntentPlan},
//		Query:   memgate.Query{Text: "book a flight"},
//	})
//	prompt := adm.Context.Text
//
// A key that acts for one user needs no user id anywhere; for a key that
// acts for several, ForUser returns a client that names the user in every
// request that leaves it out.
//
// Every error the server answers is an *APIError with its status, code,
// field and message; errors.Is matches it against memgate.ErrNotFound,
// ErrInvalid, ErrConflict and ErrReadOnly, and this package's
// ErrUnauthorized and ErrForbidden.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/memory"
)

// Client calls one memgate server with one API key. It is safe for
// concurrent use.
type Client struct {
	base string // without a trailing slash
	key  string
	hc   *http.Client
	user string // the user named where a request names none; "" for the key's only user
}

// New returns a client for the server at baseURL (such as
// "https://memgate.example.com", or with a path prefix a proxy adds)
// calling with key. A nil hc is http.DefaultClient.
func New(baseURL, key string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), key: key, hc: hc}
}

// ForUser returns a client that acts for userID wherever a request leaves
// the user out: the key must allow it. Needed only for keys that act for
// several users.
func (c *Client) ForUser(userID string) *Client {
	d := *c
	d.user = userID
	return &d
}

// Errors matched by errors.Is against an *APIError, besides memgate's
// ErrNotFound, ErrInvalid, ErrConflict and ErrReadOnly.
var (
	// ErrUnauthorized: no key, or one the server does not know (401).
	ErrUnauthorized = errors.New("memgate: unauthorized")
	// ErrForbidden: the key's role, users or authority cap do not allow
	// the request (403).
	ErrForbidden = errors.New("memgate: forbidden")
)

// APIError is an error answered by the server.
type APIError struct {
	// Status is the HTTP status.
	Status int
	// Code is the server's error code: invalid, batch, unauthorized,
	// forbidden, not_found, conflict, too_large, read_only, cancelled,
	// internal, no_route; empty if the answer was not memgate's JSON.
	Code string
	// Field names the input that was wrong, when one was, such as
	// "text" or "memories[2]".
	Field string
	// Message says what was wrong.
	Message string
}

// Error renders the error as "memgate: STATUS CODE: MESSAGE".
func (e *APIError) Error() string {
	code := e.Code
	if code == "" {
		code = http.StatusText(e.Status)
	}
	return fmt.Sprintf("memgate: %d %s: %s", e.Status, code, e.Message)
}

// Is matches the error against memgate.ErrNotFound (404 not_found),
// memgate.ErrInvalid (400, or 413 for a body over the limit),
// memgate.ErrConflict (409), memgate.ErrReadOnly (503 read_only),
// ErrUnauthorized (401) and ErrForbidden (403).
func (e *APIError) Is(target error) bool {
	switch target {
	case memgate.ErrNotFound:
		return e.Status == http.StatusNotFound && e.Code == "not_found"
	case memgate.ErrInvalid:
		return e.Status == http.StatusBadRequest || e.Status == http.StatusRequestEntityTooLarge
	case memgate.ErrConflict:
		return e.Status == http.StatusConflict
	case memgate.ErrReadOnly:
		return e.Status == http.StatusServiceUnavailable && e.Code == "read_only"
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrForbidden:
		return e.Status == http.StatusForbidden
	}
	return false
}

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 1 << 20

// do sends one request: body (if not nil) as JSON, and decodes the answer
// into out (if not nil). query may be nil.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("memgate: encode the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("memgate: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("memgate: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e := &APIError{Status: resp.StatusCode}
		var b struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
				Field   string `json:"field"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &b) == nil && b.Error.Code != "" {
			e.Code, e.Field, e.Message = b.Error.Code, b.Error.Field, b.Error.Message
		} else {
			e.Message = strings.TrimSpace(string(raw))
			if len(e.Message) > 200 {
				e.Message = e.Message[:200] + "…"
			}
		}
		return e
	}
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("memgate: %s %s: decode the answer: %w", method, path, err)
	}
	return nil
}

// userQuery is the userId query parameter of the client's user, if any.
func (c *Client) userQuery() url.Values {
	q := url.Values{}
	if c.user != "" {
		q.Set("userId", c.user)
	}
	return q
}

// orUser is u, or the client's user when u is empty.
func (c *Client) orUser(u string) string {
	if u == "" {
		return c.user
	}
	return u
}

// The answers decode memories with encoding/json's rules rather than
// memory.Memory's strict input decoder: it ignores supersededBy, which the
// server derives and sends, and refuses keys a newer server may add.
type (
	memoryWire    memory.Memory
	candidateWire struct {
		memgate.Candidate
		Memory memoryWire `json:"memory"`
	}
	decidedWire struct {
		memgate.Decided
		Memory memoryWire `json:"memory"`
	}
	admissionWire struct {
		memgate.Admission
		Items []decidedWire `json:"items"`
	}
	admittedWire struct {
		Admission *admissionWire `json:"admission"`
		Context   inject.Context `json:"context"`
	}
)

func memories(ws []memoryWire) []memory.Memory {
	out := make([]memory.Memory, len(ws))
	for i := range ws {
		out[i] = memory.Memory(ws[i])
	}
	return out
}

func (w *admittedWire) admitted() *Admitted {
	out := &Admitted{Context: w.Context}
	if w.Admission != nil {
		adm := w.Admission.Admission
		adm.Items = make([]memgate.Decided, len(w.Admission.Items))
		for i, it := range w.Admission.Items {
			adm.Items[i] = it.Decided
			adm.Items[i].Memory = memory.Memory(it.Memory)
		}
		out.Admission = &adm
	}
	return out
}

// Add stores one memory and returns it as stored. Its user defaults to
// the client's; a source authority above the key's cap is refused.
func (c *Client) Add(ctx context.Context, m memory.Memory) (memory.Memory, error) {
	m.UserID = c.orUser(m.UserID)
	var out memoryWire
	err := c.do(ctx, "POST", "/v1/memories", nil, m, &out)
	return memory.Memory(out), err
}

// AddBatch stores memories atomically: all of them, or none.
func (c *Client) AddBatch(ctx context.Context, ms []memory.Memory) ([]memory.Memory, error) {
	in := make([]memory.Memory, len(ms))
	for i, m := range ms {
		m.UserID = c.orUser(m.UserID)
		in[i] = m
	}
	var out struct {
		Memories []memoryWire `json:"memories"`
	}
	if err := c.do(ctx, "POST", "/v1/memories/batch", nil, map[string]any{"memories": in}, &out); err != nil {
		return nil, err
	}
	return memories(out.Memories), nil
}

// Get reads one memory. Another user's id is memgate.ErrNotFound, as a
// missing one is.
func (c *Client) Get(ctx context.Context, id string) (memory.Memory, error) {
	var out memoryWire
	err := c.do(ctx, "GET", "/v1/memories/"+url.PathEscape(id), c.userQuery(), nil, &out)
	return memory.Memory(out), err
}

// ListOptions select memories for List.
type ListOptions struct {
	// WorkspaceID, ProjectID and Domain narrow the list (memories
	// unscoped on an axis match any value).
	WorkspaceID, ProjectID, Domain string
	// IncludeRevoked also lists revoked memories.
	IncludeRevoked bool
	// After continues after the previous page (its Next).
	After int64
	// Limit is the page size, 1 to 1000; 0 means the server's default
	// (100).
	Limit int
}

// Page is one page of a listing.
type Page struct {
	Memories []memory.Memory
	// Next is the After of the next page; 0 after the last.
	Next int64
}

// List returns one page of the user's memories, in insertion order.
func (c *Client) List(ctx context.Context, o ListOptions) (Page, error) {
	q := c.userQuery()
	for k, v := range map[string]string{"workspaceId": o.WorkspaceID, "projectId": o.ProjectID, "domain": o.Domain} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if o.IncludeRevoked {
		q.Set("includeRevoked", "true")
	}
	if o.After != 0 {
		q.Set("after", strconv.FormatInt(o.After, 10))
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	var out struct {
		Memories []memoryWire `json:"memories"`
		Next     int64        `json:"next"`
	}
	if err := c.do(ctx, "GET", "/v1/memories", q, nil, &out); err != nil {
		return Page{}, err
	}
	return Page{Memories: memories(out.Memories), Next: out.Next}, nil
}

// Revoke withdraws a memory: it stays for audit but is never a candidate
// again. It returns the memory as now stored.
func (c *Client) Revoke(ctx context.Context, id, reason string) (memory.Memory, error) {
	body := struct {
		UserID string `json:"userId,omitempty"`
		Reason string `json:"reason,omitempty"`
	}{c.user, reason}
	var out memoryWire
	err := c.do(ctx, "POST", "/v1/memories/"+url.PathEscape(id)+"/revoke", nil, body, &out)
	return memory.Memory(out), err
}

// Forget deletes a memory's text and vector for good and returns its
// tombstone.
func (c *Client) Forget(ctx context.Context, id, reason string) (memory.Tombstone, error) {
	q := c.userQuery()
	if reason != "" {
		q.Set("reason", reason)
	}
	var out memory.Tombstone
	err := c.do(ctx, "DELETE", "/v1/memories/"+url.PathEscape(id), q, nil, &out)
	return out, err
}

// Search retrieves candidates: memories similar to the query, not yet
// admitted (use Admit before giving memories to a model). q.Scope.UserID
// defaults to the client's user.
func (c *Client) Search(ctx context.Context, q memgate.Query) ([]memgate.Candidate, error) {
	q.Scope.UserID = c.orUser(q.Scope.UserID)
	var out struct {
		Candidates []candidateWire `json:"candidates"`
	}
	if err := c.do(ctx, "POST", "/v1/search", nil, map[string]any{"query": q}, &out); err != nil {
		return nil, err
	}
	cands := make([]memgate.Candidate, len(out.Candidates))
	for i, w := range out.Candidates {
		cands[i] = w.Candidate
		cands[i].Memory = memory.Memory(w.Memory)
	}
	return cands, nil
}

// AdmitRequest asks for the admission of a task's memories. The context's
// principal is the key's, whatever it says; its user defaults to the
// client's.
type AdmitRequest struct {
	Context admit.Context  `json:"context"`
	Query   memgate.Query  `json:"query"`
	Inject  inject.Options `json:"inject"`
}

// Admitted is an admission and the model's context built from it.
type Admitted struct {
	// Admission has every candidate with its decision, reasons,
	// constraints and scores; SearchID names it in the audit trail.
	Admission *memgate.Admission
	// Context is what to give the model: Text, and the rendered Items.
	Context inject.Context
}

// Admit retrieves the task's candidates, decides each, and builds the
// model's context from the admitted ones.
func (c *Client) Admit(ctx context.Context, r AdmitRequest) (*Admitted, error) {
	r.Context.UserID = c.orUser(r.Context.UserID)
	var out admittedWire
	if err := c.do(ctx, "POST", "/v1/admit", nil, r, &out); err != nil {
		return nil, err
	}
	return out.admitted(), nil
}

// GateRequest asks for the admission of candidates from the caller's own
// store. Each candidate's memory needs an id and a user id.
type GateRequest struct {
	Context    admit.Context           `json:"context"`
	Query      string                  `json:"query"`
	Candidates []memgate.GateCandidate `json:"candidates"`
	Inject     inject.Options          `json:"inject"`
}

// AdmitCandidates decides candidates the caller retrieved itself and
// builds the model's context from them as given. Its decisions justify no
// tool call in Bind.
func (c *Client) AdmitCandidates(ctx context.Context, r GateRequest) (*Admitted, error) {
	r.Context.UserID = c.orUser(r.Context.UserID)
	var out admittedWire
	if err := c.do(ctx, "POST", "/v1/gate/admit", nil, r, &out); err != nil {
		return nil, err
	}
	return out.admitted(), nil
}

// Bind decides whether the memories justifiedBy may justify call in the
// task actx.TaskID, by the decisions recorded for it. An id that names no
// memory of the user is memgate.ErrNotFound.
func (c *Client) Bind(ctx context.Context, actx admit.Context, call bind.ToolCall, justifiedBy []string) (bind.Result, error) {
	actx.UserID = c.orUser(actx.UserID)
	if justifiedBy == nil {
		justifiedBy = []string{}
	}
	body := struct {
		Context     admit.Context `json:"context"`
		Call        bind.ToolCall `json:"call"`
		JustifiedBy []string      `json:"justifiedBy"`
	}{actx, call, justifiedBy}
	var out bind.Result
	err := c.do(ctx, "POST", "/v1/bind", nil, body, &out)
	return out, err
}

// AuditFilter selects audit events; zero fields match everything.
type AuditFilter struct {
	Kind     audit.Kind
	TaskID   string
	MemoryID string
	// Decision is a decision, a binding's verdict or a review's status.
	Decision string
	// SearchID selects one admission: its search event and the events
	// linked to it.
	SearchID int64
	// After continues after this sequence number.
	After int64
	// Limit is at most 10000; 0 means the server's default (1000).
	Limit int
}

// Audit lists the user's audit events, in sequence order. It needs a
// reviewer key.
func (c *Client) Audit(ctx context.Context, f AuditFilter) ([]audit.Event, error) {
	q := c.userQuery()
	for k, v := range map[string]string{"kind": string(f.Kind), "taskId": f.TaskID, "memoryId": f.MemoryID, "decision": f.Decision} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for k, v := range map[string]int64{"searchId": f.SearchID, "after": f.After, "limit": int64(f.Limit)} {
		if v != 0 {
			q.Set(k, strconv.FormatInt(v, 10))
		}
	}
	var out struct {
		Events []audit.Event `json:"events"`
	}
	err := c.do(ctx, "GET", "/v1/audit", q, nil, &out)
	return out.Events, err
}

// Quarantine lists the user's quarantined memories with status (pending,
// approved, rejected; "" for all). It needs a reviewer key.
func (c *Client) Quarantine(ctx context.Context, status string) ([]audit.QuarantineItem, error) {
	q := c.userQuery()
	if status != "" {
		q.Set("status", status)
	}
	var out struct {
		Items []audit.QuarantineItem `json:"items"`
	}
	err := c.do(ctx, "GET", "/v1/quarantine", q, nil, &out)
	return out.Items, err
}

// Review approves or rejects a quarantined memory, with a note; the
// verdict becomes a labelled example for training the gate. It needs a
// reviewer key. A verdict on an item that has one is memgate.ErrConflict.
func (c *Client) Review(ctx context.Context, item int64, approve bool, note string) (audit.QuarantineItem, error) {
	verdict := "reject"
	if approve {
		verdict = "approve"
	}
	body := struct {
		UserID string `json:"userId,omitempty"`
		Note   string `json:"note,omitempty"`
	}{c.user, note}
	var out audit.QuarantineItem
	err := c.do(ctx, "POST", "/v1/quarantine/"+strconv.FormatInt(item, 10)+"/"+verdict, nil, body, &out)
	return out, err
}
