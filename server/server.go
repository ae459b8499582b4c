// Package server is memgate's read path as an HTTP service: the engine's
// capabilities under /v1, for callers identified by API keys (package auth).
//
// Every request names, or implies, the user it acts for; its key must allow
// that user, and every operation runs through the engine's per-user scope
// (memgate.UserScope), so an id of another user's memory gets exactly the
// answer a missing id gets. The principal and roles of an admission come
// from the key, never from the request body.
//
// Errors are JSON: {"error": {"code", "message", "field"}}, with the status
// chosen by the error's type (memgate.ErrInvalid → 400, ErrNotFound → 404,
// ErrConflict → 409, ErrReadOnly → 503), never by its text.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/server/origin"
	"github.com/memgate/memgate/store"
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// MaxBodyBytes bounds a request body; larger ones are refused with
	// 413 before they are read. Default 4 MiB.
	MaxBodyBytes int64
	// MaxBatch bounds the memories of one batch add. Default 1000.
	MaxBatch int
	// LowerAuthority makes a write above the key's authority cap store the
	// memory at the cap instead of refusing it (403).
	LowerAuthority bool
	// Logger receives one line per request (method, route, status,
	// duration, principal; never memory text). Default: discard.
	Logger *slog.Logger
	// Now is the clock for key expiry. Default time.Now.
	Now func() time.Time
	// SeparateMetrics leaves /metrics out of the server's routes, for a
	// caller that serves MetricsHandler on another listener: the counters
	// of every tenant's traffic are not for the API's callers to read.
	SeparateMetrics bool
	// CORSOrigins are the origins of browser pages that may call the
	// server, each as origin.Check accepts it ("https://app.example.com",
	// or "*" for any page). None by default: browsers then keep every
	// page off the API, since no answer carries CORS headers. A page of an
	// allowed origin still needs an API key, sent in the Authorization
	// header; the server never reads cookies.
	CORSOrigins []string
}

// Server serves one engine. It is an http.Handler.
type Server struct {
	eng  *memgate.Engine
	keys auth.Store
	o    Options
	mux  *http.ServeMux
	h    http.Handler // mux, behind CORS when Options.CORSOrigins allow any
	m    *metrics
}

// MetricsHandler serves the Prometheus metrics (the /metrics route, unless
// Options.SeparateMetrics). It is not authenticated.
func (s *Server) MetricsHandler() http.Handler { return s.m.handler() }

// New returns a server for eng, authenticating callers against keys. It
// refuses options a browser or a client could not meet as written: an
// origin in CORSOrigins that origin.CheckList refuses would otherwise match no
// page, or, as "*" beside other origins or a wildcard over a public suffix,
// more pages than meant.
func New(eng *memgate.Engine, keys auth.Store, o Options) (*Server, error) {
	if err := origin.CheckList(o.CORSOrigins); err != nil {
		return nil, fmt.Errorf("server: CORSOrigins: %w", err)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 1000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{eng: eng, keys: keys, o: o, mux: http.NewServeMux(), m: newMetrics()}
	s.m.watchStore(eng.Store())
	s.m.reg.MustRegister(newIndexLag(eng))
	s.routes()
	s.h = withCORS(s.mux, o.CORSOrigins)
	return s, nil
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.h.ServeHTTP(w, r)
}

// handler is a route's handler: it returns the status and body to write, or
// an error to map to a status.
type handler func(r *http.Request, p *auth.Principal) (int, any, error)

// route registers pattern ("METHOD /path") with authentication, the role it
// needs, limits, error mapping, metrics and logging.
func (s *Server) route(pattern string, needs auth.Role, h handler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status, principal := s.serve(w, r, needs, h)
		d := time.Since(start)
		s.m.observe(pattern, status, d)
		s.o.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("route", pattern),
			slog.Int("status", status), slog.Duration("duration", d), slog.String("principal", principal))
	})
}

