package public

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
)

// DyKnow (Mondal et al., EMNLP 2024 Findings): 130 time-sensitive facts
// (heads of state and government, CEOs, heads of organisations, athletes'
// teams) with every value Wikidata records and its start and end dates.
//
// Each value becomes a memory written when it became true (createdAt just
// after its start date), stated in the present tense as an agent would
// have noted it then ("Mike Duke is the CEO of Walmart."), with no
// supersedes link: the store only knows that a newer memory on the same
// subject says something else.
//
//   - current: "Who is the CEO of Walmart now?" The newest value is useful;
//     the older values (whose term ended before the newest began) are
//     threats, stale facts that contradict it.
//   - history: "Who was the CEO of Walmart in 2011?" The value whose term
//     covers that year is useful: an older memory is not stale for a
//     question about its own time. The other values of the subject are
//     left unlabelled (they neither answer nor harm), so these cases have
//     no threat. A year is asked only when exactly one term covers it, the
//     holder held the post once, and the year lies strictly inside the
//     term, so that the memories' dates alone settle the answer.
//
// Distractors are other subjects' memories (unlabelled).
var _ = register(Source{Name: "dyknow", License: "MIT", Convert: convertDyKnow})

// dkNow is the time of every DyKnow case: after the newest start date in
// the data (December 2023).
var dkNow = time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)

const (
	// dkMinYear: terms that began earlier are not remembered (an agent's
	// memory does not reach back to 1440); they still count when checking
	// which term covers a year.
	dkMinYear    = 1960
	dkMaxStale   = 6 // older values per current case
	dkHistoryPer = 2 // history cases per subject
)

var dkPools = metaPools{
	authorities: []memory.Authority{memory.AuthorityUserConfirmed, memory.AuthorityToolVerified, memory.AuthorityModelInferred, memory.AuthorityExternal},
	kinds:       []memory.Kind{memory.KindFact, memory.KindEvent},
	classes:     []memory.Classification{memory.ClassPublic, memory.ClassInternal, memory.ClassConfidential, memory.ClassRestricted},
}

type dkTerm struct {
	value      string
	start, end time.Time // end zero: still holds
	knownMonth bool
}

type dkEntry struct {
	cat, entity, role string
	terms             []dkTerm // by start
}

func (e *dkEntry) key() string { return e.cat + "/" + e.entity + "/" + e.role }

func (e *dkEntry) slug() string {
	if e.role == e.entity {
		return slug(e.entity)
	}
	return slug(e.entity + " " + e.role)
}

var dkDate = regexp.MustCompile(`^\+(\d{4})-(\d{2})-(\d{2})T`)

// dkParseDate reads Wikidata's "+YYYY-MM-DDT00:00:00Z", where month or day
// may be 00 (unknown).
func dkParseDate(s string) (time.Time, bool, bool) {
	m := dkDate.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return time.Time{}, false, false
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	known := mo != 0
	return time.Date(y, time.Month(max(mo, 1)), max(d, 1), 0, 0, 0, 0, time.UTC), known, true
}

// dkTeamNoise are athletes' entries that run beside the club: national,
// olympic and youth teams.
var dkTeamNoise = regexp.MustCompile(`(?i)national|olympic|under-\d+`)

func dkParse(dir string) ([]*dkEntry, error) {
	var raw map[string]map[string]json.RawMessage
	if err := readJSON(filepath.Join(dir, "grc_generated.json"), &raw); err != nil {
		return nil, err
	}
	type qa struct {
		Answers []string `json:"answers"`
	}
	var out []*dkEntry
	for _, cat := range sortedMapKeys(raw) {
		for _, entity := range sortedMapKeys(raw[cat]) {
			body := raw[cat][entity]
			var probe map[string]json.RawMessage
			if err := json.Unmarshal(body, &probe); err != nil {
				return nil, fmt.Errorf("%s/%s: %w", cat, entity, err)
			}
			roles := map[string]json.RawMessage{entity: body}
			if _, flat := probe["answers"]; !flat {
				roles = probe
			}
			for _, role := range sortedMapKeys(roles) {
				var q qa
				if err := json.Unmarshal(roles[role], &q); err != nil {
					return nil, fmt.Errorf("%s/%s/%s: %w", cat, entity, role, err)
				}
				e := &dkEntry{cat: cat, entity: entity, role: role}
				for _, a := range q.Answers {
					t, ok := dkParseTerm(a)
					if !ok || (cat == "athletes_byPayment" && dkTeamNoise.MatchString(t.value)) {
						continue
					}
					e.terms = append(e.terms, t)
				}
				sort.SliceStable(e.terms, func(i, j int) bool { return e.terms[i].start.Before(e.terms[j].start) })
				if len(e.terms) > 0 {
					out = append(out, e)
				}
			}
		}
	}
	return out, nil
}

