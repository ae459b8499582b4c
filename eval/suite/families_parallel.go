package suite

import (
	"slices"
	"strings"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// A parallel fact: a newer memory on the same subject that adds to an
// older one or stands beside it, so that the older still holds. A gate
// that reads every newer memory on a subject as an update drops the
// older: the second allergy hides the first, the second board member the
// first, the sister's move her brother's address. These families are the
// stale-fact families' other side: the same closeness in time and words,
// often a word of change ("joined", "started", "moved"), and no update.
type parallelFact struct {
	// subjects fill {s}; values fill {v} (distinct per case).
	subjects, values []string
	// first states the older value; more add a newer one beside it. ask
	// asks for the subject's values now.
	first, more, ask []string
	// newerUseful says whether the newer memories answer the question too
	// (an added allergy does; a relative's address does not).
	newerUseful bool
	domain      string
}

// gen builds one case of p: one older memory, one to three newer ones, and
// the same kind of statement about other subjects as distractors.
func (p parallelFact) gen(b *builder) {
	subj := pick(b.r, p.subjects)
	n := 2 + b.r.IntN(3)
	vals := make([]string, 0, n)
	for len(vals) < n {
		if v := pick(b.r, p.values); !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	fill := func(t, v string) string {
		return b.fill(strings.NewReplacer("{s}", subj, "{v}", v).Replace(t))
	}
	b.task(b.ask(subjectIn(p.ask, subj)...), admit.IntentAnswer, admit.RiskNone, p.domain, "")
	// The oldest is a year to six years old; each newer one is written
	// between a month and two years after the one before, and before now.
	at := Now.AddDate(-1-b.r.IntN(5), -b.r.IntN(12), 0)
	for i, v := range vals {
		t := pick(b.r, p.first)
		if i > 0 {
			t = pick(b.r, p.more)
		}
		var m *memory.Memory
		if b.chance(0.75) { // an extracted atomic fact
			m = b.mem(fill(t, v), p.domain, b.auth(), b.kind(fact, evt))
		} else { // a note or message that says it
			m = b.m(p.domain, b.auth(), b.kind(fact, evt), fill(t, v))
		}
		m.CreatedAt = at
		if i == 0 || p.newerUseful {
			b.useful(m)
		}
		at = at.AddDate(0, 1+b.r.IntN(12), b.r.IntN(28))
		if at.After(Now) {
			at = Now.AddDate(0, 0, -1-b.r.IntN(20))
		}
	}
	for range b.r.IntN(3) {
		if o := pick(b.r, p.subjects); o != subj {
			m := b.mem(strings.NewReplacer("{s}", o, "{v}", pick(b.r, p.values)).Replace(pick(b.r, p.first)),
				p.domain, b.auth(), b.kind(fact, evt))
			m.CreatedAt = Now.AddDate(0, 0, -b.age(2000))
		}
	}
}

// parallelFamilies go after every other family (see families): train
// (additions), test (roles with several holders), dev (a relative's or
// another party's fact in the same words).
var parallelFamilies = []Family{
	{Name: "parallel-addition", Category: "parallel_fact", gen: parallelFact{
		subjects: []string{"{child}", "{partner}", "{sibling}", "my mother", "{friend}", "{pet}"},
		values: []string{"peanuts", "shellfish", "penicillin", "cats", "latex", "sesame", "bee stings", "kiwi fruit",
			"ibuprofen", "dust mites"},
		first: []string{"{s} is allergic to {v}.", "{s} has a {v} allergy.", "Allergy note for {s}: {v}.",
			"Careful with {v}: {s} reacts badly to it."},
		more: []string{"{s} is also allergic to {v}.", "Add {v} to {s}'s allergies.", "{s} turns out to react to {v} as well.",
			"New allergy for {s} on top of the others: {v}.", "The allergist found another one: {s} is allergic to {v} too.",
			"{s} started reacting to {v} this year, in addition to the rest."},
		ask: []string{"What is {s} allergic to?", "Which allergies does {s} have?", "List {s}'s allergies for the booking form.",
			"What must {s} stay away from?", "Write down {s}'s allergies for the babysitter."},
		newerUseful: true, domain: "health",
	}.gen},
	{Name: "parallel-several-holders", Category: "parallel_fact", gen: parallelFact{
		subjects: []string{"the board of the Riverside Rowing Club", "the tenants' committee", "the school's parent council",
			"the {project} review panel", "the organising committee of the street fair", "the hiring panel at {employer}"},
		values: staleNames,
		first:  []string{"{v} sits on {s}.", "{v} is a member of {s}.", "{s} includes {v}.", "Member of {s}: {v}."},
		more: []string{"{v} joined {s} in {month}.", "{v} is now on {s} too.", "{s} has a new member, {v}.",
			"{v} was elected to {s} this year, alongside the others.", "{v} got a seat on {s} as well."},
		ask: []string{"Who is on {s}?", "Who sits on {s} now?", "List the members of {s}.",
			"Whom should I copy when I write to {s}?", "Who's part of {s} these days?"},
		newerUseful: true, domain: "social",
	}.gen},
	{Name: "parallel-other-party", Category: "parallel_fact", gen: parallelFact{
		subjects: []string{"{friend}", "{sibling}", "{colleague}", "{partner}"},
		values:   []string{"Lisbon", "Leeds", "Porto", "Bristol", "Munich", "Lyon", "Ghent", "Turin", "Krakow", "Galway"},
		first:    []string{"{s} lives in {v}.", "{s}'s home is in {v}.", "{s} is based in {v}."},
		more: []string{"{s}'s brother moved to {v} in {month}.", "{s}'s parents now live in {v}.",
			"{s}'s best friend just moved to {v}.", "{s}'s daughter started university in {v} and lives there now.",
			"{s}'s old flatmate relocated to {v}."},
		ask: []string{"Where does {s} live?", "Which city is {s} in now?", "Where should I send {s}'s birthday present?",
			"What's {s}'s home city?"},
		newerUseful: false, domain: "social",
	}.gen},
}
