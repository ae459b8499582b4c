package content

import (
	"hash/maphash"
	"slices"
	"strings"
)

// What a text says its writer has given up for good: an app deleted, a
// subscription cancelled, a food or a habit stopped, a bank, a town or an
// employer left. An older memory that holds the thing ("Text me on
// WhatsApp" beside "Deleted WhatsApp in May") is likely stale beside it,
// whatever else the two share: the thing's words are what they must
// share, and a note that ends something names it as the older did more
// often than a changed preference repeats the older's words ("Off dairy
// completely" beside "flat whites with whole milk" shares none, and is
// not read). A shared word may still name another thing ("Gave up meat"
// beside "Cooks meat for the kids"), which is why the gate only marks
// such an older memory (docs/gate.md, Decisions, 15).
//
// Most sentences with these verbs give nothing up for good: "Cancelled
// yoga this week", "Quit Chrome to free up memory", "Stopped using
// WhatsApp for work", "Ella: quit piano", "Quit coffee for Lent", "Tom
// said 'I quit Facebook'". The reading asks for the writer's own act,
// stated as done, with nothing after the thing but when or why it ended,
// in a text that takes nothing back ("…reinstalled it the next day").

// giveUpWords are the words a reading of something given up starts from
// (entry.gives): verbs in the past that end what one had ("quit",
// "deleted", "cancelled", "sold"…), the first words of the phrases that do
// ("gave up", "got rid of", "cut out", "said goodbye to", "switched
// from", "moved away from"), "off" ("I'm off WhatsApp for good"), "longer"
// ("no longer uses…") and "anymore" or "more" ("I don't drink coffee any
// more").
const giveUpWords = endVerbWords + " gave given got cut switched moved said off longer anymore more"

// endVerbWords are the verbs of giveUpWords that take the thing they end
// as their object (endVerbs).
const endVerbWords = "quit quitted deleted uninstalled cancelled canceled dropped ditched sold closed stopped ended scrapped " +
	"unsubscribed shut left"

// endVerbs holds endVerbWords.
var endVerbs = setOf(endVerbWords)

// boundVerbs are the verbs of endVerbs whose other senses are common: they
// give up only a thing held by contract ("Closed my Barclays account",
// "Dropped the marathon plan", "Ended my gym membership", "Scrapped the
// Lisbon plan", "Shut the Dropbox account down"; not "closed the window",
// "dropped the kids at school", "ended the call", "scrapped Paris").
// "Cancelled" and "deleted" give up such a thing or a name with no article
// ("Cancelled Netflix", "my Amex", "Deleted WhatsApp", "the Slack app";
// not "cancelled yoga", "the Uber", "deleted the group chat", "the 6am
// alarm"); "left" an organisation or a name ("Left the book club", "Left
// Deloitte"; not "left the charger").
var boundVerbs = setOf("closed dropped ended scrapped shut")

// namedVerbs are the verbs of endVerbs that give up a thing held by
// contract, an organisation (left) or a thing named with capitals.
var namedVerbs = setOf("cancelled canceled left deleted")

// fromVerbs are the first words of "switched from" and "moved from": they
// give up only a name ("Moved from Leeds to Bristol"; not "switched from
// the spreadsheet to the dashboard").
var fromVerbs = setOf("switched moved")

// gerundActs are the acts whose thing is what is given up: "stopped
// using Slack", "quit eating meat" (not "cancelled the meeting", "the
// booking": nouns in -ing).
var gerundActs = setOf("using eating drinking taking buying watching playing going wearing ordering paying putting seeing " +
	"visiting listening reading doing posting attending smoking driving riding volunteering working shopping banking")

// actPreps are the prepositions an act of gerundActs takes before its
// thing: "going to church", "paying for ChatGPT Plus", "working at Tesco".
var actPreps = setOf("to for at on with")

// givenUpLeads are the words that may stand between the user and a verb of
// giving up ("I've just deleted…", "I have finally quit…").
var givenUpLeads = setOf("just finally recently already officially completely totally also now eventually permanently " +
	"have has had am is")

// givenUpSubjects are the words that say the writer or the user gave
// something up, at a clause's start before a verb of giving up or its lead
// words. Without one the verb must open its sentence or line ("Deleted
// WhatsApp in May.", a note's own words), not follow a label or a name
// ("Ella: quit piano", "Plan: quit Facebook", "Tom – deleted WhatsApp").
var givenUpSubjects = setOf("i we user i'm we're i've we've")

// modalNegations are the negations before "anymore" that advise rather
// than state: "Shouldn't drink coffee anymore, the GP says".
var modalNegations = setOf("shouldn't mustn't wouldn't couldn't won't")

// takenBack are the words that take a giving up back, in its sentence or
// the next: "Deleted WhatsApp for a day, reinstalled it", "un-cancelled",
// "drinking it again" (takenBackAt).
var takenBack = setOf("again reinstalled reinstall reactivated reopened resumed restarted rejoined resubscribed un")

