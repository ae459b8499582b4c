package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
)

// Handler serves MCP over the streamable HTTP transport, to callers with
// API keys from keys: every request must carry "Authorization: Bearer KEY"
// (a missing, malformed, unknown or revoked key is answered 401 before any
// MCP message is read), and is served by a server acting for that key's
// principal (NewServer).
//
// The transport is stateless: no MCP session outlives its request, so a
// key is checked on every request, a revoked key stops working at once,
// and no session id can carry one caller's identity to another. The tools
// need nothing else: they answer each call on its own request.
func Handler(eng *memgate.Engine, keys auth.Store, o *Options) http.Handler {
	opts := o.withDefaults()
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		c, _ := r.Context().Value(callerKey{}).(*caller)
		if c == nil {
			return nil // not through the authenticating wrapper: 400
		}
		return c.server()
	}, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: opts.MaxBodyBytes})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		p, err := authenticate(r, keys, opts.Now())
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="memgate"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", err.Error())
			opts.log(r, http.StatusUnauthorized, "", start)
			return
		}
		c := &caller{eng: eng, p: p, o: &opts}
		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
		opts.log(r, rec.status, p.ID, start)
	})
}

// callerKey keys a request's *caller in its context.
type callerKey struct{}

// caller is an authenticated request: its principal, and the server built
// for it at most once (the SDK asks for the server more than once per
// request).
type caller struct {
	eng  *memgate.Engine
	p    auth.Principal
	o    *Options
	once sync.Once
	srv  *sdk.Server
}

func (c *caller) server() *sdk.Server {
	c.once.Do(func() { c.srv = NewServer(c.eng, c.p, c.o) })
	return c.srv
}

// authenticate finds a request's principal from its bearer key. Every bad
// key gets one answer.
func authenticate(r *http.Request, keys auth.Store, now time.Time) (auth.Principal, error) {
	h := r.Header.Get("Authorization")
	key, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return auth.Principal{}, errors.New("an API key is required: Authorization: Bearer KEY")
	}
	p, err := auth.Authenticate(r.Context(), keys, strings.TrimSpace(key), now)
	if errors.Is(err, auth.ErrMalformedKey) || errors.Is(err, auth.ErrUnknownKey) {
		return auth.Principal{}, auth.ErrUnknownKey
	}
	return p, err
}

// writeError writes memgate's JSON error body.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	b.Error.Code, b.Error.Message = code, msg
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(b)
}

// log writes one line per request: route, status, duration and
// principal, never a tool's arguments.
func (o *Options) log(r *http.Request, status int, principal string, start time.Time) {
	if o.Logger == nil {
		return
	}
	o.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("route", r.Method+" /mcp"),
		slog.Int("status", status), slog.Duration("duration", time.Since(start)), slog.String("principal", principal))
}

// statusWriter keeps the status a handler writes. Unwrap lets
// http.ResponseController reach the connection's Flusher.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusWriter) WriteHeader(status int) {
	if !s.wrote {
		s.status, s.wrote = status, true
	}
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
