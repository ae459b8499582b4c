// Package weaviate is a candidate index (index.Index) kept in a Weaviate
// server, through the official Go client (v5): the scale-out alternative to
// the exact in-memory index (index/exact) for tenants too big for one
// process. For the same entries it returns the hits the exact index returns,
// in the same order and with the same scores (see Parity below).
//
// Layout: one collection (class) with multi-tenancy enabled and one tenant
// per memgate user, so a user's searches run on that user's shard only and
// can never reach another user's objects. Tenants are created on demand (the
// collection has autoTenantCreation on, so the first batch write of a user
// creates its tenant). The vectorizer is none: memgate sends its own
// vectors, compared by cosine distance. Each object carries memoryId,
// workspaceId, projectId and domain (filterable, field tokenization); text
// (stored, not indexed); terms, the text's content words as the exact index
// analyses them (embed.Tokens without stopwords), in order, joined by
// spaces (filterable and searchable, whitespace tokenization, no
// stopwords), and termCount, how many there are. Its UUID is derived from
// the memory id (uuid.NewSHA1), so an upsert of the same id replaces it. An
// unscoped entry (empty label) stores no value for that property (null,
// with indexNullState on), so the scope rule "label == want OR unscoped" is
// a where filter (prop == want OR prop IsNull) applied inside the vector and
// BM25 queries, never to their results.
//
// # Parity with the exact index
//
// Weaviate proposes candidates and memgate scores them, with the exact
// index's arithmetic:
//
//   - Search asks Weaviate for the nearest objects with their stored
//     vectors and scores each by the same float32 dot product the exact
//     index uses (internal/vecmath), so scores are bit for bit the exact
//     index's. Every search carries a where filter (the scope, or "memoryId
//     is not null" when there is none), and Weaviate's HNSW index scans a
//     filtered search's allowed objects by brute force, exactly, when they
//     are fewer than the collection's flatSearchCutoff (Weaviate's default
//     is 40000; ?flatcutoff=N sets it when New creates the collection).
//     Tenants below that size get exact results; bigger ones get HNSW's
//     approximate neighbours, re-scored and re-ordered, which is what
//     Weaviate is for.
//   - Lexical computes the exact index's BM25 (k1 1.2, b 0.75, idf
//     ln(1 + (N - df + 0.5)/(df + 0.5)), statistics over all of the user's
//     entries whatever the scope, at most exact.MaxQueryTerms query words)
//     from statistics Weaviate counts (the user's entries, their summed
//     termCount and each query word's document frequency, in one request
//     of aggregates), and scores each candidate from its terms. When the
//     entries with a query word are at most lexScanMax, the candidates are
//     all of them in the scope (a ContainsAny filter on terms, exact).
//     Beyond that Weaviate's BM25 over terms proposes them; its score is
//     the same formula without the factor k1+1 but with its own statistics
//     (a float32 mean length, frequencies that may count deleted objects
//     until compaction), and Weaviate 1.35.2's BM25 was seen to miss some
//     of its own best objects at a small limit, so there the hits are
//     approximate.
//
// Search, and Lexical on the BM25 path, ask for k+extra objects first. A
// fetch is complete when it returns fewer objects than asked for: every
// in-scope candidate is then scored. When it is full, the k-th score must
// beat what an object not fetched could score by Weaviate's own measure,
// with a margin (vecSlack, lexSlack); otherwise they fetch again with
// twice the limit. That also completes a tie cut by k, so the kept ids are
// always the smallest of the tie. Hits are ordered by score, best first,
// ties by id.
//
// A search returns at most 10000 hits (Weaviate's QUERY_MAXIMUM_RESULTS,
// which scripts/scaleout-up.sh sets), whatever k.
//
// The index implements index.Persistent (the engine does not load it from
// the store; `memgate reindex` rebuilds it) and index.Loader (ReplaceUser,
// which reindex uses), but not index.Counter (a count needs an aggregate
// per tenant, not cheap).
package weaviate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/auth"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
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
	_ index.Loader     = (*Index)(nil)
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
	propTerms     = "terms"
	propTermCount = "termCount"
)

