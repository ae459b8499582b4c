// Package vecmath holds the numeric kernels shared by the vector index and
// the learned gate: a dot product with an AVX2/FMA implementation on amd64
// (chosen at run time) and a portable one elsewhere or with -tags purego.
package vecmath

// Dot is the dot product of two vectors of equal length; with unit vectors it
// is their cosine similarity. On amd64 with AVX2 and FMA it runs a vector
// kernel; elsewhere, or when built with the purego tag, dotGeneric.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	if useAsm && len(a) >= 8 {
		return dotAsm(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}

// dotGeneric is unrolled eight ways with independent accumulators so the CPU
// can overlap the multiply-adds.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa, bb := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
		s4 += aa[4] * bb[4]
		s5 += aa[5] * bb[5]
		s6 += aa[6] * bb[6]
		s7 += aa[7] * bb[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
