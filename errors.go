package memgate

import (
	"fmt"
	"strings"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// Errors at the engine boundary, for callers (a server) that map them to
// statuses with errors.Is and errors.As, never by message text:
//
//   - errors.Is(err, ErrNotFound): an id names nothing the caller may see
//     (*NotFoundError for ids of a user's scope);
//   - errors.Is(err, ErrConflict): a write conflicts with what is stored,
//     such as an explicit id already taken (*store.TakenError);
//   - errors.Is(err, ErrInvalid): bad input; errors.As(err, &fe) with fe a
//     *memory.FieldError names the field (several may be joined, one per
//     memory of a batch, each in a *store.ItemError giving its position);
//   - errors.Is(err, ErrReadOnly), ErrNoStore: the store refuses writes, or
//     is not there.
var ErrConflict = store.ErrConflict

// ErrInvalid is matched by every error about bad input (a *memory.FieldError
// naming the field).
var ErrInvalid = memory.ErrInvalid

// NotFoundError reports memory ids that name nothing the caller may see. It
// reads the same whether an id was never stored or belongs to another user,
// so that a caller acting for one user cannot learn from an error what
// another user stores. errors.Is(err, ErrNotFound) holds for it.
type NotFoundError struct {
	// What names the field or argument that carried the ids.
	What string
	// IDs are the ids that were not found, in the order given.
	IDs []string
}

// Error names the field and the ids.
func (e *NotFoundError) Error() string {
	quoted := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("%s: unknown memory id(s) %s", e.What, strings.Join(quoted, ", "))
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }
