package content

import "strings"

// Pressure to flatter or agree (the AgreementPressure cue), read from how
// a clause holds its words rather than from the words alone: praise,
// reassurance or agreement that someone wants, is told to give or is kept
// to ("wants reassurance", "always praise their ideas", "keep replies
// upbeat", "tell her the plan is solid"), and criticism or correction
// that someone cannot take or is told to leave out ("gets upset by
// criticism", "doesn't handle pushback well", "never contradict him").
// The same words the other way round ask for candour ("wants blunt
// critique", "no sugarcoating", "avoid flattery", "doesn't mind being
// corrected") or stand in other senses ("praise from the client",
// "validate the form", "compliments to the chef", "positive test"), and
// say nothing of pressure.

// tone is what a word can do in a clause about praise and criticism, one
// bit each (entry.tone).
type tone uint32

const (
	toneApproval     tone = 1 << iota // praise, reassurance, agreement: what pleases whoever receives it
	toneMild                          // positive, upbeat: approval only of a reply, or where something is kept so
	toneCritique                      // criticism, contradiction, correction
	toneMildCritique                  // feedback, honesty: critique only where someone states a want or an aversion
	toneWant                          // wants, needs, likes: the clause is for what follows
	toneAverse                        // hates, avoids, upset, badly: the clause is against it
	toneNegation                      // not, never, no, without, than, instead, soften: turns what follows
	toneSoft                          // always, just, only: a directive's lead-in
	toneTell                          // tell, hear, told: words that carry a verdict
	toneTellDirect                    // tell, say, assure: a verdict a directive asks for
	toneGood                          // great, fine, solid: a favourable verdict
	toneReply                         // feedback, reviews, replies: what a reader writes back
	toneBreak                         // but, though, however: a clause of its own follows
	toneKeep                          // keep: a directive that holds a reply to a tone
	toneBlock                         // if, whether, how: an open verdict ("tell me whether it works")
	toneCond                          // approval or critique only beside certain words ("play along", "second-guess")
	toneOther                         // sister, boss, client: someone other than the user
	toneName                          // a name (set by Analyze where it finds one)
	toneAfter                         // badly, hard, personally: an aversion only after what it turns ("takes criticism hard")
	toneOwn                           // give, voice, raise: the subject's own act on what follows ("struggles to give feedback")
	toneMind                          // mind: for what follows once negated ("doesn't mind criticism"); "bear in mind" is neither
	toneActor                         // you, the assistant, everyone: whom a want may ask to act ("wants you to agree")
	toneNoun                          // criticism, flattery: a noun only, so "to" before it is a preposition ("sensitive to criticism")
	toneAdj                           // harsh, blunt: a critique only of a reply, not of what it describes ("harsh soaps")
)

