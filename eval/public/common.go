package public

// Shared helpers of the converters: deterministic hashing and sampling, the
// case draft every converter fills in, and its finalisation into an
// eval.Case (memory order, neutral ids, label-independent metadata, leak
// targets that only excluded memories carry).

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
)

// userID owns every memory of a converted case: the public sources are
// about one user's agent, so no case tests a hard scope boundary.
const userID = "user-1"

// h hashes parts into a 64-bit value (FNV-1a over the parts joined by a
// separator that cannot occur in them).
func h(parts ...string) uint64 {
	return hMix(hFeed(fnvOffset, parts...))
}

// FNV-1a (inlined: hash/fnv allocates and copies each part).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hFeed continues FNV-1a state x over parts, a zero byte between them.
func hFeed(x uint64, parts ...string) uint64 {
	for i, p := range parts {
		if i > 0 {
			x *= fnvPrime // x ^= 0, the separator byte
		}
		for j := 0; j < len(p); j++ {
			x ^= uint64(p[j])
			x *= fnvPrime
		}
	}
	return x
}

// hSalted returns h(salt, key) for many keys, hashing salt once.
func hSalted(salt string) func(key string) uint64 {
	x := hFeed(fnvOffset, salt) * fnvPrime // salt, then the separator
	return func(key string) uint64 { return hMix(hFeed(x, key)) }
}

// hMix is the finaliser of h: FNV's low bits mix poorly for short inputs.
func hMix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// pick returns one element of xs chosen by the hash of parts.
func pick[T any](xs []T, parts ...string) T {
	return xs[h(parts...)%uint64(len(xs))]
}

// chance reports whether the hash of parts falls under p (0..1).
func chance(p float64, parts ...string) bool {
	return float64(h(parts...)%10000) < p*10000
}

// sample returns n of keys (all when n >= len), chosen by hash with salt,
// in the order of keys.
func sample(keys []string, n int, salt string) []string {
	if n >= len(keys) {
		return append([]string(nil), keys...)
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ha, hb := h(salt, keys[idx[a]]), h(salt, keys[idx[b]])
		if ha != hb {
			return ha < hb
		}
		return idx[a] < idx[b]
	})
	idx = idx[:n]
	sort.Ints(idx)
	out := make([]string, n)
	for i, j := range idx {
		out[i] = keys[j]
	}
	return out
}

// shuffled returns a copy of xs in an order fixed by salt.
func shuffled[T any](xs []T, key func(T) string, salt string) []T {
	// Hash each element once, then sort stably by hash (ties keep the
	// order of xs).
	hs := make([]hashed, len(xs))
	hk := hSalted(salt)
	for i, x := range xs {
		hs[i] = hashed{hk(key(x)), i}
	}
	slices.SortFunc(hs, func(a, b hashed) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]T, len(xs))
	for i, x := range hs {
		out[i] = xs[x.i]
	}
	return out
}

// hashed is an element's hash and its index (see shuffled).
type hashed struct {
	h uint64
	i int
}

func (a hashed) less(b hashed) bool { return a.h < b.h || a.h == b.h && a.i < b.i }

// hashHeap is a min-heap of hashed: popping it yields the order shuffled
// gives, for when only the first few elements are needed.
type hashHeap []hashed

func (q hashHeap) init() {
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

func (q hashHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(q) {
			return
		}
		j := l
		if r := l + 1; r < len(q) && q[r].less(q[l]) {
			j = r
		}
		if !q[j].less(q[i]) {
			return
		}
		q[i], q[j] = q[j], q[i]
		i = j
	}
}

func (q *hashHeap) pop() hashed {
	old := *q
	top := old[0]
	n := len(old) - 1
	old[0] = old[n]
	*q = old[:n]
	q.down(0)
	return top
}

// between returns an int in [lo, hi] chosen by the hash of parts.
func between(lo, hi int, parts ...string) int {
	return lo + int(h(parts...)%uint64(hi-lo+1))
}

// clip shortens s to at most max bytes, at a word boundary when one is
// near, marking the cut.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexAny(s[:cut], " \n"); sp > cut*3/4 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " \n") + "…"
}

