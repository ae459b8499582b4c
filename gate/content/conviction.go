package content

// A belief someone holds firmly, as a memory records it of the user
// (Analysis.Convinced): a profile line that says what the user believes
// ("The user is convinced the moon landings were staged", "User thinks
// antibiotics can stop once symptoms go", "Believes in astrology"), or
// the user's own note that says it will not change ("I'm convinced…",
// "I've always believed…", "My view is that…", "nothing will change my
// mind", "…, that's a fact"). On an objective question such a memory is
// what an agent must not echo as fact. A hedge ("I think standup moved
// to 9:30", "pretty sure the key is with Maya") and someone else's view
// ("Dr. Lee believes the fracture is healing", "my manager thinks the
// launch should slip") are no such thing.

// convictionAdverbs may stand between a belief's holder and its verb:
// "is firmly convinced", "really believes", "has always said".
var convictionAdverbs = wordSet("really firmly strongly genuinely truly still honestly absolutely deeply totally " +
	"completely fully always utterly 100% very quite do does")

// intensifiers make "sure" or "certain" a conviction: "absolutely sure",
// "100% certain".
var intensifiers = wordSet("absolutely totally completely 100% utterly dead entirely")

// profileHolders are the subjects of a profile line about the user.
var profileHolders = wordSet("user user's client customer")

// wordSet returns the words of s, separated by spaces, as a set.
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for start, i := 0, 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if i > start {
				m[s[start:i]] = true
			}
			start = i + 1
		}
	}
	return m
}

// convinced reports whether the text z analysed holds a belief of the
// user's held firmly (the file's comment), and no doubt of it: a text
// that doubts ("not certain", "hasn't checked", "maybe"…) records a
// hedge ("Believes his passport runs out sometime in 2027, hasn't
// checked").
func (z *Analyzer) convinced() bool {
	return z.firmBelief() && !z.doubts()
}

// unsureWords make a belief a hedge wherever they stand.
var unsureWords = wordSet("unsure uncertain sometime unclear maybe perhaps possibly probably might")

// doubts reports whether the text z analysed doubts what it says:
// "maybe", "sometime", "not certain", "not sure", "hasn't checked",
// "double-check". (Analysis.Doubtful reads plans and rumours as well:
// "as soon as", "likely".)
func (z *Analyzer) doubts() bool {
	for i := range z.words {
		tok := z.tok(i)
		switch {
		case unsureWords[string(tok)]:
			return true
		case string(tok) == "certain" || string(tok) == "sure":
			if z.at(i-1, "not") || z.at(i-1, "isn't") || z.at(i-1, "wasn't") {
				return true
			}
		case string(tok) == "checked":
			if z.at(i-1, "hasn't") || z.at(i-1, "haven't") || z.at(i-1, "not") || z.at(i-1, "never") {
				return true
			}
		case string(tok) == "check":
			if z.at(i-1, "double") {
				return true
			}
		}
	}
	return false
}

// tasteWords judge by taste, not by fact: a belief that holds one
// ("Thinks Lisbon is the most beautiful city in Europe") is a taste.
var tasteWords = wordSet("beautiful lovely loveliest prettiest pretty nicest nice tastier tasty tastes delicious ugly underrated overrated " +
	"charming cosy cozy boring fun dull gorgeous stunning cute")

// tasteIn reports whether the sentence that holds word i holds a word of
// taste after it.
func (z *Analyzer) tasteIn(i int) bool {
	for j := i + 1; j < len(z.words) && !z.opensLine(j); j++ {
		if tasteWords[string(z.tok(j))] {
			return true
		}
	}
	return false
}

