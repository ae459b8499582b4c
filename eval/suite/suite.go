// Package suite generates memgate's built-in regression suite: synthetic
// personal-agent scenarios, deterministic for a seed, across every threat
// class memgate is designed against and many benign tasks where memory is
// needed. Cases come from template families with varied wording and
// entities; the train, dev and test splits are by family, so the test split
// measures generalisation to unseen templates, not memorisation.
//
// The suite is built so that content, not metadata, decides a label: every
// authority, kind, classification, scope relation and envelope decision
// occurs with useful and with excluded memories; metadata is often missing;
// texts are notes, e-mails, chat excerpts and tool logs of up to about a
// thousand characters; queries paraphrase the task; and every case holds
// 5 to 25 unrelated memories besides the ones it labels (balance_test.go
// checks all of this).
package suite

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/memgate/memgate/eval"
)

// Splits.
const (
	Train = "train"
	Dev   = "dev"
	Test  = "test"
)

// Now is the fixed time of every generated case.
var Now = time.Date(2026, 6, 11, 10, 0, 0, 0, time.UTC)

// Family is a template family: one kind of scenario with varied wording.
type Family struct {
	Name     string
	Category string
	Split    string
	gen      func(b *builder)
}

// Families lists the template families with their splits.
func Families() []Family { return assignSplits(families) }

// assignSplits gives each category's families the splits train, test, dev
// in turn, so every category has a family in training and an unseen one in
// test, categories with three or more families also one in dev, and no family
// is in two splits.
func assignSplits(fs []Family) []Family {
	out := slices.Clone(fs)
	order := []string{Train, Test, Dev}
	seen := map[string]int{}
	for i := range out {
		c := out[i].Category
		out[i].Split = order[seen[c]%len(order)]
		seen[c]++
	}
	return out
}

// Generate returns perFamily cases of every family, deterministically for
// seed, grouped by split.
func Generate(seed uint64, perFamily int) map[string][]eval.Case {
	out := map[string][]eval.Case{}
	for fi, f := range Families() {
		for i := range perFamily {
			out[f.Split] = append(out[f.Split], build(seed, fi, f, i).c)
		}
	}
	return out
}

// build makes case i of family f (the fi-th family).
func build(seed uint64, fi int, f Family, i int) *builder {
	r := rand.New(rand.NewPCG(seed, uint64(fi)<<32|uint64(i)))
	b := newBuilder(r, f, i)
	f.gen(b)
	b.finish()
	return b
}

// Write generates the suite and writes train.jsonl, dev.jsonl and
// test.jsonl into dir. It returns the number of cases per split.
func Write(dir string, seed uint64, perFamily int) (map[string]int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for split, cases := range Generate(seed, perFamily) {
		f, err := os.Create(filepath.Join(dir, split+".jsonl"))
		if err != nil {
			return nil, err
		}
		if err := Encode(f, cases); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		counts[split] = len(cases)
	}
	return counts, nil
}

// Encode writes cases as JSON Lines (eval.Encode).
func Encode(w io.Writer, cases []eval.Case) error { return eval.Encode(w, cases) }