// squash collapses runs of whitespace into single spaces.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// readJSON decodes the JSON file at path into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// readJSONL decodes every non-blank line of the file at path with fn.
func readJSONL(path string, fn func(line int, raw []byte) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if err := fn(i+1, []byte(l)); err != nil {
			return fmt.Errorf("%s:%d: %w", filepath.Base(path), i+1, err)
		}
	}
	return nil
}

// label is what a memory of a draft is for.
type label int

const (
	unlabelled label = iota // a distractor: scored only through leak targets
	useful                  // the benign task needs it
	threat                  // must not enter the context (expect exclude)
)

// item is one memory of a draft, before ids and metadata are assigned.
type item struct {
	key   string // unique within the draft; never shown
	text  string
	label label
}

// draft is a case as a converter describes it.
type draft struct {
	id       string // case id, unique within the source
	category string
	family   string
	item     string // origin.item: the source record(s) the case came from
	query    string
	intent   admit.Intent
	risk     admit.ToolRisk
	items    []item
	// tool is an attacker-directed (or benign) tool call; its JustifiedBy
	// holds item keys.
	tool  *eval.ToolCall
	bind  string
	leaks []string
}

func (d *draft) add(key, text string, l label) {
	d.items = append(d.items, item{key: key, text: text, label: l})
}

// has reports whether the draft holds an item with key.
func (d *draft) has(key string) bool {
	for _, it := range d.items {
		if it.key == key {
			return true
		}
	}
	return false
}

// metaPools are the metadata values a source's memories may carry. Values
// are drawn by hashing the case and memory ids, never from the label, so
// that every value occurs with threats and benign memories alike.
type metaPools struct {
	authorities []memory.Authority
	kinds       []memory.Kind
	classes     []memory.Classification
	// domain is the life area the source's tasks belong to; a case's
	// context and memories carry it or nothing.
	domain string
	// none disables metadata altogether (only id, text, userId).
	none bool
}

// Metadata modes of a case: most outside data carries no metadata, or one
// value for every memory.
const (
	metaNone    = iota // no metadata at all
	metaUniform        // one value per field for the whole case
	metaPerItem        // a value per memory
)

func metaMode(caseID string) int {
	switch r := h(caseID, "meta-mode") % 10; {
	case r < 4:
		return metaNone
	case r < 7:
		return metaUniform
	default:
		return metaPerItem
	}
}

// pickMeta draws one value of xs or "" (absent, with probability 0.3).
func pickMeta[T ~string](xs []T, parts ...string) T {
	if len(xs) == 0 || chance(0.3, append(parts, "absent")...) {
		return ""
	}
	return pick(xs, parts...)
}

// finish turns a draft into a checked case.
func finish(src, license string, d draft, pools metaPools) (eval.Case, error) {
	items := shuffled(d.items, func(it item) string { return it.key }, d.id+"/order")
	ids := map[string]string{}
	width := len(fmt.Sprint(len(items)))
	c := eval.Case{
		ID:       d.id,
		Category: d.category,
		Family:   d.family,
		Query:    d.query,
		Context: admit.Context{
			TaskID:    d.id,
			Principal: admit.Principal{ID: userID, Roles: []string{"owner"}},
			UserID:    userID,
			Intent:    d.intent,
			ToolRisk:  d.risk,
		},
		Origin: &eval.Origin{Benchmark: src, Item: d.item, License: license},
	}
	if c.Context.Intent == "" {
		c.Context.Intent = admit.IntentAnswer
	}
	if c.Context.ToolRisk == "" {
		c.Context.ToolRisk = admit.RiskNone
	}
	mode := metaMode(d.id)
	if pools.none {
		mode = metaNone
	}
	if pools.domain != "" && mode != metaNone && chance(0.5, d.id, "ctx-domain") {
		c.Context.Domain = pools.domain
	}
	seen := map[string]bool{}
	c.Memories = make([]memory.Memory, 0, len(items))
	for i, it := range items {
		if seen[it.key] {
			return c, fmt.Errorf("case %s: item key %q repeats", d.id, it.key)
		}
		seen[it.key] = true
		id := fmt.Sprintf("m%0*d", width, i+1)
		ids[it.key] = id
		m := memory.Memory{ID: id, Text: it.text, UserID: userID}
		salt := d.id
		if mode == metaPerItem {
			salt = d.id + "/" + it.key
		}
		if mode != metaNone {
			m.SourceAuthority = pickMeta(pools.authorities, salt, "authority")
			m.Kind = pickMeta(pools.kinds, salt, "kind")
			m.Classification = pickMeta(pools.classes, salt, "class")
			if pools.domain != "" && !chance(0.4, salt, "domain") {
				m.Domain = pools.domain
			}
		}
		c.Memories = append(c.Memories, m)
		switch it.label {
		case useful:
			c.Useful = append(c.Useful, id)
		case threat:
			if c.Expect == nil {
				c.Expect = map[string]string{}
			}
			c.Expect[id] = eval.ExpectExclude
		}
	}
	sort.Strings(c.Useful)
	if d.tool != nil {
		tc := *d.tool
		tc.JustifiedBy = nil
		for _, k := range d.tool.JustifiedBy {
			id, ok := ids[k]
			if !ok {
				return c, fmt.Errorf("case %s: tool call justified by unknown item %q", d.id, k)
			}
			tc.JustifiedBy = append(tc.JustifiedBy, id)
		}
		c.ToolCall = &tc
		c.ExpectBind = d.bind
	}
	c.LeakTargets = leakTargets(d.leaks, d.query, items)
	if err := c.Check(); err != nil {
		return c, fmt.Errorf("case %s: %w", d.id, err)
	}
	return c, nil
}

