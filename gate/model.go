package gate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/internal/vecmath"
)

// FormatVersion is the model file format version this build reads.
const FormatVersion = 1

const magic = "MEMGATE-GATE"

// Limits the decoder enforces before allocating anything.
const (
	maxHeaderBytes = 1 << 20
	maxLayerWidth  = 1 << 16
	maxParams      = MaxParams
)

// MaxParams is the most weights and biases a model may hold; the decoder
// refuses a file that declares more.
const MaxParams = 16 << 20

// Header describes a model: what it expects and how it was made.
type Header struct {
	Format   int            `json:"format"`
	Schema   int            `json:"schema"`
	Embedder embed.Identity `json:"embedder"`
	// Sizes are the layer widths, input first, 1 last.
	Sizes []int `json:"sizes"`
	// Thresholds are the minimum fit per "intent×toolRisk" bucket;
	// DefaultThreshold applies to buckets without one.
	Thresholds       map[string]float64 `json:"thresholds"`
	DefaultThreshold float64            `json:"defaultThreshold"`
	// MinUtility is the benign utility retention the thresholds were
	// calibrated to keep on the dev set.
	MinUtility float64 `json:"minUtility"`
	// TrainingDataHash is the SHA-256 of the training and dev cases.
	TrainingDataHash string   `json:"trainingDataHash"`
	Training         Training `json:"training"`
	// Instruction is the linear head over the instruction features that
	// estimates whether a memory is an instruction addressed to the agent.
	Instruction Linear `json:"instruction"`
	// Range is what the training data covered; outside it the gate defers
	// to the envelope.
	Range Range `json:"range"`
	// Features is the FeatureFingerprint of the build that trained the
	// model.
	Features string `json:"features,omitempty"`
	// Ignored are features the model was trained without, for an ablation
	// (train.Options.ZeroInputs): the gate reads them as 0, in the network,
	// the instruction head and the evidence of its reasons alike. Shipped
	// models have none.
	Ignored []int `json:"ignored,omitempty"`
}

// Linear is a logistic-regression head with its decision threshold.
type Linear struct {
	W         []float64 `json:"w"`
	B         float64   `json:"b"`
	Threshold float64   `json:"threshold"`
}

// Score is the head's probability for features x.
func (l *Linear) Score(x []float32) float64 {
	if len(l.W) != len(x) {
		return 0
	}
	z := l.B
	for i, w := range l.W {
		z += w * float64(x[i])
	}
	return sigmoid(z)
}

// Range is the part of the input space the training data covered.
type Range struct {
	// MaxBytes is the longest memory text in training.
	MaxBytes int `json:"maxBytes"`
	// Buckets are the intent×toolRisk buckets whose calibration data held
	// both useful memories and threats.
	Buckets []string `json:"buckets"`
}

// Training records how a model was trained.
type Training struct {
	Seed uint64 `json:"seed"`
	// Members is how many networks, trained from different seeds, the
	// model averages (side by side in its layers); 0 in models that
	// predate it, which have one.
	Members int `json:"members,omitempty"`
	// Epochs and BestEpoch are the most over the members: the epochs the
	// longest-training one ran, and the latest best epoch of any.
	Epochs       int     `json:"epochs"`
	BestEpoch    int     `json:"bestEpoch"`
	TrainSamples int     `json:"trainSamples"`
	DevSamples   int     `json:"devSamples"`
	DevLoss      float64 `json:"devLoss"`
}

// Model is a trained gate model. It is immutable and safe for concurrent use.
type Model struct {
	Header Header
	// weights and biases per layer; w is row-major [out][in].
	w [][]float32
	b [][]float32
	// w0 is the first layer again with rows stride long (in rounded up to
	// 8, zero-padded), so that each row's dot product runs in whole vector
	// steps with no scalar tail; the scratch's x is stride long too.
	w0     []float32
	stride int
	// w0t is the first layer transposed, [in][out]: each feature's weights
	// into every first-layer unit, so that attribution (without) reads
	// only the removed group's non-zero features.
	w0t []float32
}