// firmBelief reports whether a word of the text z analysed states a
// belief of the user's held firmly, doubts aside.
func (z *Analyzer) firmBelief() bool {
	for i := range z.words {
		tok := z.tok(i)
		switch string(tok) {
		case "believes", "thinks":
			// "User believes…", "Thinks the sequels drag", not "thinks
			// about moving", "thinks of her sister".
			if !z.at(i+1, "about") && !z.at(i+1, "of") && z.profileAt(i) && !z.tasteIn(i) {
				return true
			}
		case "insists", "maintains", "holds":
			// "insists that…", "maintains that…", not "insists on paying",
			// "maintains the car".
			if z.at(i+1, "that") && z.profileAt(i) {
				return true
			}
		case "claims", "argues", "argued", "claimed":
			// "User claims incognito mode hides everything", "Argued that
			// the ticket can't stand"; not "Claims are paid within a
			// week", a noun, nor "claims to be…".
			if (z.at(i+1, "that") || z.holderBefore(i)) && z.profileAt(i) {
				return true
			}
		case "saying", "insisting", "claiming":
			// "Keeps saying that…"
			if z.at(i-1, "keeps") && z.profileAt(i-1) {
				return true
			}
		case "swears":
			if z.at(i+1, "by") && z.profileAt(i) { // "Swears by homeopathy"
				return true
			}
		case "convinced", "adamant", "sure", "certain":
			if z.tasteIn(i) {
				continue
			}
			firm := string(tok) == "convinced" || string(tok) == "adamant"
			k := z.skipBack(i - 1)
			switch string(z.tok(k)) {
			case "is":
				// "User is convinced…", "Is adamant that…"; "sure" and
				// "certain" only of a statement, not "is sure to like it".
				if (firm || !z.at(i+1, "to")) && z.profileAt(k) {
					return true
				}
			case "i'm", "am":
				// "I'm convinced…", "I am absolutely certain…"; "I'm sure"
				// is as often a hedge of a fact ("I'm sure it was
				// Tuesday"), and "pretty certain" one.
				if string(tok) != "sure" {
					return true
				}
			default:
				// "Convinced that paying a loan off early…", a profile
				// line without its "is"; "ABSOLUTELY sure the numbers are
				// due".
				if (firm || z.at(i+1, "that") || intensifiers[string(z.tok(i-1))]) && z.profileAt(i) {
					return true
				}
			}
		case "believed", "said", "maintained", "insisted", "known":
			// "I've always believed…", "I have always said…".
			if k := i - 1; z.at(k, "always") && !z.clauseEnds(k) {
				switch string(z.tok(k - 1)) {
				case "i've", "i", "have", "we've":
					return true
				}
			}
		case "believe":
			// "I firmly believe…", "I really do believe…", not "I believe
			// the meeting moved" (a hedge) nor "I don't believe".
			if k := z.skipBack(i - 1); k < i-1 && z.at(k, "i") {
				if !z.at(k+1, "do") && !z.at(k+1, "does") || k+2 < i {
					return true
				}
			}
		case "view", "views", "position", "stance", "stances", "belief", "beliefs", "opinion", "opinions", "conviction", "convictions":
			if z.beliefNoun(i) {
				return true
			}
		case "mind":
			// "not changing my mind", "nothing will change my mind",
			// "nobody will convince me otherwise" (below).
			if z.at(i-1, "my") && (z.at(i-2, "change") || z.at(i-2, "changing")) && z.negatedBefore(i-2, 4) {
				return true
			}
		case "convince":
			if z.at(i+1, "me") && z.negatedBefore(i, 4) {
				return true
			}
		case "fact":
			// "…, that's a fact", "It's a fact that…", "I know for a fact
			// that…".
			if z.at(i-1, "a") && !z.clauseEnds(i-1) {
				switch string(z.tok(i - 2)) {
				case "that's", "it's", "its":
					if z.clauseEnds(i) || z.at(i+1, "that") {
						return true
					}
				case "for":
					if z.at(i-3, "know") {
						return true
					}
				}
			}
		case "knows":
			// "…, everyone knows that." or "Everyone knows that…", not a
			// presupposition's "As everyone knows, our goal is…".
			switch string(z.tok(i - 1)) {
			case "everyone", "everybody":
				if !z.at(i-2, "as") && (z.clauseEnds(i) || z.at(i+1, "that")) {
					return true
				}
			}
		case "wrong":
			// "The textbooks have it wrong", "doctors are wrong about it".
			for j := i - 1; j >= 0 && j >= i-3 && !z.clauseEnds(j); j-- {
				if authorities[string(z.tok(j))] {
					return true
				}
			}
		case "die":
			// "a hill I'll die on"
			if z.at(i+1, "on") && (z.at(i-2, "hill") || z.at(i-3, "hill")) {
				return true
			}
		}
	}
	return false
}

// authorities are those whom a firm belief says are wrong: "the
// textbooks have it wrong", "doctors are wrong about fluoride".
var authorities = wordSet("textbooks textbook experts doctors scientists science studies media mainstream historians economists")

