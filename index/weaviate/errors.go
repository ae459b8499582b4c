package weaviate

import (
	"fmt"
	"strings"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
)

// clientError is an error of the Weaviate client, said plainly: for a
// request that never got an answer (a refused connection, a timeout), the
// underlying error; for one the server refused, its status and message.
// The client's own text ("status code: -1, error: check the
// DerivedFromError field for more information: …") tells an operator
// nothing more. It unwraps to the client's error and the underlying one,
// so that errors.As finds the client's error (refused reads its status)
// and errors.Is finds context.Canceled or context.DeadlineExceeded, which
// the client's error hides.
type clientError struct{ ce *fault.WeaviateClientError }

func (e clientError) Error() string {
	if e.ce.DerivedFromError != nil && !e.ce.IsUnexpectedStatusCode {
		return e.ce.DerivedFromError.Error()
	}
	msg := strings.TrimSpace(e.ce.Msg)
	if e.ce.DerivedFromError != nil {
		msg += ": " + e.ce.DerivedFromError.Error()
	}
	return fmt.Sprintf("HTTP %d: %s", e.ce.StatusCode, msg)
}

func (e clientError) Unwrap() []error {
	if e.ce.DerivedFromError != nil {
		return []error{e.ce, e.ce.DerivedFromError}
	}
	return []error{e.ce}
}

// plain returns err as a clientError if the Weaviate client returned it,
// and unchanged otherwise.
func plain(err error) error {
	if ce, ok := err.(*fault.WeaviateClientError); ok && ce != nil {
		return clientError{ce}
	}
	return err
}
