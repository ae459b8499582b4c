//go:build amd64 && !purego

package vecmath

import "golang.org/x/sys/cpu"

var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotAsm is implemented in dot_amd64.s. n must be at least 1.
//
//go:noescape
func dotAsm(a, b *float32, n int) float32

// dotInt8RowsAsm is implemented in dot8_amd64.s. dim must be a positive
// multiple of 32, and n positive.
//
//go:noescape
func dotInt8RowsAsm(q, rows *int8, dim, n int, out *int32)