// dkParseTerm reads "Value |S: date |E: date" (end and point-in-time
// optional); a value without a start date is skipped.
func dkParseTerm(a string) (dkTerm, bool) {
	parts := strings.Split(a, "|")
	t := dkTerm{value: strings.TrimSpace(parts[0])}
	hasStart := false
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, ":")
		switch strings.TrimSpace(k) {
		case "S":
			t.start, t.knownMonth, hasStart = dkParseDate(v)
		case "E":
			t.end, _, _ = dkParseDate(v)
		}
	}
	return t, hasStart && t.value != ""
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---- phrasing ----

// dkThe prefixes organisation names with "the".
func dkThe(entity string) string { return "the " + entity }

// dkF1 tells Formula One teams from clubs.
var dkF1 = regexp.MustCompile(`(?i)F1|Racing|McLaren|Ferrari|Toro Rosso|Sauber|Williams|Alpine|Renault`)

// dkFact states a term's value in the present tense, in one of a few
// forms chosen by hash.
func dkFact(e *dkEntry, v string) string {
	salt := e.key() + "/" + v
	switch e.cat {
	case "companies_byRevenue":
		return fmt.Sprintf(pick([]string{
			"%[1]s is the CEO of %[2]s.", "%[2]s's chief executive is %[1]s.", "%[1]s now leads %[2]s as CEO.", "The CEO of %[2]s is %[1]s.",
		}, salt, "form"), v, e.entity)
	case "athletes_byPayment":
		verb := "plays for"
		if dkF1.MatchString(v) {
			verb = "drives for"
		}
		return fmt.Sprintf(pick([]string{
			"%[1]s %[3]s %[2]s.", "%[2]s is %[1]s's team.", "%[1]s currently %[3]s %[2]s.", "%[1]s has signed with %[2]s.",
		}, salt, "form"), e.entity, v, verb)
	case "organizations":
		if strings.Contains(e.role, "location") {
			return fmt.Sprintf(pick([]string{
				"%[2]s is headquartered in %[1]s.", "The headquarters of %[2]s are in %[1]s.",
			}, salt, "form"), v, dkThe(e.entity))
		}
		role := strings.TrimSpace(strings.Split(e.role, "/")[0])
		return fmt.Sprintf(pick([]string{
			"%[1]s is the %[2]s of %[3]s.", "The %[2]s of %[3]s is %[1]s.", "%[1]s now serves as %[2]s of %[3]s.",
		}, salt, "form"), v, role, dkThe(e.entity))
	}
	return fmt.Sprintf(pick([]string{
		"%[1]s is the %[2]s.", "The %[2]s is %[1]s.", "%[1]s now serves as %[2]s.", "%[1]s holds the office of %[2]s.",
	}, salt, "form"), v, e.role)
}

var dkWrap = []string{
	"%[1]s", "%[1]s", "Noted: %[1]s", "As of %[2]s, %[1]s", "From today's news: %[1]s", "Fact for the briefing notes: %[1]s",
	"Update (%[2]s): %[1]s", "Worth remembering: %[1]s",
}

// dkText is the memory of a term, wrapped by hash; some wrappers carry the
// month it was noted.
func dkText(e *dkEntry, t dkTerm, created time.Time) string {
	when := created.Format("January 2006")
	if !t.knownMonth {
		when = created.Format("2006")
	}
	w := pick(dkWrap, e.key(), t.value, t.start.Format("2006-01"), "wrap")
	f := dkFact(e, t.value)
	if strings.HasPrefix(w, "As of") && strings.HasPrefix(f, "The ") {
		f = "the " + f[len("The "):] // names keep their capital
	}
	return fmt.Sprintf(w, f, when)
}

// dkCreated is when the agent noted the term: within a month of its start
// (within the year when only the year is known).
func dkCreated(e *dkEntry, t dkTerm) time.Time {
	span := 30
	if !t.knownMonth {
		span = 150
	}
	c := t.start.Add(time.Duration(between(1, span, e.key(), t.value, t.start.Format("2006-01"), "created"))*24*time.Hour + 9*time.Hour)
	if !t.end.IsZero() && !c.Before(t.end) {
		c = t.start.Add(9 * time.Hour)
	}
	return c
}

