package config

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/memgate/memgate/server/origin"
)

// EnvConfig names the configuration file when no --config flag does.
const EnvConfig = "MEMGATE_CONFIG"

// File is a configuration file (YAML or JSON): the engine's settings and
// the server's limits. Settings given by flags or the environment win over
// the file's.
//
//	store: postgres://memgate@127.0.0.1/memgate
//	policy: policy.yaml
//	serve:
//	  addr: 127.0.0.1:8080
//	  maxBodyBytes: 4194304
//	  corsOrigins: [https://app.example.com]
type File struct {
	Store        string `yaml:"store" json:"store"`
	Index        string `yaml:"index" json:"index"`
	Embedder     string `yaml:"embedder" json:"embedder"`
	Policy       string `yaml:"policy" json:"policy"`
	Gate         string `yaml:"gate" json:"gate"`
	DurableAudit bool   `yaml:"durableAudit" json:"durableAudit"`
	// IndexWait is how long a write waits for a persistent index to apply
	// it (memgate.Options.IndexWait); 0 keeps the default, negative does
	// not wait.
	IndexWait time.Duration `yaml:"indexWait" json:"indexWait"`
	Serve     Serve         `yaml:"serve" json:"serve"`
}

// Serve is the server's part of a configuration file.
type Serve struct {
	Addr           string        `yaml:"addr" json:"addr"`
	MaxBodyBytes   int64         `yaml:"maxBodyBytes" json:"maxBodyBytes"`
	MaxBatch       int           `yaml:"maxBatch" json:"maxBatch"`
	LowerAuthority bool          `yaml:"lowerAuthority" json:"lowerAuthority"`
	Drain          time.Duration `yaml:"drain" json:"drain"`
	// MetricsAddr, if set, serves /metrics on this address alone (see
	// memgate serve --metrics-addr).
	MetricsAddr string `yaml:"metricsAddr" json:"metricsAddr"`
	// CORSOrigins are the origins of browser pages that may call the API
	// (see memgate serve --cors-origin and origin.Check).
	CORSOrigins []string `yaml:"corsOrigins" json:"corsOrigins"`
}

// LoadFile reads a configuration file. Unknown keys are errors (a typo must
// not silently leave a default), and so are values out of range.
func LoadFile(path string) (File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, fmt.Errorf("config file: %w", err)
	}
	f, err := ParseFile(data)
	if err != nil {
		return File{}, fmt.Errorf("config file %s: %w", path, err)
	}
	return f, nil
}

// ParseFile parses the content of a configuration file.
func ParseFile(data []byte) (File, error) {
	var f File
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	if err := yaml.NewDecoder(bytes.NewReader(data), yaml.Strict(), yaml.DisallowUnknownField()).Decode(&f); err != nil {
		return File{}, fmt.Errorf("%s", yaml.FormatError(err, false, true))
	}
	if f.Store != "" {
		if _, err := ParseStore(f.Store); err != nil {
			return File{}, err
		}
	}
	if f.Index != "" {
		if _, err := NewIndex(f.Index); err != nil {
			return File{}, err
		}
	}
	switch {
	case f.Serve.MaxBodyBytes < 0:
		return File{}, fmt.Errorf("serve.maxBodyBytes: %d is negative", f.Serve.MaxBodyBytes)
	case f.Serve.MaxBatch < 0:
		return File{}, fmt.Errorf("serve.maxBatch: %d is negative", f.Serve.MaxBatch)
	case f.Serve.Drain < 0:
		return File{}, fmt.Errorf("serve.drain: %s is negative", f.Serve.Drain)
	}
	if a := f.Serve.MetricsAddr; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return File{}, fmt.Errorf("serve.metricsAddr %q: %v", a, err)
		}
	}
	if err := origin.CheckList(f.Serve.CORSOrigins); err != nil {
		return File{}, fmt.Errorf("serve.corsOrigins: %w", err)
	}
	return f, nil
}
