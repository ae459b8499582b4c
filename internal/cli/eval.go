package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/client"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/eval/public"
	"github.com/memgate/memgate/eval/suite"
	"github.com/memgate/memgate/policy"
)

// errWriter remembers the first error of the writer it wraps, so that a
// failed write can be told from a failed read of the cases.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// decisionsFile checks --decisions and creates the file its records are
// written to: a temporary file beside it, renamed into place when the run
// succeeds, so a failed run leaves whatever was there before. It refuses
// the cases file itself and anything that is not a regular file (a
// directory, a device such as /dev/stdout, which a rename would replace).
func decisionsFile(path string, cases *os.File) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil {
		if ci, err := cases.Stat(); err == nil && os.SameFile(fi, ci) {
			return nil, usageError{fmt.Errorf("--decisions %s: is the cases file", path)}
		}
		if !fi.Mode().IsRegular() {
			return nil, usageError{fmt.Errorf("--decisions %s: not a regular file", path)}
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("--decisions %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp's 0600 would hide an ordinary report
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("--decisions %s: %w", path, err)
	}
	return f, nil
}

func (e *env) evalCmd() *cobra.Command {
	var (
		cases, mode, baseline, reportDir, serverURL, decisions string
		k                                                      int
		asJSON, unbounded                                      bool
	)
	cmd := &cobra.Command{
		Use:   "eval --cases FILE [--mode admit|search] [--baseline similarity|policy|full] [-k N] [--unbounded] [--json] [--report DIR] [--decisions FILE]",
		Short: "Measure threat and utility on labelled cases, against the similarity and policy baselines",
		Long: `Run labelled cases (JSON Lines, docs/eval-cases.md) and report the measures of
docs/eval.md for each baseline: similarity (inject the user's top k by
similarity alone), policy (the hard envelope) and full (envelope + gate).
Without --baseline all three run side by side. Each case runs in isolation.
Baselines are compared at equal context size: each injects at most -k
memories per case (policy and full: the first k they admit, in retrieval
order); --unbounded lets policy and full inject every memory they admit.
Malformed cases are skipped and reported with their line numbers. The full
baseline uses the gate model given by the global --gate flag (default: the
model built into memgate). --decisions writes every decision of the policy
and full baselines (memory, label, decision, reasons, gate fit and
threshold) as JSON Lines, to read failures one by one.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cases == "" {
				return usageError{fmt.Errorf("--cases is required")}
			}
			o := eval.Options{Mode: eval.Mode(mode), K: k, Unbounded: unbounded}
			if mode != "admit" && mode != "search" {
				return usageError{fmt.Errorf("--mode %q: want admit or search", mode)}
			}
			if baseline != "" {
				b := eval.Baseline(baseline)
				if b != eval.Similarity && b != eval.PolicyOnly && b != eval.Full {
					return usageError{fmt.Errorf("--baseline %q: want similarity, policy or full", baseline)}
				}
				o.Baselines = []eval.Baseline{b}
			}
			if k < 1 || k > memgate.MaxK {
				return usageError{fmt.Errorf("-k %d: want 1 to %d candidates", k, memgate.MaxK)}
			}
			if serverURL != "" {
				if mode != "search" {
					return usageError{errors.New("--server: only --mode search retrieves (admit mode presents every memory)")}
				}
				key := os.Getenv("MEMGATE_KEY")
				if key == "" {
					return usageError{errors.New("--server: set MEMGATE_KEY to the key of an admin acting for all users (keys create --role admin --users '*')")}
				}
				o.Retrieve = eval.RemoteRetriever(client.New(serverURL, key, nil), fmt.Sprintf("eval-%d", time.Now().UnixNano()))
			}
			if e.policy != "" {
				p, err := policy.LoadFile(e.policy)
				if err != nil {
					return err
				}
				o.Policy = p
			}
			if e.gate != "" {
				g, err := loadGate(e.gate, embed.NewBuiltin().Identity()) // eval embeds with the builtin embedder
				if err != nil {
					return err
				}
				o.Gate = g
			}
			f, err := os.Open(cases)
			if err != nil {
				return err
			}
			defer f.Close()
			var dtmp *os.File
			var dw *bufio.Writer
			var werr errWriter
			if decisions != "" {
				if baseline == string(eval.Similarity) {
					return usageError{errors.New("--decisions: similarity decides nothing; run policy or full, or all baselines")}
				}
				if dtmp, err = decisionsFile(decisions, f); err != nil {
					return err
				}
				defer os.Remove(dtmp.Name()) // gone already once renamed into place
				defer dtmp.Close()
				dw = bufio.NewWriter(dtmp)
				werr.w = dw
				o.Decisions = &werr
			}
			update, done := e.progress("evaluating")
			o.Progress = update
			if testHookEvalProgress != nil {
				o.Progress = func(n, total int) {
					testHookEvalProgress(cmd.Context(), n)
					if update != nil {
						update(n, total)
					}
				}
			}
			rep, err := eval.RunReader(cmd.Context(), f, o)
			done()
			if werr.err != nil { // the run failed writing, not reading
				return fmt.Errorf("--decisions %s: %w", decisions, werr.err)
			}
			if err != nil {
				// An interrupt is no fault of the cases file: say what
				// happened, and that an earlier --decisions file stands.
				after := ""
				if decisions != "" {
					after = "; --decisions " + decisions + " is unchanged"
				}
				return interrupted(cmd.Context(), fmt.Errorf("%s: %w", cases, err), after)
			}
			if dtmp != nil {
				err := errors.Join(dw.Flush(), dtmp.Close())
				if err == nil {
					err = os.Rename(dtmp.Name(), decisions)
				}
				if err != nil {
					return fmt.Errorf("--decisions %s: %w", decisions, err)
				}
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(e.err, "%s: skipped %s\n", safe(cases), safe(fmt.Sprint(w)))
			}
			if reportDir != "" {
				command := "memgate " + shellJoin(e.args)
				if err := eval.WriteDir(reportDir, rep, command); err != nil {
					return err
				}
				fmt.Fprintf(e.err, "wrote %s/report.{json,md,html}\n", reportDir)
			}
			if asJSON {
				return eval.WriteJSON(e.out, rep)
			}
			return eval.WriteTable(e.out, rep)
		},
	}
	cmd.Flags().StringVar(&cases, "cases", "", "cases file (JSON Lines)")
	cmd.Flags().StringVar(&mode, "mode", "admit", "admit: all memories are candidates (gate-only use); search: the whole pipeline with retrieval")
	cmd.Flags().StringVar(&baseline, "baseline", "", "run one baseline only: similarity, policy or full")
	cmd.Flags().IntVarP(&k, "k", "k", 10, "candidates retrieved, and the most memories any baseline injects per case")
	cmd.Flags().BoolVar(&unbounded, "unbounded", false, "let policy and full inject every memory they admit, not only the first k (similarity keeps its top k)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&reportDir, "report", "", "also write report.json, report.md and report.html into this directory")
	cmd.Flags().StringVar(&decisions, "decisions", "", "also write every decision of the policy and full baselines to this file, one JSON line each")
	cmd.Flags().StringVar(&serverURL, "server", "", "in search mode, retrieve through this memgate serve (key: $MEMGATE_KEY, an admin's for all users)")
	return cmd
}

// testHookEvalProgress, if set, runs each time eval reports a case done.
var testHookEvalProgress func(ctx context.Context, done int)

func (e *env) suiteCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "suite", Short: "The built-in regression suite"}
	var (
		out       string
		seed      uint64
		perFamily int
	)
	gen := &cobra.Command{
		Use:   "generate [--out DIR] [--seed N] [--per-family N]",
		Short: "Write the suite's train, dev and test splits (split by template family)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if perFamily <= 0 {
				return usageError{fmt.Errorf("--per-family must be positive")}
			}
			counts, err := suite.Write(out, seed, perFamily)
			if err != nil {
				return err
			}
			fams := map[string]int{}
			for _, f := range suite.Families() {
				fams[f.Split]++
			}
			for _, s := range []string{suite.Train, suite.Dev, suite.Test} {
				fmt.Fprintf(e.out, "%s/%s.jsonl: %d cases from %d families\n", out, s, counts[s], fams[s])
			}
			return nil
		},
	}
	gen.Flags().StringVarP(&out, "out", "o", "suite", "directory to write")
	gen.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	gen.Flags().IntVar(&perFamily, "per-family", 50, "cases per template family")
	var data, pubOut string
	pub := &cobra.Command{
		Use:   "public [--data DIR] [--out DIR] [SOURCE...]",
		Args:  cobra.ArbitraryArgs,
		Short: "Convert the vendored public datasets into evaluation cases, one file per source",
		Long: `Convert the public research datasets vendored in the repository's data/public
(AgentDojo, InjecAgent, BIPIA, MemoryGraft, NotInject, PoisonedRAG,
PrivacyLens, ConfAIde, DyKnow; licences and provenance in NOTICE) into
evaluation cases labelled by what should enter the agent's context, one
SOURCE.jsonl per source (all of them, or the named ones). The conversion is
deterministic; docs/public-data.md describes each.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			known := map[string]bool{}
			for _, s := range public.Sources() {
				known[s.Name] = true
			}
			for _, a := range args {
				if !known[a] {
					return usageError{fmt.Errorf("source %q: unknown (known: %s)", safe(a), strings.Join(sourceNames(), ", "))}
				}
			}
			counts, err := public.Write(data, pubOut, args...)
			if err != nil {
				return err
			}
			for _, s := range sourceNames() {
				if n, ok := counts[s]; ok {
					fmt.Fprintf(e.out, "%s/%s.jsonl: %d cases\n", safe(pubOut), s, n)
				}
			}
			return nil
		},
	}
	pub.Flags().StringVar(&data, "data", "data/public", "the vendored datasets")
	pub.Flags().StringVarP(&pubOut, "out", "o", "public", "directory to write")
	cmd.AddCommand(gen, pub)
	return cmd
}

func sourceNames() []string {
	var out []string
	for _, s := range public.Sources() {
		out = append(out, s.Name)
	}
	return out
}

// shellJoin joins a command line's arguments as a shell would read them
// back: an argument with a character outside a safe set (a space, a
// quote, "$") is single-quoted.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./=:,@%+-", r))
		}) >= 0 {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
