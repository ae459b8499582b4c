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
