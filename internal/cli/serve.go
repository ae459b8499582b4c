package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/server"
	"github.com/memgate/memgate/server/origin"
)

// loopback reports whether a listener's address is a loopback one, which
// only this machine reaches.
func loopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// httpServer is an HTTP server for h with serve's timeouts, which bound
// how long a slow or idle client holds a connection.
func httpServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: time.Minute, WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
}

// keyStore is the engine's store as a key store.
func keyStore(eng *memgate.Engine) (auth.Store, error) {
	ks, ok := eng.Store().(auth.Store)
	if !ok {
		return nil, errors.New("this store cannot keep API keys")
	}
	return ks, nil
}

func (e *env) serveCmd() *cobra.Command {
	var (
		addr        string
		metricsAddr string
		o           server.Options
		drain       time.Duration
		logJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT]",
		Short: "Serve the engine over HTTP (/v1, /metrics, /healthz) to callers with API keys (see memgate keys)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := e.configFile()
			if err != nil {
				return err
			}
			// The configuration file's serve settings, where no flag
			// gave one.
			fs := file.Serve
			if !changed(cmd, "addr") && fs.Addr != "" {
				addr = fs.Addr
			}
			if !changed(cmd, "max-body") && fs.MaxBodyBytes > 0 {
				o.MaxBodyBytes = fs.MaxBodyBytes
			}
			if !changed(cmd, "max-batch") && fs.MaxBatch > 0 {
				o.MaxBatch = fs.MaxBatch
			}
			if !changed(cmd, "lower-authority") && fs.LowerAuthority {
				o.LowerAuthority = true
			}
			if !changed(cmd, "drain") && fs.Drain > 0 {
				drain = fs.Drain
			}
			if !changed(cmd, "metrics-addr") && fs.MetricsAddr != "" {
				metricsAddr = fs.MetricsAddr
			}
			if !changed(cmd, "cors-origin") && len(fs.CORSOrigins) > 0 {
				o.CORSOrigins = fs.CORSOrigins
			}
			if err := origin.CheckList(o.CORSOrigins); err != nil {
				return usageError{fmt.Errorf("--cors-origin: %w", err)}
			}
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usageError{fmt.Errorf("--addr %q: %v", addr, err)}
			}
			if metricsAddr != "" {
				_, port, err := net.SplitHostPort(metricsAddr)
				if err != nil {
					return usageError{fmt.Errorf("--metrics-addr %q: %v", metricsAddr, err)}
				}
				if metricsAddr == addr && port != "0" { // port 0: each listener gets a free port of its own
					return usageError{fmt.Errorf("--metrics-addr %q is --addr: give another address (or none, to serve /metrics with the API)", metricsAddr)}
				}
				o.SeparateMetrics = true
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM)
			defer stop()
			return e.withEngine(cmd, func(_ context.Context, eng *memgate.Engine) error {
				keys, err := keyStore(eng)
				if err != nil {
					return err
				}
				if logJSON {
					o.Logger = slog.New(slog.NewJSONHandler(e.err, nil))
				}
				srv, err := server.New(eng, keys, o)
				if err != nil {
					return err
				}
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					return err
				}
				hs := httpServer(srv)
				done := make(chan error, 2)
				var ms *http.Server // the metrics' own listener, with --metrics-addr
				if metricsAddr != "" {
					mln, err := net.Listen("tcp", metricsAddr)
					if err != nil {
						ln.Close()
						return fmt.Errorf("--metrics-addr: %w", err)
					}
					mux := http.NewServeMux()
					mux.Handle("GET /metrics", srv.MetricsHandler())
					ms = httpServer(mux)
					fmt.Fprintf(e.err, "memgate: metrics on http://%s/metrics\n", mln.Addr())
					go func() { done <- ms.Serve(mln) }()
				} else if !loopback(ln.Addr()) {
					fmt.Fprintf(e.err, "memgate: /metrics is served with the API, unauthenticated, to anyone who can reach %s; "+
						"serve it on a private address with --metrics-addr\n", ln.Addr())
				}
				if slices.Contains(o.CORSOrigins, "*") {
					fmt.Fprintln(e.err, "memgate: --cors-origin *: any web page may call the API (still with a key) and read its "+
						"unauthenticated routes (/healthz, /readyz, /v1/openapi.json, and /metrics unless --metrics-addr moves it); "+
						"name the origins of your pages instead")
				}
				fmt.Fprintf(e.err, "memgate: serving %s on http://%s\n", safe(e.shown(cmd)), ln.Addr())
				go func() { done <- hs.Serve(ln) }()
				select {
				case err := <-done:
					hs.Close()
					if ms != nil {
						ms.Close()
					}
					return err
				case <-ctx.Done():
				}
				// Drain requests in flight; the engine's Close, after
				// this, flushes the audit trail.
				sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drain)
				defer cancel()
				err = hs.Shutdown(sctx)
				if ms != nil {
					err = errors.Join(err, ms.Shutdown(sctx))
				}
				fmt.Fprintln(e.err, "memgate: stopped")
				return err
			})
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().Int64Var(&o.MaxBodyBytes, "max-body", 4<<20, "largest request body in bytes")
	cmd.Flags().IntVar(&o.MaxBatch, "max-batch", 1000, "most memories in one batch add")
	cmd.Flags().BoolVar(&o.LowerAuthority, "lower-authority", false, "store a memory above the key's authority cap at the cap instead of refusing it")
	cmd.Flags().DurationVar(&drain, "drain", 15*time.Second, "how long shutdown waits for requests in flight")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve /metrics on this address only, not with the API (metrics are not authenticated)")
	cmd.Flags().StringSliceVar(&o.CORSOrigins, "cors-origin", nil, "let browser pages of this origin call the API (https://app.example.com, https://*.example.com, or * for any; repeatable); they still need a key")
	cmd.Flags().BoolVar(&logJSON, "log", false, "log one JSON line per request to stderr (never memory text)")
	return cmd
}

