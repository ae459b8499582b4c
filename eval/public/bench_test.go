package public

import "testing"

// BenchmarkConvert converts each source alone:
// go test -run X -bench Convert -cpuprofile cpu.out ./eval/public/
func BenchmarkConvert(b *testing.B) {
	for _, s := range Sources() {
		b.Run(s.Name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Convert(root, s.Name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