// serve runs h for one request and writes its answer; it returns the status
// written and the principal's id.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, needs auth.Role, h handler) (status int, principal string) {
	defer func() {
		if v := recover(); v != nil {
			s.o.Logger.Error("panic", "route", r.Pattern, "panic", fmt.Sprint(v))
			status = writeError(w, http.StatusInternalServerError, "internal", "", "internal error")
		}
	}()
	if r.ContentLength > s.o.MaxBodyBytes {
		return writeError(w, http.StatusRequestEntityTooLarge, "too_large", "",
			fmt.Sprintf("request body is %d bytes; the limit is %d", r.ContentLength, s.o.MaxBodyBytes)), ""
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes)
	p, err := s.authenticate(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="memgate"`)
		return writeError(w, http.StatusUnauthorized, "unauthorized", "", err.Error()), ""
	}
	if !p.Can(needs) {
		return writeError(w, http.StatusForbidden, "forbidden", "", fmt.Sprintf("role %s may not do this (needs %s)", p.Role, needs)), p.ID
	}
	status, body, err := h(r, &p)
	if err != nil {
		return writeErr(w, err), p.ID
	}
	writeJSON(w, status, body)
	return status, p.ID
}

// authenticate finds the request's principal from its bearer key.
func (s *Server) authenticate(r *http.Request) (auth.Principal, error) {
	h := r.Header.Get("Authorization")
	key, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		if key, ok = strings.CutPrefix(h, "Token "); !ok {
			return auth.Principal{}, errors.New("an API key is required: Authorization: Bearer KEY")
		}
	}
	p, err := auth.Authenticate(r.Context(), s.keys, strings.TrimSpace(key), s.o.Now())
	if errors.Is(err, auth.ErrMalformedKey) || errors.Is(err, auth.ErrUnknownKey) {
		return auth.Principal{}, auth.ErrUnknownKey // one answer for every bad key
	}
	return p, err
}

// errorBody is the JSON of every error.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field,omitempty"`
	} `json:"error"`
}

// writeErr maps an error to a status by its type and writes it.
func writeErr(w http.ResponseWriter, err error) int {
	a := classify(err)
	return writeError(w, a.status, a.code, a.field, a.msg)
}

// classify maps an error to its answer by the error's type, never by its
// text.
func classify(err error) httpError {
	var (
		fe *memory.FieldError
		mb *http.MaxBytesError
		he *httpError
		re *store.RepeatError
	)
	switch {
	case errors.As(err, &he):
		return *he
	case errors.As(err, &mb):
		return httpError{http.StatusRequestEntityTooLarge, "too_large", "", fmt.Sprintf("request body is over the limit of %d bytes", mb.Limit)}
	case errors.As(err, &fe):
		return httpError{http.StatusBadRequest, "invalid", fe.Field, err.Error()}
	case errors.As(err, &re):
		return httpError{http.StatusBadRequest, "invalid", "id", err.Error()}
	case errors.Is(err, memgate.ErrNotFound):
		return httpError{http.StatusNotFound, "not_found", "", err.Error()}
	case errors.Is(err, memgate.ErrConflict), errors.Is(err, store.ErrAlreadyReviewed):
		return httpError{http.StatusConflict, "conflict", "", err.Error()}
	case errors.Is(err, memgate.ErrReadOnly):
		return httpError{http.StatusServiceUnavailable, "read_only", "", err.Error()}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return httpError{http.StatusServiceUnavailable, "cancelled", "", err.Error()}
	}
	return httpError{http.StatusInternalServerError, "internal", "", err.Error()}
}