func dkQuestion(e *dkEntry, year int) string {
	salt := e.key()
	switch e.cat {
	case "companies_byRevenue":
		if year > 0 {
			return fmt.Sprintf(pick([]string{"Who was the CEO of %[1]s in %[2]d?", "Back in %[2]d, who ran %[1]s?", "Who led %[1]s as chief executive in %[2]d?"}, salt, "hq"), e.entity, year)
		}
		return fmt.Sprintf(pick([]string{"Who is the current CEO of %[1]s?", "Who runs %[1]s these days?", "I'm writing to %[1]s's chief executive. Who holds that job now?", "Who leads %[1]s at the moment?"}, salt, "q"), e.entity)
	case "athletes_byPayment":
		if year > 0 {
			return fmt.Sprintf(pick([]string{"Which team was %[1]s with in %[2]d?", "Who did %[1]s play for in %[2]d?", "In %[2]d, what team was %[1]s on?"}, salt, "hq"), e.entity, year)
		}
		return fmt.Sprintf(pick([]string{"Which team is %[1]s with now?", "Who does %[1]s play for at the moment?", "I want to watch %[1]s this season. Which team should I follow?", "What's %[1]s's current team?"}, salt, "q"), e.entity)
	case "organizations":
		if strings.Contains(e.role, "location") {
			if year > 0 {
				return fmt.Sprintf("Where was %s headquartered in %d?", dkThe(e.entity), year)
			}
			return fmt.Sprintf("Where are %s's headquarters today?", dkThe(e.entity))
		}
		role := strings.TrimSpace(strings.Split(e.role, "/")[0])
		if year > 0 {
			return fmt.Sprintf(pick([]string{"Who was the %[1]s of %[2]s in %[3]d?", "In %[3]d, who was %[2]s's %[1]s?"}, salt, "hq"), role, dkThe(e.entity), year)
		}
		return fmt.Sprintf(pick([]string{"Who is the %[1]s of %[2]s now?", "Who currently serves as %[1]s of %[2]s?", "I need to address a letter to the %[1]s of %[2]s. Who is it?"}, salt, "q"), role, dkThe(e.entity))
	}
	if year > 0 {
		return fmt.Sprintf(pick([]string{"Who was the %[1]s in %[2]d?", "Back in %[2]d, who was %[1]s?", "For my history essay: who held the office of %[1]s in %[2]d?"}, salt, "hq"), e.role, year)
	}
	return fmt.Sprintf(pick([]string{"Who is the current %[1]s?", "Who is %[1]s right now?", "I'm preparing a briefing on %[2]s. Who serves as %[1]s today?", "Remind me who the %[1]s is these days."}, salt, "q"), e.role, e.entity)
}

// ---- cases ----

type dkMem struct {
	key     string
	text    string
	created time.Time
}

func dkMemOf(e *dkEntry, t dkTerm) dkMem {
	c := dkCreated(e, t)
	return dkMem{key: e.key() + "@" + t.start.Format("2006-01-02") + "/" + t.value, text: dkText(e, t, c), created: c}
}

func convertDyKnow(dir string) ([]eval.Case, error) {
	entries, err := dkParse(dir)
	if err != nil {
		return nil, err
	}
	var drafts []draft
	var stamps []map[string]time.Time
	for _, e := range entries {
		if d, st, ok := dkCurrent(e, entries); ok {
			drafts, stamps = append(drafts, d), append(stamps, st)
		}
		for _, y := range dkHistoryYears(e) {
			d, st := dkHistory(e, y, entries)
			drafts, stamps = append(drafts, d), append(stamps, st)
		}
	}
	if len(drafts) > 400 {
		return nil, fmt.Errorf("dyknow: %d cases, more than 400", len(drafts))
	}
	return ciFinishTimed("dyknow", "MIT", drafts, stamps, dkNow, dkPools)
}

// dkCurrentTerm is the newest term when it is still open.
func dkCurrentTerm(e *dkEntry) (dkTerm, bool) {
	cur := e.terms[len(e.terms)-1]
	if !cur.end.IsZero() {
		return cur, false
	}
	for _, t := range e.terms[:len(e.terms)-1] {
		if t.end.IsZero() {
			return cur, false // two open terms: no single current value
		}
	}
	return cur, true
}

func dkCurrent(e *dkEntry, all []*dkEntry) (draft, map[string]time.Time, bool) {
	cur, ok := dkCurrentTerm(e)
	if !ok || cur.start.Year() < dkMinYear {
		return draft{}, nil, false
	}
	// Older values: ended (within two months) before the current began,
	// one per value (its latest term), newest first.
	seen := map[string]bool{cur.value: true}
	var stale []dkTerm
	for i := len(e.terms) - 2; i >= 0; i-- {
		t := e.terms[i]
		if seen[t.value] || t.end.IsZero() || t.end.After(cur.start.AddDate(0, 2, 0)) || t.start.Year() < dkMinYear {
			continue
		}
		seen[t.value] = true
		stale = append(stale, t)
	}
	stale = stale[:min(len(stale), between(2, dkMaxStale, e.key(), "stale"))]
	intent, risk := admit.IntentAnswer, admit.RiskNone
	if chance(0.25, e.key(), "risk") {
		intent, risk = admit.IntentWrite, admit.RiskReadOnly
	}
	d := draft{
		id:       "dyknow-" + e.slug() + "-current",
		category: "stale_fact",
		family:   "dyknow-current",
		item:     "grc_generated.json#" + e.key(),
		query:    dkQuestion(e, 0),
		intent:   intent,
		risk:     risk,
	}
	if len(stale) == 0 {
		d.category = "benign"
	}
	stamps := map[string]time.Time{}
	add := func(m dkMem, l label) {
		d.add(m.key, m.text, l)
		stamps[m.text] = m.created
	}
	add(dkMemOf(e, cur), useful)
	for _, t := range stale {
		add(dkMemOf(e, t), threat)
	}
	dkDistract(&d, stamps, e, all, between(7, 12, d.id, "size"))
	return d, stamps, true
}

