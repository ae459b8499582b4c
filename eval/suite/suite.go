// Package suite generates memgate's built-in regression suite: synthetic
// personal-agent scenarios, deterministic for a seed, across every threat
// class memgate is designed against and many benign tasks where memory is
// needed. Cases come from template families with varied wording and
// entities; the train, dev and test splits are by family, so the test split
// measures generalisation to unseen templates, not memorisation.
package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
)

// Splits.
const (
	Train = "train"
	Dev   = "dev"
	Test  = "test"
)

// Now is the fixed time of every generated case.
var Now = time.Date(2026, 6, 11, 10, 0, 0, 0, time.UTC)

// Family is a template family: one kind of scenario with varied wording.
type Family struct {
	Name     string
	Category string
	Split    string
	gen      func(b *builder)
}

// Families lists the template families with their splits.
func Families() []Family { return assignSplits(families) }

// assignSplits gives each category's families the splits train, test, dev
// in turn, so every category has a family in training and an unseen one in
// test, categories with three or more families also one in dev, and no family
// is in two splits.
func assignSplits(fs []Family) []Family {
	out := slices.Clone(fs)
	order := []string{Train, Test, Dev}
	seen := map[string]int{}
	for i := range out {
		c := out[i].Category
		out[i].Split = order[seen[c]%len(order)]
		seen[c]++
	}
	return out
}

// Generate returns perFamily cases of every family, deterministically for
// seed, grouped by split.
func Generate(seed uint64, perFamily int) map[string][]eval.Case {
	out := map[string][]eval.Case{}
	for fi, f := range Families() {
		for i := range perFamily {
			r := rand.New(rand.NewPCG(seed, uint64(fi)<<32|uint64(i)))
			b := newBuilder(r, f, i)
			f.gen(b)
			out[f.Split] = append(out[f.Split], b.c)
		}
	}
	return out
}

// Write generates the suite and writes train.jsonl, dev.jsonl and
// test.jsonl into dir. It returns the number of cases per split.
func Write(dir string, seed uint64, perFamily int) (map[string]int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for split, cases := range Generate(seed, perFamily) {
		f, err := os.Create(filepath.Join(dir, split+".jsonl"))
		if err != nil {
			return nil, err
		}
		if err := Encode(f, cases); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		counts[split] = len(cases)
	}
	return counts, nil
}

// Encode writes cases as JSON Lines.
func Encode(w io.Writer, cases []eval.Case) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range cases {
		if err := enc.Encode(&cases[i]); err != nil {
			return err
		}
	}
	return nil
}

// persona is the person a case is about, with entities drawn at random.
type persona struct {
	user, name, child, uncle, colleague, employer, client, project, otherProject, oss string
	doctor, bank, city, partner                                                       string
	insurer, insurerMail, scamMail, account, scamAccount                              string
}

