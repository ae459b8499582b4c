package suite

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// A stale fact without a link: a post, a contact or an owner changed hands
// over time and the store kept a memory of each holder, written when it
// became true, with nothing that says one replaced another. A question
// about now needs the newest; the older ones contradict it. A question
// about a year before the change needs the holder of that time, and the
// others neither answer nor harm it (unlabelled). Most memories are the
// short atomic facts a memory extractor writes; newer ones often say the
// same thing with another value ("X is the head of Y" after "Z is the head
// of Y"), sometimes announce the change ("X took over as head of Y").
// Other subjects of the same kind, stated in the same words, are there as
// distractors: the same frame with another subject is no update.
type staleRole struct {
	// subjects fill {s}; holders fill {v} (distinct per case).
	subjects []string
	holders  []string
	// same states a holder; changed announces one as new; now asks who
	// holds it today; past asks who held it in a year ({year}).
	same, changed, now, past []string
	domain                   string
	intent                   admit.Intent
}

// staleNames are holders of posts and contacts, none of the persona's.
var staleNames = []string{"Marta Ruiz", "Daniel Okafor", "Helena Brandt", "Tariq Aziz", "Ingrid Solberg", "Paolo Conti",
	"Yara Haddad", "Victor Lemaire", "Nadia Petrova", "Samuel Adeyemi", "Chloe Martin", "Ravi Menon", "Elif Yilmaz",
	"Oscar Lindqvist", "Julia Nowak", "Kenji Mori", "Fiona Walsh", "Mateo Silva", "Amina Diallo", "Lucas Weber"}

// gen builds one case of r.
func (r staleRole) gen(b *builder) {
	subj := pick(b.r, r.subjects)
	n := 2 + b.r.IntN(3) // holders over time, oldest first
	holders := make([]string, 0, n)
	for len(holders) < n {
		h := pick(b.r, r.holders)
		if !slices.Contains(holders, h) {
			holders = append(holders, h)
		}
	}
	// Start dates, oldest first, one to four years apart; the newest began
	// between a month and two years ago.
	starts := make([]time.Time, n)
	starts[n-1] = Now.AddDate(0, -1-b.r.IntN(24), -b.r.IntN(28))
	for i := n - 2; i >= 0; i-- {
		starts[i] = starts[i+1].AddDate(-1-b.r.IntN(4), -b.r.IntN(12), 0)
	}
	fill := func(t, subj, v string) string {
		return b.fill(strings.NewReplacer("{s}", subj, "{v}", v).Replace(t))
	}
	past := b.chance(0.5)
	asked := -1 // the holder a question about the past asks for
	if past {
		asked = b.r.IntN(n - 1)
		// a year strictly inside that holder's time
		from, to := starts[asked].Year()+1, starts[asked+1].Year()-1
		if from > to {
			past, asked = false, -1
		} else {
			y := from + b.r.IntN(to-from+1)
			b.task(strings.ReplaceAll(b.ask(subjectIn(r.past, subj)...), "{year}", fmt.Sprint(y)), r.intent, admit.RiskNone, r.domain, "")
		}
	}
	if !past {
		b.task(b.ask(subjectIn(r.now, subj)...), r.intent, admit.RiskNone, r.domain, "")
	}
	for i, h := range holders {
		text := fill(pick(b.r, r.same), subj, h)
		if i > 0 && b.chance(0.35) {
			text = fill(pick(b.r, r.changed), subj, h)
		}
		var m *memory.Memory
		if b.chance(0.75) { // an extracted atomic fact
			m = b.mem(text, r.domain, b.auth(), b.kind(fact, evt))
		} else { // a note or message that says it
			m = b.m(r.domain, b.auth(), b.kind(fact, evt), text)
		}
		m.CreatedAt = starts[i].AddDate(0, 0, b.r.IntN(20))
		switch {
		case past && i == asked:
			b.useful(m)
		case past:
			// neither answers nor harms a question about another time
		case i == n-1:
			b.useful(m)
		default:
			b.exclude(m)
		}
	}
	// The same kind of statement about other subjects: no update of this one.
	for range 1 + b.r.IntN(3) {
		o := pick(b.r, r.subjects)
		if o == subj {
			continue
		}
		h := pick(b.r, r.holders)
		m := b.mem(fill(pick(b.r, r.same), o, h), r.domain, b.auth(), b.kind(fact, evt))
		m.CreatedAt = Now.AddDate(0, 0, -b.age(2000))
	}
}