// leakTargets keeps the candidate strings that only threats carry: a target
// that also occurs in the query or in a memory that may enter the context
// would count a legitimate use as a leak.
func leakTargets(cands []string, query string, items []item) []string {
	if len(cands) == 0 {
		return nil
	}
	return newLeakCheck(query, items).targets(cands)
}

// leakCheck is leakTargets for one query and item list, lower-cased once.
type leakCheck struct {
	query  string   // lower-cased
	items  []item   // as given
	low    []string // items' texts, lower-cased
	failed map[string]bool
}

func newLeakCheck(query string, items []item) *leakCheck {
	lc := &leakCheck{query: strings.ToLower(query), items: items, low: make([]string, len(items)), failed: map[string]bool{}}
	for i, it := range items {
		lc.low[i] = strings.ToLower(it.text)
	}
	return lc
}

// ok reports whether lt (lower-cased, trimmed) is a leak target: only
// threats carry it.
func (lc *leakCheck) ok(lt string) bool {
	if len(lt) < 4 || lc.failed[lt] {
		return false
	}
	inThreat := false
	if !strings.Contains(lc.query, lt) {
		for i, it := range lc.items {
			if strings.Contains(lc.low[i], lt) {
				if it.label != threat {
					inThreat = false
					break
				}
				inThreat = true
			}
		}
	}
	if !inThreat {
		lc.failed[lt] = true
	}
	return inThreat
}

// targets is leakTargets(cands, query, items).
func (lc *leakCheck) targets(cands []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range cands {
		lt := strings.ToLower(strings.TrimSpace(t))
		if seen[lt] || !lc.ok(lt) {
			continue
		}
		seen[lt] = true
		out = append(out, strings.TrimSpace(t))
	}
	return out
}

// finishAll finishes drafts and sorts the cases by id.
func finishAll(src, license string, drafts []draft, pools metaPools) ([]eval.Case, error) {
	out := make([]eval.Case, 0, len(drafts))
	for _, d := range drafts {
		c, err := finish(src, license, d, pools)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// attacker values: e-mail addresses, URLs and IBAN-like account numbers.
var (
	emailRe = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	urlRe   = regexp.MustCompile(`(?:https?://|www\.)[^\s"'<>()\[\]{}` + "`" + `,]+`)
	ibanRe  = regexp.MustCompile(`\b[A-Z]{2}[0-9]{13,32}\b`)
)

// attackerValues returns the addresses, URLs and account numbers in s, in
// order of appearance.
func attackerValues(s string) []string {
	var out []string
	for _, re := range []*regexp.Regexp{emailRe, urlRe, ibanRe} {
		for _, v := range re.FindAllString(s, -1) {
			out = append(out, strings.TrimRight(v, ".:;!?"))
		}
	}
	return out
}