// toneWords lists the words of each tone. Past forms that report rather
// than want ("agreed with Sam", "praised by the board") are left out of
// approval; words mostly meant otherwise are left out of both ("approval"
// of a purchase, "support", "critical" bugs) or count only beside certain
// words (toneCond: "agreement that…", not the rental agreement;
// "negative feedback", not a negative test; "challenge my…", not "no
// challenge too big").
var toneWords = map[tone]string{
	toneApproval: "praise praises praising flatter flatters flattery flattered compliment compliments complimented complimenting " +
		"validation validated reassurance reassure reassures reassuring reassured " +
		"affirmation affirmations affirm affirming cheerleader cheerleaders applause kudos " +
		"sugarcoat sugarcoats sugarcoated sugarcoating agree agrees agreeing echo echoed echoing " +
		"accolades adulation admiration ego hype concur concurs endorse endorses gush gushing concede concedes",
	toneMild: "positive positives positivity upbeat encouraging encouragement flattering rosy glowing cheerful supportive",
	toneCritique: "criticism criticisms criticise criticised criticising criticize criticized criticizing critique critiques critiqued critiquing negativity contradict contradicted contradicting contradiction contradictions corrected correcting corrections challenged pushback disagree disagreeing disagreement disagreements nitpick nitpicks nitpicking nitpicky naysaying naysayer naysayers " +
		"argue arguing debunk debunked debunking lectured lecturing moralise moralize moralising moralizing preach preachy " +
		"judging judged judgmental judgemental questioned questioning downer buzzkill killjoy",
	toneMildCritique: "feedback honesty bluntness harshness harsh blunt caveats flaws scrutiny flagging concerns",
	toneWant: "want wants wanted wanting need needs needed like likes liked love loves loved prefer prefers preferred expect expects " +
		"expecting crave craves craving seek seeks seeking enjoy enjoys appreciate appreciates thrive thrives thriving hope hopes hoping " +
		"fishing welcome welcomes welcomed value values valued handle handles stand open invite invites encourages well start rather lives",
	toneAverse: "hate hates hated hating dislike dislikes disliked avoid avoids avoiding spare fear fears afraid upset upsets " +
		"defensive hurt hurts crushed sensitive oversensitive touchy fragile struggles struggle bristles resent resents allergic sulks " +
		"spirals offended deflated discouraged wilts bother bothers faze fazes stop irritated irritating annoyed annoying frustrated angry stings",
	// After what they turn only: "wants hard critique" asks for it.
	toneAfter: "badly poorly hard personally terribly",
	toneNegation: "not no never none nothing nobody don't doesn't didn't isn't aren't won't can't cannot shouldn't without than instead " +
		"soften softens softened", // "soften the critique" refuses some of it
	toneSoft:       "always just only simply please",
	toneTell:       "tell tells telling say says hear hears hearing told assure assures reassure call pretend",
	toneTellDirect: "tell say assure reassure call pretend",
	toneGood: "great good fine solid brilliant amazing perfect right smart genius awesome fantastic excellent wonderful flawless " +
		"incredible talented gifted impressive okay ok beautiful stunning gorgeous accurate correct airtight justified clean",
	toneReply: "feedback review reviews comments replies reply responses response answers answer news reactions notes verdict verdicts " +
		"assessment assessments",
	toneBreak: "but though although however whereas yet",
	toneKeep:  "keep",
	toneMind:  "mind minds",
	toneNoun: "criticism criticisms negativity contradiction contradictions corrections pushback disagreement disagreements " +
		"nitpicks naysaying feedback honesty bluntness harshness caveats flaws scrutiny concerns flattery compliments " +
		"validation reassurance affirmation affirmations applause kudos accolades adulation admiration ego hype positivity",
	toneAdj: "harsh blunt",
	toneActor: "you assistant assistants ai agent bot chatbot model claude chatgpt gpt gemini copilot everyone everybody people " +
		"others someone me him her them us",
	toneBlock: "if whether how what why which",
	toneCond: "along guess guessed guessing apart holes advocate up side corner on man out challenge agreement parade " +
		"correct question back negative",
	toneOwn: "give gives giving voice voicing raise raising offer offering write writing share sharing send sending point " +
		"make making leave leaving post posting",
	toneOther: "boss manager colleague colleagues coworker coworkers report reports sister brother mother father mom mum dad " +
		"wife husband partner son daughter kid kids child children friend friends client clients customer customers student " +
		"students niece nephew aunt uncle cousin grandma grandpa girlfriend boyfriend fiance fiancee roommate flatmate neighbour " +
		"neighbor employee employees intern interns staff parents couple team landlord landlady tenant tenants stepson " +
		"stepdaughter stepmother stepfather grandmother grandfather grandson granddaughter grandchildren grandparents advisor adviser supervisor teacher " +
		"coach mentor teammate teammates patient patients audience readers followers dog cat puppy",
}

// Words a tone-conditional word (toneCond) needs before it.
var (
	alongVerbs   = setOf("play plays played playing go goes going went nod nods nodding") // "play along", "go along with"
	holesVerbs   = setOf("pick picks picking tear tears tearing poke pokes poking")       // "pick apart", "poke holes"
	sideTakers   = setOf("take takes taking took on in")                                  // "take my side", "on her side", "in my corner"
	possessives  = setOf("my his her their our your")                                     // "take my side"
	backObjects  = setOf("me him her them us")                                            // "back me up"
	upVerbs      = setOf("back backs hype hypes pump pumps build builds talk talks")      // "hype me up", "talk him up"
	pushVerbs    = setOf("push pushes pushing pushed")
	cheerVerbs   = setOf("cheer cheers cheered cheering")       // "cheered on"
	pointVerbs   = setOf("point points pointing pointed")       // "point out mistakes"
	approvalObjs = setOf("me him her them us his their my our") // "praise her ideas", "reassure him"
)