var staleFamilies = []Family{
	{Name: "stale-org-head", Category: "stale_fact", gen: staleRole{
		subjects: []string{"the Riverside Rowing Club", "the city orchestra", "the Northfield library board", "the regional hospital trust",
			"the local food bank", "the chess federation", "the tenants' association", "the Harbourview school board"},
		holders: staleNames,
		same:    []string{"{v} is the chair of {s}.", "The chair of {s} is {v}.", "{v} chairs {s}.", "Head of {s}: {v}."},
		changed: []string{"{v} took over as chair of {s}.", "{v} is now the chair of {s}.", "{s} has a new chair: {v}.",
			"{v} was elected to chair {s}, replacing the previous chair."},
		now: []string{"Who chairs {s}?", "Who is the chair of {s} now?", "I need to write to whoever runs {s}; who is it?",
			"Who's in charge of {s} these days?", "Who should I address the letter to at {s}?"},
		past:   []string{"Who chaired {s} in {year}?", "Who was the head of {s} back in {year}?", "In {year}, who ran {s}?"},
		domain: "social", intent: admit.IntentAnswer,
	}.gen},
	{Name: "stale-personal-contact", Category: "stale_fact", gen: staleRole{
		subjects: []string{"{child}'s class teacher", "my dentist", "our landlord's agent", "the building's caretaker", "my physiotherapist",
			"{pet}'s vet", "my driving instructor", "our family GP"},
		holders: staleNames,
		same:    []string{"{s} is {v}.", "{v} is {s}.", "Contact for {s}: {v}."},
		changed: []string{"{s} is now {v}.", "{v} took over as {s}.", "New {s}: {v}.", "{s} changed; it's {v} from now on."},
		now: []string{"Who is {s}?", "Remind me who {s} is now.", "Who do I call about an appointment with {s}?",
			"What's the name of {s}?", "Draft a note to {s} about next week."},
		past:   []string{"Who was {s} in {year}?", "Back in {year}, who was {s}?", "Who did I see as {s} in {year}?"},
		domain: "family", intent: admit.IntentAnswer,
	}.gen},
	{Name: "stale-work-owner", Category: "stale_fact", gen: staleRole{
		subjects: []string{"the {project} release manager", "our account manager at {client}", "the payroll contact at {employer}",
			"the owner of the billing service", "the security lead for {project}", "the on-call lead for the data platform",
			"{employer}'s office manager", "the product owner of {otherProject}"},
		holders: staleNames,
		same:    []string{"{s} is {v}.", "{v} is {s}.", "Owner: {v} ({s})."},
		changed: []string{"{v} is now {s}.", "{v} took over as {s} in {month}.", "Handover done: {s} is {v} from now on.",
			"{s} changed to {v}."},
		now: []string{"Who is {s}?", "Who do I ask about {s} stuff now?", "Send the update to {s}: who is that these days?",
			"Who currently acts as {s}?", "Which person is {s}?"},
		past:   []string{"Who was {s} in {year}?", "In {year}, who acted as {s}?", "Who held the role of {s} back in {year}?"},
		domain: "work", intent: admit.IntentAnswer,
	}.gen},
}

// subjectIn fills the subject into question templates, leaving the
// persona's placeholders to ask.
func subjectIn(qs []string, subj string) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = strings.ReplaceAll(q, "{s}", subj)
	}
	return out
}
