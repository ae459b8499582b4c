// Package config builds a memgate engine from configuration: which store,
// which index, which embedder, which policy and which gate model. It is the
// one place that wiring lives, so that the command line and the server open
// an engine the same way; each keeps only its flags and its printing.
//
// A store is named by a location:
//
//	memgate.db, sqlite:memgate.db  the embedded SQLite file (the default)
//	mem:                           an in-memory store, gone when the engine closes
//	postgres://user:pw@host/db     a PostgreSQL database (store/postgres)
//
// and an index by a name: exact (the default), or weaviate://HOST:PORT for a
// Weaviate server (index/weaviate). The environment variables
// MEMGATE_STORE, MEMGATE_INDEX, MEMGATE_EMBEDDER, MEMGATE_POLICY and
// MEMGATE_GATE give the same settings (see FromEnv).
package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/embed/openai"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
	"github.com/memgate/memgate/store"
	"github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/postgres"
	"github.com/memgate/memgate/store/sqlite"
)

// DefaultStore is the store location when none is configured.
const DefaultStore = "memgate.db"

// Access says what an engine will do with its store.
type Access int

const (
	// Write opens an existing store for reading and writing.
	Write Access = iota
	// Create opens a store for writing, creating it if there is none.
	Create
	// Read opens an existing store for reading only; the gate model is
	// not loaded, since nothing is admitted.
	Read
)

// Config is everything needed to open an engine. The zero value opens the
// embedded default: ./memgate.db, the exact index, the builtin embedder, the
// built-in policy rules and gate model.
type Config struct {
	// Store locates the system of record (see the package doc); "" is
	// DefaultStore.
	Store string
	// Index names the candidate index: "exact" or "" for the default.
	Index string
	// Embedder names the embedder: "builtin" or "" (offline), or "openai"
	// (any OpenAI-compatible server, configured by the environment
	// variables of package embed/openai).
	Embedder string
	// Policy is a policy file (YAML or JSON) with operator rules; "" for
	// the built-in rules only.
	Policy string
	// Gate is a gate model file from `memgate train`; "" for the model
	// built into memgate.
	Gate string
	// Access says whether the store must exist and may be written.
	Access Access
	// DurableAudit flushes every admission record to the disk before it
	// is acknowledged (see memgate.Options.DurableAudit).
	DurableAudit bool
	// IndexWait is memgate.Options.IndexWait: how long a write waits for a
	// persistent index (Weaviate) to apply it.
	IndexWait time.Duration
	// Reindex is memgate.Options.Reindex: the caller rebuilds the index.
	Reindex bool
	// Now is the engine's clock; nil for time.Now.
	Now func() time.Time
}

// Environment variables read by FromEnv.
const (
	EnvStore    = "MEMGATE_STORE"
	EnvIndex    = "MEMGATE_INDEX"
	EnvEmbedder = "MEMGATE_EMBEDDER"
	EnvPolicy   = "MEMGATE_POLICY"
	EnvGate     = "MEMGATE_GATE"
)

// FromEnv reads a configuration from environment variables through getenv
// (os.Getenv, usually); unset variables leave the defaults.
func FromEnv(getenv func(string) string) Config {
	return Config{Store: getenv(EnvStore), Index: getenv(EnvIndex), Embedder: getenv(EnvEmbedder),
		Policy: getenv(EnvPolicy), Gate: getenv(EnvGate)}
}

// Location is a parsed store location.
type Location struct {
	Kind string // "sqlite", "mem" or "postgres"
	Path string // the file for sqlite, the URL for postgres
}

// String renders the location as it would be configured, without a
// password.
func (l Location) String() string {
	switch l.Kind {
	case "mem":
		return "mem:"
	case "postgres":
		return postgres.RedactURL(l.Path)
	}
	return l.Path
}

// ParseStore parses a store location. Errors are *memory.FieldError values
// naming the field "store".
func ParseStore(s string) (Location, error) {
	switch {
	case s == "":
		return Location{Kind: "sqlite", Path: DefaultStore}, nil
	case s == "mem:" || s == "mem://":
		return Location{Kind: "mem"}, nil
	case strings.HasPrefix(s, "sqlite:"):
		p := strings.TrimPrefix(strings.TrimPrefix(s, "sqlite:"), "//")
		if p == "" {
			return Location{}, &memory.FieldError{Field: "store", Problem: fmt.Sprintf("%q names no file (want sqlite:PATH)", s)}
		}
		return Location{Kind: "sqlite", Path: p}, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if err := postgres.CheckURL(s); err != nil {
			return Location{}, &memory.FieldError{Field: "store", Problem: err.Error()}
		}
		return Location{Kind: "postgres", Path: s}, nil
	case strings.Contains(s, "://"):
		scheme, _, _ := strings.Cut(s, "://")
		return Location{}, &memory.FieldError{Field: "store", Problem: fmt.Sprintf(
			"scheme %q is not supported (supported: a file path, sqlite:PATH, mem:, postgres://)", scheme)}
	}
	return Location{Kind: "sqlite", Path: s}, nil
}