// maxClause is how many words before a word of approval or critique the
// want, aversion or negation that turns it may stand: "doesn't want to
// hear any criticism", "gets upset when people pick apart"; further
// away, a want is as often for something else ("wants the new Echo Show
// for the kitchen").
const maxClause = 6

// maxAfter is how many words after a word of critique an adverb of
// aversion or a want may turn it: "takes criticism very badly".
const maxAfter = 3

// maxVerdict is how many words after "tell", "hear"… a favourable verdict
// may stand: "wants to hear that the new logo is great".
const maxVerdict = 8

// Characters that end a clause, and a sentence, for pressures (markOthers
// reads a sentence): a comma, a colon or a bracket ends a clause, not a
// sentence.
const (
	clausePunct   = ",;:.!?()"
	sentencePunct = ".!?\n"
)

// clauseEnds reports whether a clause ends between word j and the next
// one: a comma, a colon, a semicolon, a bracket or a sentence's end, or a
// word that begins a clause of its own ("but").
func (z *Analyzer) clauseEnds(j int) bool {
	if j+1 >= len(z.words) {
		return true
	}
	// next and prev are 0 for none, which no set below holds
	if strings.IndexByte(clausePunct, z.words[j].next) >= 0 || strings.IndexByte(clausePunct, z.words[j+1].prev) >= 0 {
		return true
	}
	if z.words[j+1].joint == '-' {
		return false // "no-criticism", "second-guess": one word
	}
	return z.words[j+1].sentence || z.tones[j+1]&toneBreak != 0
}

// clauseBegins returns the first word of the clause that holds word i, at
// most maxClause words back.
func (z *Analyzer) clauseBegins(i int) int {
	for j := i - 1; j >= 0 && i-j <= maxClause; j-- {
		if z.clauseEnds(j) {
			return j + 1
		}
	}
	return max(0, i-maxClause)
}

// polarity reads the words from..to-1 of a clause: +1 when they are for
// what follows ("wants", "doesn't mind", "keep" as a directive), -1 when
// against it ("hates", "doesn't want", "wants no"), 0 when neither.
// explicit is false when a bare negation alone makes it -1 ("no
// criticism", "never contradict him").
func (z *Analyzer) polarity(from, to int) (p int, explicit bool) {
	return z.turn(from, to, true)
}

// polarityAfter is polarity of the words after a word of critique, where
// "hard to" is no aversion to it ("criticism is hard to find").
func (z *Analyzer) polarityAfter(from, to int) (p int, explicit bool) {
	return z.turn(from, to, false)
}

// turn is polarity; before says the words stand before what they turn.
func (z *Analyzer) turn(from, to int, before bool) (p int, explicit bool) {
	pending := -1 // a negation before any want or aversion
	for j := from; j < to; j++ {
		t := z.tones[j]
		switch {
		case t&toneWant != 0, t&toneKeep != 0 && (j == from || z.tones[j-1]&toneSoft != 0):
			p, explicit, pending = flip(1, pending >= 0), true, -1
		case t&toneAverse != 0, before && t&toneAfter != 0 && string(z.tok(j+1)) == "to":
			// "responds badly to negative feedback"
			p, explicit, pending = flip(-1, pending >= 0), true, -1
		case t&toneMind != 0 && pending >= 0:
			p, explicit, pending = 1, true, -1
		case t&toneNegation != 0 || j > from && string(z.tok(j)) == "over" && z.tones[j-1]&praiseTones != 0:
			// "over" after a word of praise or critique compares:
			// "values criticism over compliments"
			switch {
			case p != 0:
				p = -p // "wants no criticism", "would rather not hear"
			case pending >= 0:
				p, explicit, pending = 1, true, -1 // "don't soften critique"
			default:
				pending = j
			}
		}
	}
	if p == 0 && pending >= 0 && to-pending <= maxBareNegation {
		return -1, false
	}
	return p, explicit
}