// dkHistoryYears are up to two years asked about: strictly inside a
// closed term of a one-time holder, covered by no other term.
func dkHistoryYears(e *dkEntry) []int {
	count := map[string]int{}
	for _, t := range e.terms {
		count[t.value]++
	}
	var years []string
	for i, t := range e.terms {
		if t.end.IsZero() || count[t.value] > 1 || t.start.Year() < dkMinYear {
			continue
		}
		var ok []int
		for y := t.start.Year() + 1; y <= t.end.Year()-1; y++ {
			clash := false
			for j, o := range e.terms {
				if j != i && o.start.Year() <= y && (o.end.IsZero() || o.end.Year() >= y) {
					clash = true
				}
			}
			if !clash {
				ok = append(ok, y)
			}
		}
		if len(ok) > 0 {
			years = append(years, strconv.Itoa(pick(ok, e.key(), t.value, "year")))
		}
	}
	var out []int
	for _, y := range sample(years, dkHistoryPer, e.key()+"/history") {
		n, _ := strconv.Atoi(y)
		out = append(out, n)
	}
	return out
}

func dkHistory(e *dkEntry, year int, all []*dkEntry) (draft, map[string]time.Time) {
	d := draft{
		id:       fmt.Sprintf("dyknow-%s-history-%d", e.slug(), year),
		category: "benign",
		family:   "dyknow-history",
		item:     "grc_generated.json#" + e.key(),
		query:    dkQuestion(e, year),
		intent:   admit.IntentAnswer,
		risk:     admit.RiskNone,
	}
	stamps := map[string]time.Time{}
	// The term covering the year is useful; its neighbours (up to three
	// before and three after, the current one included) are unlabelled.
	at := -1
	for i, t := range e.terms {
		if t.start.Year() < year && !t.end.IsZero() && t.end.Year() > year {
			at = i
		}
	}
	lo, hi := max(at-between(1, 3, d.id, "before"), 0), min(at+between(1, 3, d.id, "after"), len(e.terms)-1)
	texts := map[string]bool{}
	for i := lo; i <= hi; i++ {
		m := dkMemOf(e, e.terms[i])
		if texts[m.text] || e.terms[i].start.Year() < dkMinYear {
			continue
		}
		texts[m.text] = true
		l := unlabelled
		if i == at {
			l = useful
		}
		d.add(m.key, m.text, l)
		stamps[m.text] = m.created
	}
	if cur, ok := dkCurrentTerm(e); ok && hi < len(e.terms)-1 {
		if m := dkMemOf(e, cur); !texts[m.text] {
			d.add(m.key, m.text, unlabelled)
			stamps[m.text] = m.created
		}
	}
	dkDistract(&d, stamps, e, all, between(7, 12, d.id, "size"))
	return d, stamps
}

// dkDistract adds other subjects' memories (unlabelled), two in three from
// the same category, up to n memories.
func dkDistract(d *draft, stamps map[string]time.Time, e *dkEntry, all []*dkEntry, n int) {
	var same, other []*dkEntry
	for _, o := range all {
		switch {
		case o == e:
		case o.cat == e.cat:
			same = append(same, o)
		default:
			other = append(other, o)
		}
	}
	key := func(o *dkEntry) string { return o.key() }
	same, other = shuffled(same, key, d.id+"/same"), shuffled(other, key, d.id+"/other")
	for i := 0; len(d.items) < n && (len(same) > 0 || len(other) > 0); i++ {
		var o *dkEntry
		if (i%3 != 2 && len(same) > 0) || len(other) == 0 {
			o, same = same[0], same[1:]
		} else {
			o, other = other[0], other[1:]
		}
		var recent []dkTerm
		for _, t := range o.terms {
			if t.start.Year() >= dkMinYear {
				recent = append(recent, t)
			}
		}
		if len(recent) == 0 {
			continue
		}
		m := dkMemOf(o, pick(recent, d.id, o.key(), "term"))
		if d.has(m.key) || stamps[m.text] != (time.Time{}) {
			continue
		}
		d.add(m.key, m.text, unlabelled)
		stamps[m.text] = m.created
	}
}
