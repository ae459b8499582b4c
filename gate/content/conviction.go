package content

// A belief the user holds firmly, as a memory records it of the user
// (Analysis.Convinced): a profile line that says what the user believes
// ("The user is convinced the moon landings were staged", "User thinks
// antibiotics can stop once symptoms go", "Believes in astrology"), the
// user's own note that says it will not change ("I'm convinced…", "I've
// always believed…", "My view is that…", "nothing will change my mind",
// "…, that's a fact"), or a label that names a belief ("stance: …",
// "user_belief"). On an objective question such a memory is what an agent
// must not echo as fact. A hedge ("I think standup moved to 9:30",
// "pretty sure the key is with Maya", a belief beside "maybe" or "hasn't
// checked"), a taste ("Thinks Lisbon is the most beautiful city"),
// someone else's view ("Dr. Lee believes the fracture is healing", "my
// manager thinks the launch should slip") and an emphasis alone ("…, full
// stop", which marks tastes and house rules as firmly) are no such thing.

// Word sets of the conviction reading.
var (
	// convictionAdverbs may stand between a belief's holder and its verb:
	// "is firmly convinced", "really believes", "is 100% certain" ("100"
	// as the tokenizer gives it).
	convictionAdverbs = setOf("really firmly strongly genuinely truly still honestly absolutely deeply totally " +
		"completely fully always utterly 100 very quite do does")
	// convictionIntensifiers make "sure", "certain" or "positive" a
	// conviction without its "is": "ABSOLUTELY sure the numbers are due".
	convictionIntensifiers = setOf("absolutely totally completely 100 utterly dead entirely")
	// convictionAuthorities are those whom a firm belief says are wrong:
	// "the textbooks have it wrong", "doctors are wrong about fluoride".
	convictionAuthorities = setOf("textbooks textbook experts doctors scientists science studies media mainstream historians economists")
	// beliefNouns name a belief: "my view is that…", "stance: …".
	beliefNouns = setOf(beliefNounWords)
	// unsureWords make a belief in their sentence a hedge.
	unsureWords = setOf("unsure uncertain sometime unclear maybe perhaps possibly probably might")
	// tasteWords judge by taste, not by fact: a belief whose sentence
	// holds one ("Thinks Lisbon is the most beautiful city") is a taste.
	tasteWords = setOf("beautiful lovely loveliest prettiest pretty nicest nice tastier tasty tastes delicious ugly underrated " +
		"overrated charming cosy cozy boring fun dull gorgeous stunning cute")
	// convictionTriggers are the words the reading starts from
	// (entry.convict): a text without one holds no conviction.
	convictionTriggers = "believes thinks insists maintains holds swears convinced adamant sure certain positive believed said " +
		"maintained insisted known believe believer mind convince fact knows wrong die claims argues argued claimed " +
		"saying insisting claiming doubt " + beliefNounWords
)

// beliefNounWords are the words of beliefNouns, which the reading starts
// from too.
const beliefNounWords = "view views position positions stance stances belief beliefs opinion opinions conviction convictions"

// maxConvictionReach bounds how many words on either side of a belief's
// word its sentence is read for a doubt or a taste (hedgedNear), so that
// a text of one long sentence costs linear time.
const maxConvictionReach = 40

// Words the tests of the reading compare with (oneOf).
var (
	mindNegations = []string{"not", "never", "nothing", "nobody", "no", "won't", "can't", "cannot", "couldn't", "isn't", "ain't", "don't"}
	notBefore     = []string{"not", "isn't", "wasn't"}
	uncheckedBy   = []string{"hasn't", "haven't", "not", "never"}
	thinksNot     = []string{"about", "of", "in", "through", "out", "ahead", "back", "twice", "so"}
	disputeWords  = []string{"with", "about", "over", "for", "against", "to"}
	profileLeads  = []string{"the", "our", "this"}
	beliefVerbs   = []string{"holds", "takes", "hold", "take"}
	selfConvinced = []string{"i'm", "am"}
)

// convinced reports whether the text z analysed holds a belief of the
// user's held firmly (Analysis.Convinced) with no doubt or taste in its
// sentence. It reads only the words the reading starts from (convicts).
func (z *Analyzer) convinced() bool {
	for _, i := range z.convicts {
		if z.firmAt(i) && !z.hedgedNear(i) {
			return true
		}
	}
	return false
}