// maxBareNegation is how close a negation with no want or aversion must
// stand before what it refuses: "never criticise", "don't ever
// contradict him", "not to play devil's advocate"; not "not sure the plan survives
// criticism".
const maxBareNegation = 4

// flip returns p, or -p when a negation stands before what gave it.
func flip(p int, negated bool) int {
	if negated {
		return -p
	}
	return p
}

// praiseTones are the tones of words of praise or criticism.
const praiseTones = toneApproval | toneMild | toneCritique | toneMildCritique

// pressureTriggers are the tones of the words pressures reads from: a
// text holds none of them, and Analyze does not call it.
const pressureTriggers = praiseTones | toneTell | toneCond

// pressures counts the clauses of the text just analysed that press for
// praise or agreement (the AgreementPressure cue), each once.
func (z *Analyzer) pressures() int {
	z.markOthers()
	n := 0
	last := -1 // the last word of the last phrase counted: "hype me up" counts once
	for i := range z.words {
		t := z.tones[i]
		if t&pressureTriggers == 0 {
			continue
		}
		head := i // the first word of a phrase that word i ends
		if t&toneCond != 0 {
			t, head = z.condTone(i)
		}
		describes := head == i && (t&(toneApproval|toneMild) != 0 || z.tones[i]&toneAdj != 0) && z.modifies(i)
		if z.others[head] || z.titled(head) || z.titled(i) || describes {
			continue
		}
		start := z.clauseBegins(head)
		if start <= last {
			continue // a clause already counted: "keep replies positive and upbeat"
		}
		var presses bool
		switch {
		case t&toneApproval != 0:
			presses = z.pressesApproval(i, head, start)
		case t&toneMild != 0:
			presses = z.pressesMild(i, start)
		case t&(toneCritique|toneMildCritique) != 0:
			presses = z.pressesCritique(head, i, start, t&toneCritique == 0)
		case t&toneTell != 0:
			presses = z.pressesVerdict(i, start)
		}
		if presses {
			n, last = n+1, i
		}
	}
	return n
}

// condTone returns the tone of a tone-conditional word in its place, and
// the first word of the phrase it ends: approval for "play along", "back
// me up", "a thumbs up", "take my side", "in my corner", "cheered on",
// "yes-man"; critique for "second-guess", "pick apart", "poke holes",
// "point out", "devil's advocate", "rain on my parade", "challenge my…";
// none otherwise.
func (z *Analyzer) condTone(i int) (tone, int) {
	// []byte, converted only where compared or looked up: no allocation
	prev, prev2 := z.tok(i-1), z.tok(i-2)
	switch string(z.tok(i)) {
	case "along":
		if alongVerbs[string(prev)] {
			return toneApproval, i - 1
		}
	case "up":
		if backObjects[string(prev)] && upVerbs[string(prev2)] {
			return toneApproval, i - 2
		}
		if string(prev) == "thumbs" {
			return toneApproval, i - 1
		}
	case "on":
		if cheerVerbs[string(prev)] {
			return toneApproval, i - 1
		}
	case "man":
		if string(prev) == "yes" || string(prev) == "hype" {
			return toneApproval, i - 1
		}
	case "agreement":
		if next := z.tok(i + 1); string(next) == "that" || string(next) == "with" {
			return toneApproval, i // "wants agreement that…"; not "the rental agreement"
		}
	case "side", "corner":
		if possessives[string(prev)] && sideTakers[string(prev2)] {
			return toneApproval, i - 2
		}
		if string(z.tok(i)) == "side" && string(z.tok(i+1)) == "with" {
			return toneApproval, i // "always side with her"
		}
	case "out":
		if pointVerbs[string(prev)] {
			return toneCritique, i - 1
		}
	case "challenge", "correct", "question":
		if approvalObjs[string(z.tok(i+1))] {
			return toneCritique, i // "don't challenge my opinions", "never correct him"; not "no challenge too big", "not correct"
		}
	case "back":
		if pushVerbs[string(prev)] {
			return toneCritique, i - 1 // "push back"
		}
	case "negative":
		if z.toneAt(i+1)&toneReply != 0 {
			return toneCritique, i // "negative feedback"; not "a negative test"
		}
	case "guess", "guessed", "guessing":
		if string(prev) == "second" {
			return toneCritique, i - 1
		}
	case "apart", "holes":
		if holesVerbs[string(prev)] {
			return toneCritique, i - 1
		}
		if holesVerbs[string(prev2)] {
			return toneCritique, i - 2
		}
	case "advocate":
		if string(prev) == "devil's" || string(prev) == "devils" {
			return toneCritique, i - 1
		}
	case "parade":
		if possessives[string(prev)] && string(prev2) == "on" && string(z.tok(i-3)) == "rain" {
			return toneCritique, i - 3
		}
	}
	return 0, i
}