// idSpace is the namespace of the objects' UUIDs (uuid.NewSHA1 of the
// memory id in it).
var idSpace = uuid.MustParse("6d656d67-6174-4557-8961-766961746521")

// extra is how many hits beyond k a search asks for first, so that a tie
// or a near tie at the k-th hit can be settled without another round trip.
const extra = 8

// maxLimit caps the limit a search may ask for (Weaviate's
// QUERY_MAXIMUM_RESULTS defaults to 10000).
const maxLimit = 10000

// Index is a Weaviate-backed index. It is safe for concurrent use.
type Index struct {
	client   *wv.Client
	class    string
	dim      int
	identity string
}

// options are the settings of a URL New accepts.
type options struct {
	cfg   wv.Config
	class string
	// flatCutoff is the flatSearchCutoff of a collection New creates (0:
	// Weaviate's default).
	flatCutoff int
}

// EnvAPIKey is the environment variable that holds the API key New sends
// (as "Authorization: Bearer KEY", over HTTP and gRPC) to a Weaviate server
// with API-key authentication (AUTHENTICATION_APIKEY_ENABLED). It is not
// part of the URL, so that the key never shows where the index's URL does
// (flags, logs, /metrics, the outbox's identity). Unset or empty, requests
// are anonymous.
const EnvAPIKey = "MEMGATE_WEAVIATE_API_KEY"

// New connects to the Weaviate server at rawURL and makes sure the
// collection exists (creating it if needed) for vectors of dimension dim.
// With EnvAPIKey set, it authenticates with that key.
//
// rawURL is http://host:port, https://host:port or weaviate://host:port
// (plain HTTP), with optional query parameters grpc=PORT (the server's
// gRPC port, used for batch writes; without it every call goes over HTTP),
// class=NAME (the collection, DefaultClass if unset; a GraphQL class
// name, starting with a capital letter) and flatcutoff=N (the collection's
// flatSearchCutoff when New creates it: a user with fewer than N entries
// in a search's scope is searched exactly, a bigger one through HNSW;
// Weaviate's default, 40000, if unset).
//
// A collection that exists must have the properties and settings this
// version of the index relies on (terms, termCount, no stopwords); one
// made by an older version is refused: drop it, or name another class,
// and rebuild it with `memgate reindex`.
func New(ctx context.Context, rawURL string, dim int) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("weaviate index: dimension %d", dim)
	}
	opts, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	key, err := apiKey()
	if err != nil {
		return nil, err
	}
	if key != "" {
		opts.cfg.AuthConfig = auth.ApiKey{Value: key}
	}
	client, err := wv.NewClient(opts.cfg)
	if err != nil {
		return nil, fmt.Errorf("weaviate index: %w", plain(err))
	}
	x := &Index{client: client, class: opts.class, dim: dim, identity: identity(rawURL)}
	if err := x.ensureClass(ctx, opts.flatCutoff); err != nil {
		return nil, refused(err, key != "")
	}
	return x, nil
}

// errKeyInURL refuses a url with a user or key before its host, without
// quoting it: what precedes the '@' is likely a key.
var errKeyInURL = fmt.Errorf("weaviate index: the url holds a user or key before its host: give an API key in %s, not in the url", EnvAPIKey)

// apiKey returns the API key in EnvAPIKey, without the spaces or line end
// a file or a shell may have added; "" for none.
func apiKey() (string, error) {
	key := strings.TrimSpace(os.Getenv(EnvAPIKey))
	if strings.ContainsFunc(key, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "", fmt.Errorf("weaviate index: %s holds a control character: an API key cannot", EnvAPIKey)
	}
	return key, nil
}

// refused explains an error of a server that refused memgate's
// credentials (HTTP 401 or 403): which variable to set or check. Other
// errors are returned as they are.
func refused(err error, withKey bool) error {
	var ce *fault.WeaviateClientError
	if !errors.As(err, &ce) || ce.StatusCode != http.StatusUnauthorized && ce.StatusCode != http.StatusForbidden {
		return err
	}
	if !withKey {
		return fmt.Errorf("%w (the server wants an API key: set %s)", err, EnvAPIKey)
	}
	return fmt.Errorf("%w (the server refused the API key in %s)", err, EnvAPIKey)
}