// backAfter are the words after "back" and backBefore the words before it
// that make it a return: "back on it", "back to two cups", "went back"
// (not "the back tyre", "back in 2019").
var (
	backAfter  = setOf("on to onto")
	backBefore = setOf("went came got go going am i'm is be been was")
)

// takesBack reports whether the sentence that opens at word i takes a
// giving up back (takenBackAt).
func (z *Analyzer) takesBack(i int) bool {
	for k := i; k < len(z.words); k++ {
		if k > i && z.opensNote(k) {
			return false
		}
		if z.takenBackAt(k) {
			return true
		}
	}
	return false
}

// takenBackAt reports whether word i takes a giving up back: a word of
// takenBack, or "back" as a return.
func (z *Analyzer) takenBackAt(i int) bool {
	t := z.tok(i)
	return takenBack[string(t)] || string(t) == "back" && (backAfter[string(z.tok(i+1))] || backBefore[string(z.tok(i-1))])
}

// reportWords are the words that put a sentence in someone else's mouth:
// "Tom said 'I quit Facebook'", "I'm off dairy completely, she says".
var reportWords = setOf("said says say told tells according overheard quote quoted quoting tip advice")

// occasionWords say that what a sentence ends is one occasion: "Cancelled
// yoga this week", "Left the gym at 8 today".
var occasionWords = setOf("today tonight tomorrow")

// thisOccasion are the words after "this" that name one occasion: "this
// week", "this morning".
var thisOccasion = setOf("morning afternoon evening week weekend " + weekdayWords)

// heldByContract are the content words that name what one holds by
// contract: what they are a part of ("the Netflix subscription", "my
// Barclays account") is the thing given up, and another subscription or
// account is not, so they are no word of the thing.
var heldByContract = setOf("subscription subscriptions membership memberships account accounts plan plans contract contracts " +
	"lease policy tariff customer customers member members subscriber subscribers app apps")

// organisations are the heads of a compound that names what one belongs
// to: the whole compound is the thing ("the book club": not the book).
var organisations = setOf("club clubs group team choir band gym society union church committee company firm job league " +
	"course class")

// givenUpOnly are the content words that name no thing of their own: "the
// new one", "my usual card".
var givenUpOnly = setOf("card cards service services thing things stuff habit habits new one ones lot whole entire " +
	"current usual regular daily weekly monthly yearly annual own idea version")

// onceOnly are the content words that name something that happens once,
// or a message: cancelling or deleting one gives up nothing one had
// ("Cancelled the dentist appointment", "Deleted the email from Tom").
var onceOnly = setOf("appointment appointments meeting meetings booking bookings reservation reservations flight flights " +
	"order orders trip trips call calls session sessions dinner lunch breakfast date visit visits delivery payment " +
	"payments transfer event events email emails message messages file files photo photos note notes draft drafts post posts " +
	"comment comments text texts invite invites request requests cold colds cough flu headache migraine rash hangover fever")

// whenWords end the thing given up: what follows says when ("stopped
// using Slack last year", "Quit WhatsApp in May").
var whenWords = setOf("last next this that year years month months week weeks day days ago yesterday today tonight " +
	"morning mornings evening evenings night nights weekend weekends spring summer autumn fall winter holidays " +
	weekdayWords + " january february march april may june july august september october november december")

// thingEnds are words, not all of them function words to the rest of the
// package, that end a thing's compound: "the marathon plan after the knee
// injury", "Deleted WhatsApp finally".
var thingEnds = setOf("after before since until till because for from to in on at by with without over under through " +
	"during about into onto off out up down than as via per while when where which who that instead again still too now " +
	lastingWords)

// narrowing are the words that, after a word of lasting, make the end a
// while's: "Quit Instagram completely until Easter".
var narrowing = setOf("until till while during except unless")

// openWhen are the words of whenWords that say no time by themselves
// ("this", "that") or a time to come ("Quit Netflix next month").
var openWhen = setOf("this that next")

// lasting are the words after a thing that say it ended for good:
// "Deleted WhatsApp entirely", "Quit Facebook recently".
var lasting = setOf(lastingWords)

// lastingWords are the words of lasting.
const lastingWords = "altogether completely entirely fully totally anymore finally recently already eventually permanently"

// whenLeads are the words after a thing that open when it ended: "in May",
// "since March", "over the holidays", "early in 2024", "back in 2019".
var whenLeads = setOf("in since over early late earlier")

// forLasting are the words after "for" that make it lasting: "for good".
var forLasting = setOf("good ever keeps")

// reasonLeads are the words after a thing that open why it ended, where
// one of reasonObjects follows: "after the knee injury", "since the move".
var (
	reasonLeads   = setOf("after following since")
	reasonObjects = setOf("the my a an his her our")
)

