// Package lineage computes what a memory's derivation means for admission:
// its effective authority (the lowest along its lineage) and the revoked or
// forgotten memories it was derived from. Every store and the gate-only path
// use the one definition here, so that a memory has the same lineage
// whichever backend holds it.
//
// Lineage never crosses users: a source of another user counts as unknown,
// the lowest authority.
package lineage

import (
	"slices"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// Ancestor is one memory a memory was derived from, directly or not.
type Ancestor struct {
	ID string
	// Authority is the ancestor's source authority, empty when it is
	// unknown: not stored, another user's, or forgotten.
	Authority memory.Authority
	Revoked   bool
	Forgotten bool
}

// Node is what Ancestors needs to know of one memory.
type Node struct {
	UserID    string
	Authority memory.Authority
	Revoked   bool
	Forgotten bool // a tombstone: its lineage links survive, its authority does not
	// Refs are the ids the memory was derived from.
	Refs []string
}

// Ancestors follows refs, the lineage of memory id of userID, transitively
// through lookup, and returns every ancestor once, sorted by id; id itself is
// never its own ancestor, even in a cycle. An id lookup does not know, or
// knows as another user's, is an ancestor of unknown authority whose own
// lineage is not followed.
func Ancestors(id, userID string, refs []string, lookup func(id string) (Node, bool)) []Ancestor {
	var out []Ancestor
	seen := map[string]bool{id: true}
	queue := slices.Clone(refs)
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		n, ok := lookup(ref)
		if !ok || n.UserID != userID {
			out = append(out, Ancestor{ID: ref})
			continue
		}
		a := Ancestor{ID: ref, Revoked: n.Revoked && !n.Forgotten, Forgotten: n.Forgotten}
		if !n.Forgotten {
			a.Authority = n.Authority
		}
		out = append(out, a)
		queue = append(queue, n.Refs...)
	}
	slices.SortFunc(out, func(a, b Ancestor) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

// Of computes a memory's lineage for admission from its ancestors: the
// effective authority is the lowest of the memory's own and its ancestors'
// (unknown is lowest), and the revoked and forgotten ancestors are listed.
func Of(m *memory.Memory, ancestors []Ancestor) admit.Lineage {
	l := admit.Lineage{EffectiveAuthority: m.SourceAuthority}
	for _, a := range ancestors {
		if a.Authority.Rank() < l.EffectiveAuthority.Rank() {
			l.EffectiveAuthority = a.Authority
		}
		if a.Forgotten {
			l.ForgottenAncestors = append(l.ForgottenAncestors, a.ID)
		} else if a.Revoked {
			l.RevokedAncestors = append(l.RevokedAncestors, a.ID)
		}
	}
	return l
}

// Withdrawn reports whether any ancestor was revoked or forgotten: a memory
// derived from a withdrawn one is withdrawn with it.
func Withdrawn(ancestors []Ancestor) bool {
	return slices.ContainsFunc(ancestors, func(a Ancestor) bool { return a.Revoked || a.Forgotten })
}

// Within resolves the lineage of each of ms within the set itself, as the
// gate-only path does for candidates from a caller's own store: the result
// has one entry per memory, in order. Supersession inside the set is also
// resolved: a memory that supersedes another in the set, of the same user and
// not revoked itself, is added to the other's SupersededBy.
func Within(ms []memory.Memory) []admit.Lineage {
	byID := make(map[string]*memory.Memory, len(ms))
	for i := range ms {
		byID[ms[i].ID] = &ms[i]
	}
	for i := range ms {
		if ms[i].Revoked {
			continue
		}
		for _, old := range ms[i].Supersedes {
			if o, ok := byID[old]; ok && o.UserID == ms[i].UserID && !slices.Contains(o.SupersededBy, ms[i].ID) {
				o.SupersededBy = append(o.SupersededBy, ms[i].ID)
			}
		}
	}
	lookup := func(id string) (Node, bool) {
		m, ok := byID[id]
		if !ok {
			return Node{}, false
		}
		return Node{UserID: m.UserID, Authority: m.SourceAuthority, Revoked: m.Revoked, Refs: m.LineageRefs}, true
	}
	out := make([]admit.Lineage, len(ms))
	for i := range ms {
		out[i] = Of(&ms[i], Ancestors(ms[i].ID, ms[i].UserID, ms[i].LineageRefs, lookup))
	}
	return out
}

// Graph gathers what a store reads for Ancestors, row by row (stored
// memories, tombstones, links), and answers for a set of memories with the
// rules of Ancestors, so that every SQL backend turns its rows into lineage
// the same way.
type Graph struct {
	nodes map[string]*graphNode
}

type graphNode struct {
	Node
	stored bool
}

func (g *Graph) node(id string) *graphNode {
	if g.nodes == nil {
		g.nodes = map[string]*graphNode{}
	}
	n := g.nodes[id]
	if n == nil {
		n = &graphNode{}
		g.nodes[id] = n
	}
	return n
}

// Memory records a stored memory.
func (g *Graph) Memory(id, userID string, authority memory.Authority, revoked bool) {
	n := g.node(id)
	n.UserID, n.Authority, n.Revoked, n.stored = userID, authority, revoked, true
}

// Tombstone records a forgotten memory.
func (g *Graph) Tombstone(id, userID string) {
	n := g.node(id)
	n.UserID, n.Forgotten = userID, true
}

// Link records that memory id was derived from source.
func (g *Graph) Link(id, source string) {
	n := g.node(id)
	n.Refs = append(n.Refs, source)
}

// Ancestors returns the ancestors of each of ids that is a stored memory.
func (g *Graph) Ancestors(ids []string) map[string][]Ancestor {
	out := make(map[string][]Ancestor, len(ids))
	lookup := func(id string) (Node, bool) {
		n, ok := g.nodes[id]
		if !ok || n.UserID == "" {
			return Node{}, false
		}
		return n.Node, true
	}
	for _, id := range ids {
		n := g.nodes[id]
		if n == nil || !n.stored {
			continue
		}
		if _, done := out[id]; done {
			continue
		}
		if len(n.Refs) == 0 {
			out[id] = nil // what Ancestors returns, without its work
			continue
		}
		out[id] = Ancestors(id, n.UserID, n.Refs, lookup)
	}
	return out
}