// CheckURL reports whether rawURL is a URL New accepts, without
// connecting.
func CheckURL(rawURL string) error {
	_, err := parseURL(rawURL)
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

// identity is the identity of the index at rawURL: weaviate://HOST:PORT/CLASS,
// the same for every spelling of one collection on one server; rawURL
// itself if it does not parse.
func identity(rawURL string) string {
	o, err := parseURL(rawURL)
	if err != nil {
		return rawURL
	}
	return "weaviate://" + strings.ToLower(o.cfg.Host) + "/" + o.class
}

// Identity names the index a store's outbox feeds (see store.Outbox): the
// server and the collection.
func (x *Index) Identity() string { return x.identity }

// parseURL turns a URL New accepts into the client's configuration, the
// collection name and the collection's settings.
func parseURL(rawURL string) (options, error) {
	// A user or key before the host is refused before anything else, and
	// the url is not quoted then: what precedes the '@' is likely a key.
	_, rest, _ := strings.Cut(rawURL, "://")
	if authority, _, _ := strings.Cut(strings.SplitN(strings.SplitN(rest, "?", 2)[0], "#", 2)[0], "/"); strings.Contains(authority, "@") {
		return options{}, errKeyInURL
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err // net/url's message quotes the url, query and all
		}
		return options{}, fmt.Errorf("weaviate index: url: %w", err)
	}
	if u.User != nil {
		return options{}, errKeyInURL
	}
	scheme := u.Scheme
	switch scheme {
	case "weaviate", "http":
		scheme = "http"
	case "https":
	default:
		return options{}, fmt.Errorf("weaviate index: url %q: scheme must be weaviate, http or https", rawURL)
	}
	if u.Host == "" {
		return options{}, fmt.Errorf("weaviate index: url %q has no host", rawURL)
	}
	q := u.Query()
	opts := options{class: q.Get("class"), cfg: wv.Config{Host: u.Host, Scheme: scheme}}
	if opts.class == "" {
		opts.class = DefaultClass
	}
	if !classRE.MatchString(opts.class) {
		return options{}, fmt.Errorf("weaviate index: class %q is not a valid collection name", opts.class)
	}
	if g := q.Get("grpc"); g != "" {
		if p, err := strconv.Atoi(g); err != nil || p <= 0 || p > 65535 {
			return options{}, fmt.Errorf("weaviate index: grpc port %q is not a port", g)
		}
		opts.cfg.GrpcConfig = &wvgrpc.Config{Host: u.Hostname() + ":" + g, Secured: scheme == "https"}
	}
	if c := q.Get("flatcutoff"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n <= 0 {
			return options{}, fmt.Errorf("weaviate index: flatcutoff %q is not a positive number", c)
		}
		opts.flatCutoff = n
	}
	return opts, nil
}

// Constructor returns a constructor of indexes at rawURL, of the form the
// engine takes (memgate.Options.NewIndex). The index it makes connects
// (with New) on first use, not when it is made, and tries again on a
// later call after a failed attempt (at most once a second, each attempt
// bounded by ConnectTimeout): a process that never searches never waits
// for Weaviate, and one started while Weaviate is down works once it is
// back. Until then every call fails with the last attempt's error.
func Constructor(rawURL string) func(dim int) index.Index {
	return func(dim int) index.Index { return &lazy{url: rawURL, dim: dim} }
}

// ConnectTimeout bounds one attempt of a Constructor's index to connect.
const ConnectTimeout = 10 * time.Second

// lazy is an index that connects on first use; see Constructor.
type lazy struct {
	url string
	dim int

	mu      sync.Mutex
	x       *Index
	lastErr error
	lastTry time.Time
}

var (
	_ index.Index      = (*lazy)(nil)
	_ index.Loader     = (*lazy)(nil)
	_ index.Persistent = (*lazy)(nil)
	_ index.Checker    = (*lazy)(nil)
	_ index.Checker    = (*Index)(nil)
)

