package vecmath

import "math"

// DotInt8 is the dot product of two int8 vectors of equal length, exactly
// (an int32 cannot overflow below 133,000 elements). Neither may hold -128:
// Quantize never makes it. With a and b the codes of two vectors quantized
// at scales sa and sb, sa·sb·DotInt8(a, b) approximates their dot product
// while reading a quarter of their bytes. On amd64 with AVX2 it runs a
// vector kernel; elsewhere dotInt8Generic.
func DotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	var s int32
	n := 0
	if useAsm && len(a) >= 32 {
		n = len(a) &^ 31
		s = dotInt8Asm(&a[0], &b[0], n)
	}
	return s + dotInt8Generic(a[n:], b[n:])
}

func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1 int32
	i := 0
	for ; i+2 <= len(a); i += 2 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
	}
	if i < len(a) {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1
}

// Quantize writes into codes (len(v) long) the int8 codes of v at the scale
// it returns, max|v|/127, so that scale·codes[i] is within scale/2 of v[i];
// and returns err, the Euclidean distance between v and scale·codes,
// computed in float64. A zero vector has scale 0 and err 0. ok is false if
// v holds a NaN or an infinity, which cannot be quantized.
func Quantize(codes []int8, v []float32) (scale float32, err float64, ok bool) {
	codes = codes[:len(v)]
	var m float64
	for _, x := range v {
		a := math.Abs(float64(x))
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return 0, 0, false
		}
		m = max(m, a)
	}
	if m == 0 {
		clear(codes)
		return 0, 0, true
	}
	scale = float32(m / 127)
	if scale == 0 { // subnormal vectors
		scale = math.SmallestNonzeroFloat32
	}
	var ss float64
	for i, x := range v {
		c := math.Round(float64(x) / float64(scale))
		c = max(-127, min(127, c))
		codes[i] = int8(c)
		d := float64(x) - float64(scale)*c
		ss += d * d
	}
	return scale, math.Sqrt(ss), true
}
