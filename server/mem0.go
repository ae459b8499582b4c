package server

// mem0Routes registers the Mem0-compatible subset (see the package doc).
func (s *Server) mem0Routes() {}
