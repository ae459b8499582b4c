//go:build unix

package sqlite

import "syscall"

// cpuTime is the CPU time the process has used, in nanoseconds (user and
// system, all threads); 0 where it is not known.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
