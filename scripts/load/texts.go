package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The generated memories of -op ingest and the queries of -server runs:
// sentences from templates whose slots are filled from fairly large lists
// (people, companies, places, projects, things, times), so that a user's
// memories share some words (BM25 and the vectors find related memories)
// and differ in others (rare names give BM25 something to rank by). Each
// user has a "world" of their own: a few people, projects and places drawn
// from the lists, which their memories mention again and again, the way a
// real user's memories do. Everything is a function of the seed, the user
// and the memory's position, so every run (and every backend) gets the same
// texts, whatever the order of the concurrent requests.

var (
	people = strings.Fields(`Alex Sam Maria Priya Chen Lena Omar Sofia Lucas Amara Yuki Noah Elena Ravi Fatima
		Jonas Ines Tomas Hana Mateo Olga Kwame Zoe Arjun Leila Felix Mei Diego Nora Hugo Anya Kofi Clara Ivan
		Sara Marco Aisha Ben Rosa Emil Nadia Pablo Greta Tariq Lina Oscar Vera Jamal Ida Theo`)
	relations = strings.Fields(`sister brother mother father daughter son manager colleague neighbour dentist
		doctor landlord accountant lawyer teacher coach friend partner cousin mentor`)
	companies = strings.Fields(`Acme Globex Initech Umbrella Hooli Stark Wayne Tyrell Soylent Vandelay Cyberdyne
		Aperture Wonka Gringotts Monarch Oceanic Nakatomi Massive Dunder Pied`)
	places = strings.Fields(`Lisbon Berlin Tokyo Nairobi Lima Oslo Toronto Madrid Seoul Dublin Prague Austin
		Mumbai Cairo Vienna Lyon Porto Kyoto Accra Denver Bergen Hanoi Quito Tallinn Zurich Sydney Boston Milan`)
	projects = strings.Fields(`Atlas Borealis Cobalt Delta Ember Falcon Granite Helios Iris Juniper Kestrel Lumen
		Meridian Nimbus Orion Pioneer Quartz Raven Sierra Tundra Umber Vertex Willow Xenon Zephyr`)
	things = strings.Fields(`laptop invoice contract passport lease insurance policy prescription ticket report
		budget roadmap backup database certificate keyboard bicycle car warranty subscription recipe
		dashboard pipeline cluster runbook spreadsheet`)
	foods = strings.Fields(`peanuts shellfish gluten lactose sushi ramen tacos curry pasta falafel dumplings
		paella risotto pho salad oatmeal`)
	weekdays = strings.Fields(`Monday Tuesday Wednesday Thursday Friday Saturday Sunday`)
	months   = strings.Fields(`January February March April May June July August September October November December`)
	services = strings.Fields(`billing search checkout auth payments gateway notifications ingest reporting scheduler`)
	tools    = strings.Fields(`kubectl terraform psql git docker grep curl make ansible helm`)
	domains  = []string{"work", "family", "health", "finance", "travel", ""}
	authors  = []string{"user_confirmed", "user_confirmed", "tool_verified", "tool_verified", "model_inferred", "external"}
	kinds    = []string{"fact", "preference", "event", "rule", "procedure", "tool_experience"}
	classes  = []string{"public", "internal", "internal", "confidential", "restricted"}
)

// templates are memory texts with slots: {P} a person of the user's world,
// {R} a relation, {C} a company, {L} a place, {J} a project, {T} a thing,
// {F} a food, {D} a weekday, {M} a month, {S} a service, {X} a tool, {N} a
// number. The domain index says which life area the template belongs to.
var templates = []struct {
	text   string
	domain int
}{
	{"{P} prefers the window seat on flights to {L} and always books through {C}", 4},
	{"The {J} deploy of the {S} service failed on {D} because migration {N} timed out", 0},
	{"Remind {P} that the {T} for {J} is due before the end of {M}", 0},
	{"My {R} {P} is allergic to {F}; never suggest restaurants that serve it", 1},
	{"{P} from {C} asked for the quarterly {T} of project {J} by {D}", 0},
	{"Dentist appointment with {P} on {D} at {N} in {L}; bring the insurance card", 2},
	{"The {S} outage on {D} was caused by a full disk on the {J} cluster; runbook step {N} fixed it", 0},
	{"When running {X} against the {J} cluster use the read-only account first", 0},
	{"{P} likes {F} and prefers quiet places; book a table for {N} people", 1},
	{"Rent for the flat in {L} is paid to {P} on the first {D} of each month", 3},
	{"The {C} invoice {N} for the {T} was paid twice in {M}; ask for a refund", 3},
	{"Flight to {L} leaves {D} morning; the hotel booking reference is {N}", 4},
	{"{P} is my {R} and lives in {L}; birthday in {M}, likes {F}", 1},
	{"Always cc {P} on emails about the {J} contract with {C}", 0},
	{"Medication: take {N} mg after breakfast, prescribed by {P} in {M}", 2},
	{"The {S} API rate limit is {N} requests per minute for {C} customers", 0},
	{"Tax documents for {M} are in the shared folder; the accountant is {P}", 3},
	{"Project {J} moved its weekly sync with {C} to {D} at {N}", 0},
	{"{P} recommended a {F} place near the station in {L}", 4},
	{"The {T} warranty from {C} expires in {M}; receipt number {N}", 3},
	{"Never share the {J} roadmap outside {C}; it is confidential until {M}", 0},
	{"Kids pick-up on {D} is {P}'s turn; school closes at {N}", 1},
	{"Running {X} with --force on {S} deleted the staging data in {M}; do not repeat it", 0},
	{"Gym with {P} every {D}; knee injury means no running until {M}", 2},
	{"The budget for {J} is {N} euros, approved by {P} at {C}", 3},
	{"Passport renewal appointment in {L} on {D}; need two photos and the old {T}", 4},
	{"{P} prefers short summaries with the decision first and details after", 0},
	{"Backup of the {J} database runs nightly at {N}; restore with {X}", 0},
	{"{R} {P} is visiting from {L} in {M}; prepare the guest room", 1},
	{"Blood test results from {M}: cholesterol {N}, follow up with {P}", 2},
	{"The {C} support ticket {N} about the {T} is still open since {D}", 0},
	{"Bank transfer of {N} to {P} for the {L} trip in {M}", 3},
	{"Ignore earlier notes: the {J} launch moved from {M} to {D} after the {S} review", 0},
	{"Hotel in {L} near the old town; {P} said the breakfast is excellent", 4},
	{"Use {X} to rotate the {S} certificates before they expire in {M}", 0},
	{"{P} cannot eat {F}; order the vegetarian menu for the {C} dinner", 1},
	{"Car service at the {C} garage on {D}; mileage {N}", 3},
	{"Interview with {P} for the {J} team on {D} at {N}", 0},
	{"Subscription to {C} renews in {M} for {N} a year; consider cancelling", 3},
	{"The {J} incident postmortem with {P} is on {D}; {S} latency was the root cause", 0},
}

