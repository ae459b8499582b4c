package memgate

import (
	"fmt"
	"strings"
)

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
