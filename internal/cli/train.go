package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/gate/train"
	"github.com/memgate/memgate/memory"
)

func readCases(path string) ([]eval.Case, []eval.Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	cases, warns, err := eval.Read(f)
	if err != nil {
		return nil, warns, fmt.Errorf("%s: %w", path, err)
	}
	return cases, warns, nil
}

// reviewerCases turns the reviewers' verdicts in a store into cases: each
// verdict labels one memory for one task.
func reviewerCases(ctx context.Context, eng *memgate.Engine) ([]eval.Case, error) {
	exs, err := eng.Store().Examples(ctx)
	if err != nil {
		return nil, err
	}
	var out []eval.Case
	for i, ex := range exs {
		var actx admit.Context
		if err := json.Unmarshal(ex.Context, &actx); err != nil {
			return nil, fmt.Errorf("verdict %d: context: %w", i, err)
		}
		// Only a memory of the task's own user: a gate-only candidate may
		// carry any id, another user's included, and must not make a
		// reviewer's label stick to that user's memory.
		m, err := eng.ForUser(actx.UserID).Get(ctx, ex.MemoryID)
		if err != nil {
			continue // forgotten since the verdict, or not this user's: nothing to learn from
		}
		label := eval.ExpectExclude
		if ex.Label == "admit" {
			label = eval.ExpectAdmit
		}
		c := eval.Case{ID: fmt.Sprintf("verdict-%d", i+1), Category: "reviewer", Query: ex.Query, Context: actx,
			Memories: []memory.Memory{m}, Expect: map[string]string{m.ID: label}}
		if c.Query == "" {
			c.Query = "(no query)"
		}
		if label == eval.ExpectAdmit {
			c.Useful = []string{m.ID}
		}
		out = append(out, c)
	}
	return out, nil
}

