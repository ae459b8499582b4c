// Command gatereport measures the learned gate on data it never saw:
// leave-one-source-out over the public datasets (train on the suite's train
// split and every other source, calibrate on dev, test on the held-out
// source), and the suite's unseen test families. It prints a Markdown table;
// scripts/gate-report.sh writes it into docs/gate-report.md. With
// -train-default it trains the shipped model instead
// (scripts/train-default-gate.sh).
//
//	go run ./scripts/gatereport [-data data/public] [-k 10] [-seeds 1,2,3]
//	go run ./scripts/gatereport -train-default gate/default.model
//	go run ./scripts/gatereport -dev-reasons 5 [-dev-loso]   # dev only: what lowers useful memories, lets threats in
//	go run ./scripts/gatereport -dev-loso -seeds 1,2,3 [-dropout 0.3]   # dev only: a configuration over seeds
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/gate/content"
	"github.com/memgate/memgate/gate/train"
	"github.com/memgate/memgate/internal/gatereport"
)

// cueInputs returns the feature indices of the named memory cues of the
// instruction group.
func cueInputs(list string) ([]int, error) {
	var out []int
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		c := content.Cue(0)
		for c < content.NumCues && c.String() != name {
			c++
		}
		i, ok := gate.CueInput(c)
		if c == content.NumCues || !ok {
			return nil, fmt.Errorf("%q is no cue the instruction group reads", name)
		}
		out = append(out, i)
	}
	return out, nil
}

// fail reports err and exits with status 1.
func fail(err error) {
	fmt.Fprintln(os.Stderr, "gatereport:", err)
	os.Exit(1)
}

// parseSeeds reads -seeds: comma-separated positive integers.
func parseSeeds(list string) ([]uint64, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []uint64
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("-seeds %q: want positive integers separated by commas, like 1,2,3", list)
		}
		out = append(out, v)
	}
	return out, nil
}

func main() {
	data := flag.String("data", "data/public", "the vendored public datasets")
	k := flag.Int("k", 10, "context size: the most memories any baseline injects per case")
	seed := flag.Uint64("seed", 1, "training seed")
	model := flag.String("train-default", "", "instead of the report, train the shipped model on everything (suite train and dev splits, every public source) and write it to this file")
	dev := flag.Int("dev-reasons", 0, "instead of the report, train as the shipped model and list, on the dev set only, the reasons that lower useful memories and threats per source, with this many examples per reason")
	cues := flag.Bool("dev-cues", false, "instead of the report, list on the dev set only how often each cue of the instruction head fires on useful memories and on instruction threats, per source")
	dump := flag.Bool("dev-dump", false, "instead of the report, write the dev set's useful memories and threats as JSON lines")
	devLOSO := flag.Bool("dev-loso", false, "instead of the report, leave one source out as the report does but measure each held-out source on its dev share only")
	acts := flag.Bool("code-acts", false, "instead of the report, count per source and split the memories whose text holds code that acts (content.Analysis.CodeActs: rm, dd, subprocess…), by label: every public case and every split of the suite")
	head := flag.Bool("dev-head", false, "instead of the report, show on the dev set only what the instruction head would do at other thresholds")
	// Hyperparameters, to compare on -dev-loso; zero keeps train's default.
	hidden := flag.Int("hidden", 0, "hidden units per member (0: train's default)")
	members := flag.Int("members", 0, "members of the model (0: train's default)")
	l2 := flag.Float64("l2", 0, "L2 weight decay (0: train's default; negative: none)")
	dropout := flag.Float64("dropout", 0, "metadata dropout probability (0: train's default; negative: none)")
	zeroCues := flag.String("zero-cues", "", "comma-separated memory cues (e.g. output_directive) the models ignore: an ablation from the same initial weights (train.Options.ZeroInputs)")
	seedList := flag.String("seeds", "", "comma-separated seeds (1,2,3), in place of -seed: train and measure once per seed; the report pools them, -dev-loso lists each and ends with every source's AUROC per seed and the means")
	flag.Parse()
	seeds, err := parseSeeds(*seedList)
	if err != nil || len(seeds) > 0 && (*head || *dump || *cues || *acts || *dev > 0 || *model != "") {
		if err == nil {
			err = errors.New("-seeds goes with the report or -dev-loso only")
		}
		fmt.Fprintln(os.Stderr, "gatereport:", err)
		os.Exit(2)
	}
	opts := train.Options{Seed: *seed, Members: *members, L2: *l2, MetadataDropout: *dropout}
	if *hidden > 0 {
		opts.Hidden = []int{*hidden}
	}
	if opts.ZeroInputs, err = cueInputs(*zeroCues); err != nil {
		fmt.Fprintln(os.Stderr, "gatereport: -zero-cues:", err)
		os.Exit(2)
	}
	d, err := gatereport.Load(*data)
	if err != nil {
		fail(err)
	}
	if *head {
		if err := devHead(context.Background(), d, opts, os.Stdout); err != nil {
			fail(err)
		}
		return
	}
	if *dump {
		if err := devDump(d, os.Stdout); err != nil {
			fail(err)
		}
		return
	}
	if *cues {
		devCues(d, os.Stdout)
		return
	}
	if *acts {
		codeActs(d, os.Stdout)
		return
	}
	if *dev > 0 {
		if err := devReasons(context.Background(), d, opts, *dev, *devLOSO, os.Stdout); err != nil {
			fail(err)
		}
		return
	}
	if *model != "" {
		m, err := d.Train(context.Background(), opts)
		if err == nil { // write beside, then rename: a failed run leaves the old model
			if err = m.Save(*model + ".tmp"); err == nil {
				err = os.Rename(*model+".tmp", *model)
			}
		}
		if err != nil {
			fail(err)
		}
		h := m.Header
		fmt.Printf("wrote %s: %d training and %d dev samples, best epoch %d, dev loss %.4f, %d bucket thresholds, data %s\n",
			*model, h.Training.TrainSamples, h.Training.DevSamples, h.Training.BestEpoch, h.Training.DevLoss, len(h.Thresholds), h.TrainingDataHash[:16])
		return
	}
	loso := d.LOSO
	if *devLOSO {
		loso = d.DevLOSO
	}
	if len(seeds) > 0 && !*devLOSO {
		heldOutSeeds(d, opts, seeds, *seedList, *zeroCues, *k, os.Stdout)
		return
	}
	if len(seeds) > 0 {
		reps := bySeed(loso, opts, seeds, *k)
		for i, rep := range reps {
			fmt.Fprintf(os.Stdout, "## Seed %d\n\n", seeds[i])
			if err := rep.Markdown(os.Stdout); err != nil {
				fail(err)
			}
		}
		fmt.Fprintf(os.Stdout, "\n## Over seeds %s (dev shares, k=%d)\n\n", *seedList, *k)
		if err := gatereport.Seeds(os.Stdout, seeds, reps); err != nil {
			fail(err)
		}
		return
	}
	rep, err := loso(context.Background(), opts, *k, func(s string) { fmt.Fprintln(os.Stderr, s) })
	if err != nil {
		fail(err)
	}
	if err := rep.Markdown(os.Stdout); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stdout, "\nk=%d, seed %d; %s.\n", rep.K, *seed, rep.Elapsed.Round(time.Second))
	footer(rep, *zeroCues, os.Stdout)
}

