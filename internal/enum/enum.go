// Package enum parses the string enumerations of memgate's public formats
// (authority, kind, intent, tool risk, decision, …) with one error wording:
// the rejected value and every allowed one.
package enum

import (
	"fmt"
	"strings"
)

// Parse returns the element of allowed equal to s, or an error naming s and
// the allowed values.
func Parse[T ~string](s string, allowed []T) (T, error) {
	for _, a := range allowed {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown value %q (allowed: %s)", s, Names(allowed))
}

// Names lists the allowed values, comma-separated.
func Names[T ~string](allowed []T) string {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
