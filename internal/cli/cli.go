// Package cli implements the memgate command line. It parses flags, calls the
// library, and prints results; it holds no logic of its own.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/config"
	"github.com/memgate/memgate/embed/openai"
	"github.com/memgate/memgate/memory"
)

// usageError marks errors in how the command was called (exit status 2): the
// command line is wrong whatever the store and files hold. It is found before
// any store is opened, so misuse never creates or changes a store.
type usageError struct{ error }

// env carries the global flags and the streams.
type env struct {
	db       string // --db, kept for compatibility: the same as --store PATH
	store    string // --store, MEMGATE_STORE: a store location (see package config)
	index    string // --index, MEMGATE_INDEX
	config   string // --config, MEMGATE_CONFIG: a configuration file (config.File)
	file     *config.File
	embedder string
	policy   string
	gate     string   // gate model file (--gate, MEMGATE_GATE); "" for the built-in model
	args     []string // the command line, for error messages
	in       io.Reader
	out, err io.Writer
}

// Main runs the command line with args and returns the exit status: 0 on
// success; 1 when the operation failed against the store, the files or the
// environment; 2 when the command line itself is wrong (a usageError: unknown
// command or flag, wrong arguments, a missing or invalid flag value). The
// error is printed on stderr, escaped for the terminal.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The first interrupt or SIGTERM cancels the command's context, so
	// that it stops cleanly (a migrate drops its unfinished copy, a server
	// drains). A repeat within a second is the same request (GNU timeout
	// and process managers signal the process and then its group); a
	// later one terminates at once, except that serve and mcp, which
	// handle SIGTERM themselves, go on draining till their drain timeout.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	returned := make(chan struct{})
	defer close(returned)
	go func() {
		select {
		case <-ctx.Done():
		case <-returned:
			return
		}
		select {
		case <-time.After(time.Second):
		case <-returned:
		}
		stop()
	}()
	e := &env{in: stdin, out: stdout, err: stderr, args: args}
	root := e.root()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "memgate: %s\n", safeBlock(err.Error()))
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func (e *env) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "memgate",
		Short: "Long-term memory for AI agents, with a read path that is a trust boundary",
		Long: `memgate stores an agent's long-term memories with their trust metadata
(scope, source authority, kind, classification, validity, lineage) and
retrieves scoped candidates for a task. Candidates are not yet trusted:
admission decides what may enter a model's context.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return groupRun(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{errors.New("want a command (see memgate --help)")}
		},
	}
	root.PersistentFlags().StringVar(&e.db, "db", config.DefaultStore, "path of the store (a SQLite file); --store takes precedence")
	root.PersistentFlags().StringVar(&e.store, "store", os.Getenv(config.EnvStore),
		"store location: a SQLite file path, sqlite:PATH, mem: or postgres://… (default: $"+config.EnvStore+", else --db)")
	// --help shows the default from the environment, without a password.
	if f := root.PersistentFlags().Lookup("store"); f.DefValue != "" {
		if loc, err := config.ParseStore(f.DefValue); err == nil {
			f.DefValue = loc.String()
		} else {
			f.DefValue = "$" + config.EnvStore
		}
	}
	root.PersistentFlags().StringVar(&e.index, "index", os.Getenv(config.EnvIndex), "candidate index: exact (in memory, built from the store) or weaviate://HOST:PORT[?grpc=PORT&class=NAME] (default: $"+config.EnvIndex+", else exact)")
	root.PersistentFlags().StringVar(&e.config, "config", os.Getenv(config.EnvConfig),
		"configuration file (YAML or JSON: store, index, embedder, policy, gate, durableAudit, indexWait, serve: {addr, maxBodyBytes, maxBatch, lowerAuthority, drain, metricsAddr, corsOrigins}); flags and the environment win over it (default: $"+config.EnvConfig+")")
	root.PersistentFlags().StringVar(&e.embedder, "embedder", "builtin",
		"embedder: builtin (offline) or openai (any OpenAI-compatible server; configured by "+openai.EnvBaseURL+", "+openai.EnvModel+", "+openai.EnvAPIKey+")")
	root.PersistentFlags().StringVar(&e.policy, "policy", "", "policy file (YAML or JSON) with operator rules; default: built-in rules only")
	root.PersistentFlags().StringVar(&e.gate, "gate", os.Getenv("MEMGATE_GATE"), "gate model file from `memgate train`, used wherever memories are admitted (default: $MEMGATE_GATE, else the model built into memgate)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if !c.HasParent() {
			// "memgate serch --user u": the command is unknown, not --user.
			if word := firstWord(c, e.args); word != "" && !isCommand(c, word) {
				return groupRun(c, []string{word})
			}
		}
		return usageError{err}
	})
	root.AddCommand(e.addCmd(), e.importCmd(), e.exportCmd(), e.getCmd(), e.listCmd(), e.admitSearchCmd(),
		e.bindCmd(), e.auditCmd(), e.quarantineCmd(), e.policyCmd(), e.evalCmd(), e.suiteCmd(), e.trainCmd(),
		e.revokeCmd(), e.forgetCmd(), e.supersedeCmd(), e.reembedCmd(), e.statsCmd(), e.demoCmd(),
		e.serveCmd(), e.keysCmd(), e.mcpCmd(), e.reindexCmd(), e.migrateCmd())
	conventions(root)
	return root
}

// flagError is the usage error of a setting whose value config refused:
// where the value came from (a flag, an environment variable) and the
// problem, without the config field's own name ("--store: scheme …", not
// "--store: store: scheme …").
func flagError(flag string, err error) error {
	var fe *memory.FieldError
	if errors.As(err, &fe) {
		return usageError{fmt.Errorf("%s: %s", flag, fe.Problem)}
	}
	return usageError{fmt.Errorf("%s: %w", flag, err)}
}

// makeEmbedder builds the embedder named by --embedder (or --to).
func makeEmbedder(ctx context.Context, name string) (memgate.Embedder, error) {
	emb, err := config.NewEmbedder(ctx, name)
	var fe *memory.FieldError
	if errors.As(err, &fe) {
		return nil, usageError{fmt.Errorf("--embedder %s", fe.Problem)}
	}
	return emb, err
}

type storeAccess int

const (
	// writeStore opens an existing store for reading and writing; the
	// default for commands not in storeAccesses.
	writeStore storeAccess = iota
	// createStore may create the store.
	createStore
	// readStore opens an existing store read-only: the command works on a
	// write-protected store and cannot change it.
	readStore
)

// storeAccesses says how each command (its path below memgate, e.g.
// "quarantine list") opens the store. Only add, import, serve and keys create
// create a store, so a mistyped --db is an error everywhere else. Commands that only read open it
// read-only. search and bind need a writable store: they record their
// decisions in the audit trail.
var storeAccesses = map[string]storeAccess{
	"add": createStore, "import": createStore, "serve": createStore, "keys create": createStore, "mcp": writeStore,
	"keys list": readStore, "get": readStore, "list": readStore, "stats": readStore, "export": readStore,
	"audit": readStore, "quarantine list": readStore, "train": readStore,
}

// accessOf returns how cmd opens the store.
func accessOf(cmd *cobra.Command) storeAccess {
	path := cmd.CommandPath()
	if cmd.Root() != nil {
		path = strings.TrimPrefix(path, cmd.Root().Name()+" ")
	}
	return storeAccesses[path]
}

// configFile is the configuration file's content, read once; the zero File
// when there is none.
func (e *env) configFile() (config.File, error) {
	if e.file == nil {
		f := config.File{}
		if e.config != "" {
			var err error
			if f, err = config.LoadFile(e.config); err != nil {
				return config.File{}, err
			}
		}
		e.file = &f
	}
	return *e.file, nil
}

// changed reports whether the flag name was given on the command line.
func changed(cmd *cobra.Command, name string) bool {
	f := cmd.Flags().Lookup(name)
	return f != nil && f.Changed
}

// locationFrom returns the store the command line names (--store, else
// --db when given, else $MEMGATE_STORE, else the configuration file's,
// else --db's default) and, for messages, where it found it: the flag, the
// environment variable or the configuration file.
func (e *env) locationFrom(cmd *cobra.Command) (loc, from string) {
	switch {
	case changed(cmd, "store"):
		return e.store, "--store"
	case changed(cmd, "db"):
		return e.db, "--db"
	case e.store != "":
		return e.store, "$" + config.EnvStore
	}
	if f, err := e.configFile(); err == nil && f.Store != "" {
		return f.Store, "the configuration file's store"
	}
	return e.db, "--db"
}

// shown is the store's location for messages, without a password.
func (e *env) shown(cmd *cobra.Command) string {
	raw, from := e.locationFrom(cmd)
	loc, err := config.ParseStore(raw)
	if err != nil {
		return "the store " + from + " names" // its text may hold a password
	}
	return loc.String()
}

func (e *env) open(ctx context.Context, cmd *cobra.Command, access storeAccess) (*memgate.Engine, error) {
	file, err := e.configFile()
	if err != nil {
		return nil, err
	}
	store, storeFrom := e.locationFrom(cmd)
	c := config.Config{Store: store, Index: e.index, Embedder: e.embedder, Policy: e.policy, Gate: e.gate,
		DurableAudit: file.DurableAudit, IndexWait: file.IndexWait, Reindex: cmd.Name() == "reindex"}
	indexSource := "--index"
	if !changed(cmd, "index") && e.index != "" {
		indexSource = "$" + config.EnvIndex
	}
	if c.Index == "" {
		c.Index, indexSource = file.Index, "the configuration file's index"
	}
	if !changed(cmd, "embedder") && file.Embedder != "" {
		c.Embedder = file.Embedder
	}
	if c.Policy == "" {
		c.Policy = file.Policy
	}
	if c.Gate == "" {
		c.Gate = file.Gate
	}
	switch access {
	case createStore:
		c.Access = config.Create
	case readStore:
		c.Access = config.Read
	}
	if _, err := config.ParseStore(c.Store); err != nil {
		return nil, flagError(storeFrom, err)
	}
	if _, err := config.NewIndex(c.Index); err != nil {
		return nil, flagError(indexSource, err)
	}
	if _, err := makeEmbedder(ctx, c.Embedder); err != nil {
		return nil, err
	}
	eng, err := c.Open(ctx)
	var se *config.SettingError
	if errors.As(err, &se) {
		return nil, fmt.Errorf("--%s: %w", se.Setting, se.Err)
	}
	if errors.Is(err, memgate.ErrNoStore) {
		return nil, fmt.Errorf("no store at %s; create one with `memgate add` or `memgate import`, or check --db", safe(e.shown(cmd)))
	}
	return eng, err
}

func (e *env) withEngine(cmd *cobra.Command, fn func(ctx context.Context, eng *memgate.Engine) error) error {
	ctx := cmd.Context()
	access := accessOf(cmd)
	eng, err := e.open(ctx, cmd, access)
	if err == nil {
		defer eng.Close()
		err = fn(ctx, eng)
	}
	if access == writeStore && errors.Is(err, memgate.ErrReadOnly) && (cmd.Name() == "search" || cmd.Name() == "bind") {
		err = fmt.Errorf("%w; %s records its decisions in the audit trail, so it needs a store it can write", err, cmd.Name())
	}
	return err
}

// givenNonEmpty refuses a flag given with an empty value (--id "",
// --lineage "", or an empty entry in a list such as --lineage a,,b): an
// explicit empty value is a mistake, not "none", and must not be dropped
// silently.
func givenNonEmpty(cmd *cobra.Command, names ...string) error {
	for _, name := range names {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if sv, ok := f.Value.(interface{ GetSlice() []string }); ok {
			vals := sv.GetSlice()
			if len(vals) == 0 {
				return usageError{fmt.Errorf("--%s: is empty", name)}
			}
			for i, v := range vals {
				if strings.TrimSpace(v) == "" {
					return usageError{fmt.Errorf("--%s: entry %d is empty", name, i+1)}
				}
			}
			continue
		}
		if strings.TrimSpace(f.Value.String()) == "" {
			return usageError{fmt.Errorf("--%s: is empty", name)}
		}
	}
	return nil
}

func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// scopeFlags binds the user and scope filter flags shared by several commands.
func scopeFlags(cmd *cobra.Command, f *memory.Filter) {
	cmd.Flags().StringVar(&f.UserID, "user", "", "user id")
	cmd.Flags().StringVar(&f.WorkspaceID, "workspace", "", "workspace filter (unscoped memories match too)")
	cmd.Flags().StringVar(&f.ProjectID, "project", "", "project filter (unscoped memories match too)")
	cmd.Flags().StringVar(&f.Domain, "domain", "", "domain filter, e.g. work, family, health (unscoped memories match too)")
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("want %s, got %d argument(s)", what, len(args))}
		}
		return nil
	}
}

func (e *env) addCmd() *cobra.Command {
	var (
		m                              memory.Memory
		auth, kind, class, exp, create string
		asJSON                         bool
	)
	cmd := &cobra.Command{
		Use:   "add --user U [flags] TEXT...",
		Short: "Add one memory",
		Example: `  memgate add --user alex --domain health --authority user_confirmed --kind fact \
      --classification restricted --expires 2031-01-01 "Dental plan HX-4471 covers two cleanings a year until 2030"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if m.Text == "" {
				m.Text = strings.Join(args, " ")
			}
			if m.UserID == "" {
				return usageError{errors.New("--user is required: every memory has an owner")}
			}
			if strings.TrimSpace(m.Text) == "" {
				return usageError{errors.New("TEXT is required: give the memory's text as arguments or with --text")}
			}
			if err := givenNonEmpty(cmd, "id", "lineage", "supersedes", "audience"); err != nil {
				return err
			}
			var errs []error
			var err error
			if m.SourceAuthority, err = memory.ParseAuthority(auth); err != nil {
				errs = append(errs, fmt.Errorf("--authority: %w", err))
			}
			if m.Kind, err = memory.ParseKind(kind); err != nil {
				errs = append(errs, fmt.Errorf("--kind: %w", err))
			}
			if m.Classification, err = memory.ParseClassification(class); err != nil {
				errs = append(errs, fmt.Errorf("--classification: %w", err))
			}
			if m.ExpiresAt, err = memory.ParseTime(exp); err != nil {
				errs = append(errs, fmt.Errorf("--expires: %w", err))
			}
			if m.CreatedAt, err = memory.ParseTime(create); err != nil {
				errs = append(errs, fmt.Errorf("--created: %w", err))
			}
			if err := errors.Join(errs...); err != nil {
				return usageError{memoryFlagError(err)}
			}
			// Everything that can be checked without the store is a usage
			// error; what needs the store (unknown or foreign lineage ids, a
			// taken id) is found by Add.
			m.Normalize() // ids in NFC: "José" is one user however it was typed
			check := m
			if check.CreatedAt.IsZero() {
				check.CreatedAt = time.Now()
			}
			if err := check.Validate(); err != nil {
				return usageError{memoryFlagError(err)}
			}
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				got, err := eng.Add(ctx, m)
				if err != nil {
					return err
				}
				if asJSON {
					return e.printJSON(got)
				}
				fmt.Fprintln(e.out, safe(got.ID))
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&m.ID, "id", "", "memory id (default: a new UUIDv7)")
	f.StringVar(&m.Text, "text", "", "memory text (or give it as arguments)")
	f.StringVar(&m.UserID, "user", "", "owner's user id (required)")
	f.StringVar(&m.WorkspaceID, "workspace", "", "workspace id")
	f.StringVar(&m.ProjectID, "project", "", "project id")
	f.StringVar(&m.Domain, "domain", "", "life domain, e.g. work, family, health, finance")
	f.StringVar(&auth, "authority", "", "source authority: system, user_confirmed, tool_verified, model_inferred, external")
	f.StringVar(&kind, "kind", "", "kind: fact, preference, event, rule, procedure, tool_experience")
	f.StringVar(&class, "classification", "", "classification: public, internal, confidential, restricted")
	f.StringVar(&create, "created", "", "creation time (RFC 3339 or YYYY-MM-DD; default now)")
	f.StringVar(&exp, "expires", "", "expiry time (RFC 3339 or YYYY-MM-DD)")
	f.StringSliceVar(&m.LineageRefs, "lineage", nil, "ids of the memories this one was derived from")
	f.StringSliceVar(&m.Supersedes, "supersedes", nil, "ids of the memories this one replaces")
	f.StringSliceVar(&m.Audience, "audience", nil, "principal ids or role:NAME allowed to receive it")
	f.BoolVar(&asJSON, "json", false, "print the stored memory as JSON")
	return cmd
}

