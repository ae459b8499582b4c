package exact_test

import (
	"testing"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/index/indextest"
)

// TestConformance runs the index contract's conformance suite.
func TestConformance(t *testing.T) {
	indextest.Run(t, func(t testing.TB, dim int) index.Index { return exact.New(dim) })
}
