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
		dotInt8RowsAsm(&a[0], &b[0], n, 1, &s)
	}
	return s + dotInt8Generic(a[n:], b[n:])
}

// DotInt8Rows sets out[r] to DotInt8(q, rows[r·len(q):(r+1)·len(q)]) for
// each r < len(out): the dot products of q with rows laid one after the
// other, in one call. rows must hold len(out) rows of len(q).
func DotInt8Rows(q, rows []int8, out []int32) {
	dim, n := len(q), len(out)
	if n == 0 {
		return
	}
	rows = rows[:n*dim]
	if useAsm && dim > 0 && dim%32 == 0 {
		dotInt8RowsAsm(&q[0], &rows[0], dim, n, &out[0])
		return
	}
	for r := range out {
		out[r] = DotInt8(q, rows[r*dim:(r+1)*dim])
	}
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
// it returns, max|v|/127, so that scale·codes[i] is within about scale/2 of
// v[i]; and returns err, the Euclidean distance between v and scale·codes,
// computed in float64 from the codes written (the bound a search relies on
// is this distance, not the rounding's intent). A zero vector has scale 0
// and err 0. ok is false if v holds a NaN or an infinity, which cannot be
// quantized.
func Quantize(codes []int8, v []float32) (scale float32, err float64, ok bool) {
	codes = codes[:len(v)]
	var m float32
	for _, x := range v {
		b := math.Float32bits(x) &^ (1 << 31) // |x|
		if b >= 0x7f800000 {                  // an infinity or a NaN
			return 0, 0, false
		}
		if a := math.Float32frombits(b); a > m {
			m = a
		}
	}
	if m == 0 {
		clear(codes)
		return 0, 0, true
	}
	scale = m / 127
	if scale == 0 { // subnormal vectors
		scale = math.SmallestNonzeroFloat32
	}
	inv := 1 / scale
	var ss float64
	for i, x := range v {
		c := x * inv
		if c >= 0 {
			c += 0.5
		} else {
			c -= 0.5
		}
		q := int32(c) // truncates: rounds half away from zero
		if q > 127 {
			q = 127
		} else if q < -127 {
			q = -127
		}
		codes[i] = int8(q)
		d := float64(x) - float64(scale)*float64(q)
		ss += d * d
	}
	return scale, math.Sqrt(ss), true
}
