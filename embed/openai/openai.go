// Package openai embeds text through any server that speaks the OpenAI
// /v1/embeddings protocol: OpenAI itself, Ollama, vLLM, Hugging Face TEI,
// LM Studio and others. Requests are batched, time-limited and retried with
// exponential backoff on rate limits and server errors.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/memgate/memgate/embed"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvBaseURL = "MEMGATE_EMBED_BASE_URL"
	EnvModel   = "MEMGATE_EMBED_MODEL"
	EnvAPIKey  = "MEMGATE_EMBED_API_KEY"
	EnvDim     = "MEMGATE_EMBED_DIM"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Client. Zero fields take the defaults documented on
// each.
type Config struct {
	// BaseURL is the API root, up to and including /v1
	// (for Ollama: http://localhost:11434/v1). Default DefaultBaseURL.
	BaseURL string
	// Model is the embedding model name; required.
	Model string
	// APIKey is sent as a bearer token when set. Local servers need none.
	APIKey string
	// Dimensions, when set, is requested from the server (for models that
	// can shorten their output) and checked on every response. When zero
	// the client learns the dimension with one probe request in New.
	Dimensions int
	// BatchSize is the most texts sent in one request. Default 64.
	BatchSize int
	// Timeout bounds each HTTP request. Default 30s.
	Timeout time.Duration
	// MaxRetries is how often a failed request is retried. Default 4.
	MaxRetries int
	// Backoff is the first retry's delay; later ones double, with jitter,
	// up to 30s or the server's Retry-After. Default 500ms.
	Backoff time.Duration
	// HTTPClient is used for requests. Default a new client.
	HTTPClient *http.Client
}

// ConfigFromEnv reads the configuration from the environment:
// MEMGATE_EMBED_BASE_URL, MEMGATE_EMBED_MODEL, MEMGATE_EMBED_API_KEY (or, if
// that is unset, OPENAI_API_KEY) and MEMGATE_EMBED_DIM.
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		BaseURL: os.Getenv(EnvBaseURL),
		Model:   os.Getenv(EnvModel),
		APIKey:  os.Getenv(EnvAPIKey),
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if s := os.Getenv(EnvDim); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return cfg, fmt.Errorf("%s=%q: want a positive integer", EnvDim, s)
		}
		cfg.Dimensions = n
	}
	return cfg, nil
}

// Client is an OpenAI-compatible embedder. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	dim      int
}

// New checks cfg and returns a Client. If cfg.Dimensions is zero it sends one
// short request to learn the model's dimension, so New fails early when the
// server is unreachable or the model unknown.
func New(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai embedder: model is required (set " + EnvModel + ")")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("openai embedder: base URL %q must start with http:// or https://", cfg.BaseURL)
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 || cfg.MaxRetries < 0 || cfg.Timeout < 0 || cfg.Backoff < 0 {
		return nil, errors.New("openai embedder: dimensions, batch size, retries, timeout and backoff must not be negative")
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 64
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	c := &Client{cfg: cfg, endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/embeddings", dim: cfg.Dimensions}
	if c.dim == 0 {
		vecs, err := c.request(ctx, []string{"dimension probe"}, 0)
		if err != nil {
			return nil, fmt.Errorf("openai embedder: probe model %q at %s: %w", cfg.Model, c.endpoint, err)
		}
		c.dim = len(vecs[0])
		if c.dim == 0 {
			return nil, fmt.Errorf("openai embedder: model %q returned an empty vector", cfg.Model)
		}
	}
	return c, nil
}

// Identity names the model. Vectors from the same model name at different
// servers are assumed comparable.
func (c *Client) Identity() embed.Identity {
	return embed.Identity{Name: "openai:" + c.cfg.Model, Dim: c.dim}
}

// Embed returns one vector per text, in order, sending at most BatchSize texts
// per request.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.cfg.BatchSize {
		end := min(start+c.cfg.BatchSize, len(texts))
		vecs, err := c.request(ctx, texts[start:end], c.dim)
		if err != nil {
			return nil, fmt.Errorf("openai embedder: texts %d-%d: %w", start, end-1, err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// request sends one batch with retries. dim 0 skips the dimension check.
func (c *Client) request(ctx context.Context, texts []string, dim int) ([][]float32, error) {
	body, err := json.Marshal(request{Model: c.cfg.Model, Input: texts, EncodingFormat: "float", Dimensions: c.cfg.Dimensions})
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt <= c.cfg.MaxRetries; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, c.delay(attempt, lastErr)); err != nil {
				return nil, fmt.Errorf("%w (last error: %v)", err, lastErr)
			}
		}
		vecs, err := c.once(ctx, body, len(texts), dim)
		if err == nil {
			return vecs, nil
		}
		lastErr = err
		var he *httpError
		if ctx.Err() != nil || (errors.As(err, &he) && !he.retryable()) || errors.Is(err, errBadResponse) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("gave up after %d attempts: %w", c.cfg.MaxRetries+1, lastErr)
}

var errBadResponse = errors.New("malformed response")

type httpError struct {
	status     int
	body       string
	retryAfter time.Duration
}

// Error renders the status and the server's message.
func (e *httpError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, e.body)
}

func (e *httpError) retryable() bool {
	switch e.status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

func (c *Client) once(ctx context.Context, body []byte, n, dim int) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		he := &httpError{status: resp.StatusCode, body: strings.TrimSpace(string(msg))}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			he.retryAfter = time.Duration(s) * time.Second
		}
		return nil, he
	}
	var r response
	if err := json.NewDecoder(io.LimitReader(resp.Body, 256<<20)).Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadResponse, err)
	}
	vecs := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || vecs[d.Index] != nil {
			return nil, fmt.Errorf("%w: unexpected or repeated index %d", errBadResponse, d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	if dim == 0 && len(vecs) > 0 {
		dim = len(vecs[0])
	}
	if err := embed.Check(vecs, n, dim); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadResponse, err)
	}
	return vecs, nil
}

func (c *Client) delay(attempt int, lastErr error) time.Duration {
	d := c.cfg.Backoff << (attempt - 1)
	d = d/2 + rand.N(d/2+1) // jitter: spread clients that failed together
	var he *httpError
	if errors.As(lastErr, &he) && he.retryAfter > d {
		d = he.retryAfter
	}
	return min(d, 30*time.Second)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