// lastingTimes are the words after "this" that date an end rather than
// one occasion: "this year", "this spring" (not "this week").
var lastingTimes = setOf("year month spring summer autumn winter")

// thingLeads are the function words that may stand before the thing given
// up: "the", "my", "all"…, the prepositions of "no longer on…", "no
// longer with…", and "being" ("stopped being vegetarian").
var thingLeads = setOf("the my our a an all any every both on with at in being")

// usingVerbs are the verbs that may stand between "no longer" or a
// negation and the thing: "no longer uses WhatsApp", "don't drink coffee
// any more".
var usingVerbs = setOf("use uses using eat eats eating drink drinks drinking own owns have has drive drives play plays take takes " +
	"taking watch watches go goes attend attends smoke smokes bank banks shop shops buy buys wear wears need needs listen listens " +
	"subscribe subscribes live lives")

// offLasting are the words after the thing that make "off" a giving up:
// "Off dairy completely", "off WhatsApp altogether".
var offLasting = setOf("completely entirely altogether anymore")

// maxGivenUp bounds the words Analysis.givenUp holds.
const maxGivenUp = 4

// maxLeadWords bounds the lead words ("I've just finally…") read before a
// verb of giving up; maxCompound the words of a thing's compound ("the
// Fender Stratocaster amp").
const (
	maxLeadWords = 3
	maxCompound  = 4
)

// givingUp reads what the text says its writer gave up into out.givenUp:
// the words of the thing, after a verb or phrase of giving up whose
// subject is the writer or the user, stated as done and lasting. Run
// after the words' tones are set (clauseEnds reads them).
func (z *Analyzer) givingUp(out *Analysis) {
	end, skip := -1, false // the last word of the sentence read, and whether it gives nothing up (sentenceOf)
	for i := range z.words {
		if out.nGivenUp == maxGivenUp {
			return
		}
		if i > end {
			end, skip = z.sentenceOf(i)
			// "Deleted WhatsApp for a day, reinstalled it", "Quit coffee.
			// Back on it now."
			skip = skip || end+1 < len(z.words) && z.takesBack(end+1)
		}
		if skip {
			continue
		}
		t := z.tok(i)
		start, obj := i, -1 // the phrase's first word, and the thing's
		switch {
		case endVerbs[string(t)]:
			obj = i + 1
			if string(t) == "unsubscribed" && z.at(obj, "from") {
				obj++
			}
			if string(t) == "shut" && z.at(obj, "down") {
				obj++ // "shut down the Dropbox account"
			}
		case (string(t) == "gave" || string(t) == "given") && z.at(i+1, "up") && !z.at(i+2, "on"),
			string(t) == "cut" && z.at(i+1, "out") && !z.articleBefore(i+3),
			fromVerbs[string(t)] && z.at(i+1, "from"):
			obj = i + 2
		case string(t) == "got" && z.at(i+1, "rid") && z.at(i+2, "of"),
			string(t) == "said" && z.at(i+1, "goodbye") && z.at(i+2, "to"),
			fromVerbs[string(t)] && z.at(i+1, "away") && z.at(i+2, "from"):
			obj = i + 3
		case string(t) == "longer" && z.at(i-1, "no"):
			// "no longer uses WhatsApp", "no longer on Facebook", "no
			// longer a Vodafone customer"
			start, obj = i-1, i+1
			if !z.partEnds(i) && usingVerbs[string(z.tok(obj))] {
				obj++
			}
		case string(t) == "off":
			if !z.offGiven(i) {
				continue
			}
			obj = i + 1
		case string(t) == "anymore" || string(t) == "more" && z.at(i-1, "any"):
			z.notAnyMore(i, out)
			continue
		default:
			continue
		}
		if obj >= len(z.words) || z.partEnds(obj-1) || !z.givenBy(start) {
			continue
		}
		z.addGivenUp(obj, len(z.words), i, out)
	}
}

// sentenceOf returns the last word of the sentence that holds word i, and
// whether the sentence gives nothing up whatever its verbs: it asks ("Did
// I cancel Netflix?"), reports someone's words or quotes them ("Tom said
// I quit Facebook", "“Deleted WhatsApp for good” – Tom"), ends one
// occasion ("Cancelled yoga this week") or takes it back (takenBackAt).
func (z *Analyzer) sentenceOf(i int) (int, bool) {
	skip := false
	k := i
	for ; ; k++ {
		skip = skip || z.notOwnAt(k) || z.takenBackAt(k)
		if k+1 == len(z.words) || z.opensNote(k+1) {
			break
		}
	}
	after := z.gapAfter(k)
	return k, skip || strings.ContainsAny(after, questionMarks) || strings.ContainsAny(after, quoteMarks)
}

