package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	var ss float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		ss += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(ss))
	}
	return v
}

func TestDot(t *testing.T) {
	for n := range 20 {
		a, b := make([]float32, n), make([]float32, n)
		var want float32
		for i := range n {
			a[i], b[i] = float32(i+1), float32(2*i-3)
			want += a[i] * b[i]
		}
		if got := Dot(a, b); got != want {
			t.Fatalf("n=%d: Dot = %v, want %v", n, got, want)
		}
	}
}

func TestDotKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 1; n < 300; n++ {
		a, b := randVec(r, n), randVec(r, n)
		got, want := Dot(a, b), dotGeneric(a, b)
		if d := got - want; d > 1e-5 || d < -1e-5 {
			t.Fatalf("n=%d: Dot %v, generic %v", n, got, want)
		}
	}
}

func BenchmarkDot256Generic(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	p, q := randVec(r, 256), randVec(r, 256)
	for b.Loop() {
		dotGeneric(p, q)
	}
}

func BenchmarkDot256(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	p, q := randVec(r, 256), randVec(r, 256)
	for b.Loop() {
		Dot(p, q)
	}
}

func TestDotInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := range 300 {
		a, b := make([]int8, n), make([]int8, n)
		var want int32
		for i := range a {
			a[i], b[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
			want += int32(a[i]) * int32(b[i])
		}
		if n > 3 { // the extremes, which saturate a careless kernel
			a[0], b[0], a[1], b[1], a[2], b[2] = 127, 127, -127, -127, 127, -127
			want = 0
			for i := range a {
				want += int32(a[i]) * int32(b[i])
			}
		}
		if got, generic := DotInt8(a, b), dotInt8Generic(a, b); got != want || generic != want {
			t.Fatalf("n=%d: DotInt8 %d, generic %d, want %d", n, got, generic, want)
		}
	}
}

func TestQuantize(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 7, 256, 1000} {
		v := randVec(r, n)
		codes := make([]int8, n)
		scale, qerr, ok := Quantize(codes, v)
		if !ok || scale <= 0 {
			t.Fatalf("n=%d: scale %v ok %v", n, scale, ok)
		}
		var ss float64
		for i, x := range v {
			if codes[i] == -128 {
				t.Fatalf("n=%d: code -128", n)
			}
			d := float64(x) - float64(scale)*float64(codes[i])
			if math.Abs(d) > float64(scale)/2*1.0001 {
				t.Fatalf("n=%d: element %d off by %g, scale %g", n, i, d, scale)
			}
			ss += d * d
		}
		if math.Abs(math.Sqrt(ss)-qerr) > 1e-12 {
			t.Fatalf("n=%d: err %g, want %g", n, qerr, math.Sqrt(ss))
		}
	}
	if s, e, ok := Quantize(make([]int8, 3), []float32{0, 0, 0}); s != 0 || e != 0 || !ok {
		t.Fatalf("zero vector: %v %v %v", s, e, ok)
	}
	if _, _, ok := Quantize(make([]int8, 2), []float32{1, float32(math.NaN())}); ok {
		t.Fatal("NaN quantized")
	}
}

func BenchmarkDotInt8_256(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	p, c := make([]int8, 256), make([]int8, 256)
	for i := range c {
		p[i], c[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
	}
	for b.Loop() {
		DotInt8(p, c)
	}
}

func BenchmarkQuantize256(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	v := randVec(r, 256)
	c := make([]int8, 256)
	for b.Loop() {
		Quantize(c, v)
	}
}

func TestDotInt8Rows(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, dim := range []int{0, 1, 31, 32, 64, 96, 100, 256, 384} {
		for _, n := range []int{0, 1, 2, 7, 33} {
			q, rows := make([]int8, dim), make([]int8, dim*n)
			for i := range q {
				q[i] = int8(r.IntN(255) - 127)
			}
			for i := range rows {
				rows[i] = int8(r.IntN(255) - 127)
			}
			if dim > 0 && n > 0 { // the extremes, which saturate a careless kernel
				q[0], rows[0], rows[len(rows)-1], q[dim-1] = 127, -127, 127, -127
			}
			out := make([]int32, n+1)
			out[n] = 12345 // past the rows: never written
			DotInt8Rows(q, rows, out[:n])
			for i := range n {
				if want := dotInt8Generic(q, rows[i*dim:(i+1)*dim]); out[i] != want {
					t.Fatalf("dim %d, row %d of %d: %d, want %d", dim, i, n, out[i], want)
				}
			}
			if out[n] != 12345 {
				t.Fatalf("dim %d, n %d: wrote past the rows", dim, n)
			}
		}
	}
}

func BenchmarkDotInt8Rows20k(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	const dim, n = 256, 20000
	q, rows, out := make([]int8, dim), make([]int8, dim*n), make([]int32, n)
	for i := range rows {
		rows[i] = int8(r.IntN(255) - 127)
	}
	for i := range q {
		q[i] = int8(r.IntN(255) - 127)
	}
	b.Run("per-row", func(b *testing.B) {
		for b.Loop() {
			for i := range out {
				out[i] = DotInt8(q, rows[i*dim:(i+1)*dim])
			}
		}
	})
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			DotInt8Rows(q, rows, out)
		}
	})
}
