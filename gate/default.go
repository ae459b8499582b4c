package gate

import (
	_ "embed"
	"fmt"
	"sync"
)

// defaultModel is the gate built into memgate, made by
// scripts/train-default-gate.sh from the built-in suite's train and dev
// splits and the public datasets in data/public (see docs/gate.md).
//
//go:embed default.model
var defaultModel []byte

var defaultGate = sync.OnceValues(func() (*Gate, error) {
	m, err := Decode(defaultModel)
	if err != nil {
		return nil, fmt.Errorf("built-in gate model: %w", err)
	}
	return New(m), nil
})

// Default returns the gate built into memgate. It was trained for the
// builtin embedder; stores embedded otherwise need a model of their own
// (memgate train).
func Default() (*Gate, error) { return defaultGate() }