// notOwnAt reports whether word k puts its sentence in someone else's
// mouth, in one occasion or a while: a word that reports ("said", "says",
// "tip"; not "said goodbye"), a quotation mark or a strikethrough before
// it, "today", "this week", "until", "while", "except"….
func (z *Analyzer) notOwnAt(k int) bool {
	t := z.tok(k)
	return reportWords[string(t)] && !z.at(k+1, "goodbye") || occasionWords[string(t)] || narrowing[string(t)] ||
		string(t) == "this" && thisOccasion[string(z.tok(k+1))] || strings.ContainsAny(z.gapBefore(k), quoteMarks) ||
		strings.HasSuffix(z.gapBefore(k), "'") || strings.Contains(z.gapBefore(k), "~~")
}

// quoteMarks and questionMarks are the marks that put a sentence in
// quotes or make it a question, in the scripts memories are written in.
const (
	quoteMarks    = "\"“”‘„«»‹›"
	questionMarks = "?？؟‽⁇⁈⁉﹖"
)

// gapAfter returns the text between word k and the next word, or the
// text's end.
func (z *Analyzer) gapAfter(k int) string {
	if k+1 < len(z.words) {
		return z.gapBefore(k + 1)
	}
	if from := z.words[k].to; from < len(z.text) {
		return z.text[from:]
	}
	return ""
}

// givenBy reports whether the phrase of giving up that opens at word s is
// the writer's or the user's, and stated as done: it opens its sentence or
// line, or follows a subject of givenUpSubjects at its clause's start,
// with nothing between but lead words such as "just", "have", "am". A
// plan, a wish or a denial ("want to quit", "thinking about cancelling",
// "never deleted", "if I cancel") puts another word between.
func (z *Analyzer) givenBy(s int) bool {
	j := s - 1
	for ; j >= 0 && j >= s-maxLeadWords && !z.partEnds(j) && givenUpLeads[string(z.tok(j))]; j-- {
	}
	switch {
	case j < 0 || z.opensNote(j+1) || z.ownLabelAt(j+1):
	case givenUpSubjects[string(z.tok(j))]:
		if z.at(j, "user") && z.at(j-1, "the") {
			j--
		}
		if j > 0 && !z.partEnds(j-1) {
			return false // "Tom and I", "my partner and we…"
		}
	case z.at(j, "and") || z.at(j, "then"):
		return z.sharedSubject(j)
	default:
		return false // after a label, a name or a clause: "Ella: quit piano", "Tom – deleted it"
	}
	return true
}

// sharedSubject reports whether the verb after "and" or "then" at word j
// shares its subject with a note that opens, in its sentence, with the
// writer's own act: a verb in the past, after lead words, or "I" or "we"
// ("Renewed the passport, sorted the tax return, and ended my PureGym
// membership", "Moved everything to Google Drive and shut the Dropbox
// account down"; not "Tom moved to Leeds and sold the car").
func (z *Analyzer) sharedSubject(j int) bool {
	for k := j - 1; k >= 0 && k >= j-maxClauseWords; k-- {
		if !z.opensNote(k) && !z.ownLabelAt(k) {
			continue
		}
		for k < j && givenUpLeads[string(z.tok(k))] {
			k++
		}
		t := z.tok(k)
		return givenUpSubjects[string(t)] || endVerbs[string(t)] || pastVerbs[string(t)] ||
			len(t) > 4 && string(t[len(t)-2:]) == "ed"
	}
	return false
}

// pastVerbs are verbs in the past that end in no "-ed", which may open a
// note of the writer's own acts: "Sold the car and cancelled the
// insurance".
var pastVerbs = setOf("bought got went made took put set sent gave came paid found had did saw spent kept told ran rang wrote " +
	"drove flew began brought caught")

// opensNote reports whether word k opens the text, a sentence (after a
// full stop, a question or exclamation mark) or a line ("[19:53] Priya:
// …" too): not after a colon, a comma or a dash.
func (z *Analyzer) opensNote(k int) bool {
	return k == 0 || z.words[k].sentence && (z.opensSentence(k) || strings.Contains(z.gapBefore(k), "\n"))
}

// ownLabelAt reports whether word k follows, after a colon, a label the
// writer puts on their own note, from the start of its sentence or line:
// "Quick note:", "Update, 3 May:", "Note, Thursday:" (not "Plan:", "To
// do:", "Ella:", "Next year:").
func (z *Analyzer) ownLabelAt(k int) bool {
	if k == 0 || z.words[k-1].next != ':' {
		return false
	}
	for j := k - 1; j >= 0 && j >= k-4; j-- {
		if t := z.tok(j); !selfLabels[string(t)] && !(whenWords[string(t)] && !openWhen[string(t)]) && !isDigit(t[0]) {
			return false
		}
		if z.opensNote(j) {
			return true
		}
	}
	return false
}

// selfLabels are the words of a label the writer puts on their own note.
var selfLabels = setOf("note notes quick update updates fyi ps memo journal diary log personal")

