package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/memory"
)

func (e *env) reindexCmd() *cobra.Command {
	var users []string
	var asJSON, stop bool
	cmd := &cobra.Command{
		Use:   "reindex [--user ID]... | reindex --stop",
		Short: "Rebuild the persistent index (Weaviate) from the store, and keep it following the store",
		Long: `reindex rebuilds a persistent index (--index weaviate://…) from the store:
every stored memory that is not revoked is indexed, and what the index holds
that the store does not is dropped, for the given users or every user. It
also turns on the store's index outbox (PostgreSQL), through which every
later write reaches the index. A store's changes feed one index: reindex
with another index switches the store to it, and engines still on the old
one stop keeping it in step (restart them with the new --index). memgate
refuses to use a persistent index that was never built from a store that
holds memories, or that the store does not feed. Run reindex after memgate
migrate, to move to a new or restored index, or when the index was written
to outside memgate. Searches keep working meanwhile, from what the index
holds; writes made during the rebuild wait up to indexWait (5s) each for
the index and reach it when the rebuild ends.

The default index (exact) lives in each process's memory and is built from
the store there: it has nothing to rebuild. After moving a store back to it
from a persistent index, run reindex --stop (without --index): it stops the
store recording changes for the old index, which nobody drains any more,
and drops those pending. Using the persistent index again takes a reindex.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := givenNonEmpty(cmd, "user"); err != nil {
				return err
			}
			seen := map[string]bool{}
			var distinct []string
			for _, u := range memory.NormalizeIDs(users) {
				if err := memory.CheckID("--user", u); err != nil {
					return usageError{err}
				}
				if !seen[u] {
					seen[u] = true
					distinct = append(distinct, u)
				}
			}
			users = distinct
			if stop {
				if len(users) > 0 {
					return usageError{errors.New("reindex: --stop stops the outbox for every user; it takes no --user")}
				}
				return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
					st, err := eng.IndexStatus(ctx)
					if err != nil {
						return err
					}
					if st.Following {
						return usageError{fmt.Errorf("reindex --stop: this command uses the index %s; run it with the exact index (without --index or MEMGATE_INDEX)", safe(st.Index))}
					}
					n, err := eng.StopOutbox(ctx)
					if errors.Is(err, errors.ErrUnsupported) {
						return usageError{fmt.Errorf("reindex --stop: %w", err)}
					}
					if err != nil {
						return err
					}
					if asJSON {
						return e.printJSON(map[string]any{"stopped": st.Index, "dropped": n})
					}
					if st.Index == "" {
						fmt.Fprintln(e.out, "the store records changes for no index; nothing to stop")
						return nil
					}
					fmt.Fprintf(e.out, "the store no longer records changes for %s; dropped %d pending\n", safe(st.Index), n)
					return nil
				})
			}
			return e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
				start := time.Now()
				done, total := 0, 0
				err := eng.Reindex(ctx, func(user string, n int) {
					done, total = done+1, total+n
					if !asJSON {
						fmt.Fprintf(e.err, "reindexed %s: %d memories\n", safe(user), n)
					}
				}, users...)
				if errors.Is(err, memgate.ErrNotPersistent) {
					return usageError{fmt.Errorf("reindex: %w (use --index or MEMGATE_INDEX to name a persistent index)", err)}
				}
				if err != nil {
					return err
				}
				st, err := eng.IndexStatus(ctx)
				if err != nil {
					return err
				}
				took := time.Since(start)
				if asJSON {
					return e.printJSON(map[string]any{"users": done, "memories": total, "seconds": took.Seconds(),
						"following": st.Following, "index": st.Index, "pending": st.Pending})
				}
				if !st.Following {
					fmt.Fprintf(e.out, "reindexed %d memories of %d users in %s; this store keeps no outbox, so only engines writing through this index keep it in step\n",
						total, done, took.Round(time.Millisecond))
					return nil
				}
				fmt.Fprintf(e.out, "reindexed %d memories of %d users in %s; the index %s follows the store (%d changes pending)\n",
					total, done, took.Round(time.Millisecond), safe(st.Index), st.Pending)
				return nil
			})
		},
	}
	cmd.Flags().StringArrayVar(&users, "user", nil, "rebuild only this user's memories (repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	cmd.Flags().BoolVar(&stop, "stop", false, "stop the store recording changes for a persistent index it no longer uses (run with the exact index)")
	return cmd
}
