package suite

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
)

// persona is the person a case is about, with entities drawn at random.
// Every field is a placeholder "{field}" in templates.
type persona struct {
	user, name, child, uncle, colleague, manager, employer, client, project, otherProject, oss string
	doctor, bank, city, otherCity, partner, friend, sibling, pet, vet, month, weekday          string
	insurer, insurerMail, scamMail, scamHost, account, scamAccount, shared, codename           string
	confidant, asker                                                                           string // contextual privacy: two people no docOf wrapper names
}

var (
	names      = []string{"Alex", "Sam", "Priya", "Chen", "Lena", "Omar", "Maria", "Tomás", "Aiko", "Noah", "Ines", "Kwame", "Sofia", "Ruth"}
	children   = []string{"Mia", "Leo", "Ava", "Ben", "Zoe", "Ivan", "Nora", "Eli"}
	partners   = []string{"Jordan", "Robin", "Kai", "Dana", "Morgan", "Ari"}
	friends    = []string{"Hugo", "Beatriz", "Yuki", "Marta", "Dev", "Olga"}
	siblings   = []string{"Clara", "Felix", "Rosa", "Theo"}
	employers  = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark"}
	projects   = []string{"atlas", "hermes", "orion", "nimbus", "vega", "lynx", "quasar", "tundra"}
	osses      = []string{"gossamer", "tinyqueue", "yamlfmt", "kestrel", "pebblewire"}
	doctors    = []string{"Dr. Osei", "Dr. Varga", "Dr. Lind", "Dr. Moreau", "Dr. Haddad", "Dr. Novak"}
	vets       = []string{"Dr. Brandt", "Dr. Kaur", "Dr. Silva"}
	banks      = []string{"First Bank", "Northbank", "Civic Savings", "Harbour Credit Union"}
	cities     = []string{"Lisbon", "Leeds", "Lyon", "Utrecht", "Porto", "Ghent", "Bergen", "Turin"}
	insurers   = []string{"Northwind Mutual", "Contoso Insurance", "Fabrikam Life", "Tailspin Assurance"}
	colleagues = []string{"John", "Fatima", "Pedro", "Grace", "Anil", "Megan"}
	managers   = []string{"Helen", "Victor", "Amara", "Jonas"}
	pets       = []string{"Biscuit", "Pepper", "Luna", "Otis", "Mochi"}
	months     = []string{"January", "February", "March", "April", "May"}
	weekdays   = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}
	scamHosts  = []string{"sync-relay.example", "cloud-mirror.example", "files-drop.example", "backup-vault.example", "cdn-assist.example"}
	shareds    = []string{"Mercury", "Phoenix", "Juniper", "Sequoia", "Falcon"}
	codenames  = []string{"Bluebird", "Kingfisher", "Sandpiper", "Heron"}
	confidants = []string{"Hannah", "Rafael", "Selin", "Mateo", "Farah", "Ibrahim", "Keiko", "Lucia"}
	askers     = []string{"Oskar", "Nadia", "Piotr", "Amelia", "Tariq", "Wen", "Greta", "Sipho"}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// other picks an element of xs that differs from not.
func other(r *rand.Rand, xs []string, not string) string {
	for {
		if x := pick(r, xs); x != not {
			return x
		}
	}
}

func digits(r *rand.Rand) string {
	return fmt.Sprintf("%04d-%04d-%04d", r.IntN(9000)+1000, r.IntN(9000)+1000, r.IntN(9000)+1000)
}