// offGiven reports whether "off" at word i may give up what follows it:
// "completely", "anymore" or "for" within three words after the thing, in
// its clause ("I'm off WhatsApp for good", "Off dairy completely"; the
// thing's reading then asks "for" to be "for good": closesThing); not
// "I'm off to Spain", "off work today", "off alcohol since the op".
func (z *Analyzer) offGiven(i int) bool {
	for k := i + 2; k < len(z.words) && k <= i+4 && !z.partEnds(k-1); k++ {
		t := z.tok(k)
		if offLasting[string(t)] || string(t) == "for" || string(t) == "any" && z.at(k+1, "more") {
			return true
		}
	}
	return false
}

// notAnyMore reads "anymore" or "any more" at word i, after a negation in
// its clause: the content words between the negation (and a verb of
// usingVerbs after it) and i are what the writer gave up ("I don't use
// WhatsApp anymore", "Not a Vodafone customer any more", "No coffee
// anymore"); not after a negation that advises ("Shouldn't drink coffee
// anymore").
func (z *Analyzer) notAnyMore(i int, out *Analysis) {
	end := i
	if z.at(i, "more") {
		end = i - 1
	}
	n := -1
	for k := end - 1; k >= 0 && k >= end-6 && !z.partEnds(k); k-- {
		if negates(z.tok(k)) {
			n = k
			break
		}
	}
	if n < 0 || modalNegations[string(z.tok(n))] || !z.givenByNegation(n) ||
		i+1 < len(z.words) && !z.partEnds(i) && !z.closesThing(i+1) {
		return // "I don't drink coffee anymore after 4pm"
	}
	obj := n + 1
	if usingVerbs[string(z.tok(obj))] {
		obj++
	}
	z.addGivenUp(obj, end, -1, out)
}

// givenByNegation reports whether the negation at word n speaks for the
// writer or the user: it opens its sentence or line ("Don't use WhatsApp
// anymore", "No coffee anymore"), or follows a subject of givenUpSubjects
// at its clause's start ("I don't…", "I'm not…", "I do not…").
func (z *Analyzer) givenByNegation(n int) bool {
	if z.opensNote(n) {
		return true
	}
	j := n - 1
	if !z.partEnds(j) && (z.at(j, "am") || z.at(j, "do")) {
		j--
	}
	return j >= 0 && !z.partEnds(j) && givenUpSubjects[string(z.tok(j))] && (j == 0 || z.partEnds(j-1))
}