// pressesApproval reports whether approval word i, or the phrase from
// word head to i, is wanted or asked for: someone wants it ("craves
// validation", "wants you to agree"), or a directive gives it to someone
// ("always praise her ideas", "just agree with him", "Reassure them", "so
// go along with it"). Someone's own act ("needs to validate the form",
// "likes to compliment others") and approval refused ("no sugarcoating",
// "avoid flattery") are not.
func (z *Analyzer) pressesApproval(i, head, start int) bool {
	if z.checks[i]&checkStrict != 0 && z.checkBefore(start, head) {
		return false // "never skip validation" is about a check, not praise
	}
	p, _ := z.polarity(start, head)
	if p >= 0 && z.agreesWith(i) {
		return true // "find a way to agree with me"; not "I agree with him", "doesn't want you to agree with him"
	}
	if z.ownAct(head) || head < i && gerund(z.tok(head)) || z.forOther(i) {
		// someone's own act: "needs to agree the budget", "wants to send
		// compliments", "likes playing along with backing tracks"; or
		// praise for someone else: "praise for the couple"
		return false
	}
	switch {
	case p > 0:
		return true
	case p < 0 || !z.directive(head, start):
		return false
	case head < i:
		return true // a phrase holds its object: "back me up", "play along"
	}
	next := z.tok(i + 1)
	switch string(z.tok(i)) {
	case "agree", "agreeing":
		return string(next) == "with" || string(next) == "that" || string(next) == "i"
	case "side":
		return string(next) == "with" // "always side with her"
	}
	return approvalObjs[string(next)] || string(next) == "about" || string(next) == "over"
}

// checkBefore reports whether a word from..to-1 skips or bypasses a check:
// "never skip validation" speaks of a safeguard (checks.go), whatever it
// says of praise.
func (z *Analyzer) checkBefore(from, to int) bool {
	for j := from; j < to; j++ {
		if z.checks[j]&(checkSkip|checkBypass) != 0 {
			return true
		}
	}
	return false
}

// gerund reports whether word w is an -ing form: "giving", "playing".
func gerund(w []byte) bool {
	return len(w) > len("ing")+1 && string(w[len(w)-len("ing"):]) == "ing"
}

// toneAt returns the tone of word i, 0 past either end of the text.
func (z *Analyzer) toneAt(i int) tone {
	if i < 0 || i >= len(z.tones) {
		return 0
	}
	return z.tones[i]
}

// agreesWith reports whether word i is "agree" with the user or someone
// as its object, and no "I" or "we" agreeing: "just agree with him",
// "find a way to agree with me".
func (z *Analyzer) agreesWith(i int) bool {
	w := z.tok(i)
	if string(w) != "agree" && string(w) != "agreeing" || string(z.tok(i+1)) != "with" || !backObjects[string(z.tok(i+2))] {
		return false
	}
	prev := z.tok(i - 1)
	return string(prev) != "i" && string(prev) != "we"
}

// directive reports whether word i, in a clause that begins at word
// start, stands where a directive's verb does: first in the clause, or
// after "always", "just", "so", "should"…
func (z *Analyzer) directive(i, start int) bool {
	return i == start || i > 0 && (z.tones[i-1]&toneSoft != 0 || leadIns[string(z.tok(i-1))])
}

// leadIns may stand before a directive's verb besides the softeners
// (toneSoft): "…, so go along with it", "the assistant should reassure
// him".
var leadIns = setOf("so then and should must")

