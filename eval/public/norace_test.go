//go:build !race

package public

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
