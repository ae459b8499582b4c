// Package public converts permissively licensed public research datasets
// (vendored raw in data/public, see NOTICE and docs/public-data.md) into
// memgate evaluation cases labelled by what should enter an agent's context.
//
// Each source lives in its own file and registers itself with
// `var _ = register(Source{...})`. Conversion is deterministic: no map
// iteration order, no clock, stable ids, sorted output.
package public

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/memgate/memgate/eval"
)

// Source is one public dataset and its converter.
type Source struct {
	Name    string                                // folder under data/public and origin.benchmark
	License string                                // SPDX
	Convert func(dir string) ([]eval.Case, error) // dir = data/public/<Name>
}

var registry []Source

// register adds a source to the registry; each source file calls it from a
// package-level `var _ = register(Source{...})`.
func register(s Source) bool {
	registry = append(registry, s)
	return true
}

// Sources lists every converter, in a fixed order (by name).
func Sources() []Source {
	out := slices.Clone(registry)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Convert runs every source's converter (or only the named ones) on root
// (data/public) and returns the cases per source name, deterministically.
// The sources convert concurrently; each one's output depends on its own
// data only.
func Convert(root string, only ...string) (map[string][]eval.Case, error) {
	want := map[string]bool{}
	for _, n := range only {
		want[n] = true
	}
	known := map[string]bool{}
	var sel []Source
	for _, s := range Sources() {
		known[s.Name] = true
		if len(want) == 0 || want[s.Name] {
			sel = append(sel, s)
		}
	}
	type result struct {
		cases []eval.Case
		err   error
	}
	res := make([]result, len(sel))
	var wg sync.WaitGroup
	for i, s := range sel {
		wg.Go(func() {
			cases, err := convertSource(root, s)
			res[i] = result{cases, err}
		})
	}
	wg.Wait()
	out := map[string][]eval.Case{}
	for i, s := range sel {
		if res[i].err != nil {
			return nil, res[i].err
		}
		out[s.Name] = res[i].cases
	}
	for _, n := range only {
		if !known[n] {
			return nil, fmt.Errorf("public: unknown source %q", n)
		}
	}
	return out, nil
}

// convertSource converts one source: sorted by id, origins filled in,
// every case checked.
func convertSource(root string, s Source) ([]eval.Case, error) {
	cases, err := s.Convert(filepath.Join(root, s.Name))
	if err != nil {
		return nil, fmt.Errorf("public: %s: %w", s.Name, err)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	for i := range cases {
		if cases[i].Origin == nil {
			cases[i].Origin = &eval.Origin{Benchmark: s.Name, License: s.License}
		}
		if err := cases[i].Check(); err != nil {
			return nil, fmt.Errorf("public: %s: case %s: %w", s.Name, cases[i].ID, err)
		}
	}
	return cases, nil
}

// Write converts the sources (or only the named ones) from root and writes
// <name>.jsonl per source into dir. It returns the number of cases per
// source.
func Write(root, dir string, only ...string) (map[string]int, error) {
	all, err := Convert(root, only...)
	if err != nil {
		return nil, err
	}
	return writeFiles(dir, all)
}

// writeFiles writes <name>.jsonl into dir for each source of all.
func writeFiles(dir string, all map[string][]eval.Case) (map[string]int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, s := range Sources() {
		cases, ok := all[s.Name]
		if !ok {
			continue
		}
		f, err := os.Create(filepath.Join(dir, s.Name+".jsonl"))
		if err != nil {
			return nil, err
		}
		if err := eval.Encode(f, cases); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		counts[s.Name] = len(cases)
	}
	return counts, nil
}