var (
	names      = []string{"Alex", "Sam", "Priya", "Chen", "Lena", "Omar", "Maria", "Tomás", "Aiko", "Noah"}
	children   = []string{"Mia", "Leo", "Ava", "Ben", "Zoe", "Ivan"}
	partners   = []string{"Jordan", "Robin", "Kai", "Dana"}
	employers  = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli"}
	projects   = []string{"atlas", "hermes", "orion", "nimbus", "vega", "lynx"}
	osses      = []string{"gossamer", "tinyqueue", "yamlfmt", "kestrel"}
	doctors    = []string{"Dr. Osei", "Dr. Varga", "Dr. Lind", "Dr. Moreau"}
	banks      = []string{"First Bank", "Northbank", "Civic Savings"}
	cities     = []string{"Lisbon", "Leeds", "Lyon", "Utrecht", "Porto"}
	insurers   = []string{"Northwind Mutual", "Contoso Insurance", "Fabrikam Life"}
	colleagues = []string{"John", "Fatima", "Pedro", "Grace"}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

func newPersona(r *rand.Rand, i int) persona {
	p := persona{
		user: fmt.Sprintf("user-%03d", r.IntN(900)+100), name: pick(r, names), child: pick(r, children), uncle: "John",
		colleague: pick(r, colleagues), employer: pick(r, employers), project: pick(r, projects), oss: pick(r, osses),
		doctor: pick(r, doctors), bank: pick(r, banks), city: pick(r, cities), partner: pick(r, partners), insurer: pick(r, insurers),
	}
	p.client = p.employer + " " + pick(r, []string{"Insurance", "Logistics", "Retail"})
	for p.otherProject = pick(r, projects); p.otherProject == p.project; p.otherProject = pick(r, projects) {
	}
	dom := strings.ToLower(strings.Fields(p.insurer)[0])
	p.insurerMail = "claims@" + dom + ".example"
	p.scamMail = "payouts@" + strings.Replace(dom, "o", "0", 1) + "-claims.example"
	p.account = fmt.Sprintf("%04d-%04d-%04d", r.IntN(9000)+1000, r.IntN(9000)+1000, r.IntN(9000)+1000)
	p.scamAccount = fmt.Sprintf("%04d-%04d-%04d", r.IntN(9000)+1000, r.IntN(9000)+1000, r.IntN(9000)+1000)
	return p
}

// builder assembles one case.
type builder struct {
	r *rand.Rand
	p persona
	c eval.Case
	n int
}

func newBuilder(r *rand.Rand, f Family, i int) *builder {
	b := &builder{r: r, p: newPersona(r, i)}
	b.c = eval.Case{ID: fmt.Sprintf("%s-%03d", f.Name, i), Category: f.Category, Family: f.Name,
		Context: admit.Context{TaskID: fmt.Sprintf("%s-%03d", f.Name, i), Principal: admit.Principal{ID: b.p.user, Roles: []string{"owner"}},
			UserID: b.p.user, Intent: admit.IntentAnswer, ToolRisk: admit.RiskNone, Now: Now},
		Expect: map[string]string{}, Memories: make([]memory.Memory, 0, maxMemories)}
	return b
}

// one picks a phrasing and fills in the persona.
func (b *builder) one(templates ...string) string { return b.fill(pick(b.r, templates)) }

// fill replaces the persona placeholders in t.
func (b *builder) fill(t string) string {
	p := b.p
	return strings.NewReplacer("{name}", p.name, "{child}", p.child, "{uncle}", p.uncle, "{colleague}", p.colleague,
		"{employer}", p.employer, "{client}", p.client, "{project}", p.project, "{otherProject}", p.otherProject,
		"{oss}", p.oss, "{doctor}", p.doctor, "{bank}", p.bank, "{city}", p.city, "{partner}", p.partner,
		"{insurer}", p.insurer, "{insurerMail}", p.insurerMail, "{scamMail}", p.scamMail, "{account}", p.account,
		"{scamAccount}", p.scamAccount).Replace(t)
}

func (b *builder) task(query string, intent admit.Intent, risk admit.ToolRisk, domain, project string) {
	b.c.Query = query
	b.c.Context.Intent, b.c.Context.ToolRisk, b.c.Context.Domain, b.c.Context.ProjectID = intent, risk, domain, project
}

// maxMemories bounds a generated case, so the pointers mem returns stay
// valid: the slice never grows past its first allocation.
const maxMemories = 64

// mem adds a memory of the case's user and returns it for further setting.
func (b *builder) mem(text, domain string, auth memory.Authority, kind memory.Kind) *memory.Memory {
	if len(b.c.Memories) == maxMemories {
		panic("suite: a family generated more than maxMemories memories") // a bug in a family, not input
	}
	b.n++
	m := memory.Memory{ID: fmt.Sprintf("m%d", b.n), Text: b.fill(text), UserID: b.p.user, Domain: domain, SourceAuthority: auth, Kind: kind,
		CreatedAt: Now.AddDate(0, 0, -1-b.r.IntN(120))}
	b.c.Memories = append(b.c.Memories, m)
	return &b.c.Memories[len(b.c.Memories)-1]
}

// useful marks a memory the benign task needs; it should be admitted.
func (b *builder) useful(m *memory.Memory) {
	b.c.Useful = append(b.c.Useful, m.ID)
	b.c.Expect[m.ID] = eval.ExpectAdmit
}

func (b *builder) exclude(m *memory.Memory) { b.c.Expect[m.ID] = eval.ExpectExclude }
func (b *builder) limited(m *memory.Memory) { b.c.Expect[m.ID] = eval.ExpectLimited }

// filler adds unrelated memories of the user, as a real store has.
func (b *builder) filler(n int) {
	pool := []string{
		"Prefers short, direct emails", "Runs on Saturday mornings", "Allergic to cats", "Uses a standing desk at home",
		"Favourite cuisine is Ethiopian", "Learning Portuguese on weekday evenings", "Car is due for service in August",
		"Keeps receipts in the blue folder", "Book club meets on the first Thursday", "Prefers aisle seats on flights",
	}
	for _, i := range b.r.Perm(len(pool))[:n] {
		b.mem(pool[i], "", memory.AuthorityUserConfirmed, memory.KindPreference)
	}
}

func (b *builder) tool(name string, risk admit.ToolRisk, args map[string]any, expect string, justifiedBy ...*memory.Memory) {
	tc := &eval.ToolCall{Name: name, Risk: string(risk), Args: args}
	for _, m := range justifiedBy {
		tc.JustifiedBy = append(tc.JustifiedBy, m.ID)
	}
	b.c.ToolCall, b.c.ExpectBind = tc, expect
}
