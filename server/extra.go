package server

import "github.com/memgate/memgate/mcp"

// extraRoutes registers the OpenAPI document and the MCP endpoint.
func (s *Server) extraRoutes() {
	s.openAPIRoute()
	s.mux.Handle("/mcp", mcp.Handler(s.eng, s.keys, &mcp.Options{LowerAuthority: s.o.LowerAuthority, Now: s.o.Now, MaxBodyBytes: s.o.MaxBodyBytes, Logger: s.o.Logger}))
}
