package server

// extraRoutes registers the OpenAPI document and the MCP endpoint.
func (s *Server) extraRoutes() {}
