package server

import (
	"net/http"

	"github.com/rs/cors"

	"github.com/memgate/memgate/server/origin"
)

// corsHeaders are the request headers a browser page may send across
// origins: the API key, JSON bodies, the MCP streamable HTTP transport's
// session, protocol version and stream-resumption headers, and the
// headers the Mem0 platform client (npm mem0ai) names itself with, which
// the server ignores but a browser must be allowed to send.
var corsHeaders = []string{"Authorization", "Content-Type",
	"Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID",
	"Mem0-User-ID", "X-Mem0-Client", "X-Mem0-Source", "X-Application"}

// corsExposed are the response headers a page may read beyond the
// CORS-safelisted ones: the reason a request was refused. (The MCP
// transport is stateless and sends no session header to expose.)
var corsExposed = []string{"WWW-Authenticate"}

// corsMaxAge is how long, in seconds, a browser may cache a preflight's
// answer.
const corsMaxAge = 600

// withCORS wraps h so that pages served from origins may call it from a
// browser. With no origins, h is returned as it is: the server sends no
// CORS headers, and browsers keep every other origin's pages out.
//
// Keys travel in the Authorization header, never in cookies, so no
// credentials mode is offered: a page of an allowed origin still needs a
// key, and a page of any other origin cannot read an answer even with one.
func withCORS(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return h // cors.Options treats an empty list as "*"
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete},
		AllowedHeaders: corsHeaders,
		ExposedHeaders: corsExposed,
		MaxAge:         corsMaxAge,
	}).Handler(h)
}

// CheckOrigin returns an error unless s names an origin whose pages may
// call the server (Options.CORSOrigins).
//
// Deprecated: use origin.Check, which config and the command line can use
// without importing the server.
func CheckOrigin(s string) error { return origin.Check(s) }

// CheckOrigins checks every origin of a list, and that "*" comes alone.
//
// Deprecated: use origin.CheckList.
func CheckOrigins(origins []string) error { return origin.CheckList(origins) }
