// Package weaviate is a candidate index (index.Index) kept in a Weaviate
// server, through the official Go client (v5): the scale-out alternative to
// the exact in-memory index for tenants too big for one process.
//
// Layout: one collection (class) with multi-tenancy enabled and one tenant
// per memgate user, so a user's searches run on that user's shard only and
// can never reach another user's objects. Tenants are created on demand (the
// collection has autoTenantCreation on, so the first batch write of a user
// creates its tenant). The vectorizer is none: memgate sends its own
// vectors, compared by cosine distance. Each object carries memoryId,
// workspaceId, projectId and domain (filterable, field tokenization) and
// text (searchable, word tokenization, for BM25); its UUID is derived from
// the memory id (uuid.NewSHA1), so an upsert of the same id replaces it.
// An unscoped entry (empty label) stores no value for that property (null,
// with indexNullState on), so the scope rule "label == want OR unscoped" is
// a where filter (prop == want OR prop IsNull) applied inside the vector and
// BM25 queries, never to their results.
//
// Ordering: Weaviate orders hits by distance or BM25 score but not ties by
// id, which the contract wants. Search and Lexical therefore ask for a few
// more than k hits, sort them (score desc, id asc) and cut at k; when the
// hits tied with the k-th reach the end of what was fetched, they fetch
// again with a doubled limit until the tie group is complete, so the kept
// ids are always the smallest of the tie.
//
// A search returns at most 10000 hits (Weaviate's QUERY_MAXIMUM_RESULTS,
// which scripts/scaleout-up.sh sets), whatever k.
//
// The index implements index.Persistent (the engine does not load it from
// the store; `memgate reindex` rebuilds it) but not index.Counter (a count
// needs an aggregate per tenant, not cheap) nor index.Loader (the engine
// never loads a persistent index).
//
// Search scores are cosine similarities (1 - the cosine distance Weaviate
// returns); Lexical scores are Weaviate's BM25 scores, which differ from
// the exact index's (another tokenizer and stopword list) but are positive
// and ordered the same way.
package weaviate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"crypto/sha256"
	"encoding/hex"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	wvgrpc "github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

var (
	_ index.Index      = (*Index)(nil)
	_ index.Persistent = (*Index)(nil)
)

// DefaultClass is the collection used when the URL names none.
const DefaultClass = "MemgateMemory"

// Property names of the collection.
const (
	propMemoryID  = "memoryId"
	propWorkspace = "workspaceId"
	propProject   = "projectId"
	propDomain    = "domain"
	propText      = "text"
)

// idSpace is the namespace of the objects' UUIDs (uuid.NewSHA1 of the
// memory id in it).
var idSpace = uuid.MustParse("6d656d67-6174-4557-8961-766961746521")

// extra is how many hits beyond k a search asks for first, so that a tie
// cut by k can be ordered by id without another round trip.
const extra = 8

// maxLimit caps the limit a tie-completing search may ask for (Weaviate's
// QUERY_MAXIMUM_RESULTS defaults to 10000).
const maxLimit = 10000

// Index is a Weaviate-backed index. It is safe for concurrent use.
type Index struct {
	client *wv.Client
	class  string
	dim    int
}

// New connects to the Weaviate server at rawURL and makes sure the
// collection exists (creating it if needed) for vectors of dimension dim.
//
// rawURL is http://host:port, https://host:port or weaviate://host:port
// (plain HTTP), with optional query parameters grpc=PORT (the server's
// gRPC port, used for batch writes; without it every call goes over HTTP)
// and class=NAME (the collection, DefaultClass if unset; a GraphQL class
// name, starting with a capital letter).
func New(ctx context.Context, rawURL string, dim int) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("weaviate index: dimension %d", dim)
	}
	cfg, class, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	client, err := wv.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("weaviate index: %w", err)
	}
	x := &Index{client: client, class: class, dim: dim}
	if err := x.ensureClass(ctx); err != nil {
		return nil, err
	}
	return x, nil
}

// CheckURL reports whether rawURL is a URL New accepts, without
// connecting.
func CheckURL(rawURL string) error {
	_, _, err := parseURL(rawURL)
	return err
}