func (e *env) getCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get ID",
		Short: "Show one memory",
		Args:  exactArgs(1, "one memory id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				m, err := eng.Get(ctx, args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return e.printJSON(m)
				}
				printMemory(e.out, &m)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (e *env) listCmd() *cobra.Command {
	var (
		o      memgate.ListOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list [--user U] [filters]",
		Short: "List stored memories in insertion order",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Limit < 0 {
				return usageError{fmt.Errorf("--limit %d: want 0 (all) or more", o.Limit)}
			}
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				p, err := eng.List(ctx, o)
				if err != nil {
					return err
				}
				if asJSON {
					if p.Memories == nil {
						p.Memories = []memory.Memory{}
					}
					return e.printJSON(p.Memories)
				}
				for i := range p.Memories {
					printMemoryLine(e.out, &p.Memories[i])
				}
				if p.Next != 0 {
					fmt.Fprintf(e.err, "(more: raise --limit)\n")
				}
				return nil
			})
		},
	}
	scopeFlags(cmd, &o.Scope)
	cmd.Flags().BoolVar(&o.IncludeRevoked, "revoked", false, "include revoked memories")
	cmd.Flags().IntVar(&o.Limit, "limit", 100, "most memories to list (0 for all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as a JSON array")
	return cmd
}

func (e *env) revokeCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "revoke ID [--reason TEXT]",
		Short: "Withdraw a memory: it stops being a candidate at once; its record stays for audit",
		Args:  exactArgs(1, "one memory id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				m, err := eng.Revoke(ctx, args[0], reason)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.out, "revoked %s at %s\n", safe(m.ID), m.RevokedAt.Format(time.RFC3339))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why it is revoked (kept in the record)")
	return cmd
}