// get returns the connected index, connecting if it is not.
func (l *lazy) get(ctx context.Context) (*Index, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.x != nil {
		return l.x, nil
	}
	if l.lastErr != nil && time.Since(l.lastTry) < time.Second {
		return nil, l.lastErr
	}
	cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	x, err := New(cctx, l.url, l.dim)
	if err != nil {
		// A caller that gave up (a readiness probe's short deadline) says
		// nothing about Weaviate: the next caller tries at once rather than
		// getting this caller's error for a second.
		if ctx.Err() == nil {
			l.lastErr, l.lastTry = err, time.Now()
		}
		return nil, err
	}
	l.x, l.lastErr = x, nil
	return x, nil
}

func (l *lazy) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	x, err := l.get(ctx)
	if err != nil {
		return err
	}
	return x.Upsert(ctx, entries...)
}

func (l *lazy) Remove(ctx context.Context, userID string, ids ...string) error {
	x, err := l.get(ctx)
	if err != nil {
		return err
	}
	return x.Remove(ctx, userID, ids...)
}

func (l *lazy) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	x, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return x.Search(ctx, f, q, k)
}

func (l *lazy) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	x, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return x.Lexical(ctx, f, query, k)
}

func (l *lazy) Vectors(ctx context.Context, userID string, ids []string) ([][]float32, error) {
	x, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return x.Vectors(ctx, userID, ids)
}

func (l *lazy) ReplaceUser(ctx context.Context, userID string, sizeHint int, entries iter.Seq2[retrieve.Entry, error]) error {
	x, err := l.get(ctx)
	if err != nil {
		return err
	}
	return x.ReplaceUser(ctx, userID, sizeHint, entries)
}

// Persistent reports true: the index lives in Weaviate.
func (l *lazy) Persistent() bool { return true }

// Check connects if the index is not connected yet, then checks that
// Weaviate is ready.
func (l *lazy) Check(ctx context.Context) error {
	x, err := l.get(ctx)
	if err != nil {
		return err
	}
	return x.Check(ctx)
}

// Identity names the index a store's outbox feeds (see store.Outbox): the
// server and the collection.
func (l *lazy) Identity() string { return identity(l.url) }