// addGivenUp adds to out.givenUp what the verb at word v (-1 for none)
// gives up, starting at word k, before word end: after thingLeads ("the",
// "my", "on"…), the things named through "and" or "or" ("Stopped eating
// meat and dairy": meat | dairy), each a compound of up to maxCompound
// words that ends at a function word or a word of when, and after each
// nothing but its clause's end, when or why it ended, or a word that says
// it is for good (closesThing). A thing is every word of its compound but
// a head held by contract and words that name nothing of their own: "Quit
// the choir committee" gives up the choir's committee, which a note of the
// choir alone does not hold; "Cancelled the Netflix subscription" gives up
// Netflix; "a Vodafone customer", Vodafone.
// A gerund of gerundActs before the thing is the act ("quit using Slack");
// "stopped" gives up only an act. Someone else's thing ("his car", "my
// dad's Corsa"), something that happens once, an illness or a message
// (onceOnly), stock sold ("Sold all the prints") and, after a verb of
// boundVerbs, namedVerbs or fromVerbs, a thing of another kind than the
// verb gives up are none.
func (z *Analyzer) addGivenUp(k, end, v int, out *Analysis) {
	verb := z.tok(v) // nil for none
	k, ok := z.thingAt(k, end)
	if !ok {
		return
	}
	switch {
	case z.at(k-1, "being"): // "stopped being vegetarian"
	case gerundActs[string(z.tok(k))] && k+1 < end && !z.partEnds(k):
		k++
		if actPreps[string(z.tok(k))] {
			k++ // "stopped going to church", "paying for ChatGPT Plus"
		}
		if k, ok = z.thingAt(k, end); !ok {
			return
		}
	case string(verb) == "stopped":
		return // "stopped" gives up an act: "Stopped the car", "stopped by the bakery" give up nothing
	}
	var thing [maxGivenUp]uint64
	var groups [maxGivenUp]uint8
	n, closed := 0, false
	for things := uint8(0); k < end && n < maxGivenUp && int(things) < maxGivenUp; things++ {
		first, last := k, z.compoundEnd(k, end) // the compound, last its head
		if last < first {
			return
		}
		head := z.tok(last)
		named := true // every word in capitals: a name
		for j := first; j <= last; j++ {
			t := z.tok(j)
			if onceOnly[string(t)] || possessiveWord(t) {
				return
			}
			if string(verb) == "sold" && (j == first && (z.at(j-1, "all") || z.at(j-2, "all")) || j == last && plural(t)) {
				return // "Sold all the prints", "Sold the puppies": stock, not what one had
			}
			named = named && z.words[j].capital && !z.words[j].upper
		}
		if string(head) == "job" && last+2 < end && (z.at(last+1, "at") || z.at(last+1, "with")) && z.words[last+2].capital {
			// "Quit my job at Deloitte": Deloitte is the thing.
			k = last + 2
			continue
		}
		contract := heldByContract[string(head)]
		switch {
		case boundVerbs[string(verb)] && !contract,
			namedVerbs[string(verb)] && !contract && !(named && !z.articleBefore(first)) && !(string(verb) == "left" && organisations[string(head)]),
			fromVerbs[string(verb)] && !named:
			return
		}
		for j := first; j <= last && n < maxGivenUp; j++ {
			t := z.tok(j)
			if z.content[j] == 0 || givenUpOnly[string(t)] || heldByContract[string(t)] || isDigit(t[0]) {
				continue
			}
			thing[n], groups[n] = z.content[j], things
			n++
		}
		next := last + 1
		if string(verb) == "shut" && z.at(next, "down") {
			next++ // "Shut the Dropbox account down"
		}
		if forName[string(verb)] && z.at(next, "for") && z.nameAfter(next+1) {
			next = end // "Left Virgin Media for BT", "Ditched the iPhone for a Pixel"
		}
		if fromVerbs[string(verb)] && z.at(next, "to") {
			// "Moved from Leeds to Bristol": what follows Bristol closes.
			if k, ok = z.thingAt(next+1, end); !ok {
				return
			}
			next = z.compoundEnd(k, end) + 1
		}
		if next < end && (z.at(next, "and") || z.at(next, "or")) && !z.partEnds(next-1) && z.conjunctAt(next+1, end) {
			k, _ = z.thingAt(next+1, end)
			continue
		}
		if next < end && !z.partEnds(next-1) && !z.closesThing(next) && !z.at(next, "and") && !z.at(next, "but") {
			return // "Stopped using WhatsApp for work", "Gave up milk in tea"; not "Quit Twitter and joined Bluesky"
		}
		closed = true
		break
	}
	if !closed || out.nGivenUp+n > maxGivenUp {
		return // more things than it holds: what follows the last is unread, or a thing would be cut short
	}
	group := uint8(0)
	if out.nGivenUp > 0 {
		group = out.givenGroup[out.nGivenUp-1] + 1
	}
	for j, h := range thing[:n] {
		out.givenUp[out.nGivenUp], out.givenGroup[out.nGivenUp] = h, group+groups[j]
		out.givenAlt[out.nGivenUp] = z.otherNumber(h)
		out.nGivenUp++
	}
}

// forName are the verbs after which "for" and a name say what replaced
// the thing: "Left Virgin Media for BT".
var forName = setOf("left ditched switched")

// nameAfter reports whether the words from k (past "a" or "an") to the
// clause's end are a name, at most maxCompound words in capitals, of no
// one close to the user: "for BT", "for a Pixel"; not "for Mum", "for
// Year 6 parents".
func (z *Analyzer) nameAfter(k int) bool {
	if z.at(k, "a") || z.at(k, "an") {
		k++
	}
	for j := k; j < len(z.words) && j < k+maxCompound; j++ {
		if !z.words[j].capital || z.tones[j]&toneOther != 0 {
			return false
		}
		if z.partEnds(j) {
			return true
		}
	}
	return false
}

// conjunctAt reports whether a thing given up beside the one before
// starts at word k, after "and" or "or": a determiner ("Sold the Strat and
// the amp") or one or two words that end there ("Stopped eating meat and
// dairy in May"). A clause of its own read so ("Quit Twitter and joined
// Bluesky") names a thing no older memory holds in full.
func (z *Analyzer) conjunctAt(k, end int) bool {
	if k >= end {
		return false
	}
	if thingLeads[string(z.tok(k))] {
		return true
	}
	for j := k; j < end && j < k+2; j++ {
		if !z.compoundAt(j) {
			return false
		}
		if j+1 == end || z.partEnds(j) || !z.compoundAt(j+1) {
			return true
		}
	}
	return false
}

