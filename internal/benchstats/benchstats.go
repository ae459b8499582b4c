// Package benchstats reports latency percentiles from benchmarks, since
// testing.B only reports means and admission targets are stated as p99.
package benchstats

import (
	"slices"
	"testing"
	"time"
)

// Loop runs fn once per benchmark iteration, timing each call, and reports
// the p50 and p99 in microseconds as the metrics "p50-µs" and "p99-µs".
func Loop(b *testing.B, fn func()) {
	b.Helper()
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		fn()
		lat = append(lat, time.Since(start))
	}
	Report(b, lat)
}

// Report reports the p50 and p99 of latencies timed by the caller (when
// they come from several goroutines, say) as Loop does. It sorts lat.
func Report(b *testing.B, lat []time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