// padded fills w0 and stride from w[0] and returns m. A model whose header
// and weights disagree (NewModel's caller's mistake; Decode checks them)
// is left unpadded.
func (m *Model) padded() *Model {
	if len(m.Header.Sizes) < 2 || m.Header.Sizes[0] <= 0 || len(m.w) == 0 || len(m.w[0]) != m.Header.Sizes[0]*m.Header.Sizes[1] {
		return m
	}
	in := m.Header.Sizes[0]
	m.stride = (in + 7) &^ 7
	out := len(m.w[0]) / in
	m.w0 = make([]float32, out*m.stride)
	m.w0t = make([]float32, in*out)
	for j := range out {
		copy(m.w0[j*m.stride:], m.w[0][j*in:(j+1)*in])
		for f := range in {
			m.w0t[f*out+j] = m.w[0][j*in+f]
		}
	}
	return m
}

// Threshold returns the minimum fit for a bucket.
func (m *Model) Threshold(bucket string) float64 {
	if t, ok := m.Header.Thresholds[bucket]; ok {
		return t
	}
	return m.Header.DefaultThreshold
}

// scratch holds one forward pass's buffers.
type scratch struct {
	x    []float32
	z1   []float32 // first-layer pre-activations, kept for attribution
	acts [][]float32
	q    []float32   // the query embedding, when the gate computes it
	slab []float32   // memory embeddings the gate computes, back to back
	vecs [][]float32 // per candidate: its embedding
	xs   [][]float32 // per candidate: its features
	fx   []float32   // backing array of xs
	zTmp []float32   // first-layer pre-activations during attribution
	lift []float64   // per feature group: how much removing it raises the fit's log-odds
	// logit is the log-odds of the last forward pass's fit.
	logit float64
	ext   extractor
}

func (m *Model) newScratch() *scratch {
	s := &scratch{x: make([]float32, m.stride), z1: make([]float32, m.Header.Sizes[1])}
	for _, n := range m.Header.Sizes[1:] {
		s.acts = append(s.acts, make([]float32, n))
	}
	return s
}

// ensure sizes the per-candidate buffers for n candidates with embeddings
// of dimension d.
func (s *scratch) ensure(n, d int) {
	if cap(s.slab) < n*d {
		s.slab = make([]float32, n*d)
	}
	s.slab = s.slab[:n*d]
	if cap(s.vecs) < n {
		s.vecs = make([][]float32, n)
	}
	s.vecs = s.vecs[:n]
	if cap(s.fx) < n*Dim {
		s.fx = make([]float32, n*Dim)
		s.xs = make([][]float32, n)
		for i := range s.xs {
			s.xs[i] = s.fx[i*Dim : (i+1)*Dim]
		}
	}
}

// forward returns the fit score for the feature vector in s.x, keeping the
// first layer's pre-activations in s.z1 and the fit's log-odds in s.logit
// (NaN when the activations overflow: then the fit is 0 and no group is
// named as the reason for it).
func (m *Model) forward(s *scratch) float64 {
	n := m.stride
	for j := range s.z1 {
		s.z1[j] = vecmath.Dot(m.w0[j*n:(j+1)*n], s.x) + m.b[0][j]
	}
	s.logit = m.fromFirst(s, s.z1)
	fit := sigmoid(s.logit)
	if math.IsNaN(fit) {
		return 0 // overflowing activations: the lowest fit, never an accidental admit
	}
	return fit
}

// fromFirst finishes a forward pass from first-layer pre-activations z1,
// returning the fit's log-odds.
func (m *Model) fromFirst(s *scratch, z1 []float32) float64 {
	last := len(m.w) - 1
	in := s.acts[0]
	for j, z := range z1 {
		if last > 0 {
			z = silu32(z)
		}
		in[j] = z
	}
	for l := 1; l <= last; l++ {
		out := s.acts[l]
		n := len(in)
		for j := range out {
			z := vecmath.Dot(m.w[l][j*n:(j+1)*n], in) + m.b[l][j]
			if l < last {
				z = silu32(z)
			}
			out[j] = z
		}
		in = out
	}
	return float64(in[0])
}