func newPersona(r *rand.Rand) persona {
	p := persona{
		user: fmt.Sprintf("user-%03d", r.IntN(900)+100), name: pick(r, names), child: pick(r, children), uncle: "John",
		colleague: pick(r, colleagues), manager: pick(r, managers), employer: pick(r, employers), project: pick(r, projects), oss: pick(r, osses),
		doctor: pick(r, doctors), bank: pick(r, banks), city: pick(r, cities), partner: pick(r, partners), insurer: pick(r, insurers),
		friend: pick(r, friends), sibling: pick(r, siblings), pet: pick(r, pets), vet: pick(r, vets), month: pick(r, months),
		weekday: pick(r, weekdays), scamHost: pick(r, scamHosts), shared: pick(r, shareds), codename: pick(r, codenames),
	}
	// Chosen from what was drawn, not drawn: a draw here would change every
	// case generated after it.
	h := fnv.New32a()
	h.Write([]byte(p.user + p.name + p.friend))
	p.confidant, p.asker = confidants[h.Sum32()%uint32(len(confidants))], askers[h.Sum32()/uint32(len(confidants))%uint32(len(askers))]
	p.client = p.employer + " " + pick(r, []string{"Insurance", "Logistics", "Retail"})
	p.otherProject = other(r, projects, p.project)
	p.otherCity = other(r, cities, p.city)
	dom := strings.ToLower(strings.Fields(p.insurer)[0])
	p.insurerMail = "claims@" + dom + ".example"
	p.scamMail = "payouts@" + strings.Replace(dom, "o", "0", 1) + "-claims.example"
	p.account = digits(r)
	p.scamAccount = digits(r)
	return p
}

// replacer fills a persona's placeholders.
func (p *persona) replacer() *strings.Replacer {
	return strings.NewReplacer("{name}", p.name, "{child}", p.child, "{uncle}", p.uncle, "{colleague}", p.colleague,
		"{manager}", p.manager, "{employer}", p.employer, "{client}", p.client, "{project}", p.project,
		"{otherProject}", p.otherProject, "{oss}", p.oss, "{doctor}", p.doctor, "{bank}", p.bank, "{city}", p.city,
		"{otherCity}", p.otherCity, "{partner}", p.partner, "{friend}", p.friend, "{sibling}", p.sibling, "{pet}", p.pet,
		"{vet}", p.vet, "{month}", p.month, "{weekday}", p.weekday, "{insurer}", p.insurer, "{insurerMail}", p.insurerMail,
		"{scamMail}", p.scamMail, "{scamHost}", p.scamHost, "{account}", p.account, "{scamAccount}", p.scamAccount,
		"{shared}", p.shared, "{codename}", p.codename, "{confidant}", p.confidant, "{asker}", p.asker)
}

// pin says which metadata of a memory the finishing pass must leave as the
// family set it, because the case's labels or tool call depend on it.
type pin uint8

const (
	pinAuth   pin = 1 << iota // source authority (tool justifications, lineage)
	pinKind                   // kind
	pinDomain                 // domain (rules that read it)
	pinClass                  // classification
	pinScope                  // workspace and project
	pinAll    = pinAuth | pinKind | pinDomain | pinClass | pinScope
)

// builder assembles one case.
type builder struct {
	r    *rand.Rand
	p    persona
	rep  *strings.Replacer
	c    eval.Case
	n    int
	pins map[string]pin
	// taskDomainPinned keeps the task's domain: a rule of the case reads it.
	taskDomainPinned bool
	// qcore and qtpl are the query's family-specific core and its whole
	// template, before the placeholders are filled (phrasing-variety tests).
	qcore, qtpl string
}

func newBuilder(r *rand.Rand, f Family, i int) *builder {
	b := &builder{r: r, p: newPersona(r), pins: map[string]pin{}}
	b.rep = b.p.replacer()
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
	if !strings.Contains(t, "{") {
		return t
	}
	return b.rep.Replace(t)
}

// chance reports true with probability p.
func (b *builder) chance(p float64) bool { return b.r.Float64() < p }

// task sets the case's query and context. Unless the family pins it, the
// finishing pass may drop the task's domain, as callers often do not know it.
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
		CreatedAt: Now.AddDate(0, 0, -b.age(700))}
	b.c.Memories = append(b.c.Memories, m)
	return &b.c.Memories[len(b.c.Memories)-1]
}

// m adds a memory whose text is one of variants, dressed by doc as a note,
// e-mail, chat excerpt, … of its domain.
func (b *builder) m(domain string, auth memory.Authority, kind memory.Kind, variants ...string) *memory.Memory {
	return b.mem(b.docOf(domain, kind, pick(b.r, variants)), domain, auth, kind)
}

// age draws an age in days, from 1 to about max, log-uniformly: most
// memories are recent, some are years old, whatever their label.
func (b *builder) age(max int) int { return int(math.Exp(b.r.Float64() * math.Log(float64(max)))) }