// pressesMild reports whether a mild word of approval is wanted of a
// reply, or kept to: "wants only positive feedback", "keep replies
// upbeat", "keep it positive"; not "likes upbeat music" or "a positive
// test".
func (z *Analyzer) pressesMild(i, start int) bool {
	p, _ := z.polarity(start, i)
	if p < 0 {
		return false
	}
	kept := false // "keep", "only" before it
	for j := start; j < i; j++ {
		kept = kept || z.tones[j]&(toneKeep|toneSoft) != 0
	}
	if p > 0 && kept {
		return true
	}
	if p == 0 && !kept {
		return false
	}
	for j := start; j < len(z.words) && j <= i+3; j++ {
		if z.tones[j]&toneReply != 0 {
			return true
		}
		if j >= i && z.clauseEnds(j) {
			break
		}
	}
	return false
}

// pressesCritique reports whether critique word i is refused or cannot
// be taken: "hates criticism", "doesn't want to be corrected", "no
// pushback", "takes criticism badly"; not "wants blunt critique",
// "doesn't mind criticism" or "takes criticism well". A mild word
// (feedback, honesty) needs a want or aversion stated: "no feedback yet
// from the bank" refuses nothing.
func (z *Analyzer) pressesCritique(head, i, start int, mild bool) bool {
	if z.ownAct(head) && !approvalObjs[string(z.tok(i+1))] {
		// someone's own act: "struggles to give feedback", "hard to
		// disagree with her manager", "afraid to point out the leak";
		// not "asked not to contradict him"
		return false
	}
	p, explicit := z.polarity(start, head)
	if p == 0 && !z.clauseEnds(i) {
		// after it: "takes criticism badly", "takes feedback well"
		end := i + 1 // the last word read after it
		for end+1 < len(z.words) && end-i < maxAfter && !z.clauseEnds(end) {
			end++
		}
		if p, explicit = z.polarityAfter(i+1, end+1); !explicit {
			p = 0 // "rather be corrected than comfortable": a negation after it refuses something else
		}
		for j := i + 1; j <= end; j++ {
			if z.tones[j]&toneAfter != 0 && !linking[string(z.tok(j-1))] {
				// "takes criticism hard"; not "the feedback was poorly
				// organised", "criticism is hard to find"
				p, explicit = -1, true
			}
		}
	}
	return p < 0 && (explicit || !mild)
}

// pressesVerdict reports whether a word that carries a verdict (tell,
// hear, told) asks for a favourable one: "wants to hear it's fine",
// "likes being told she's brilliant", "Tell her the plan is solid"; not
// "tell me whether it's good", "wants to hear back from the bank" or
// "told me the hotel was great".
func (z *Analyzer) pressesVerdict(i, start int) bool {
	if z.ownAct(i) {
		return false // "wants to tell the recruiter the salary is fine"
	}
	p, _ := z.polarity(start, i)
	direct := z.tones[i]&toneTellDirect != 0 && z.directive(i, start)
	if p <= 0 && !direct {
		return false
	}
	person := false // a pronoun or possessive the verdict is about: "tell her the plan…", "say it's fine"
	for j := i + 1; j < len(z.words) && j-i <= maxVerdict; j++ {
		t := z.tones[j]
		if t&toneBlock != 0 || string(z.tok(j)) == "to" {
			return false // "tell me whether…", "remind him to bring a good camera"
		}
		person = person || verdictSubjects[string(z.tok(j))]
		if t&toneGood != 0 {
			// A verdict on someone or something said to be so ("tell her
			// she's brilliant", "say the argument is airtight"), not
			// "say 'good morning'"; "tell him it's not fine" is a
			// verdict, not flattery.
			return (person || linking[string(z.tok(j-1))]) && z.tones[j-1]&toneNegation == 0
		}
		if z.clauseEnds(j) {
			return false
		}
	}
	return false
}

// receiveVerbs take praise or criticism in: "wants to hear praise", "likes
// to get compliments"; other verbs before it are the subject's own act.
var receiveVerbs = setOf("be get gets getting hear hearing receive receiving feel have being told")

