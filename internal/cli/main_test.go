package cli

import (
	"os"
	"testing"

	"github.com/memgate/memgate/config"
)

// TestMain keeps the tests hermetic: the variables that choose a store, an
// index, an embedder, a policy, a gate, a configuration file or a key are
// cleared, so that a shell where scripts/scaleout-up.sh exported
// MEMGATE_STORE and MEMGATE_INDEX does not point every test at its servers.
// Tests that want them set them (t.Setenv, a child's environment); a
// child server (TestServeChild) keeps what its parent gave it.
func TestMain(m *testing.M) {
	if os.Getenv(serveChildEnv) == "" {
		for _, v := range []string{config.EnvStore, config.EnvIndex, config.EnvEmbedder, config.EnvPolicy,
			config.EnvGate, config.EnvConfig, "MEMGATE_KEY"} {
			os.Unsetenv(v)
		}
	}
	os.Exit(m.Run())
}
