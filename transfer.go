package memgate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// ImportOptions control Import.
type ImportOptions struct {
	// SkipExisting leaves memories whose id is already stored as they are
	// and imports the rest; by default an existing id fails the import.
	SkipExisting bool
	// Progress, if set, is called as work advances with the records done
	// out of the total, each counting half when embedded and half when
	// written (the write is one transaction).
	Progress func(done, total int)
}

// ImportResult says what an import did.
type ImportResult struct {
	Records  int `json:"records"`  // records read
	Imported int `json:"imported"` // memories stored
	Skipped  int `json:"skipped"`  // existing ids left alone (SkipExisting)
}

// ImportError lists the bad lines of a rejected import. Nothing was stored.
type ImportError struct {
	Errors []*memory.LineError // the first MaxImportErrors problems, in line order
	Total  int                 // how many problems there were (a line may have several)
}

// MaxImportErrors bounds how many line errors an ImportError keeps.
const MaxImportErrors = 20

// Error lists the bad lines, one per line, after a summary.
func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "import rejected, nothing stored: %d problem(s)", e.Total)
	for _, le := range e.Errors {
		b.WriteString("\n  ")
		b.WriteString(le.Error())
	}
	if e.Total > len(e.Errors) {
		fmt.Fprintf(&b, "\n  … and %d more", e.Total-len(e.Errors))
	}
	return b.String()
}

// Import reads memories from JSON Lines (the format Export writes) and stores
// them all in one transaction. It is all or nothing: if any line is malformed
// or invalid, or refers to an unknown memory, nothing is stored and the error
// (an *ImportError) names every bad line, up to MaxImportErrors. Ids in the
// file are kept, so an export re-imports to the same store and evaluation
// cases can refer to memories by id; records without an id get a new one.
func (e *Engine) Import(ctx context.Context, r io.Reader, o ImportOptions) (ImportResult, error) {
	var (
		res   ImportResult
		ms    []memory.Memory
		lines []int
		bad   []*memory.LineError
	)
	dec := memory.NewDecoder(r)
	for {
		m, line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *memory.LineError
		if errors.As(err, &le) {
			bad = append(bad, le)
			continue
		}
		if err != nil {
			return res, errorf("import", err)
		}
		ms, lines = append(ms, m), append(lines, line)
	}
	res.Records = len(ms) + len(bad)
	onConflict := store.ConflictError
	if o.SkipExisting {
		onConflict = store.ConflictSkip
	}
	// One pass reports every bad line: the lines that did not decode, and
	// what validation and the store refuse among those that did. Nothing
	// is embedded unless the whole file is good.
	// Progress counts each record once: half for its embedding, half for
	// its write.
	var progress, written func(int)
	if o.Progress != nil {
		progress = func(n int) { o.Progress(n/2, len(ms)) }
		written = func(n int) { o.Progress((len(ms)+n)/2, len(ms)) }
	}
	var (
		prepared []memory.Memory
		err      error
	)
	if len(bad) == 0 {
		prepared, err = e.prepare(ctx, ms, onConflict, progress)
	} else {
		_, err = e.prepare(ctx, ms, onConflict, nil)
		if err == nil {
			return res, newImportError(bad)
		}
	}
	if err == nil {
		res.Imported, err = e.insert(ctx, prepared, onConflict, written)
	}
	if err != nil {
		var ies store.ItemErrors
		if !errors.As(err, &ies) {
			return res, errorf("import", err) // not about a line: the disk, the embedder
		}
		for _, ie := range ies {
			problem := ie.Err
			if re, ok := problem.(*store.RepeatError); ok {
				problem = fmt.Errorf("id: %q repeats line %d", re.ID, lines[re.First])
			}
			bad = append(bad, &memory.LineError{Line: lines[ie.Index], Err: problem})
		}
		return res, newImportError(bad)
	}
	res.Skipped = len(ms) - res.Imported
	return res, nil
}

// newImportError orders the problems by line and keeps the first
// MaxImportErrors.
func newImportError(bad []*memory.LineError) *ImportError {
	slices.SortStableFunc(bad, func(a, b *memory.LineError) int { return a.Line - b.Line })
	return &ImportError{Errors: bad[:min(len(bad), MaxImportErrors)], Total: len(bad)}
}

// ExportOptions control Export.
type ExportOptions struct {
	Scope       memory.Filter // empty UserID exports every user
	WithVectors bool          // include embeddings
}

// Export writes memories as JSON Lines in insertion order, revoked ones
// included (with their revocation), so that Import into an empty store
// reproduces them. It returns how many it wrote.
func (e *Engine) Export(ctx context.Context, w io.Writer, o ExportOptions) (int, error) {
	o.Scope.Normalize()
	enc := memory.NewEncoder(w)
	n := 0
	for after := int64(0); ; {
		p, err := e.store.List(ctx, store.ListQuery{Filter: o.Scope, IncludeRevoked: true, After: after, Limit: 1000, WithVectors: o.WithVectors})
		if err != nil {
			return n, errorf("export", err)
		}
		for i := range p.Memories {
			p.Memories[i].SupersededBy = nil // derived; the newer memory's supersedes carries it
			if err := enc.Encode(&p.Memories[i]); err != nil {
				return n, errorf("export", err)
			}
			n++
		}
		if p.Next == 0 {
			return n, nil
		}
		after = p.Next
	}
}