// world is one user's recurring people, projects, places and companies.
type world struct {
	people, projects, places, companies []string
}

func pick(r *rand.Rand, list []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = list[r.IntN(len(list))]
	}
	return out
}

// userName is the id of user u in generated data.
func userName(u int) string { return fmt.Sprintf("user%d", u) }

// worldOf returns user u's world for seed.
func worldOf(seed uint64, u int) world {
	r := rand.New(rand.NewPCG(seed, uint64(u)<<1|1))
	return world{people: pick(r, people, 6), projects: pick(r, projects, 4), places: pick(r, places, 5), companies: pick(r, companies, 3)}
}

// fill renders template t for world w. Most slots take the user's own
// people and projects; some take any from the whole list.
func fill(r *rand.Rand, w world, t string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 || i+2 >= len(t) {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i])
		own := r.IntN(4) != 0
		switch t[i+1] {
		case 'P':
			b.WriteString(choose(r, own, w.people, people))
		case 'J':
			b.WriteString(choose(r, own, w.projects, projects))
		case 'L':
			b.WriteString(choose(r, own, w.places, places))
		case 'C':
			b.WriteString(choose(r, own, w.companies, companies))
		case 'R':
			b.WriteString(relations[r.IntN(len(relations))])
		case 'T':
			b.WriteString(things[r.IntN(len(things))])
		case 'F':
			b.WriteString(foods[r.IntN(len(foods))])
		case 'D':
			b.WriteString(weekdays[r.IntN(len(weekdays))])
		case 'M':
			b.WriteString(months[r.IntN(len(months))])
		case 'S':
			b.WriteString(services[r.IntN(len(services))])
		case 'X':
			b.WriteString(tools[r.IntN(len(tools))])
		case 'N':
			fmt.Fprintf(&b, "%d", 2+r.IntN(9998))
		}
		t = t[i+3:]
	}
}

func choose(r *rand.Rand, own bool, mine, all []string) string {
	if own {
		return mine[r.IntN(len(mine))]
	}
	return all[r.IntN(len(all))]
}

// genMemories returns memories [start, end) of user u for seed, as the JSON
// objects /v1/memories/batch takes (no ids: the server assigns them).
func genMemories(seed uint64, u, start, end int) []map[string]any {
	w := worldOf(seed, u)
	r := rand.New(rand.NewPCG(seed, uint64(u)<<32|uint64(start)))
	out := make([]map[string]any, 0, end-start)
	for range end - start {
		t := templates[r.IntN(len(templates))]
		text := fill(r, w, t.text)
		if r.IntN(3) == 0 { // a second sentence, so lengths vary
			text += ". " + fill(r, w, templates[r.IntN(len(templates))].text)
		}
		m := map[string]any{
			"userId": userName(u), "text": text,
			"projectId":       fmt.Sprintf("p%d", r.IntN(8)),
			"sourceAuthority": authors[r.IntN(len(authors))],
			"kind":            kinds[r.IntN(len(kinds))],
			"classification":  classes[r.IntN(len(classes))],
		}
		if d := domains[t.domain]; r.IntN(5) != 0 { // a fifth are unscoped on the domain
			m["domain"] = d
		}
		out = append(out, m)
	}
	return out
}

// genQuery returns a query for user u: four to eight consecutive words of a
// sentence their memories could contain.
func genQuery(r *rand.Rand, seed uint64, u int) string {
	w := worldOf(seed, u)
	words := strings.Fields(fill(r, w, templates[r.IntN(len(templates))].text))
	n := min(len(words), 4+r.IntN(5))
	i := r.IntN(len(words) - n + 1)
	return strings.Join(words[i:i+n], " ")
}

// genQueryFixed is user u's one query for warming: a function of the seed
// and the user only.
func genQueryFixed(seed uint64, u int) string {
	return genQuery(rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(u))), seed, u)
}
