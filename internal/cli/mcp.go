package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/mcp"
)

// envKey is the environment variable memgate mcp reads its API key from
// when --key is not given.
const envKey = "MEMGATE_KEY"

func (e *env) mcpCmd() *cobra.Command {
	var (
		key   string
		lower bool
	)
	cmd := &cobra.Command{
		Use:   "mcp --key KEY",
		Short: "Serve the engine to an MCP client over stdin/stdout, as the principal of an API key (see memgate keys)",
		Long: `Serve the engine as a Model Context Protocol server on stdin and stdout, for
the MCP client that started this process. Its tools (remember, recall, revoke,
forget, check_tool_call) act as the principal of the API key given with --key
or $` + envKey + `, exactly as memgate serve does for that key: only for the
key's users, within its authority cap. The key is checked at start and
before every tool call, so revoking it stops the tools at once.
memgate serve offers the same tools over HTTP at /mcp.`,
		Example: `  memgate keys create --principal claude --role agent --users alex
  memgate mcp --key mgk_…   # what an MCP client's configuration runs`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			from := "--key"
			if !cmd.Flags().Changed("key") {
				key, from = os.Getenv(envKey), "$"+envKey
			}
			key = strings.TrimSpace(key)
			if key == "" {
				return usageError{errors.New("--key is required (or $" + envKey + "): an API key from memgate keys create")}
			}
			if _, _, err := auth.ParseKey(key); err != nil {
				return usageError{fmt.Errorf("%s: %w", from, err)}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM)
			defer stop()
			return e.withEngine(cmd, func(_ context.Context, eng *memgate.Engine) error {
				keys, err := keyStore(eng)
				if err != nil {
					return err
				}
				p, err := auth.Authenticate(ctx, keys, key, time.Now())
				if err != nil {
					return fmt.Errorf("%s: %w", from, err)
				}
				fmt.Fprintf(e.err, "memgate: MCP on stdio for %s (%s, users %s) on %s\n", safe(p.ID), p.Role,
					safe(strings.Join(p.Users, ",")), safe(e.shown(cmd)))
				srv := mcp.NewServer(eng, p, &mcp.Options{LowerAuthority: lower})
				// The key is checked again before every tool call, as
				// memgate serve checks it on every request: revoking it
				// stops this server's tools at once.
				srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
					return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
						if method == "tools/call" {
							if _, err := auth.Authenticate(ctx, keys, key, time.Now()); err != nil {
								res := &sdk.CallToolResult{}
								res.SetError(fmt.Errorf("the API key no longer authenticates: %w", err))
								return res, nil
							}
						}
						return next(ctx, method, req)
					}
				})
				err = srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(e.in), Writer: nopWriteCloser{e.out}})
				if ctx.Err() != nil || errors.Is(err, io.EOF) {
					err = nil // stopped by a signal, or the client closed stdin
				}
				return err
			})
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "API key (default: $"+envKey+", which other users cannot read in the process list)")
	cmd.Flags().BoolVar(&lower, "lower-authority", false, "store a memory above the key's authority cap at the cap instead of refusing it")
	return cmd
}

// nopWriteCloser is stdout for the MCP transport: closing the transport
// must not close the command's output.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
