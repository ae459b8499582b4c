//go:build !amd64 || purego

package vecmath

const useAsm = false

func dotAsm(a, b *float32, n int) float32 { panic("unreachable") }

func dotInt8RowsAsm(q, rows *int8, dim, n int, out *int32) { panic("unreachable") }
