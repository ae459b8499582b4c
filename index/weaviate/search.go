package weaviate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/memgate/memgate/internal/vecmath"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// vecSlack bounds how much more than 1 - d (d the cosine distance Weaviate
// reports for an object) the dot product of the query and the object's
// stored vector may be: float32 rounding in both, for unit vectors (the
// engine's are; a longer stored vector would score more). Over the
// 19,272 objects TestParityWithExact and TestConformance fetched, it was
// at most 1.8e-7. Search stops fetching once its k-th score beats
// 1 - d + vecSlack for the last object fetched.
const vecSlack = 1e-5

// lexSlack bounds, as a factor, how much more than (k1+1) times Weaviate's
// BM25 score an object's exact BM25 score may be, when Weaviate's BM25
// proposes the candidates (more than lexScanMax entries match). The two are
// the same formula up to the factor k1+1 and differ where Weaviate's
// statistics do (its mean length is a float32, its document frequencies
// may count deleted objects until a compaction). On TestParityWithExact's
// data the exact score was between 0.92 and 1.0000001 times (k1+1) times
// Weaviate's. Lexical stops fetching once its k-th score beats lexSlack ×
// (k1+1) × the last fetched object's Weaviate score.
const lexSlack = 1.05

// lexScanMax is the most entries Lexical scores itself: when the user's
// entries that have a query word (the sum of the words' document
// frequencies, an upper bound) are no more, it fetches them all through
// the filterable index and the hits are exactly the exact index's. Beyond
// it, Weaviate's BM25 proposes the candidates. It is a choice, not a
// measurement: a fetch of that many objects' terms is a few hundred
// kilobytes. (A variable for tests.)
var lexScanMax int64 = 2000

// scopeWhere is the where filter of f's workspace, project and domain
// (nil when none is set): on each set axis, the property equals the label
// or is null (an unscoped entry).
func scopeWhere(f memory.Filter) *filters.WhereBuilder {
	var ops []*filters.WhereBuilder
	for _, a := range []struct{ prop, want string }{{propWorkspace, f.WorkspaceID}, {propProject, f.ProjectID}, {propDomain, f.Domain}} {
		if a.want == "" {
			continue
		}
		ops = append(ops, filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{
			filters.Where().WithPath([]string{a.prop}).WithOperator(filters.Equal).WithValueText(a.want),
			filters.Where().WithPath([]string{a.prop}).WithOperator(filters.IsNull).WithValueBoolean(true),
		}))
	}
	switch len(ops) {
	case 0:
		return nil
	case 1:
		return ops[0]
	}
	return filters.Where().WithOperator(filters.And).WithOperands(ops)
}

// searchWhere is the where filter of a vector search: f's scope, or
// without one a filter every object passes (its memoryId is not null).
// With a filter, Weaviate's HNSW index scans the allowed objects by brute
// force, exactly, when they are fewer than the collection's
// flatSearchCutoff; without one it would walk the graph, approximately,
// whatever the size of the tenant.
func searchWhere(f memory.Filter) *filters.WhereBuilder {
	if w := scopeWhere(f); w != nil {
		return w
	}
	return filters.Where().WithPath([]string{propMemoryID}).WithOperator(filters.IsNull).WithValueBoolean(false)
}

// Search returns up to k entries of f.UserID in f's scope most similar to
// q, best first, ties by id, scored by the dot product of q and the stored
// vector as the exact index scores them (the cosine similarity, for unit
// vectors). Weaviate proposes the candidates (see the package doc).
func (x *Index) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	if f.UserID == "" {
		return nil, errors.New("weaviate index: search needs a userId")
	}
	if len(q) != x.dim {
		return nil, fmt.Errorf("weaviate index: query vector has dimension %d, index has %d", len(q), x.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q = slices.Clone(q)
	near := x.client.GraphQL().NearVectorArgBuilder().WithVector(q)
	where := searchWhere(f)
	query := func(limit int) *graphql.GetBuilder {
		return x.client.GraphQL().Get().WithClassName(x.class).WithTenant(tenant(f.UserID)).
			WithNearVector(near).WithWhere(where).WithLimit(limit).
			WithFields(graphql.Field{Name: propMemoryID},
				graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "distance"}, {Name: "vector"}}})
	}
	rate := func(id string, row map[string]any) (float64, float64, error) {
		v, err := x.rowVector(id, row)
		if err != nil {
			return 0, 0, err
		}
		d, err := additional(row, "distance")
		if err != nil {
			return 0, 0, err
		}
		return float64(vecmath.Dot(q, v)), 1 - d + vecSlack, nil
	}
	hits, err := x.fetch(ctx, k, query, rate, false)
	if err != nil {
		return nil, fmt.Errorf("weaviate index: search: %w", plain(err))
	}
	return hits, nil
}