// firmAt reports whether word i states a belief of the user's held
// firmly: a profile line's verb, the user's own word of conviction, a
// noun or label that names a belief, or an assertion that it is settled.
func (z *Analyzer) firmAt(i int) bool {
	switch tok := z.tok(i); string(tok) {
	case "believes", "thinks":
		// "User believes…", "Thinks the sequels drag", not "thinks
		// about moving", "thinks in bullet points".
		return !(z.at(i, "thinks") && z.oneOf(i+1, thinksNot)) && z.profileAt(i)
	case "insists", "maintains", "holds", "swears":
		// "insists that…", "swears that…", "swears by homeopathy"; not
		// "insists on paying", "maintains the car".
		return (z.at(i+1, "that") || string(tok) == "swears" && z.at(i+1, "by")) && z.profileAt(i)
	case "claims", "argues", "argued", "claimed":
		// "User claims incognito mode hides everything", "Argued that
		// the ticket can't stand"; not "Claims are paid within a week",
		// "claims to be vegetarian", "argued with the landlord".
		return (z.at(i+1, "that") || z.holderBefore(i) && !z.oneOf(i+1, disputeWords)) && z.profileAt(i)
	case "saying", "insisting", "claiming":
		return z.at(i-1, "keeps") && z.profileAt(i-1) // "Keeps saying that…"
	case "convinced", "adamant", "sure", "certain", "positive":
		return z.convictionAt(i)
	case "believer":
		// "A firm believer in…", "User is a strong believer in…"
		if !z.at(i-1, "firm") && !z.at(i-1, "strong") && !z.at(i-1, "true") {
			return false
		}
		j := i - 2
		if z.at(j, "a") {
			j--
		}
		if z.at(j, "is") {
			return z.profileAt(j)
		}
		return z.opensLine(j + 1)
	case "doubt":
		// "Has no doubt that…", "I have no doubt…"
		return z.at(i-1, "no") && (z.at(i-2, "has") && z.profileAt(i-2) || z.at(i-2, "have") && z.at(i-3, "i"))
	case "believed", "said", "maintained", "insisted", "known":
		// "I've always believed…", "I have always said…", not "My
		// parents have always said…".
		k := i - 1
		if !z.at(k, "always") || z.clauseEnds(k) {
			return false
		}
		return z.at(k-1, "i've") || z.at(k-1, "i") || z.at(k-1, "have") && z.at(k-2, "i")
	case "believe":
		// "I firmly believe…", "I really do believe…", not "I believe
		// the meeting moved" (a hedge) nor "I don't believe".
		k := z.skipBack(i - 1)
		return k < i-1 && z.at(k, "i") && (!z.at(k+1, "do") && !z.at(k+1, "does") || k+2 < i)
	case "mind":
		// "not changing my mind", "nothing will change my mind".
		return z.at(i-1, "my") && (z.at(i-2, "change") || z.at(i-2, "changing")) && z.negatedBefore(i-2, 4)
	case "convince":
		return z.at(i+1, "me") && z.negatedBefore(i, 4) // "nobody will convince me"
	case "fact":
		// "…, that's a fact", "It's a fact that…", "I know for a fact
		// that…".
		if !z.at(i-1, "a") || z.clauseEnds(i-1) {
			return false
		}
		switch string(z.tok(i - 2)) {
		case "that's", "it's", "its":
			return z.clauseEnds(i) || z.at(i+1, "that")
		case "for":
			return z.at(i-3, "know")
		}
	case "knows":
		// "…, everyone knows that." or "Everyone knows that…", not a
		// presupposition's "As everyone knows, our goal is…".
		return (z.at(i-1, "everyone") || z.at(i-1, "everybody")) && !z.at(i-2, "as") && (z.clauseEnds(i) || z.at(i+1, "that"))
	case "wrong":
		// "The textbooks have it wrong", "doctors are wrong about it".
		for j := i - 1; j >= 0 && j >= i-3 && !z.clauseEnds(j); j-- {
			if convictionAuthorities[string(z.tok(j))] {
				return true
			}
		}
	case "die":
		return z.at(i+1, "on") && (z.at(i-2, "hill") || z.at(i-3, "hill")) // "a hill I'll die on"
	default:
		return beliefNouns[string(tok)] && z.beliefNoun(i)
	}
	return false
}

// convictionAt reports whether word i, "convinced", "adamant", "sure",
// "certain" or "positive", says someone is convinced, and that someone
// the user: "User is convinced…", "Is adamant that…", "I'm absolutely
// certain…", "Convinced that…", "ABSOLUTELY sure the numbers are due".
// "Sure" and "certain" only of a statement ("is sure to like it" is not),
// and "I'm sure" is as often a hedge of a fact ("I'm sure it was
// Tuesday"), and "positive" only of oneself or before "that".
func (z *Analyzer) convictionAt(i int) bool {
	firm := z.at(i, "convinced") || z.at(i, "adamant")
	k := z.skipBack(i - 1)
	switch {
	case z.oneOf(k, selfConvinced):
		return !z.at(i, "sure") // "I'm positive gold always goes up…"
	case z.at(i, "positive") && !z.at(i+1, "that"):
		return false // "HIV positive", "a positive review"
	case z.at(k, "is"):
		return (firm || !z.at(i+1, "to")) && z.profileAt(k)
	}
	return (firm || z.at(i+1, "that") || convictionIntensifiers[string(z.tok(i-1))]) && z.profileAt(i)
}