func (e *env) forgetCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "forget ID [--reason TEXT]",
		Short: "Delete a memory's text and vector for good, leaving a tombstone",
		Args:  exactArgs(1, "one memory id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				t, err := eng.Forget(ctx, args[0], reason)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.out, "forgot %s (user %s) at %s\n", safe(t.ID), safe(t.UserID), t.ForgottenAt.Format(time.RFC3339))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why it is forgotten (kept in the tombstone)")
	return cmd
}

func (e *env) supersedeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "supersede NEW_ID OLD_ID...",
		Short: "Record that one memory replaces older ones of the same user",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError{errors.New("want a new memory id and at least one old id")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				return eng.Supersede(ctx, args[0], args[1:]...)
			})
		},
	}
}

func (e *env) statsCmd() *cobra.Command {
	var asJSON, check bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Summarise the store",
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				if check {
					if err := eng.Check(ctx); err != nil {
						return err
					}
				}
				st, err := eng.Stats(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					return e.printJSON(st)
				}
				fmt.Fprintf(e.out, "store        %s (schema v%d, %s)\n", st.Path, st.Schema, humanBytes(st.FileBytes))
				fmt.Fprintf(e.out, "embedder     %s\n", st.Embedder)
				fmt.Fprintf(e.out, "memories     %d (%d revoked, %d expired) of %d users\n", st.Memories, st.Revoked, st.Expired, st.Users)
				fmt.Fprintf(e.out, "forgotten    %d tombstones\n", st.Tombstones)
				fmt.Fprintf(e.out, "relations    %d lineage links, %d supersessions\n", st.Lineage, st.Supersede)
				for _, a := range append(memory.Authorities, "unknown") {
					if n := st.ByAuth[string(a)]; n > 0 {
						fmt.Fprintf(e.out, "  %-15s %d\n", a, n)
					}
				}
				if is, err := eng.IndexStatus(ctx); err != nil {
					return err
				} else if is.Following {
					fmt.Fprintf(e.out, "index        %s follows the store: %d changes pending (oldest %s)\n", safe(is.Index), is.Pending, is.Oldest.Round(time.Millisecond))
				} else if is.Index != "" {
					fmt.Fprintf(e.out, "index        exact; the store still records its changes for %s: %d pending (if no engine uses that index any more, `memgate reindex --stop` stops it)\n",
						safe(is.Index), is.Pending)
				}
				if check {
					fmt.Fprintln(e.out, "integrity    ok")
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().BoolVar(&check, "check", false, "also run a full integrity check of the file")
	return cmd
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