// closesThing reports whether word k, right after a thing given up, says
// no more than when or why it ended, or that it is for good: "in May",
// "since March", "over the holidays", "last year", "this year", "for
// good", "completely", "after the knee injury". Anything else narrows the
// thing or the time ("for work", "in tea", "from my phone", "for Lent",
// "while injured", "at dinner", "if the headaches continue").
func (z *Analyzer) closesThing(k int) bool {
	t, next := z.tok(k), z.tok(k+1)
	switch {
	case lasting[string(t)] || string(t) == "any" && string(next) == "more":
		if string(next) == "more" {
			next = z.tok(k + 2)
		}
		return !narrowing[string(next)] && !(string(next) == "for" && !forLasting[string(z.tok(k+2))])
	case whenWords[string(t)] && !openWhen[string(t)] && !weekdays[string(t)]:
		return true // not "Cancelled Pilates Thursday": one occasion
	case string(t) == "this":
		return lastingTimes[string(next)]
	case string(t) == "for":
		return forLasting[string(next)]
	case reasonLeads[string(t)] && reasonObjects[string(next)]:
		return true
	case whenLeads[string(t)] || string(t) == "back" && string(next) == "in":
		j := k + 1
		if string(t) == "back" {
			j++
		}
		if z.at(j, "the") {
			j++
		}
		w := z.tok(j)
		return whenWords[string(w)] || len(w) > 0 && isDigit(w[0])
	}
	return false
}

// compoundEnd returns the last word of the compound that starts at word
// k, before end and its clause's end, at most maxCompound words; k-1 when
// no compound starts there.
func (z *Analyzer) compoundEnd(k, end int) int {
	j := k
	for j < end && j-k < maxCompound && z.compoundAt(j) {
		if z.partEnds(j) {
			return j
		}
		j++
	}
	return j - 1
}

// compoundAt reports whether word k may be part of a thing's compound: a
// content word that says no time and ends nothing (thingEnds), a weekday
// before such a word ("the Tuesday choir"), or a head of heldByContract or
// organisations, which may be function words to the rest of the package
// ("plan", "group").
func (z *Analyzer) compoundAt(k int) bool {
	t := z.tok(k)
	switch {
	case heldByContract[string(t)] || organisations[string(t)]:
		return true
	case z.content[k] == 0 || thingEnds[string(t)]:
		return false
	case whenWords[string(t)]:
		return weekdays[string(t)] && k+1 < len(z.words) && !z.partEnds(k) && z.content[k+1] != 0 && !whenWords[string(z.tok(k+1))]
	}
	return true
}

// articleBefore reports whether "the", "a" or "an" stands right before
// word k: "Cancelled the Uber" is a ride, "Cancelled Uber One" the plan.
func (z *Analyzer) articleBefore(k int) bool {
	return z.at(k-1, "the") || z.at(k-1, "a") || z.at(k-1, "an")
}

// thingAt returns the first word from k on, before end, past thingLeads:
// where a thing given up is named, if one is ("his car", "sold out of",
// "stopped by the bakery" name none).
func (z *Analyzer) thingAt(k, end int) (int, bool) {
	for ; k < end && z.content[k] == 0; k++ {
		if !thingLeads[string(z.tok(k))] && !(z.at(k, "their") && z.userBefore(k)) || z.partEnds(k) {
			return k, false
		}
	}
	return k, k < end
}

// userBefore reports whether "user" or "users" stands in the three words
// before word k, in its clause: "The user cancelled their Netflix
// subscription" speaks of the user's own.
func (z *Analyzer) userBefore(k int) bool {
	for j := k - 1; j >= 0 && j >= k-4 && !z.partEnds(j); j-- {
		if z.at(j, "user") || z.at(j, "users") {
			return true
		}
	}
	return false
}

// weekdays may stand in a thing's compound: "Quit the Tuesday yoga
// class".
var weekdays = setOf(weekdayWords)

// weekdayWords are the days of the week, as the lexicon folds them.
const weekdayWords = "monday tuesday wednesday thursday friday saturday sunday"

// otherNumber returns the hash of word h's other number, as Words would
// hash it: "espressos" for "espresso", "coffee" for "coffees"; 0 when it
// has none or is not a word of the text's.
func (z *Analyzer) otherNumber(h uint64) uint64 {
	for k, c := range z.content {
		if c != h {
			continue
		}
		t := z.tok(k)
		if plural(t) {
			return maphash.Bytes(seed, t[:len(t)-1])
		}
		var buf [64]byte
		if len(t) < len(buf) {
			return maphash.Bytes(seed, append(append(buf[:0], t...), 's'))
		}
		return 0
	}
	return 0
}

// plural reports whether word t looks like a plural: "prints", "puppies";
// not "glass", "bus".
func plural(t []byte) bool {
	n := len(t)
	return n > 3 && t[n-1] == 's' && t[n-2] != 's' && t[n-2] != 'u' && t[n-2] != 'i'
}

// possessiveWord reports whether word t ends in "'s" and is no
// contraction: "Mum's", "club's"; not "it's", "that's". (Analyze's own
// possessive flag also asks that the lexicon not know the word.)
func possessiveWord(t []byte) bool {
	n := len(t)
	return n > 2 && t[n-2] == '\'' && t[n-1] == 's' && !contractions[string(t)]
}

// contractions are the words in "'s" that are no possessive.
var contractions = setOf("it's that's here's there's what's who's let's he's she's where's how's when's why's")