func (e *env) trainCmd() *cobra.Command {
	var (
		casesPath, devPath, out string
		o                       train.Options
		withVerdicts            bool
	)
	cmd := &cobra.Command{
		Use:   "train --cases TRAIN.jsonl --dev DEV.jsonl --out model.bin",
		Short: "Train the learned gate on labelled cases (and reviewers' verdicts), calibrated on dev",
		Long: `Train the task-conditioned gate on labelled cases in the evaluation format:
memories expected admit, limited or useful are examples that fit their task,
memories expected exclude are examples that do not. With --verdicts, the
reviewers' verdicts in the store (--db) are added to the training data.
Training is deterministic for --seed and stops early when the dev loss stops
improving; thresholds per intent × tool-risk bucket are then calibrated on dev
to keep --min-utility of the useful memories.

With --embedder openai the model is trained on your embedder's vectors (the
path to the best quality: a semantic embedder sees paraphrase the builtin
one cannot); search and bind then use it on a store of the same embedder.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if casesPath == "" || devPath == "" || out == "" {
				return usageError{fmt.Errorf("--cases, --dev and --out are required")}
			}
			if o.MinUtility < 0 || o.MinUtility > 1 {
				return usageError{fmt.Errorf("--min-utility %v: want a share from 0 to 1", o.MinUtility)}
			}
			if o.Epochs < 1 {
				return usageError{fmt.Errorf("--epochs %d: want 1 or more", o.Epochs)}
			}
			if o.L2 < 0 {
				return usageError{fmt.Errorf("--l2 %v: want 0 or more", o.L2)}
			}
			if o.MetadataDropout >= 1 {
				return usageError{fmt.Errorf("--metadata-dropout %v: want less than 1 (negative: off)", o.MetadataDropout)}
			}
			if o.Members < 1 || o.Members > 16 {
				return usageError{fmt.Errorf("--members %d: want 1 to 16", o.Members)}
			}
			for _, h := range o.Hidden {
				if h < 1 {
					return usageError{fmt.Errorf("--hidden %v: every layer width must be 1 or more", o.Hidden)}
				}
			}
			ctx := cmd.Context()
			trainCases, warns, err := readCases(casesPath)
			if err != nil {
				return err
			}
			for _, w := range warns {
				fmt.Fprintf(e.err, "%s: skipped %s\n", safe(casesPath), safe(fmt.Sprint(w)))
			}
			devCases, warns, err := readCases(devPath)
			if err != nil {
				return err
			}
			for _, w := range warns {
				fmt.Fprintf(e.err, "%s: skipped %s\n", safe(devPath), safe(fmt.Sprint(w)))
			}
			if withVerdicts {
				if err := e.withEngine(cmd, func(ctx context.Context, eng *memgate.Engine) error {
					vc, err := reviewerCases(ctx, eng)
					trainCases = append(trainCases, vc...)
					fmt.Fprintf(e.err, "added %d reviewer verdicts from %s\n", len(vc), e.db)
					return err
				}); err != nil {
					return err
				}
			}
			if e.embedder != "builtin" && e.embedder != "" {
				// Bring your own embedder: the model learns from its vectors
				// and needs them at run time.
				emb, err := makeEmbedder(ctx, e.embedder)
				if err != nil {
					return err
				}
				o.Embedder = emb
			}
			start := time.Now()
			trainS, err := train.Samples(ctx, trainCases, o)
			if err != nil {
				return err
			}
			devS, err := train.Samples(ctx, devCases, o)
			if err != nil {
				return err
			}
			update, done := e.progress("training")
			o.Progress = func(epoch, epochs int, tl, dl float64) {
				if update != nil {
					update(epoch, epochs)
				}
			}
			m, err := train.Train(trainS, devS, o)
			done()
			if err != nil {
				return err
			}
			m.Header.TrainingDataHash = train.Hash(trainCases, devCases)
			if err := m.Save(out); err != nil {
				return err
			}
			st, _ := os.Stat(out)
			tr := m.Header.Training
			fmt.Fprintf(e.out, "trained %d members on %d samples (dev %d) in %s: best epochs up to %d, stopped by %d; dev loss %.4f\n",
				tr.Members, len(trainS), len(devS), time.Since(start).Round(time.Millisecond), tr.BestEpoch, tr.Epochs, tr.DevLoss)
			fmt.Fprintf(e.out, "thresholds for %d buckets (default %.3f), calibrated to keep %.2f of useful dev memories\n",
				len(m.Header.Thresholds), m.Header.DefaultThreshold, m.Header.MinUtility)
			fmt.Fprintf(e.out, "wrote %s (%d bytes, training data %s)\n", out, st.Size(), m.Header.TrainingDataHash[:16])
			return nil
		},
	}
	cmd.Flags().StringVar(&casesPath, "cases", "", "training cases (JSON Lines)")
	cmd.Flags().StringVar(&devPath, "dev", "", "dev cases for early stopping and calibration")
	cmd.Flags().StringVarP(&out, "out", "o", "", "model file to write")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 1, "random seed")
	cmd.Flags().IntVar(&o.Epochs, "epochs", 500, "most epochs")
	cmd.Flags().Float64Var(&o.MinUtility, "min-utility", 0.98, "share of useful dev memories each bucket's threshold keeps")
	cmd.Flags().Float64Var(&o.L2, "l2", 1e-3, "L2 weight decay")
	cmd.Flags().Float64Var(&o.MetadataDropout, "metadata-dropout", 0.5, "probability of replacing a training sample's metadata by none, so the gate learns to judge content (negative: off)")
	cmd.Flags().IntSliceVar(&o.Hidden, "hidden", []int{16}, "hidden layer widths of each member")
	cmd.Flags().IntVar(&o.Members, "members", 3, "networks trained from different seeds and averaged")
	cmd.Flags().BoolVar(&withVerdicts, "verdicts", false, "also train on the reviewers' verdicts in the store given by --db")
	return cmd
}