// poisoning are the sources the tighter over-admission floor
// (0.25) applies to.
var poisoning = []string{"agentdojo", "injecagent", "bipia", "memorygraft", "poisonedrag"}

// footer writes what was not the default in rep's training (zeroCues:
// the -zero-cues flag) and the floors of issue 9 that rep misses.
func footer(rep *gatereport.Report, zeroCues string, w io.Writer) {
	o := rep.Options
	if len(o.Hidden) > 0 || o.Members != 0 || o.L2 != 0 || o.MetadataDropout != 0 {
		fmt.Fprintf(w, "Hyperparameters: hidden %v, members %d, L2 %g, metadata dropout %g (0: default).\n", o.Hidden, o.Members, o.L2, o.MetadataDropout)
	}
	if zeroCues != "" {
		fmt.Fprintf(w, "Ablation: the models ignore %s.\n", zeroCues)
	}
	if miss := rep.Check(poisoning); len(miss) > 0 {
		fmt.Fprintln(w, "\nFloors of issue 9 missed:")
		for _, m := range miss {
			fmt.Fprintln(w, "- "+m)
		}
	}
}

// bySeed runs loso (Data.LOSO or Data.DevLOSO) once per seed, each a
// training of its own, and returns the reports in the seeds' order.
func bySeed(loso func(context.Context, train.Options, int, func(string)) (*gatereport.Report, error),
	opts train.Options, seeds []uint64, k int) []*gatereport.Report {
	var reps []*gatereport.Report
	for _, sd := range seeds {
		o := opts
		o.Seed = sd
		rep, err := loso(context.Background(), o, k, func(s string) { fmt.Fprintf(os.Stderr, "seed %d: %s\n", sd, s) })
		if err != nil {
			fail(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

// heldOutSeeds runs the held-out report once per seed and writes the
// pooled report first (judged against the floors), then each source's
// AUROC per seed, then every seed's own table.
func heldOutSeeds(d *gatereport.Data, opts train.Options, seeds []uint64, list, zeroCues string, k int, w io.Writer) {
	reps := bySeed(d.LOSO, opts, seeds, k)
	pooled, err := gatereport.Pool(reps)
	if err != nil {
		fail(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Pooled over seeds %s\n\n", list)
	if err := pooled.Markdown(&b); err != nil {
		fail(err)
	}
	fmt.Fprintf(&b, "\nk=%d; seeds %s, each a training of its own; counts summed over the seeds (each rate is their mean), AUROC averaged; %s in all.\n",
		k, list, pooled.Elapsed.Round(time.Second))
	footer(pooled, zeroCues, &b)
	fmt.Fprintf(&b, "\nJudged one seed at a time instead, the floors missed:\n")
	for i, rep := range reps {
		miss := rep.Check(poisoning)
		if len(miss) == 0 {
			miss = []string{"none"}
		}
		fmt.Fprintf(&b, "- seed %d: %s\n", seeds[i], strings.Join(miss, "; "))
	}
	fmt.Fprintf(&b, "\n## Per seed\n\n")
	if err := gatereport.Seeds(&b, seeds, reps); err != nil {
		fail(err)
	}
	for i, rep := range reps {
		fmt.Fprintf(&b, "\n### Seed %d\n\n", seeds[i])
		if err := rep.Markdown(&b); err != nil {
			fail(err)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		fail(err)
	}
}