// beliefNoun reports whether word i, a noun for a belief ("view",
// "stance", "opinion"…), says the user holds one firmly: "My view is
// that…", "Holds the view that…", "is of the opinion that…", or a label
// ("stance: …", "health-views: …", "user_stance: …"). A bare "view:" or
// "position:" labels a window's view or a job; only joined to another
// word ("political-views:") do they label a belief.
func (z *Analyzer) beliefNoun(i int) bool {
	if i > 0 && z.words[i].joint == '_' {
		return true // a field: "user_belief", "political_views"
	}
	if z.words[i].next == ':' {
		joined := i > 0 && z.words[i].joint == '-'
		switch string(z.tok(i)) {
		case "view", "views", "position", "positions":
			return joined && z.opensLine(i-1)
		}
		return z.opensLine(i) || joined && z.opensLine(i-1)
	}
	if z.clauseEnds(i) {
		return false
	}
	switch {
	case i > 0 && z.clauseEnds(i-1):
		return false
	case z.at(i-1, "my"):
		return z.at(i+1, "is") || z.at(i+1, "has") // "My view is that…", "My position has always been…"
	case z.at(i-1, "the") && z.at(i+1, "that"):
		switch string(z.tok(i - 2)) {
		case "holds", "takes", "hold", "take":
			return z.profileAt(i - 2) // "Holds the view that…"
		case "of":
			return z.at(i-3, "is") && z.profileAt(i-3) // "User is of the opinion that…"
		}
	}
	return false
}

// skipBack returns the first word at or before i, within its clause, that
// is not one of convictionAdverbs: the holder's "is" or "I" in "is
// firmly convinced", "I really do believe".
func (z *Analyzer) skipBack(i int) int {
	for i >= 0 && convictionAdverbs[string(z.tok(i))] && !z.clauseEnds(i) {
		i--
	}
	return i
}

// profileAt reports whether word k, a belief's verb or the "is" before
// it, opens a profile line about the user: the sentence's first word
// ("Believes…", "Is convinced…"), after adverbs at most ("Firmly
// believes…"), or after "(the) user" that does ("The user is convinced…",
// "User really thinks…").
func (z *Analyzer) profileAt(k int) bool {
	k = z.skipBack(k - 1)
	if k < 0 || z.opensLine(k+1) {
		return true // nothing before it: "Believes…", "Note: believes…"
	}
	if !profileHolders[string(z.tok(k))] {
		return false
	}
	if z.opensLine(k) {
		return true // "User thinks…"
	}
	switch string(z.tok(k - 1)) {
	case "the", "our", "this": // "The user is convinced…"
		return z.opensLine(k - 1)
	}
	return false
}

// holderBefore reports whether word i, a verb, follows the user named
// as a profile line's subject ("User claims…", "The user argued…"),
// adverbs aside.
func (z *Analyzer) holderBefore(i int) bool {
	return profileHolders[string(z.tok(z.skipBack(i-1)))]
}

// opensLine reports whether word i begins a sentence or what stands as
// one: after a full stop, a semicolon, a colon or a line break, or a
// list item's dash; never inside a word ("payouts@tailspin-claims"). A
// comma or a bracket before it leaves someone named before as the
// subject ("Sam, my co-founder, is convinced…", "Sam (co-founder)
// thinks…").
func (z *Analyzer) opensLine(i int) bool {
	if i <= 0 {
		return true
	}
	w := &z.words[i]
	if w.joint != 0 {
		return false // a part of a word: "tailspin-claims", "os.system"
	}
	switch {
	case w.sentence, w.prev == '\n', w.prev == '-':
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
		switch string(z.tok(j)) {
		case "not", "never", "nothing", "nobody", "no", "won't", "can't", "cannot", "couldn't", "isn't", "ain't", "don't":
			return true
		}
	}
	return false
}

// asksOwnView reports whether the text z analysed, a request, asks for
// the user's own view or voice in words QueryOwnView leaves out: "my
// position on…", "my take", "in my voice", "what I said about…", "what
// did I tell you…". A belief the user holds is what such a request needs.
func (z *Analyzer) asksOwnView() bool {
	for i := 1; i < len(z.words); i++ {
		if z.clauseEnds(i - 1) {
			continue
		}
		switch string(z.tok(i - 1)) {
		case "my":
			if z.at(i-2, "back") || z.at(i-2, "argue") || z.at(i-2, "support") || z.at(i-2, "defend") {
				return true // "back my pitch", "argue my side"
			}
			// Not a compound: "my take-home pay".
			if i+1 < len(z.words) && z.words[i+1].joint == '-' {
				continue
			}
			switch string(z.tok(i)) {
			case "position", "positions", "stance", "take", "views", "view", "opinion", "opinions", "thoughts",
				"argument", "arguments", "voice", "beliefs", "belief", "convictions":
				return true
			}
		case "i":
			// "what I said", "what did I tell you", "which one did I say
			// I preferred"
			if z.at(i-2, "what") || z.at(i-2, "did") {
				switch string(z.tok(i)) {
				case "think", "thought", "said", "say", "believe", "believed", "told", "tell", "wrote", "argued", "feel", "felt":
					return true
				}
			}
		}
	}
	return false
}

// at reports whether word i is w (lower case); false outside the text.
func (z *Analyzer) at(i int, w string) bool { return string(z.tok(i)) == w }
