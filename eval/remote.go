package eval

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/client"
	"github.com/memgate/memgate/memory"
)

// RemoteRetriever runs each case's retrieval through memgate serve's HTTP
// API, so that a deployed server can be measured with the same cases and
// measures as the engine in-process. cl must use a key of an admin acting
// for all users (it creates users and chooses memory ids).
//
// All cases share the server's store, so each case gets users and ids of
// its own: "PREFIX-N:" followed by the case's user or memory id, N counting
// the cases of this retriever. Retrieval is per user and ties are broken by
// id, which the common prefix leaves in the same order, so the ranking is
// the one a fresh store would give.
func RemoteRetriever(cl *client.Client, prefix string) Retriever {
	var n atomic.Int64
	return func(ctx context.Context, c *Case, actx *admit.Context, k int) ([]string, error) {
		ns := fmt.Sprintf("%s-%d:", prefix, n.Add(1))
		in := func(id string) string { return ns + id }
		ms := make([]memory.Memory, len(c.Memories))
		for i, m := range c.Memories {
			m.ID, m.UserID = in(m.ID), in(m.UserID)
			m.LineageRefs = mapIDs(m.LineageRefs, in)
			m.Supersedes = mapIDs(m.Supersedes, in)
			m.SupersededBy = nil
			ms[i] = m
		}
		if len(ms) > 0 {
			if _, err := cl.AddBatch(ctx, ms); err != nil {
				return nil, fmt.Errorf("case %s: add: %w", c.ID, err)
			}
		}
		owner := make(map[string]string, len(c.Memories))
		for _, m := range c.Memories {
			owner[m.ID] = in(m.UserID)
		}
		for _, ev := range c.Events {
			u := cl.ForUser(owner[ev.ID])
			var err error
			if ev.Op == "revoke" {
				_, err = u.Revoke(ctx, in(ev.ID), "eval event")
			} else {
				_, err = u.Forget(ctx, in(ev.ID), "eval event")
			}
			if err != nil {
				return nil, fmt.Errorf("case %s: %s %s: %w", c.ID, ev.Op, ev.ID, err)
			}
		}
		cands, err := cl.Search(ctx, memgate.Query{Scope: memory.Filter{UserID: in(actx.UserID)}, Text: c.Query, K: k})
		if err != nil {
			return nil, fmt.Errorf("case %s: search: %w", c.ID, err)
		}
		ids := make([]string, len(cands))
		for i, cd := range cands {
			ids[i] = strings.TrimPrefix(cd.Memory.ID, ns)
		}
		return ids, nil
	}
}

func mapIDs(ids []string, f func(string) string) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = f(id)
	}
	return out
}