// beliefNoun reports whether word i, a noun for a belief (beliefNouns),
// says the user holds one firmly: "My view is that…", "My position has
// always been…", "Holds the view that…", "is of the opinion that…", or
// a label ("stance: …", "User's belief: …", "health-views: …", a field
// "user_belief", "user_view"). "View" and "position" name a window's
// view or a job as often, so only "my view is that", "user_view" and the
// like count for them.
func (z *Analyzer) beliefNoun(i int) bool {
	loose := z.at(i, "view") || z.at(i, "position") || z.at(i, "positions")
	if i > 0 && z.words[i].joint == '_' {
		// a field: "user_belief", "political_stance", but not "page_view"
		return !loose && !z.at(i, "views") || z.at(i-1, "user")
	}
	if z.words[i].next == ':' {
		switch {
		case loose:
			return false
		case z.opensLine(i), z.at(i-1, "user's") && z.opensLine(i-1):
			return true
		}
		return i > 0 && z.words[i].joint == '-' && z.opensLine(i-1) // "health-views:"
	}
	if z.clauseEnds(i) || i > 0 && z.clauseEnds(i-1) {
		return false
	}
	switch {
	case z.at(i-1, "my"):
		// "My view is that…", "My position has always been…"; not "My
		// view is blocked by the new tower", "My position has changed".
		return z.at(i+1, "is") && z.at(i+2, "that") || z.at(i+1, "has") && z.at(i+2, "always")
	case z.at(i-1, "the") && z.at(i+1, "that"):
		if z.oneOf(i-2, beliefVerbs) {
			return z.profileAt(i - 2) // "Holds the view that…"
		}
		return z.at(i-2, "of") && z.at(i-3, "is") && z.profileAt(i-3) // "User is of the opinion that…"
	}
	return false
}

// hedgedNear reports whether the sentence that holds word i, within
// maxConvictionReach words of it, doubts what it says or judges by
// taste: "Believes his passport runs out sometime in 2027, hasn't
// checked", "Thinks Lisbon is the most beautiful city".
func (z *Analyzer) hedgedNear(i int) bool {
	from, to := i, i
	for from > 0 && i-from < maxConvictionReach && !z.opensLine(from) {
		from--
	}
	for to+1 < len(z.words) && to-i < maxConvictionReach && !z.opensLine(to+1) {
		to++
	}
	for j := from; j <= to; j++ {
		switch tok := z.tok(j); {
		case unsureWords[string(tok)], tasteWords[string(tok)] && j > i:
			return true
		case string(tok) == "certain" || string(tok) == "sure":
			if z.oneOf(j-1, notBefore) {
				return true // "not certain"
			}
		case string(tok) == "checked":
			if z.oneOf(j-1, uncheckedBy) {
				return true // "hasn't checked"
			}
		case string(tok) == "check":
			if z.at(j-1, "double") {
				return true
			}
		}
	}
	return false
}

// skipBack returns the first word at or before i, within its clause, that
// is not one of convictionAdverbs: the holder's "is" or "I" in "is
// firmly convinced", "I really do believe"; -1 when there is none.
func (z *Analyzer) skipBack(i int) int {
	for i >= 0 && convictionAdverbs[string(z.tok(i))] && !z.clauseEnds(i) {
		i--
	}
	return i
}

// profileAt reports whether word k, a belief's verb or the "is" before
// it, opens a profile line about the user: the first word of a line
// ("Believes…", "Note: is convinced…"), after adverbs at most ("Firmly
// believes…"), or after "(the) user" that does ("The user is
// convinced…", "User really thinks…"); or whether it follows "and"
// after a profile line's first predicate, whose subject it shares ("The
// user is a climate sceptic and thinks…", "Is a retired GP and is
// convinced…"; not "Sam is a builder and thinks…").
func (z *Analyzer) profileAt(k int) bool {
	k = z.skipBack(k - 1)
	if k < 0 || z.opensLine(k+1) {
		return true
	}
	if z.at(k, "and") {
		return z.profileSubjectBefore(k)
	}
	return z.profileSubjectAt(k)
}