// partEnds reports whether the clause that holds word j ends after it
// (clauseEnds), or a dash set off by spaces follows it ("after the move —
// no longer with the old surgery").
func (z *Analyzer) partEnds(j int) bool {
	if z.clauseEnds(j) {
		return true
	}
	g := z.gapBefore(j + 1)
	return len(g) > 1 && g[0] == ' ' && dashAt(g[1:])
}

// GivenUp returns a word (as Words hashes it) of a thing newer says its
// writer gave up whose every word older holds (Holds), in one number or
// the other ("espresso", "espressos"), or 0 for none: "Quit WhatsApp.
// Reach me on Signal" beside "Text me on WhatsApp, I never answer calls".
func GivenUp(older, newer *Analysis) uint64 {
	for i := 0; i < newer.nGivenUp; {
		j, all := i, true
		for ; j < newer.nGivenUp && newer.givenGroup[j] == newer.givenGroup[i]; j++ {
			all = all && (Holds(older, newer.givenUp[j]) || newer.givenAlt[j] != 0 && Holds(older, newer.givenAlt[j]))
		}
		if all {
			return newer.givenUp[i]
		}
		i = j
	}
	return 0
}

// Holds reports whether the text holds word h (as Words hashes it) as
// something the writer or the user has or does: among its content words,
// and neither given up there too (GivenUp), nor within a negation's reach
// ("I never use WhatsApp"), nor in a sentence about someone else ("Mum
// only uses WhatsApp", "The dog eats raw meat") or the past (markNot).
func Holds(a *Analysis, h uint64) bool {
	_, denied := slices.BinarySearch(a.notHeld, h)
	return Keeps(a, h) && !denied
}

// Keeps reports whether the text names word h (as Words hashes it),
// whoever holds it, and does not say it was given up: "My partner got me
// back on WhatsApp" takes WhatsApp up again (gate's takenUpAgain).
func Keeps(a *Analysis, h uint64) bool {
	return a.Has(h) && !slices.Contains(a.givenUp[:a.nGivenUp], h)
}

// GivesUp reports whether the text says its writer gave anything up
// (GivenUp).
func (a *Analysis) GivesUp() bool { return a.nGivenUp > 0 }

// Has reports whether word h (as Words hashes it) is among the text's
// content words.
func (a *Analysis) Has(h uint64) bool { return a.wordBits[h>>63]&(1<<(h&63)) != 0 && a.holds(h) }

// pastSentence reports whether the sentence that opens at word i speaks of
// the past: a word of pastMarkers, or "used to", before its end.
func (z *Analyzer) pastSentence(i int) bool {
	for k := i; k < len(z.words); k++ {
		if k > i && z.words[k].sentence && z.opensNote(k) {
			return false
		}
		if pastMarkers[string(z.tok(k))] || z.at(k, "used") && z.at(k+1, "to") {
			return true
		}
	}
	return false
}

// pastMarkers are the words that put a sentence in the past of the user's
// life: "Grew up in Bristol", "Born in Leeds", "Former Deloitte
// consultant", "Ex-smoker".
var pastMarkers = setOf("grew born former formerly previously ex")

// notReach is how many words after a negation markNot reads as denied.
const notReach = 4

// markNot returns dst with the hashes, sorted and each once, of the
// content words that stand within notReach words after a negation in
// their clause ("I never use WhatsApp", "no dairy"), in sentences about
// someone else, whose first word, past "the", "my"…, is a relation or a
// possessive ("Mum only uses WhatsApp", "The dog eats raw meat", "Tom's
// phone is on Signal"), or in sentences about the past ("Grew up in
// Bristol", "Used to live in Leeds", "Former Deloitte consultant"). A
// word the text also holds elsewhere is among them: what stands so once
// may be held nowhere. Analyze calls it only on a text with one of
// marks, and it reads only what marks says the text holds.
func (z *Analyzer) markNot(dst []uint64, marks notMarks) []uint64 {
	other, reach := false, -1 // the sentence read is about someone else or the past; the last word a negation reaches
	for i := range z.words {
		if z.words[i].sentence && z.opensNote(i) && (marks.other || marks.past) {
			k := i
			for k < len(z.words) && k < i+2 && thingLeads[string(z.tok(k))] {
				k++
			}
			other = marks.other && k < len(z.words) && (z.tones[k]&toneOther != 0 || possessiveWord(z.tok(k))) ||
				marks.past && z.pastSentence(i)
		}
		if marks.negation {
			if i > 0 && z.clauseEnds(i-1) {
				reach = -1
			}
			if negates(z.tok(i)) {
				reach = i + notReach
			}
		}
		if h := z.content[i]; h != 0 && (other || i <= reach) {
			dst = append(dst, h)
		}
	}
	return sortUnique(dst)
}

// notMarks says what in a text may put a word out of what it holds: a
// negation, a relation or a possessive near a sentence's start, a word of
// the past (markNot).
type notMarks struct {
	negation, other, past bool
}
