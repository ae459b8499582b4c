package exact

// NewSplit is New with every search split into parts ranges, whatever the
// partition's size, so the external conformance test can run the parallel
// scan on its small partitions.
func NewSplit(dim, parts int) *Index {
	x := New(dim)
	x.parts = parts
	return x
}
