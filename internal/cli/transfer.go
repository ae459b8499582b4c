package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/internal/demo"
)

// progress returns a progress callback drawing a bar on stderr when stderr is
// a terminal, and nil (no output) otherwise, so logs and pipes stay clean.
func (e *env) progress(what string) (func(done, total int), func()) {
	f, ok := e.err.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	update := func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30))
		}
		_ = bar.Set(done)
	}
	return update, func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
}

func (e *env) importCmd() *cobra.Command {
	var o memgate.ImportOptions
	cmd := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Import memories from JSON Lines (- for standard input), all or nothing",
		Long: `Import memories from a JSON Lines file, one memory per line, in the format
that export writes. The import is one transaction: if any line is malformed
or invalid, nothing is stored and every bad line is reported with its number.
Ids in the file are kept; lines without an id get a new one.`,
		Args: exactArgs(1, "one file (or -)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = e.in
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				var done func()
				o.Progress, done = e.progress("importing")
				start := time.Now()
				res, err := eng.Import(ctx, r, o)
				done()
				if err != nil {
					return err
				}
				fmt.Fprintf(e.out, "imported %d memories (%d skipped as existing) from %d records in %s\n",
					res.Imported, res.Skipped, res.Records, time.Since(start).Round(time.Millisecond))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&o.SkipExisting, "skip-existing", false, "leave memories whose id is already stored and import the rest")
	return cmd
}

func (e *env) exportCmd() *cobra.Command {
	var (
		o   memgate.ExportOptions
		out string
	)
	cmd := &cobra.Command{
		Use:   "export [--user U] [--out FILE]",
		Short: "Export memories as JSON Lines (revoked ones included), for backup or migration",
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				w := e.out
				if out != "" && out != "-" {
					f, err := os.Create(out)
					if err != nil {
						return err
					}
					defer f.Close()
					w = f
				}
				n, err := eng.Export(ctx, w, o)
				if err != nil {
					return err
				}
				if c, ok := w.(io.Closer); ok && w != e.out {
					if err := c.Close(); err != nil {
						return err
					}
				}
				fmt.Fprintf(e.err, "exported %d memories\n", n)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&o.Scope.UserID, "user", "", "export only this user's memories")
	cmd.Flags().StringVarP(&out, "out", "o", "", "file to write (default standard output)")
	cmd.Flags().BoolVar(&o.WithVectors, "vectors", false, "include embeddings")
	return cmd
}

func (e *env) reembedCmd() *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   "reembed --to builtin|openai",
		Short: "Recompute every embedding with another embedder (one transaction)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageError{errors.New("--to is required")}
			}
			ctx := cmd.Context()
			emb, err := makeEmbedder(ctx, to)
			if err != nil {
				return err
			}
			update, done := e.progress("re-embedding")
			start := time.Now()
			err = memgate.Reembed(ctx, e.db, emb, update)
			done()
			if err != nil {
				return err
			}
			fmt.Fprintf(e.out, "re-embedded %s with %s in %s; open it with --embedder %s from now on\n",
				e.db, emb.Identity(), time.Since(start).Round(time.Millisecond), to)
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the new embedder: builtin or openai")
	return cmd
}

func (e *env) demoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Seed a temporary store with a realistic memory set and show what similarity alone would inject",
		RunE: func(cmd *cobra.Command, args []string) error {
			return demo.Run(cmd.Context(), e.out)
		},
	}
}