var classRE = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,254}$`)

// Class is the name of the index's collection.
func (x *Index) Class() string { return x.class }

// Dim is the vector dimension the index accepts.
func (x *Index) Dim() int { return x.dim }

// Persistent reports that the index keeps its entries itself.
func (x *Index) Persistent() bool { return true }

// Check asks Weaviate whether it is ready to serve (/.well-known/ready).
func (x *Index) Check(ctx context.Context) error {
	ok, err := x.client.Misc().ReadyChecker().Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate index %s: readiness: %w", x.identity, plain(err))
	}
	if !ok {
		return fmt.Errorf("weaviate index %s: Weaviate says it is not ready", x.identity)
	}
	return nil
}

// ensureClass creates the collection unless it exists, with flatCutoff
// as its flatSearchCutoff if positive, and checks an existing one.
func (x *Index) ensureClass(ctx context.Context, flatCutoff int) error {
	ok, err := x.client.Schema().ClassExistenceChecker().WithClassName(x.class).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate index: checking collection %s: %w", x.class, plain(err))
	}
	if ok {
		return x.checkClass(ctx)
	}
	yes, no := true, false
	filterable := func(name string) *models.Property {
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationField,
			IndexFilterable: &yes, IndexSearchable: &no}
	}
	vic := map[string]any{"distance": "cosine"}
	if flatCutoff > 0 {
		vic["flatSearchCutoff"] = flatCutoff
	}
	class := &models.Class{
		Class:             x.class,
		Description:       "memgate candidate index: one tenant per user",
		Vectorizer:        "none",
		VectorIndexType:   "hnsw",
		VectorIndexConfig: vic,
		InvertedIndexConfig: &models.InvertedIndexConfig{
			IndexNullState: true,
			Bm25:           &models.BM25Config{K1: bm25K1, B: bm25B},
			// The terms are analysed by memgate, stopwords already out;
			// Weaviate must keep every word it gets, in queries too.
			Stopwords: &models.StopwordConfig{Preset: "none"},
		},
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true, AutoTenantCreation: true, AutoTenantActivation: true},
		Properties: []*models.Property{
			filterable(propMemoryID),
			filterable(propWorkspace),
			filterable(propProject),
			filterable(propDomain),
			{Name: propText, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationWord,
				IndexFilterable: &no, IndexSearchable: &no},
			{Name: propTerms, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationWhitespace,
				IndexFilterable: &yes, IndexSearchable: &yes},
			{Name: propTermCount, DataType: []string{"int"}, IndexFilterable: &yes},
		},
	}
	if err := x.client.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
		// Another process may have created it meanwhile.
		if ok, err2 := x.client.Schema().ClassExistenceChecker().WithClassName(x.class).Do(ctx); err2 == nil && ok {
			return x.checkClass(ctx)
		}
		return fmt.Errorf("weaviate index: creating collection %s: %w", x.class, plain(err))
	}
	return nil
}

// checkClass refuses an existing collection without the settings Lexical
// relies on: a terms property tokenized on whitespace, searchable and
// filterable, a termCount, and no stopwords.
func (x *Index) checkClass(ctx context.Context) error {
	c, err := x.client.Schema().ClassGetter().WithClassName(x.class).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate index: reading collection %s: %w", x.class, plain(err))
	}
	var problems []string
	props := map[string]*models.Property{}
	for _, p := range c.Properties {
		props[p.Name] = p
	}
	if p := props[propTerms]; p == nil || p.Tokenization != models.PropertyTokenizationWhitespace ||
		p.IndexSearchable == nil || !*p.IndexSearchable || p.IndexFilterable == nil || !*p.IndexFilterable {
		problems = append(problems, "no searchable, filterable terms property tokenized on whitespace")
	}
	if props[propTermCount] == nil {
		problems = append(problems, "no termCount property")
	}
	if ic := c.InvertedIndexConfig; ic == nil || ic.Stopwords == nil || ic.Stopwords.Preset != "none" || len(ic.Stopwords.Additions) > 0 {
		problems = append(problems, "stopwords are not off (preset none, no additions)")
	}
	if len(problems) > 0 {
		return fmt.Errorf("weaviate index: collection %s was not made by this version of memgate (%s): drop it or name another class, and rebuild it with memgate reindex",
			x.class, strings.Join(problems, "; "))
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
		if err := x.check(e); err != nil {
			return err
		}
		terms := analyze(e.Text)
		props := map[string]any{propMemoryID: e.ID, propText: e.Text,
			propTerms: strings.Join(terms, " "), propTermCount: len(terms)}
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
			return fmt.Errorf("weaviate index: upsert of %d entries: %w", len(chunk), plain(err))
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

// check refuses an entry the index cannot hold.
func (x *Index) check(e retrieve.Entry) error {
	if e.UserID == "" {
		return fmt.Errorf("weaviate index: memory %s has no userId", e.ID)
	}
	if e.ID == "" {
		return errors.New("weaviate index: an entry has no id")
	}
	if len(e.Vector) != x.dim {
		return fmt.Errorf("weaviate index: memory %s: vector has dimension %d, index has %d", e.ID, len(e.Vector), x.dim)
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
		return fmt.Errorf("weaviate index: remove: %w", plain(err))
	}
	return nil
}

// noTenant reports whether err says the tenant does not exist: a user who
// never wrote has no entries.
func noTenant(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "tenant not found") || strings.Contains(s, "tenant") && strings.Contains(s, "not found")
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
		return nil, fmt.Errorf("weaviate index: vectors: %w", plain(err))
	}
	byID := make(map[string][]float32, len(rows))
	for _, r := range rows {
		id, _ := r[propMemoryID].(string)
		v, err := x.rowVector(id, r)
		if err != nil {
			return nil, fmt.Errorf("weaviate index: vectors: %w", plain(err))
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