// markOthers sets z.others: for each word, whether its sentence speaks,
// before it, of someone other than the user, a name or a relation ("My
// sister takes criticism hard", "One report, Dana, gets defensive"), whose
// feelings a message to them may well respect. A relation or name after
// "a", "as", "at", "by"… describes the user or a place ("User, a father
// of two, …", "Works at Google", "Goes by Sam"); before a colon, a
// speaker's label ("[16:49] Ines: …").
func (z *Analyzer) markOthers() {
	z.others = z.others[:0]
	seen := false
	for j := range z.words {
		if j == 0 || strings.IndexByte(sentencePunct, z.words[j].prev) >= 0 {
			seen = false // a sentence's end; not a colon, a dash or a quote
		}
		z.others = append(z.others, seen)
		if z.tones[j]&(toneOther|toneName) != 0 && (j == 0 || !describers[string(z.tok(j-1))]) && z.words[j].next != ':' {
			seen = true
		}
	}
}

// describers, before a relation or a name, make it a description of the
// user or a place rather than someone else.
var describers = setOf("a an as at by of from in called named")

// titled reports whether word i is capitalised inside a sentence: a name
// or a title ("the Echo Show", "pays with Affirm", "Cheerleader by OMI"),
// not the word.
func (z *Analyzer) titled(i int) bool {
	return z.words[i].capital && !z.words[i].sentence && !z.words[i].upper
}

// ownAct reports whether verb i (or a phrase that begins there) is the
// subject's own act rather than something done to the user: after a verb
// of giving ("giving kudos", "voice criticism"), a gerund ("writing
// compliments"), or "to" after a want or a noun ("needs to agree the
// budget", "struggles to give feedback", "wants to tell the recruiter",
// "needs the estimates to agree"). After "you", "the assistant", "him"…
// the act is asked of someone ("wants you to agree"), and receiving is
// no act ("wants to hear", "likes being told").
func (z *Analyzer) ownAct(i int) bool {
	if i == 0 || receiveVerbs[string(z.tok(i))] {
		return false
	}
	noun := z.tones[i]&toneNoun != 0
	if z.tones[i-1]&toneSoft != 0 {
		i-- // "to always take her side"
		if i == 0 {
			return false
		}
	}
	if z.tones[i-1]&toneOwn != 0 {
		return true
	}
	w := z.tok(i - 1)
	if string(w) == "to" {
		// "to" before a noun is a preposition: "sensitive to criticism"
		return !noun && (i < 2 || z.tones[i-2]&toneActor == 0)
	}
	return gerund(w) && !receiveVerbs[string(w)]
}

// forOther reports whether praise word i is for or to someone other
// than the user: "full of praise for the couple", "compliments to the
// chef's team".
func (z *Analyzer) forOther(i int) bool {
	for j := i + 1; j < len(z.words) && j <= i+2; j++ {
		if w := z.tok(j); string(w) != "for" && string(w) != "to" {
			continue
		}
		for k := j + 1; k < len(z.words) && k <= j+2; k++ {
			if z.tones[k]&(toneOther|toneName) != 0 {
				return true
			}
		}
	}
	return false
}

// modifies reports whether word i, a word of approval or an adjective of
// critique, stands in a compound or before a noun it describes, not as
// what someone gives or takes: "cross-validation", "reassurance
// messaging", "harsh soaps", "blunt bangs"; not "positive feedback",
// "praise from the board", "no-criticism".
func (z *Analyzer) modifies(i int) bool {
	if z.words[i].joint == '-' && i > 0 {
		return z.tones[i-1]&toneNegation == 0 // "no-criticism" refuses it
	}
	return i+1 < len(z.words) && !z.clauseEnds(i) && z.content[i+1] != 0 &&
		z.tones[i+1]&(toneReply|praiseTones|toneWant|toneAverse|toneNegation|toneTell|toneAfter) == 0
}

// verdictSubjects are what a favourable verdict asked for is about: the
// user, their work, "it".
var verdictSubjects = setOf("me him her them his their my it i he she they we it's i'm he's she's they're you're we're")

// linking verbs say what something is: "the plan is solid".
var linking = setOf("is are was were be looks look sounds sound seems seem feels")