// IsURL reports whether s names a Weaviate index (weaviate://, http://
// or https://), as opposed to another kind of index.
func IsURL(s string) bool {
	for _, p := range []string{"weaviate://", "http://", "https://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// parseURL turns a URL New accepts into the client's configuration and the
// collection name.
func parseURL(rawURL string) (wv.Config, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return wv.Config{}, "", fmt.Errorf("weaviate index: url: %w", err)
	}
	scheme := u.Scheme
	switch scheme {
	case "weaviate", "http":
		scheme = "http"
	case "https":
	default:
		return wv.Config{}, "", fmt.Errorf("weaviate index: url %q: scheme must be weaviate, http or https", rawURL)
	}
	if u.Host == "" {
		return wv.Config{}, "", fmt.Errorf("weaviate index: url %q has no host", rawURL)
	}
	q := u.Query()
	class := q.Get("class")
	if class == "" {
		class = DefaultClass
	}
	if !classRE.MatchString(class) {
		return wv.Config{}, "", fmt.Errorf("weaviate index: class %q is not a valid collection name", class)
	}
	cfg := wv.Config{Host: u.Host, Scheme: scheme}
	if g := q.Get("grpc"); g != "" {
		if p, err := strconv.Atoi(g); err != nil || p <= 0 || p > 65535 {
			return wv.Config{}, "", fmt.Errorf("weaviate index: grpc port %q is not a port", g)
		}
		cfg.GrpcConfig = &wvgrpc.Config{Host: u.Hostname() + ":" + g, Secured: scheme == "https"}
	}
	return cfg, class, nil
}

// Constructor returns an index constructor for rawURL, the shape an engine
// takes (memgate.Options.NewIndex): each call connects with New under a
// timeout of a minute. A constructor cannot fail, so when New does, the
// index it returns fails every call with New's error.
func Constructor(rawURL string) func(dim int) index.Index {
	return func(dim int) index.Index {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		x, err := New(ctx, rawURL, dim)
		if err != nil {
			return failed{err}
		}
		return x
	}
}

// failed is an index whose every call fails with err.
type failed struct{ err error }

func (f failed) Upsert(context.Context, ...retrieve.Entry) error { return f.err }
func (f failed) Remove(context.Context, string, ...string) error { return f.err }
func (f failed) Search(context.Context, memory.Filter, []float32, int) ([]retrieve.Hit, error) {
	return nil, f.err
}
func (f failed) Lexical(context.Context, memory.Filter, string, int) ([]retrieve.Hit, error) {
	return nil, f.err
}
func (f failed) Vectors(context.Context, string, []string) ([][]float32, error) { return nil, f.err }
func (f failed) Persistent() bool                                               { return true }

var classRE = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,254}$`)

// Class is the name of the index's collection.
func (x *Index) Class() string { return x.class }

// Dim is the vector dimension the index accepts.
func (x *Index) Dim() int { return x.dim }

// Persistent reports that the index keeps its entries itself.
func (x *Index) Persistent() bool { return true }

// ensureClass creates the collection unless it exists.
func (x *Index) ensureClass(ctx context.Context) error {
	ok, err := x.client.Schema().ClassExistenceChecker().WithClassName(x.class).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate index: checking collection %s: %w", x.class, err)
	}
	if ok {
		return nil
	}
	yes, no := true, false
	filterable := func(name string) *models.Property {
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationField,
			IndexFilterable: &yes, IndexSearchable: &no}
	}
	class := &models.Class{
		Class:           x.class,
		Description:     "memgate candidate index: one tenant per user",
		Vectorizer:      "none",
		VectorIndexType: "hnsw",
		VectorIndexConfig: map[string]any{
			"distance": "cosine",
		},
		InvertedIndexConfig: &models.InvertedIndexConfig{IndexNullState: true},
		MultiTenancyConfig:  &models.MultiTenancyConfig{Enabled: true, AutoTenantCreation: true, AutoTenantActivation: true},
		Properties: []*models.Property{
			filterable(propMemoryID),
			filterable(propWorkspace),
			filterable(propProject),
			filterable(propDomain),
			{Name: propText, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationWord,
				IndexFilterable: &no, IndexSearchable: &yes},
		},
	}
	if err := x.client.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
		// Another process may have created it meanwhile.
		if ok, err2 := x.client.Schema().ClassExistenceChecker().WithClassName(x.class).Do(ctx); err2 == nil && ok {
			return nil
		}
		return fmt.Errorf("weaviate index: creating collection %s: %w", x.class, err)
	}
	return nil
}

// DropClass deletes the index's collection with every tenant and object.
func (x *Index) DropClass(ctx context.Context) error {
	return x.client.Schema().ClassDeleter().WithClassName(x.class).Do(ctx)
}

var tenantRE = regexp.MustCompile(`^[A-Za-z0-9_]{1,62}$`)

// tenant is the tenant name of a user: "u-" and the user id when it is
// made of letters, digits and underscores (and short enough), else "h-" and
// the first 160 bits of its SHA-256 in hex. The prefixes keep the two forms
// apart, so two users never share a tenant.
func tenant(userID string) string {
	if tenantRE.MatchString(userID) {
		return "u-" + userID
	}
	sum := sha256.Sum256([]byte(userID))
	return "h-" + hex.EncodeToString(sum[:20])
}

// objectID is the UUID of a memory's object.
func objectID(memoryID string) string {
	return uuid.NewSHA1(idSpace, []byte(memoryID)).String()
}

// Upsert adds entries, replacing any with the same user and id, in batch
// requests of up to batchSize objects. Every entry needs a user and a
// vector of the index's dimension; otherwise nothing is written. A batch
// is not atomic on the server: when a request fails, the entries before it
// (and some of its own) may be written; upserting them again is safe.
func (x *Index) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	objs := make([]*models.Object, 0, len(entries))
	for _, e := range entries {
		if e.UserID == "" {
			return fmt.Errorf("weaviate index: memory %s has no userId", e.ID)
		}
		if e.ID == "" {
			return errors.New("weaviate index: an entry has no id")
		}
		if len(e.Vector) != x.dim {
			return fmt.Errorf("weaviate index: memory %s: vector has dimension %d, index has %d", e.ID, len(e.Vector), x.dim)
		}
		props := map[string]any{propMemoryID: e.ID, propText: e.Text}
		for name, v := range map[string]string{propWorkspace: e.WorkspaceID, propProject: e.ProjectID, propDomain: e.Domain} {
			if v != "" {
				props[name] = v
			}
		}
		objs = append(objs, &models.Object{
			Class:      x.class,
			ID:         strfmt.UUID(objectID(e.ID)),
			Tenant:     tenant(e.UserID),
			Properties: props,
			Vector:     slices.Clone(e.Vector),
		})
	}
	for chunk := range slices.Chunk(objs, batchSize) {
		res, err := x.client.Batch().ObjectsBatcher().WithObjects(chunk...).Do(ctx)
		if err != nil {
			return fmt.Errorf("weaviate index: upsert of %d entries: %w", len(chunk), err)
		}
		var errs []error
		for _, r := range res {
			if r.Result != nil && r.Result.Errors != nil {
				for _, e := range r.Result.Errors.Error {
					errs = append(errs, fmt.Errorf("object %s: %s", r.ID, e.Message))
				}
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("weaviate index: upsert: %w", errors.Join(errs...))
		}
	}
	return nil
}

// batchSize is how many objects one batch request of Upsert carries.
const batchSize = 1000

// Remove removes ids of userID in one batch delete; ids that are not
// indexed, and users without a tenant, are ignored.
func (x *Index) Remove(ctx context.Context, userID string, ids ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if userID == "" {
		return errors.New("weaviate index: remove needs a userId")
	}
	if len(ids) == 0 {
		return nil
	}
	where := filters.Where().WithPath([]string{propMemoryID}).WithOperator(filters.ContainsAny).WithValueText(ids...)
	_, err := x.client.Batch().ObjectsBatchDeleter().WithClassName(x.class).WithTenant(tenant(userID)).
		WithWhere(where).WithOutput("minimal").Do(ctx)
	if err != nil && !noTenant(err) {
		return fmt.Errorf("weaviate index: remove: %w", err)
	}
	return nil
}

// noTenant reports whether err says the tenant does not exist: a user who
// never wrote has no entries.
func noTenant(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "tenant not found") || strings.Contains(s, "tenant") && strings.Contains(s, "not found")
}

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

// Search returns up to k entries of f.UserID in f's scope most similar to
// q, scored by cosine similarity, ties by id.
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
	vec := slices.Clone(q)
	return x.topK(ctx, f, k, "distance", func(g *graphql.GetBuilder) *graphql.GetBuilder {
		return g.WithNearVector(x.client.GraphQL().NearVectorArgBuilder().WithVector(vec))
	}, func(d float64) float64 { return 1 - d })
}

// Lexical returns up to k entries of f.UserID in f's scope with a positive
// BM25 score for query over their text, best first, ties by id.
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
	if !hasWord(query) {
		return nil, nil
	}
	return x.topK(ctx, f, k, "score", func(g *graphql.GetBuilder) *graphql.GetBuilder {
		return g.WithBM25(x.client.GraphQL().Bm25ArgBuilder().WithQuery(query).WithProperties(propText))
	}, func(s float64) float64 { return s })
}

// hasWord reports whether query has a letter or digit: an empty query
// matches nothing.
func hasWord(query string) bool {
	return strings.ContainsFunc(query, func(r rune) bool {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r > 127
	})
}

// topK runs a Get query of f's tenant and scope with the search set by
// with, reading the additional field add and turning it into a score with
// score, and returns the k best hits, ties by id. It fetches k+extra hits;
// when the hits tied with the k-th run to the end of the fetch, it fetches
// again with twice the limit, so the tie group is complete before the cut.
func (x *Index) topK(ctx context.Context, f memory.Filter, k int, add string,
	with func(*graphql.GetBuilder) *graphql.GetBuilder, score func(float64) float64) ([]retrieve.Hit, error) {
	where := scopeWhere(f)
	limit := min(k, maxLimit-extra) + extra
	for {
		g := x.client.GraphQL().Get().WithClassName(x.class).WithTenant(tenant(f.UserID)).
			WithFields(graphql.Field{Name: propMemoryID}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: add}}}).
			WithLimit(limit)
		if where != nil {
			g = g.WithWhere(where)
		}
		rows, err := x.get(ctx, with(g))
		if err != nil {
			return nil, err
		}
		hits := make([]retrieve.Hit, 0, len(rows))
		for _, r := range rows {
			id, _ := r[propMemoryID].(string)
			v, err := additional(r, add)
			if err != nil {
				return nil, err
			}
			s := score(v)
			if add == "score" && !(s > 0) {
				continue
			}
			hits = append(hits, retrieve.Hit{ID: id, Score: s})
		}
		slices.SortFunc(hits, func(a, b retrieve.Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		if len(rows) < limit || len(hits) <= k || hits[len(hits)-1].Score < hits[k-1].Score || limit >= maxLimit {
			return hits[:min(k, len(hits))], nil
		}
		limit = min(2*limit, maxLimit)
	}
}

// get runs a Get query and returns its objects; a tenant that does not
// exist yet has none.
func (x *Index) get(ctx context.Context, g *graphql.GetBuilder) ([]map[string]any, error) {
	res, err := g.Do(ctx)
	if err != nil {
		if noTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate index: query: %w", err)
	}
	if len(res.Errors) > 0 {
		var errs []error
		for _, e := range res.Errors {
			errs = append(errs, errors.New(e.Message))
		}
		err := errors.Join(errs...)
		if noTenant(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("weaviate index: query: %w", err)
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
			return 0, fmt.Errorf("weaviate index: _additional.%s %q: %w", name, v, err)
		}
		return f, nil
	}
	return 0, fmt.Errorf("weaviate index: no _additional.%s in a result", name)
}

// Vectors returns the vectors of ids of userID, one per id in order, nil
// for an id the user does not have, from one query.
func (x *Index) Vectors(ctx context.Context, userID string, ids []string) ([][]float32, error) {
	if userID == "" {
		return nil, errors.New("weaviate index: vectors need a userId")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	uniq := slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(uniq) > maxLimit {
		return nil, fmt.Errorf("weaviate index: vectors of %d ids in one call, at most %d", len(uniq), maxLimit)
	}
	where := filters.Where().WithPath([]string{propMemoryID}).WithOperator(filters.ContainsAny).WithValueText(uniq...)
	g := x.client.GraphQL().Get().WithClassName(x.class).WithTenant(tenant(userID)).WithWhere(where).WithLimit(len(uniq)).
		WithFields(graphql.Field{Name: propMemoryID}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "vector"}}})
	rows, err := x.get(ctx, g)
	if err != nil {
		return nil, err
	}
	byID := make(map[string][]float32, len(rows))
	for _, r := range rows {
		id, _ := r[propMemoryID].(string)
		a, _ := r["_additional"].(map[string]any)
		raw, _ := a["vector"].([]any)
		if len(raw) != x.dim {
			return nil, fmt.Errorf("weaviate index: memory %s has a vector of dimension %d, index has %d", id, len(raw), x.dim)
		}
		v := make([]float32, len(raw))
		for i, c := range raw {
			f, ok := c.(float64)
			if !ok || math.IsNaN(f) {
				return nil, fmt.Errorf("weaviate index: memory %s: bad vector component %v", id, c)
			}
			v[i] = float32(f)
		}
		byID[id] = v
	}
	for i, id := range ids {
		if v, ok := byID[id]; ok {
			out[i] = slices.Clone(v)
		}
	}
	return out, nil
}