// without returns the fit's log-odds with the features x[start:end] set to
// zero, from the pre-activations of the last forward pass: only the
// removed group's contribution to the first layer is recomputed.
func (m *Model) without(s *scratch, start, end int, z []float32) float64 {
	copy(z, s.z1)
	h := len(z)
	for f := start; f < end; f++ {
		v := s.x[f]
		if v == 0 {
			continue // most features of a group are zero: one-hot blocks, absent cues
		}
		col := m.w0t[f*h : (f+1)*h]
		for j := range z {
			z[j] -= col[j] * v
		}
	}
	return m.fromFirst(s, z)
}

func silu32(z float32) float32 { return z / (1 + exp32(-z)) }

// exp32 is e^x in float32, within 3e-7 of math.Exp (relative) over the
// range of normal results, 0 below it and +Inf above; NaN stays NaN.
// Inlined and free of float64 conversions, it halves the cost of the
// gate's activations, which attribution (Gate.lifts) runs about ten times
// per lowered candidate.
func exp32(x float32) float32 {
	switch {
	case x != x:
		return x
	case x < -87:
		return 0
	case x > 88.72283: // ln(math.MaxFloat32)
		return float32(math.Inf(1)) // as float32 overflows: a silu of -Inf is NaN, a fit of 0
	}
	// x = k·ln2 + r, |r| ≤ ln2/2, with ln2 in two parts so that r is exact
	// to float32; e^r by its Taylor series to the sixth power.
	t := x * 1.442695041
	var k int32
	if t < 0 {
		k = int32(t - 0.5)
	} else {
		k = int32(t + 0.5)
	}
	fk := float32(k)
	r := x - fk*0.693145752 - fk*1.42860677e-6
	p := 1 + r*(1+r*(0.5+r*(0.16666667+r*(0.041666668+r*(0.008333334+r*0.0013888889)))))
	if k > 127 { // 2^128 is no float32, though e^x may still be one
		return p * math.Float32frombits(254<<23) * 2
	}
	return p * math.Float32frombits(uint32(k+127)<<23)
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// WriteTo writes the model in the versioned file format.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	buf.WriteString(magic)
	hdr, err := json.Marshal(m.Header)
	if err != nil {
		return 0, fmt.Errorf("gate model: encode header: %w", err)
	}
	binary.Write(&buf, binary.LittleEndian, uint32(len(hdr)))
	buf.Write(hdr)
	var n uint32
	for l := range m.w {
		n += uint32(len(m.w[l]) + len(m.b[l]))
	}
	binary.Write(&buf, binary.LittleEndian, n)
	for l := range m.w {
		for _, v := range m.w[l] {
			binary.Write(&buf, binary.LittleEndian, math.Float32bits(v))
		}
		for _, v := range m.b[l] {
			binary.Write(&buf, binary.LittleEndian, math.Float32bits(v))
		}
	}
	binary.Write(&buf, binary.LittleEndian, crc32.ChecksumIEEE(buf.Bytes()))
	k, err := w.Write(buf.Bytes())
	return int64(k), err
}

// Save writes the model to a file.
func (m *Model) Save(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gate model: %w", err)
	}
	if _, err := m.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("gate model: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("gate model: write %s: %w", path, err)
	}
	return nil
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gate model: %w", err)
	}
	m, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("gate model %s: %w", path, err)
	}
	return m, nil
}