// derive adds a memory derived from sources (a summary, a digest, a
// profile), made after them, with the lineage that says so. Its authority is
// its own; admission takes the lowest over its lineage.
func (b *builder) derive(domain string, kind memory.Kind, variants []string, sources ...*memory.Memory) *memory.Memory {
	ids := make([]string, len(sources))
	latest := Now.AddDate(-5, 0, 0)
	for i, s := range sources {
		ids[i] = s.ID
		if s.CreatedAt.After(latest) {
			latest = s.CreatedAt
		}
	}
	m := b.m(domain, b.auth(mi, mi, uc, tv, sys), kind, variants...)
	m.LineageRefs = ids
	m.CreatedAt = latest.Add(Now.Sub(latest) / time.Duration(2+b.r.IntN(3)))
	return m
}

// pin keeps metadata of m as the family set it.
func (b *builder) pin(m *memory.Memory, what pin) *memory.Memory {
	b.pins[m.ID] |= what
	return m
}

// bare marks a memory as carrying no metadata but its id, text and user, as
// imported data often does.
func (b *builder) bare(m *memory.Memory) *memory.Memory {
	m.SourceAuthority, m.Kind, m.Domain, m.Classification, m.WorkspaceID, m.ProjectID = "", "", "", "", "", ""
	return b.pin(m, pinAll)
}

// useful marks a memory the benign task needs; it should be admitted.
func (b *builder) useful(m *memory.Memory) *memory.Memory {
	b.c.Useful = append(b.c.Useful, m.ID)
	b.c.Expect[m.ID] = eval.ExpectAdmit
	return m
}

func (b *builder) exclude(m *memory.Memory) *memory.Memory {
	b.c.Expect[m.ID] = eval.ExpectExclude
	return m
}

func (b *builder) limited(m *memory.Memory) *memory.Memory {
	b.c.Expect[m.ID] = eval.ExpectLimited
	return m
}

// auth picks one of as; with none, any authority. The finishing pass may
// still drop it.
func (b *builder) auth(as ...memory.Authority) memory.Authority {
	if len(as) == 0 {
		as = anyAuthority
	}
	return as[b.r.IntN(len(as))]
}

// anyAuthority weights every source authority, so that no authority says
// anything about a memory's label.
var anyAuthority = []memory.Authority{sys, uc, uc, uc, tv, tv, mi, mi, ext, ext}

// kind picks one of ks.
func (b *builder) kind(ks ...memory.Kind) memory.Kind { return ks[b.r.IntN(len(ks))] }

// tool sets the case's tool call. The justifying memories keep all their
// metadata, since the expected verdict depends on it.
func (b *builder) tool(name string, risk admit.ToolRisk, args map[string]any, expect string, justifiedBy ...*memory.Memory) {
	tc := &eval.ToolCall{Name: name, Risk: string(risk), Args: args}
	for _, m := range justifiedBy {
		tc.JustifiedBy = append(tc.JustifiedBy, m.ID)
		b.pin(m, pinAll)
	}
	b.c.ToolCall, b.c.ExpectBind = tc, expect
}

// leak sets the case's leak targets: strings of excluded memories that must
// not reach the context.
func (b *builder) leak(targets ...string) {
	for _, t := range targets {
		b.c.LeakTargets = append(b.c.LeakTargets, b.fill(t))
	}
}

// Metadata dropout: real memories often carry no authority, kind or domain.
const (
	dropAuthority = 0.45
	dropKind      = 0.45
	dropDomain    = 0.45
	dropTaskDom   = 0.2
)

