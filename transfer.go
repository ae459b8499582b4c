package memgate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store/sqlite"
)

// ImportOptions control Import.
type ImportOptions struct {
	// SkipExisting leaves memories whose id is already stored as they are
	// and imports the rest; by default an existing id fails the import.
	SkipExisting bool
	// Progress, if set, is called as work advances, with the number of
	// records done out of total (each record counts twice: once embedded,
	// once written).
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
	Errors []*memory.LineError // the first MaxImportErrors problems
	Total  int                 // how many lines had problems
}

// MaxImportErrors bounds how many line errors an ImportError keeps.
const MaxImportErrors = 20

// Error lists the bad lines, one per line, after a summary.
func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "import rejected, nothing stored: %d bad line(s)", e.Total)
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
		ierr  ImportError
	)
	dec := memory.NewDecoder(r)
	for {
		m, line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *memory.LineError
		if errors.As(err, &le) {
			ierr.Total++
			if len(ierr.Errors) < MaxImportErrors {
				ierr.Errors = append(ierr.Errors, le)
			}
			continue
		}
		if err != nil {
			return res, errorf("import", err)
		}
		ms, lines = append(ms, m), append(lines, line)
	}
	res.Records = len(ms) + ierr.Total
	if ierr.Total > 0 {
		return res, &ierr
	}
	total := 2 * len(ms)
	report := func(base int) func(int) {
		if o.Progress == nil {
			return nil
		}
		return func(done int) { o.Progress(base+done, total) }
	}
	prepared, err := e.prepare(ctx, ms, report(0))
	if err != nil {
		return res, importItemError(err, lines)
	}
	onConflict := sqlite.ConflictError
	if o.SkipExisting {
		onConflict = sqlite.ConflictSkip
	}
	n, err := e.insert(ctx, prepared, onConflict, report(len(ms)))
	if err != nil {
		return res, importItemError(err, lines)
	}
	res.Imported, res.Skipped = n, len(ms)-n
	return res, nil
}

// importItemError turns an error about the i-th record into one about its
// line of the file.
func importItemError(err error, lines []int) error {
	var ie *sqlite.ItemError
	if errors.As(err, &ie) && ie.Index >= 0 && ie.Index < len(lines) {
		return &ImportError{Total: 1, Errors: []*memory.LineError{{Line: lines[ie.Index], Err: ie.Err}}}
	}
	return errorf("import", err)
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
	enc := memory.NewEncoder(w)
	n := 0
	for after := int64(0); ; {
		p, err := e.store.List(ctx, sqlite.ListQuery{Filter: o.Scope, IncludeRevoked: true, After: after, Limit: 1000, WithVectors: o.WithVectors})
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

// Reembed recomputes every memory's embedding in the store at path with the
// embedder to, and records to as the store's embedder. It runs in one
// transaction, so a failure part-way leaves the store as it was. Afterwards
// the store must be opened with an embedder of to's identity.
func Reembed(ctx context.Context, path string, to Embedder, progress func(done, total int)) error {
	e, err := open(ctx, path, &Options{Embedder: to})
	if err != nil {
		return err
	}
	defer e.Close()
	return e.store.Reembed(ctx, to.Identity(), to.Embed, embedChunk, progress)
}