func (e *env) keysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, list and revoke the API keys of memgate serve",
		Args:  groupRun,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{errors.New("want create, list or revoke")}
		},
	}
	var (
		p      auth.Principal
		role   string
		users  string
		maxA   string
		asJSON bool
	)
	create := &cobra.Command{
		Use:   "create --principal ID --role agent|reviewer|admin --users U1[,U2…] [--max-authority A]",
		Short: "Create a key; it is printed once and stored only as a hash",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if p.Role, err = auth.ParseRole(role); err != nil {
				return usageError{fmt.Errorf("--%w", err)}
			}
			for u := range strings.SplitSeq(users, ",") {
				if u = strings.TrimSpace(u); u != "" {
					p.Users = append(p.Users, memory.NormalizeID(u))
				}
			}
			p.ID, p.MaxAuthority = memory.NormalizeID(p.ID), memory.Authority(maxA)
			plain, k, err := auth.NewKey(p, time.Now())
			if err != nil {
				var fe *memory.FieldError
				if errors.As(err, &fe) {
					return usageError{fmt.Errorf("--%w", err)}
				}
				return err
			}
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				ks, err := keyStore(eng)
				if err != nil {
					return err
				}
				if err := ks.PutKey(ctx, k); err != nil {
					return err
				}
				if asJSON {
					return e.printJSON(map[string]any{"key": plain, "id": k.ID, "principal": k.Principal, "createdAt": k.CreatedAt})
				}
				fmt.Fprintln(e.out, plain)
				fmt.Fprintf(e.err, "memgate: key %s for %s (%s); it is shown only now\n", k.ID, safe(p.ID), p.Role)
				return nil
			})
		},
	}
	create.Flags().StringVar(&p.ID, "principal", "", "who the key identifies (named in the audit trail)")
	create.Flags().StringVar(&role, "role", "agent", "agent, reviewer or admin")
	create.Flags().StringVar(&users, "users", "", "users the key may act for, comma-separated; * for all")
	create.Flags().StringVar(&maxA, "max-authority", "", "highest source authority its writes may carry (default: tool_verified for agents)")
	create.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List keys (never their secrets)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				ks, err := keyStore(eng)
				if err != nil {
					return err
				}
				keys, err := ks.Keys(ctx)
				if err != nil {
					return err
				}
				if listJSON {
					if keys == nil {
						keys = []auth.Key{}
					}
					return e.printJSON(keys)
				}
				tw := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tPRINCIPAL\tROLE\tUSERS\tCREATED\tREVOKED")
				for _, k := range keys {
					revoked := ""
					if !k.RevokedAt.IsZero() {
						revoked = k.RevokedAt.Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, safe(k.Principal.ID), k.Principal.Role,
						safe(strings.Join(k.Principal.Users, ",")), k.CreatedAt.Format(time.RFC3339), revoked)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print JSON")

	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key: it stops authenticating at once",
		Args:  exactArgs(1, "one key id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				ks, err := keyStore(eng)
				if err != nil {
					return err
				}
				if err := ks.RevokeKey(ctx, args[0], time.Now()); err != nil {
					return err
				}
				fmt.Fprintf(e.out, "revoked key %s\n", safe(args[0]))
				return nil
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}