// Decode parses and checks a model file: its magic, format and schema
// versions, layer sizes, weight count, checksum and that every weight is
// finite. It never panics on bad input.
func Decode(data []byte) (*Model, error) {
	if len(data) < len(magic)+12 || string(data[:len(magic)]) != magic {
		return nil, errors.New("not a memgate gate model (bad magic)")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errors.New("corrupted or truncated model file (checksum mismatch)")
	}
	r := body[len(magic):]
	hlen := binary.LittleEndian.Uint32(r)
	r = r[4:]
	if hlen > maxHeaderBytes || int(hlen) > len(r)-4 {
		return nil, fmt.Errorf("header length %d out of bounds", hlen)
	}
	var h Header
	if err := json.Unmarshal(r[:hlen], &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	r = r[hlen:]
	if h.Format != FormatVersion {
		return nil, fmt.Errorf("model format v%d; this build reads v%d", h.Format, FormatVersion)
	}
	if h.Schema != SchemaVersion {
		return nil, fmt.Errorf("model built for feature schema v%d; this build uses v%d: retrain it with `memgate train`", h.Schema, SchemaVersion)
	}
	if h.Embedder.Name == "" || h.Embedder.Dim <= 0 || h.Embedder.Dim > maxLayerWidth {
		return nil, fmt.Errorf("header: invalid embedder %+v", h.Embedder)
	}
	if len(h.Sizes) < 2 || h.Sizes[len(h.Sizes)-1] != 1 || h.Sizes[0] != Dim {
		return nil, fmt.Errorf("header: layer sizes %v do not fit schema v%d (want input %d, output 1)", h.Sizes, SchemaVersion, Dim)
	}
	if start, end := InstructionRange(); len(h.Instruction.W) != end-start {
		return nil, fmt.Errorf("header: instruction head has %d weights, want %d", len(h.Instruction.W), end-start)
	}
	for _, w := range append(h.Instruction.W, h.Instruction.B, h.Instruction.Threshold) {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, errors.New("header: instruction head has a weight that is not finite")
		}
	}
	params := 0
	for i, n := range h.Sizes {
		if n <= 0 || n > maxLayerWidth {
			return nil, fmt.Errorf("header: layer %d width %d out of bounds", i, n)
		}
		if i > 0 {
			params += h.Sizes[i-1]*n + n
		}
	}
	if params > maxParams {
		return nil, fmt.Errorf("header: %d parameters exceed the limit %d", params, maxParams)
	}
	for b, t := range h.Thresholds {
		if !(t >= 0 && t <= 1) {
			return nil, fmt.Errorf("header: threshold %v for %s outside [0,1]", t, b)
		}
	}
	if !(h.DefaultThreshold >= 0 && h.DefaultThreshold <= 1) {
		return nil, fmt.Errorf("header: default threshold %v outside [0,1]", h.DefaultThreshold)
	}
	for _, i := range h.Ignored {
		if i < 0 || i >= Dim {
			return nil, fmt.Errorf("header: ignored feature %d outside [0,%d)", i, Dim)
		}
	}
	if len(r) < 4 {
		return nil, errors.New("truncated before the weights")
	}
	count := binary.LittleEndian.Uint32(r)
	r = r[4:]
	if int(count) != params || len(r) != 4*params {
		return nil, fmt.Errorf("weights: %d declared, %d bytes present, %d expected from the sizes", count, len(r), 4*params)
	}
	m := &Model{Header: h}
	off := 0
	next := func(n int) ([]float32, error) {
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(r[off:]))
			off += 4
			if math.IsNaN(float64(v[i])) || math.IsInf(float64(v[i]), 0) {
				return nil, errors.New("weights: a weight is not finite")
			}
		}
		return v, nil
	}
	for i := 1; i < len(h.Sizes); i++ {
		w, err := next(h.Sizes[i-1] * h.Sizes[i])
		if err != nil {
			return nil, err
		}
		b, err := next(h.Sizes[i])
		if err != nil {
			return nil, err
		}
		m.w, m.b = append(m.w, w), append(m.b, b)
	}
	return m.padded(), nil
}

// NewModel builds a model from its header and per-layer weights (row-major
// [out][in]) and biases; training uses it.
func NewModel(h Header, w, b [][]float32) *Model { return (&Model{Header: h, w: w, b: b}).padded() }
