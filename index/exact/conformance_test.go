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

// TestConformanceSplit runs the suite again with every search split into
// three ranges, so the parallel scan meets the contract too, not only on
// partitions big enough to take it by themselves.
func TestConformanceSplit(t *testing.T) {
	indextest.Run(t, func(t testing.TB, dim int) index.Index { return exact.NewSplit(dim, 3) })
}

// TestConformanceTwoPass runs the suite with every search in two passes
// (quant.go), on partitions of every size.
func TestConformanceTwoPass(t *testing.T) {
	indextest.Run(t, func(t testing.TB, dim int) index.Index { return exact.NewTwoPass(dim) })
}