func writeError(w http.ResponseWriter, status int, code, field, msg string) int {
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Field = code, msg, field
	writeJSON(w, status, b)
	return status
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// httpError is an error with its own status.
type httpError struct {
	status      int
	code, field string
	msg         string
}

func (e *httpError) Error() string { return e.msg }

func forbidden(format string, args ...any) error {
	return &httpError{status: http.StatusForbidden, code: "forbidden", msg: fmt.Sprintf(format, args...)}
}

func invalid(field, format string, args ...any) error {
	return &memory.FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// decode reads one JSON object into v, refusing unknown fields and
// trailing data.
func decode(r *http.Request, v any) error {
	var body bytes.Buffer // what the decoder read, to name a nested field
	dec := json.NewDecoder(io.TeeReader(r.Body, &body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		var fe *memory.FieldError
		if errors.As(err, &fe) {
			// A value's own decoder (an enum, a time) knows its field's
			// name, not where it sits: name it from the top.
			if path := fieldPath(body.Bytes(), fe); path != "" {
				fe.Field = path
			}
			return err
		}
		if errors.Is(err, io.EOF) {
			return invalid("body", "a JSON object is required")
		}
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			if ute.Field == "" {
				return invalid("body", "a JSON object is required, not JSON %s", ute.Value)
			}
			return invalid(ute.Field, "expected %s, got JSON %s", ute.Type, ute.Value)
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if f = strings.Trim(f, `"`); f != "" {
				return invalid(f, "unknown field")
			}
			return invalid("body", `unknown field ""`)
		}
		return invalid("body", "%v", err)
	}
	if dec.More() {
		return invalid("body", "one JSON object is allowed, not several")
	}
	return nil
}

// fieldPath finds, in the JSON document data, the first member named
// fe.Field whose string value the problem quotes (the value that failed to
// decode: decoding stops at the first bad value, in document order), and
// returns its path from the top, such as "candidates[2].memory.kind"; or
// the first member of that name if no value is quoted; or "" if there is
// none. fe.Field must be a single member name.
func fieldPath(data []byte, fe *memory.FieldError) string {
	if fe.Field == "" || strings.ContainsAny(fe.Field, ".[") {
		return ""
	}
	type level struct {
		array bool
		index int    // the next element's index, in an array
		key   string // the current member's name, in an object
	}
	var stack []level
	path := func() string {
		var b strings.Builder
		for i, l := range stack {
			switch {
			case l.array:
				fmt.Fprintf(&b, "[%d]", l.index-1)
			case i > 0:
				b.WriteString("." + l.key)
			default:
				b.WriteString(l.key)
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	expectKey := false
	first := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return first
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if len(stack) > 0 && stack[len(stack)-1].array {
					stack[len(stack)-1].index++
				}
				stack = append(stack, level{array: d == '['})
				expectKey = d == '{'
			default:
				if len(stack) == 0 {
					return first
				}
				stack = stack[:len(stack)-1]
				expectKey = len(stack) > 0 && !stack[len(stack)-1].array
			}
			continue
		}
		if len(stack) == 0 { // a scalar document, or what follows the first value
			return first
		}
		top := &stack[len(stack)-1]
		if top.array {
			top.index++
			continue
		}
		if expectKey {
			top.key, _ = tok.(string)
			expectKey = false
			continue
		}
		expectKey = true // a scalar member's value
		if top.key != fe.Field {
			continue
		}
		p := path()
		if first == "" {
			first = p
		}
		if str, ok := tok.(string); ok && strings.Contains(fe.Problem, strconv.Quote(str)) {
			return p
		}
	}
}

// user resolves the user a request acts for: the given id, or the key's
// only user when none is given. The key must allow it.
func user(p *auth.Principal, given string) (string, error) {
	given = memory.NormalizeID(given)
	if given == "" {
		if len(p.Users) == 1 && p.Users[0] != auth.AllUsers {
			return p.Users[0], nil
		}
		return "", invalid("userId", "is required (the key acts for several users)")
	}
	if err := memory.CheckID("userId", given); err != nil {
		return "", err
	}
	if given == auth.AllUsers {
		return "", invalid("userId", "%q is not a user", given)
	}
	if !p.MayActFor(given) {
		return "", forbidden("this key may not act for user %q", given)
	}
	return given, nil
}

// intParam parses an optional integer query parameter.
func intParam(r *http.Request, name string, min, max int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < min || n > max {
		return 0, invalid(name, "%q is not an integer from %d to %d", v, min, max)
	}
	return n, nil
}