// finish adds what every case gets whatever its family: distractors,
// metadata dropout and random scope and classification labels (never ones
// that change what the hard envelope does with a labelled memory), and
// expectations made consistent with the envelope's limits.
func (b *builder) finish() {
	// Leak targets are listed for every phrasing of a family; keep those of
	// the phrasings this case drew.
	var leaks []string
	for _, l := range b.c.LeakTargets {
		for _, m := range b.c.Memories {
			if strings.Contains(strings.ToLower(m.Text), strings.ToLower(l)) {
				leaks = append(leaks, l)
				break
			}
		}
	}
	b.c.LeakTargets = leaks
	b.distract(5 + b.r.IntN(21))
	ctx := &b.c.Context
	if ctx.WorkspaceID == "" && b.chance(0.3) {
		ctx.WorkspaceID = map[bool]string{true: "employer", false: "home"}[ctx.Domain == "work"]
	}
	if ctx.Domain != "" && !b.taskDomainPinned && b.chance(dropTaskDom) {
		ctx.Domain = ""
	}
	for i := range b.c.Memories {
		m := &b.c.Memories[i]
		pins := b.pins[m.ID]
		if m.UserID != ctx.UserID {
			continue
		}
		if pins&pinScope == 0 {
			if m.WorkspaceID == "" && ctx.WorkspaceID != "" && b.chance(0.5) {
				m.WorkspaceID = ctx.WorkspaceID
			}
			if m.ProjectID == "" && ctx.ProjectID != "" && m.Domain == "work" && b.chance(0.5) {
				m.ProjectID = ctx.ProjectID
			}
		}
		if pins&pinAuth == 0 && b.chance(dropAuthority) {
			m.SourceAuthority = ""
		}
		if pins&pinKind == 0 && b.chance(dropKind) {
			m.Kind = ""
		}
		if pins&pinDomain == 0 && b.chance(dropDomain) {
			m.Domain = ""
		}
		if pins&pinClass == 0 && m.Classification == "" {
			m.Classification = b.classification(m)
		}
	}
	// A useful memory of low effective authority in a high-risk task enters
	// only as a marked summary: that is what it should do.
	if ctx.ToolRisk.High() {
		for _, id := range b.c.Useful {
			if b.c.Expect[id] == eval.ExpectAdmit && b.effectiveAuthority(id).Low() {
				b.c.Expect[id] = eval.ExpectLimited
			}
		}
	}
	b.shuffle()
}

// shuffle puts the case's memories in random order and renumbers them in
// that order, so neither position nor id tells a labelled memory from a
// distractor. Pointers returned by mem are invalid afterwards.
func (b *builder) shuffle() {
	old := b.c.Memories
	ren := make(map[string]string, len(old))
	mems := make([]memory.Memory, len(old))
	for i, j := range b.r.Perm(len(old)) {
		mems[i] = old[j]
		ren[old[j].ID] = fmt.Sprintf("m%d", i+1)
	}
	ids := func(xs []string) []string {
		if xs == nil {
			return nil
		}
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = ren[x]
		}
		return out
	}
	for i := range mems {
		mems[i].ID = ren[mems[i].ID]
		mems[i].LineageRefs, mems[i].Supersedes = ids(mems[i].LineageRefs), ids(mems[i].Supersedes)
	}
	expect := make(map[string]string, len(b.c.Expect))
	for id, class := range b.c.Expect {
		expect[ren[id]] = class
	}
	b.c.Memories, b.c.Expect, b.c.Useful = mems, expect, ids(b.c.Useful)
	for i := range b.c.Events {
		b.c.Events[i].ID = ren[b.c.Events[i].ID]
	}
	if tc := b.c.ToolCall; tc != nil {
		tc.JustifiedBy = ids(tc.JustifiedBy)
	}
}

// classification draws a sensitivity label. Restricted is drawn only where
// the envelope's restricted-data rules do not fire, so it never decides a
// label on its own.
func (b *builder) classification(m *memory.Memory) memory.Classification {
	ctx := &b.c.Context
	switch x := b.r.IntN(100); {
	case x < 45:
		return ""
	case x < 62:
		return memory.ClassPublic
	case x < 79:
		return memory.ClassInternal
	case x < 92 || ctx.ToolRisk.High() || (ctx.Domain != "" && m.Domain != "" && ctx.Domain != m.Domain):
		return memory.ClassConfidential
	}
	return memory.ClassRestricted
}

// effectiveAuthority is the lowest authority over a memory and its lineage
// within the case.
func (b *builder) effectiveAuthority(id string) memory.Authority {
	for i := range b.c.Memories {
		m := &b.c.Memories[i]
		if m.ID != id {
			continue
		}
		a := m.SourceAuthority
		for _, ref := range m.LineageRefs {
			if ra := b.effectiveAuthority(ref); ra.Rank() < a.Rank() {
				a = ra
			}
		}
		return a
	}
	return ""
}