// Lexical returns up to k entries of f.UserID in f's scope with a positive
// BM25 score for query, best first, ties by id, scored as the exact index
// scores them: the same words (embed.Tokens without stopwords), the same
// formula and parameters, the statistics of all of the user's entries.
func (x *Index) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	if f.UserID == "" {
		return nil, errors.New("weaviate index: lexical search needs a userId")
	}
	if k <= 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	words := queryTerms(query)
	if len(words) == 0 {
		return nil, nil
	}
	st, err := x.bm25Stats(ctx, f.UserID, words)
	if err != nil {
		return nil, err
	}
	if st.n == 0 || st.totalLen == 0 || len(st.terms) == 0 {
		return nil, nil
	}
	fields := []graphql.Field{{Name: propMemoryID}, {Name: propTerms}}
	var matching int64 // at least how many entries have a query word
	for _, df := range st.df {
		matching += df
	}
	if matching <= lexScanMax {
		// Fetch every in-scope entry with a query word, found by the
		// filterable index (exact), and score them all.
		where := filters.Where().WithPath([]string{propTerms}).WithOperator(filters.ContainsAny).WithValueText(st.terms...)
		if scope := scopeWhere(f); scope != nil {
			where = filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{scope, where})
		}
		g := x.client.GraphQL().Get().WithClassName(x.class).WithTenant(tenant(f.UserID)).
			WithWhere(where).WithLimit(int(matching)).WithFields(fields...)
		rows, err := x.get(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("weaviate index: lexical search: %w", plain(err))
		}
		hits := make([]retrieve.Hit, 0, len(rows))
		for _, r := range rows {
			id, _ := r[propMemoryID].(string)
			terms, _ := r[propTerms].(string)
			if s := st.score(docTerms(terms)); s > 0 {
				hits = append(hits, retrieve.Hit{ID: id, Score: float64(s)})
			}
		}
		sortHits(hits)
		return hits[:min(k, len(hits))], nil
	}
	// Too many to score them all: Weaviate's BM25 proposes the candidates.
	bm25 := x.client.GraphQL().Bm25ArgBuilder().WithQuery(strings.Join(st.terms, " ")).WithProperties(propTerms)
	where := scopeWhere(f)
	get := func(limit int) *graphql.GetBuilder {
		g := x.client.GraphQL().Get().WithClassName(x.class).WithTenant(tenant(f.UserID)).
			WithBM25(bm25).WithLimit(limit).
			WithFields(append(fields, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "score"}}})...)
		if where != nil {
			g = g.WithWhere(where)
		}
		return g
	}
	rate := func(id string, row map[string]any) (float64, float64, error) {
		terms, _ := row[propTerms].(string)
		w, err := additional(row, "score")
		if err != nil {
			return 0, 0, err
		}
		return float64(st.score(docTerms(terms))), lexSlack * (bm25K1 + 1) * w, nil
	}
	hits, err := x.fetch(ctx, k, get, rate, true)
	if err != nil {
		return nil, fmt.Errorf("weaviate index: lexical search: %w", plain(err))
	}
	return hits, nil
}

