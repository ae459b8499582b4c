//go:build unix

package cli

import (
	"os"
	"syscall"
)

// sameGroup reports whether two files have the same group.
func sameGroup(a, b os.FileInfo) bool {
	sa, okA := a.Sys().(*syscall.Stat_t)
	sb, okB := b.Sys().(*syscall.Stat_t)
	return okA && okB && sa.Gid == sb.Gid
}
