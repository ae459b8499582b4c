package weaviate

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"

	"github.com/memgate/memgate/retrieve"
)

// listPage is how many objects one page of a tenant listing holds, and how
// many ids one removal of stale entries names (a variable for tests).
var listPage = 1000

// maxHint caps the room ReplaceUser allocates at once from its sizeHint.
const maxHint = 1 << 16

// ReplaceUser sets the entries of userID to those entries yields, dropping
// any others the user had; `memgate reindex` rebuilds a user with it. A
// later entry with the id of an earlier one replaces it.
//
// The entries are read, and checked (every one must belong to userID and
// have the index's dimension), before anything is written: if entries
// yields an error, or an entry is refused, or ctx is done meanwhile,
// ReplaceUser returns that error and leaves the index as it was. Then it
// upserts them (see Upsert) and removes the user's other entries, which it
// finds by listing the tenant's objects, so searches meanwhile see the old
// entries, then the old and new ones, never none. The writes are not
// atomic: if one fails, ReplaceUser returns its error with some of the
// writes done, and running it again completes them.
func (x *Index) ReplaceUser(ctx context.Context, userID string, sizeHint int, entries iter.Seq2[retrieve.Entry, error]) error {
	if userID == "" {
		return fmt.Errorf("weaviate index: replace needs a userId")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	es := make([]retrieve.Entry, 0, min(max(sizeHint, 0), maxHint))
	pos := make(map[string]int, cap(es))
	for e, err := range entries {
		if err != nil {
			return err
		}
		if err := x.check(e); err != nil {
			return err
		}
		if e.UserID != userID {
			return fmt.Errorf("weaviate index: memory %s belongs to user %s, not %s", e.ID, e.UserID, userID)
		}
		if i, ok := pos[e.ID]; ok {
			es[i] = e
			continue
		}
		pos[e.ID] = len(es)
		es = append(es, e)
		if len(es)%listPage == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := x.Upsert(ctx, es...); err != nil {
		return fmt.Errorf("weaviate index: replacing the entries of %s: %w", userID, plain(err))
	}
	var stale []string
	for id, err := range x.memoryIDs(ctx, userID) {
		if err != nil {
			return fmt.Errorf("weaviate index: replacing the entries of %s: %w", userID, plain(err))
		}
		if _, ok := pos[id]; !ok {
			stale = append(stale, id)
		}
	}
	for chunk := range slices.Chunk(stale, listPage) {
		if err := x.Remove(ctx, userID, chunk...); err != nil {
			return fmt.Errorf("weaviate index: replacing the entries of %s: %w", userID, plain(err))
		}
	}
	return nil
}

// memoryIDs yields the memory ids of every object of userID's tenant, a
// page at a time through Weaviate's cursor (after the last object's UUID);
// a user without a tenant has none.
func (x *Index) memoryIDs(ctx context.Context, userID string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		after := ""
		for {
			g := x.client.GraphQL().Get().WithClassName(x.class).WithTenant(tenant(userID)).WithLimit(listPage).
				WithFields(graphql.Field{Name: propMemoryID}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}}})
			if after != "" {
				g = g.WithAfter(after)
			}
			rows, err := x.get(ctx, g)
			if err != nil {
				yield("", fmt.Errorf("listing objects: %w", plain(err)))
				return
			}
			for _, r := range rows {
				id, _ := r[propMemoryID].(string)
				a, _ := r["_additional"].(map[string]any)
				after, _ = a["id"].(string)
				if id == "" || after == "" {
					yield("", fmt.Errorf("listing objects: an object without a memoryId or UUID"))
					return
				}
				if !yield(id, nil) {
					return
				}
			}
			if len(rows) < listPage {
				return
			}
		}
	}
}
