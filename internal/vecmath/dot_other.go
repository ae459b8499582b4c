//go:build !amd64 || purego

package vecmath

const useAsm = false

func dotAsm(a, b *float32, n int) float32 { panic("unreachable") }