// NewIndex returns the index constructor that name selects.
func NewIndex(name string) (func(dim int) index.Index, error) {
	switch {
	case name == "" || name == "exact":
		return func(dim int) index.Index { return exact.New(dim) }, nil
	case weaviate.IsURL(name):
		if err := weaviate.CheckURL(name); err != nil {
			return nil, &memory.FieldError{Field: "index", Problem: err.Error()}
		}
		return weaviate.Constructor(name), nil
	}
	shown := fmt.Sprintf("%q", name)
	if strings.Contains(name, "@") {
		shown = "the value" // not quoted: what precedes the '@' may be a key
	}
	return nil, &memory.FieldError{Field: "index", Problem: fmt.Sprintf(
		"%s is not supported by this build (supported: exact, weaviate://HOST:PORT[?grpc=PORT&class=NAME])", shown)}
}

// NewEmbedder returns the embedder that name selects.
func NewEmbedder(ctx context.Context, name string) (memgate.Embedder, error) {
	switch name {
	case "builtin", "":
		return embed.NewBuiltin(), nil
	case "openai":
		cfg, err := openai.ConfigFromEnv()
		if err != nil {
			return nil, err
		}
		return openai.New(ctx, cfg)
	}
	return nil, &memory.FieldError{Field: "embedder", Problem: fmt.Sprintf("%q: want builtin or openai", name)}
}

// LoadGate loads a gate model file for an engine whose embedder is emb: a
// model trained on another embedder than the builtin one must have been
// trained on emb.
func LoadGate(path string, emb embed.Identity) (*gate.Gate, error) {
	m, err := gate.Load(path)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	g := gate.New(m)
	if m.Header.Embedder != embed.NewBuiltin().Identity() {
		if err := g.CheckEmbedder(emb); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return g, nil
}

// SettingError is a setting whose value could not be used: a policy or gate
// file that is missing or damaged, say.
type SettingError struct {
	Setting string // "policy" or "gate"
	Err     error
}

// Error names the setting.
func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }

// Unwrap returns the problem.
func (e *SettingError) Unwrap() error { return e.Err }

// ErrNoStore is wrapped by Open's error when Access is not Create and there
// is no store at the location.
var ErrNoStore = memgate.ErrNoStore

// OpenStore opens the store at loc without an engine, for tools that work
// on a store as a whole (memgate migrate): a SQLite file or a PostgreSQL
// database (an in-memory store has nothing to open). access says whether it
// must exist and may be written, as for Open. The caller closes it.
func OpenStore(ctx context.Context, loc Location, access Access) (store.Store, error) {
	mustExist, readOnly := access != Create, access == Read
	var st store.Store
	var err error
	switch loc.Kind {
	case "postgres":
		st, err = postgres.OpenWith(ctx, loc.Path, postgres.Options{MustExist: mustExist, ReadOnly: readOnly})
	case "sqlite":
		st, err = sqlite.OpenWith(ctx, loc.Path, sqlite.OpenOptions{MustExist: mustExist, ReadOnly: readOnly})
	default:
		return nil, fmt.Errorf("store %s: a store of kind %q cannot be opened on its own", loc, loc.Kind)
	}
	if errors.Is(err, store.ErrNoStore) {
		return nil, fmt.Errorf("no store at %s: %w", loc, err)
	}
	return st, err
}

// Open builds the engine c describes. The caller closes it.
func (c Config) Open(ctx context.Context) (*memgate.Engine, error) {
	loc, err := ParseStore(c.Store)
	if err != nil {
		return nil, err
	}
	newIndex, err := NewIndex(c.Index)
	if err != nil {
		return nil, err
	}
	emb, err := NewEmbedder(ctx, c.Embedder)
	if err != nil {
		return nil, err
	}
	opts := &memgate.Options{Embedder: emb, NewIndex: newIndex, Now: c.Now, DurableAudit: c.DurableAudit, IndexWait: c.IndexWait, Reindex: c.Reindex,
		MustExist: c.Access != Create, ReadOnly: c.Access == Read}
	if c.Policy != "" {
		if opts.Policy, err = policy.LoadFile(c.Policy); err != nil {
			return nil, &SettingError{Setting: "policy", Err: err}
		}
	}
	if c.Gate != "" && c.Access != Read { // an engine that only reads admits nothing
		if opts.Gate, err = LoadGate(c.Gate, emb.Identity()); err != nil {
			return nil, &SettingError{Setting: "gate", Err: err}
		}
	}
	switch loc.Kind {
	case "postgres":
		st, err := postgres.OpenWith(ctx, loc.Path, postgres.Options{MustExist: c.Access != Create, ReadOnly: c.Access == Read})
		if err != nil {
			if errors.Is(err, memgate.ErrNoStore) {
				return nil, fmt.Errorf("no store at %s: %w", loc, err)
			}
			return nil, err
		}
		eng, err := memgate.New(ctx, st, opts)
		if err != nil {
			st.Close()
		}
		return eng, err
	case "mem":
		if c.Access != Create {
			return nil, fmt.Errorf("store mem: %w (an in-memory store starts empty: only commands that create a store can use it)", ErrNoStore)
		}
		return memgate.New(ctx, mem.New(), opts)
	default:
		eng, err := memgate.Open(ctx, loc.Path, opts)
		if errors.Is(err, memgate.ErrNoStore) {
			return nil, fmt.Errorf("no store at %s: %w", loc.Path, err)
		}
		return eng, err
	}
}
