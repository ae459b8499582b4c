//go:build !unix

package sqlite

// cpuTime is not known here.
func cpuTime() int64 { return 0 }
