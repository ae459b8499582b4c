package exact

// NewSplit is New with every search split into parts ranges, whatever the
// partition's size, so the external conformance test can run the parallel
// scan on its small partitions.
func NewSplit(dim, parts int) *Index {
	x := New(dim)
	x.parts = parts
	return x
}

// NewTwoPass is New with every search taking the two passes of quant.go,
// whatever the partition's size and k, so the conformance suite runs them.
func NewTwoPass(dim int) *Index {
	x := New(dim)
	x.search = searchTwoPass
	return x
}