// sortHits orders hits by score, best first, ties by id.
func sortHits(hits []retrieve.Hit) {
	slices.SortFunc(hits, func(a, b retrieve.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// fetch runs query(limit) and returns the k best of its objects, scored by
// rate, best first, ties by id (positive scores only if positive). rate
// returns an object's score and the most an object Weaviate ranks after it
// can score. The first limit is k+extra; while the fetch came back full
// (more objects may follow) and the k-th score does not beat what an
// object not fetched could score, fetch runs the query again with twice
// the limit, up to maxLimit.
func (x *Index) fetch(ctx context.Context, k int, query func(limit int) *graphql.GetBuilder,
	rate func(id string, row map[string]any) (score, bound float64, err error), positive bool) ([]retrieve.Hit, error) {
	limit := min(k, maxLimit-extra) + extra
	for {
		rows, err := x.get(ctx, query(limit))
		if err != nil {
			return nil, err
		}
		hits := make([]retrieve.Hit, 0, len(rows))
		bound := math.Inf(1)
		for _, r := range rows {
			id, ok := r[propMemoryID].(string)
			if !ok {
				return nil, errors.New("an object without a memoryId")
			}
			s, b, err := rate(id, r)
			if err != nil {
				return nil, err
			}
			bound = min(bound, b)
			if positive && !(s > 0) {
				continue
			}
			hits = append(hits, retrieve.Hit{ID: id, Score: s})
		}
		sortHits(hits)
		if len(rows) < limit || limit >= maxLimit || len(hits) >= k && hits[k-1].Score > bound {
			return hits[:min(k, len(hits))], nil
		}
		limit = min(2*limit, maxLimit)
	}
}

// rowVector returns the vector in the _additional field of a row.
func (x *Index) rowVector(id string, row map[string]any) ([]float32, error) {
	a, _ := row["_additional"].(map[string]any)
	raw, _ := a["vector"].([]any)
	if len(raw) != x.dim {
		return nil, fmt.Errorf("memory %s has a vector of dimension %d, index has %d", id, len(raw), x.dim)
	}
	v := make([]float32, len(raw))
	for i, c := range raw {
		f, ok := c.(float64)
		if !ok || math.IsNaN(f) {
			return nil, fmt.Errorf("memory %s: bad vector component %v", id, c)
		}
		v[i] = float32(f)
	}
	return v, nil
}

// statsChunk is how many query words one statistics request counts.
const statsChunk = 64

// bm25Stats counts, in the user's tenant, the entries, their content words
// and the document frequencies of words (sorted, distinct) until
// exact.MaxQueryTerms of them occur: one request of GraphQL aggregates
// (aliased, one per word) per statsChunk words. A user without a tenant
// has no entries.
func (x *Index) bm25Stats(ctx context.Context, userID string, words []string) (*bm25Stats, error) {
	st := &bm25Stats{}
	tn, err := json.Marshal(tenant(userID))
	if err != nil {
		return nil, fmt.Errorf("weaviate index: lexical statistics: %w", plain(err))
	}
	for i := 0; i < len(words); i += statsChunk {
		chunk := words[i:min(i+statsChunk, len(words))]
		var b strings.Builder
		b.WriteString("{Aggregate{")
		if i == 0 {
			fmt.Fprintf(&b, "all:%s(tenant:%s){meta{count} %s{sum}} ", x.class, tn, propTermCount)
		}
		for j, w := range chunk {
			val, err := json.Marshal(w)
			if err != nil {
				return nil, fmt.Errorf("weaviate index: lexical statistics: %w", plain(err))
			}
			fmt.Fprintf(&b, "t%d:%s(tenant:%s,where:{path:[%q],operator:Equal,valueText:%s}){meta{count}} ",
				j, x.class, tn, propTerms, val)
		}
		b.WriteString("}}")
		res, err := x.client.GraphQL().Raw().WithQuery(b.String()).Do(ctx)
		if err = queryErr(res, err); err != nil {
			if noTenant(err) {
				return &bm25Stats{}, nil
			}
			return nil, fmt.Errorf("weaviate index: lexical statistics: %w", plain(err))
		}
		agg, _ := res.Data["Aggregate"].(map[string]any)
		if i == 0 {
			all := firstResult(agg["all"])
			if st.n, err = number(all, "meta", "count"); err != nil {
				return nil, fmt.Errorf("weaviate index: lexical statistics: entries: %w", plain(err))
			}
			if st.n == 0 {
				return st, nil
			}
			if st.totalLen, err = number(all, propTermCount, "sum"); err != nil {
				return nil, fmt.Errorf("weaviate index: lexical statistics: words: %w", plain(err))
			}
		}
		df := make([]int64, len(chunk))
		for j := range chunk {
			if df[j], err = number(firstResult(agg[fmt.Sprintf("t%d", j)]), "meta", "count"); err != nil {
				return nil, fmt.Errorf("weaviate index: lexical statistics: frequency of %q: %w", chunk[j], plain(err))
			}
		}
		if !st.use(chunk, df) {
			break
		}
	}
	return st, nil
}

// firstResult returns the one group of an Aggregate result.
func firstResult(v any) map[string]any {
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil
	}
	m, _ := list[0].(map[string]any)
	return m
}

// number returns the whole number at path in an aggregate group.
func number(m map[string]any, path ...string) (int64, error) {
	var v any = m
	for _, p := range path {
		mm, _ := v.(map[string]any)
		v = mm[p]
	}
	switch v := v.(type) {
	case float64:
		if v < 0 || v != math.Trunc(v) || v > 1<<53 {
			return 0, fmt.Errorf("%s is %v, not a count", strings.Join(path, "."), v)
		}
		return int64(v), nil
	case nil:
		// A sum over no values is null.
		if path[len(path)-1] == "sum" {
			return 0, nil
		}
	}
	return 0, fmt.Errorf("no number at %s (%v)", strings.Join(path, "."), v)
}

// queryErr is the error of a GraphQL query: the client's, or the errors the
// server put in its answer, joined.
func queryErr(res *models.GraphQLResponse, err error) error {
	if err != nil || res == nil {
		return err
	}
	errs := make([]error, len(res.Errors))
	for i, e := range res.Errors {
		errs[i] = errors.New(e.Message)
	}
	return errors.Join(errs...)
}

// get runs a Get query and returns its objects; a tenant that does not
// exist yet has none.
func (x *Index) get(ctx context.Context, g *graphql.GetBuilder) ([]map[string]any, error) {
	res, err := g.Do(ctx)
	if err = queryErr(res, err); err != nil {
		if noTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("query: %w", plain(err))
	}
	get, _ := res.Data["Get"].(map[string]any)
	list, _ := get[x.class].([]any)
	rows := make([]map[string]any, 0, len(list))
	for _, o := range list {
		if m, ok := o.(map[string]any); ok {
			rows = append(rows, m)
		}
	}
	return rows, nil
}

// additional returns the number in the _additional field name of row (a
// JSON number, or a string as the BM25 score is).
func additional(row map[string]any, name string) (float64, error) {
	a, _ := row["_additional"].(map[string]any)
	switch v := a[name].(type) {
	case float64:
		return v, nil
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("_additional.%s %q: %w", name, v, err)
		}
		return f, nil
	}
	return 0, fmt.Errorf("no _additional.%s in a result", name)
}