// profileSubjectAt reports whether word k is "user" as a profile line's
// subject: "User…", "The user…", "Our user…".
func (z *Analyzer) profileSubjectAt(k int) bool {
	return z.at(k, "user") && (z.opensLine(k) || z.oneOf(k-1, profileLeads) && z.opensLine(k-1))
}

// maxPredicateWords bounds how far back from "and" a profile line's
// first predicate is looked for (profileSubjectBefore).
const maxPredicateWords = 10

// profileSubjectBefore reports whether "and" at word k joins a second
// predicate to a profile line's first, within maxPredicateWords and one
// clause: the line opens with "(the) user is/has…" or with "is" or "has"
// itself ("Is a retired GP and…").
func (z *Analyzer) profileSubjectBefore(k int) bool {
	for j := k - 1; j >= 0 && j >= k-maxPredicateWords && !z.clauseEnds(j); j-- {
		if !z.at(j, "is") && !z.at(j, "has") {
			continue
		}
		return z.opensLine(j) || z.profileSubjectAt(j-1)
	}
	return false
}

// holderBefore reports whether word i, a verb, follows the user named
// as a profile line's subject ("User claims…", "The user argued…"),
// adverbs aside.
func (z *Analyzer) holderBefore(i int) bool { return z.at(z.skipBack(i-1), "user") }

// opensLine reports whether word i begins a sentence or what stands as
// one: after a full stop, a semicolon, a colon or a line break, or a
// list item's dash; never inside a word ("payouts@tailspin-claims"). A
// comma or a bracket before it leaves someone named before as the
// subject ("Sam, my co-founder, is convinced…", "Sam (co-founder)
// thinks…"). Unlike clauseEnds, a comma ends nothing here; unlike
// endsSentence, a colon and a line break do.
func (z *Analyzer) opensLine(i int) bool {
	if i <= 0 {
		return true
	}
	w := &z.words[i]
	if w.joint != 0 {
		return false // a part of a word: "tailspin-claims", "os.system"
	}
	if w.sentence || w.prev == '\n' || w.prev == '-' {
		return true
	}
	switch z.words[i-1].next {
	case ';', ':':
		return true
	}
	return false
}

// negatedBefore reports whether one of the n words before word i, within
// its clause, negates it: "not changing my mind", "nothing will change my
// mind", "nobody can convince me".
func (z *Analyzer) negatedBefore(i, n int) bool {
	for j := i - 1; j >= 0 && j >= i-n && !z.clauseEnds(j); j-- {
		if z.oneOf(j, mindNegations) {
			return true
		}
	}
	return false
}

// viewRole is what a word says of a request for the user's own view, one
// bit each (entry.view).
type viewRole uint8

const (
	viewNoun   viewRole = 1 << iota // after "my", a request for the user's own view: "my position", "my take"
	viewRecall                      // after "what I", "did I", "have I": recalling what the user said
	viewTruth                       // asks whether something is true: "correct", "confirm", "evidence"
)

// viewWords lists the words of each viewRole.
var viewWords = map[viewRole]string{
	viewNoun:   "position positions stance take views view opinion opinions thoughts argument arguments voice beliefs belief convictions rule rules",
	viewRecall: "think thought said say believe believed told tell wrote argued feel felt shared mentioned expressed",
	viewTruth:  "correct true right accurate valid confirm verify wrong evidence backed proven",
}

// ownViewAt reads word i, of viewRole v, for Analysis.AsksOwnView: a
// request to recall or voice the user's own view in words QueryOwnView
// leaves out ("my position on…", "my take", "in my voice", "my rule on
// sweets", "what I said about…", "which did I say I preferred", "what
// views have I shared"), or one that asks whether a view is true ("Is my
// belief that… correct?", "confirm my position"), which a belief the
// user holds must not answer. It needs the tones of words up to i
// (clauseEnds).
func (z *Analyzer) ownViewAt(i int, v viewRole, out *Analysis) {
	if v&viewTruth != 0 {
		out.askTruth = true
	}
	if i == 0 || z.clauseEnds(i-1) {
		return
	}
	switch {
	case v&viewNoun != 0 && z.at(i-1, "my"):
		// Not a compound: "my take-home pay".
		if i+1 >= len(z.words) || z.words[i+1].joint != '-' {
			out.ownView = true
		}
	case v&viewRecall != 0 && z.at(i-1, "i") && (z.at(i-2, "what") || z.at(i-2, "did") || z.at(i-2, "have")):
		out.ownView = true
	}
}

// at reports whether word i is w (lower case); false outside the text.
func (z *Analyzer) at(i int, w string) bool { return string(z.tok(i)) == w }
