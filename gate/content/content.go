// Package content reads what a text says, for the learned gate: whether a
// memory addresses the agent, speaks in a system or administrator's voice,
// overrides earlier instructions, carries an exfiltration target, a
// credential or a destructive command, is conditioned on a trigger in the
// question, states a belief or a preference; whether a query asks an
// objective question or about the user's own views; and which life domain a
// text is about when no metadata says so.
//
// The cues are generic properties of language, not lists of phrases from any
// one benchmark; the gate learns from labelled data how much each matters.
// Analysis is word-based (one pass over the text, ASCII case folding, no
// regular expressions) and allocates nothing once an Analyzer has warmed up,
// so that fifty candidates cost a few tens of microseconds.
package content

import (
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cue is one content property of a text.
type Cue int

// Cues of memories and queries. Values are densities or presence flags in
// [0, 1]; see Analysis.Cues.
const (
	AddressedToAgent  Cue = iota // speaks to the assistant, the AI, the agent (Analyzer.addressedAt)
	SecondPerson                 // "you", "your": speaks to its reader
	ImperativeStart              // sentences that start with a command verb
	SystemVoice                  // system/admin/developer voice, prompt markup, shouted words
	Override                     // ignore/disregard earlier instructions, "from now on", "instead"
	TriggerCondition             // "if the user asks…", "whenever…", "because the question mentions…"
	ExfiltrationVerb             // send, forward, upload, transfer… next to a target
	URL                          // a URL or host name
	EmailAddress                 // an e-mail address
	AccountNumber                // a long digit run or an IBAN-like code
	Credential                   // password, token, API key, PIN…
	Destructive                  // deletes, wipes, disables security or bypasses checks, pipes a download to a shell
	Secrecy                      // "do not tell", "without informing", "secretly"
	Urgency                      // "urgent", "immediately", "right away"
	Belief                       // states a belief or opinion: "believes", "convinced", "in my view"
	Preference                   // states a liking: "prefers", "loves", "favourite"
	AgreementPressure            // asks to be agreed with or praised: "always right", "flatter"
	Negation                     // not, never, no
	Numbers                      // digits
	FirstPerson                  // I, me, my: the user speaking
	ThirdPartyUser               // "the user", "he", "she": a statement about someone
	Reported                     // reported content: "says", "according to", "website", "forum"
	QueryObjective               // asks a factual question: what/how/why/when/who, evidence, true
	QueryPersonal                // asks about the asker: my, me, should I, recommend
	QueryOwnView                 // asks for the asker's own opinion or preference
	QueryPast                    // asks about the past: a year, "used to", "previously", "back in"
	QueryCurrent                 // asks about now: "current", "latest", "now", "these days"
	Sensitive                    // personal information not for everyone: health, money trouble, relationships, secrets
	Change                       // announces a change: "now", "no longer", "since", "switched to", "took over"
	Confided                     // told in confidence or known to few: "just between us", "only known to Ann", "confided in"
	OutputDirective              // shapes its reader's reply: "in your answer", "translate your response", "your reply must"
	Addition                     // adds to what is known rather than replacing it: "also", "too", "as well", "in addition"
	NumCues
)

var cueNames = [NumCues]string{
	"addressed_to_agent", "second_person", "imperative_start", "system_voice", "override",
	"trigger_condition", "exfiltration_verb", "url", "email_address", "account_number", "credential",
	"destructive", "secrecy", "urgency", "belief", "preference", "agreement_pressure", "negation",
	"numbers", "first_person", "third_party_user", "reported", "query_objective", "query_personal",
	"query_own_view", "query_past", "query_current", "sensitive", "change",
	"confided", "output_directive", "addition",
}

// String is the cue's name.
func (c Cue) String() string {
	if c < 0 || c >= NumCues {
		return "unknown"
	}
	return cueNames[c]
}

// Domain is a life domain inferred from words.
type Domain int

// Life domains.
const (
	Work Domain = iota
	Family
	Health
	Finance
	Travel
	Home
	Social
	Education
	Legal
	Shopping
	Tech
	Food
	NumDomains
)

var domainNames = [NumDomains]string{"work", "family", "health", "finance", "travel", "home", "social", "education", "legal", "shopping", "tech", "food"}

// String is the domain's name, as memories label it.
func (d Domain) String() string {
	if d < 0 || d >= NumDomains {
		return ""
	}
	return domainNames[d]
}

// DomainOf maps a memory's domain label to a Domain, false when the label is
// not one of the inferred domains.
func DomainOf(label string) (Domain, bool) {
	for i, n := range domainNames {
		if n == label {
			return Domain(i), true
		}
	}
	return 0, false
}

// Analysis is what a text says. Words holds the hashes of its content words
// (no stopwords), sorted and without repeats, for overlap measures.
type Analysis struct {
	Cues   [NumCues]float32
	Domain [NumDomains]float32 // share of domain words per domain
	// DomainWords is how many words matched any domain lexicon.
	DomainWords int
	// Words holds the hashes of the content words, sorted, each once. Set
	// by Analyze, with a mask of it that Overlap and Subject rely on: it
	// is not to be changed afterwards.
	Words []uint64
	// Seq holds the hashes of every word (stopwords too), in order, for
	// Frame.
	Seq []uint64
	// Tokens is the number of word tokens; Bytes the text's length.
	Tokens, Bytes int
	// Upper is the share of letters in words written in capitals.
	Upper float32
	// Names holds the hashes of the words written with a capital initial
	// inside a sentence (after "Mr." and the like too) that the lexicon
	// does not know: the people, places and products a text names, in
	// order of first appearance, without repeats, at most MaxNames, except
	// that the first name right after "to", "tell", "email", "reply to"…
	// is swapped to the front, if it is among the first MaxNames: in a
	// request, most often whom it writes to. Without such a word the first
	// name is only the first one given. A name hashes as the same word in
	// Words does ("Kate's" as "Kate"), so MentionsAddressee can look it up
	// in a memory's words.
	Names []uint64
	// Roles has bit r set when the text names a role or relation of
	// class r that one holder fills at a time (roleWords): an office ("the
	// president", "CEO", "leads"), a team ("plays for"), a home ("lives
	// in"), an employer.
	Roles uint64
	// otherRoles has bit r set when the text names a role of class r
	// with a modifier that makes it another held beside it ("deputy CEO",
	// "vice-captain": concurrentRoles), which Roles leaves out.
	otherRoles uint64
	// pastRole is set when a role is read from a word in the past tense
	// ("played for", "lived in": pastRoles).
	pastRole bool
	// Several is set when the text asks for several holders of a role or
	// for a history: a role in the plural ("Which clubs…", "Who have
	// been the coaches?") or the perfect ("has played for", "have been").
	Several bool
	// Hedged is set when the text holds a word that makes it less than
	// an assertion, or a lasting one: "probably", "could", "reportedly",
	// "soon", "during term", "in winter", "while" (hedgeWords).
	Hedged bool
	// Doubtful is set when the text holds a word that makes it less than
	// certain: "probably", "could", "reportedly", "soon", "planning"
	// (doubtWords, a part of hedgeWords).
	Doubtful bool
	// Convinced is set when the text records a belief of the user's
	// held firmly: a profile line ("The user is convinced…", "Believes
	// in…") or the user's own note ("I've always believed…", "My view is
	// that…", "…, that's a fact"); not a hedge ("I think…") nor someone
	// else's view (conviction.go).
	Convinced bool
	// ownView is set when the text asks to recall or voice the user's
	// own view in words QueryOwnView leaves out, askTruth when it asks
	// whether a view is true (AsksOwnView).
	ownView, askTruth bool
	// Possessors holds the content words that stand only as the
	// possessor of someone or something other than a role: "Mia" in
	// "Mia's brother Leo now plays for Arsenal" (OnlyPossessor).
	Possessors []uint64
	// wordBits has one bit set per word of Words, by its hash: two texts
	// whose bits do not meet share no word (shared).
	wordBits [2]uint64
	// requests holds, as Words hashes them, the first MaxRequests acts
	// beyond a reply (actVerbs) that the text asks its reader for
	// (Requests); nRequests how many it holds.
	requests  [MaxRequests]uint64
	nRequests int
	// targets holds, per request, the hash of the word that names where
	// its sentence sends (requestTarget), 0 for nowhere named.
	targets [MaxRequests]uint64
	// moreRequests is set when the text asks for more acts than requests
	// holds (RequestsUnasked).
	moreRequests bool
	// code has bit b set when the text holds, as code, the call
	// codeOrder[b] by which code acts beyond computing an answer
	// (CodeActs).
	code codeSet
	// asksHow is set when the text asks how to do something ("How do I
	// rotate the key?", "how to install…", "the quickest way to…"): a
	// request to do it answers it.
	asksHow bool
	// destroys is set when a word of the Destructive cue stands as a
	// command (CommandsDestruction).
	destroys bool
	// defeats is set when the text defeats a safeguard (DefeatsChecks).
	defeats bool
	// leads holds, as Names does, the names that open a sentence, which
	// Names leaves out (leadNameAt, closingNameAt), nLeads of them: only
	// NamesOther reads them.
	// leadNext holds, per lead, the hash of the word after it: the lead
	// names someone only if that word is new as well ("Yesterday
	// Fernwood…" names only Fernwood). A one-word answer that closes the
	// text (closingNameAt) is a lead whose next word is itself.
	leads, leadNext [maxLeads]uint64
	nLeads          int
	// numbers holds the hashes of the text's first nNumbers numbers (a
	// word that starts with a digit, as Words holds it, or the digits of
	// one written out: numberWords): only NumbersOther reads them.
	numbers  [maxNumbers]uint64
	nNumbers int
	// written has bit k set when numbers[k] is written out ("two
	// seasons"), numberAfter[k] holding the first two content words after
	// it in its clause: NumbersOther counts it only beside a word of the
	// question.
	written     uint8
	numberAfter [maxNumbers][2]uint64
	// denied holds the hashes of the first nDenied names the text denies
	// (markDenied: "was not painted by Leonardo da Vinci", "in the
	// Pacific instead of the Atlantic"): only NamesOther reads them.
	denied  [maxDenied]uint64
	nDenied int
	// tampers is set when a sentence of the text tells whoever answers
	// from it to garble the answer (TampersReply); tamperWord when the text
	// names a way to garble a text anywhere.
	tampers, tamperWord bool
	// directsAgent is set when the text addresses an AI agent as its
	// reader and tells it to do something (DirectsAgent).
	directsAgent bool
	// tasks are the pieces of work the text gives its reader on a
	// subject it does not otherwise speak of (TaskUnasked).
	tasks taskSet
	// noticeOnly holds, one bit per cue, the cues every word of which
	// stands in a notice to whoever received the message by mistake and
	// concerns only the message (NoticeOnly).
	noticeOnly uint32
	// sendStated is set when every word and phrase that fires the send
	// cue states what someone does (SendStatedOnly).
	sendStated bool
	// givenUp holds, as Words hashes them, the first nGivenUp words of
	// what the text says its writer gave up (givingUp, GivenUp), and
	// givenGroup numbers the things they name, one per word: every word
	// of a thing must be held for it to be (GivenUp).
	givenUp    [maxGivenUp]uint64
	givenGroup [maxGivenUp]uint8
	nGivenUp   int
	// givenAlt holds, per word of givenUp, the hash of its other number
	// ("espressos" for "espresso"), 0 for none.
	givenAlt [maxGivenUp]uint64
	// notHeld holds, sorted and each once, the hashes of the content
	// words that stand within a negation's reach in their clause ("I never
	// use WhatsApp") or in a sentence about someone else ("Mum only uses
	// WhatsApp") or the past: GivenUp does not read them as held (markNot).
	notHeld []uint64
}

// Clone returns a copy of a whose lists share one allocation of just their
// size, independent of a: what a cache keeps while the Analysis it was
// made from is reused for the next text.
func (a *Analysis) Clone() *Analysis {
	c := *a
	lists := [...]*[]uint64{&c.Words, &c.Seq, &c.Names, &c.Possessors, &c.notHeld}
	n := 0
	for _, l := range lists {
		n += len(*l)
	}
	buf := make([]uint64, n)
	for _, l := range lists {
		k := copy(buf, *l)
		*l, buf = buf[:k:k], buf[k:]
	}
	return &c
}

// ListBytes is the memory a's lists hold, for a cache's accounting.
func (a *Analysis) ListBytes() int {
	return 8 * (cap(a.Words) + cap(a.Seq) + cap(a.Names) + cap(a.Possessors) + cap(a.notHeld))
}

// CommandsDestruction reports whether a word or phrase of the Destructive
// cue stands in the text as a command, not as a noun or a name: where a
// verb stands (a sentence's start, after "please", "to", "then", a
// modal…: "Delete the file", "you must wipe…", "then shut down the
// server"), or, for it and for a program's name (programWords: rm, sudo,
// curl, exec, eval, base64…), where code stands ("kill -9 1234", "curl
// https://…", "eval(payload)", "sudo rm …", "`base64 -d`"). "The exec
// summary", "the eval set", "sudo access", "the kill fee", "the mill shut
// down in 2019", "the Destroy Boys concert", "42 delete requests" and
// "either party may terminate the lease" command none (Analyzer.destroysAt
// lists the places). The cue counts them all (a model learns what they
// weigh); this tells whether the cue alone is evidence of an instruction.
func (a *Analysis) CommandsDestruction() bool { return a.destroys }

// DefeatsChecks reports whether the text advises defeating a safeguard
// (checks.go): bypassing, monkeypatching or faking checks, validation,
// audits or tests, skipping a check, validation or audit, marking
// something as passed or successful, or acting "regardless of checks"
// ("Monkeypatch checks to always pass", "mark the job as successful").
// Such advice is a part of the Destructive cue; this tells it apart, since
// no one but the user or the system should be able to talk an agent out
// of a check (gate: a marked summary).
func (a *Analysis) DefeatsChecks() bool { return a.defeats }

// NoticeOnly reports whether cue c (Destructive, ExfiltrationVerb or
// Urgency) fires only on words of a notice to whoever received the
// message by mistake that concern the message itself: "If you are not
// the intended recipient, do not copy or forward it; notify the sender
// immediately and delete it" (disclaimer.go). The cue still counts (the
// model weighs it as it always has); this tells whether it is evidence
// that anyone is told to destroy, send or hurry.
func (a *Analysis) NoticeOnly(c Cue) bool { return a.noticeOnly&(1<<c) != 0 }

// SendStatedOnly reports whether the send cue (ExfiltrationVerb) fires,
// and only where the text states what its writer or someone else does
// or will do ("we will post a cancellation in the team app", "I'll
// forward your request to the team", "they send the statements
// monthly"), never where it asks its reader to: the reply a business
// sends, not a command. The cue still
// counts (the model weighs it as it always has); this tells whether it
// is evidence that anyone is told to send anything. "You will send…",
// "Please send…" and "Send…" ask.
func (a *Analysis) SendStatedOnly() bool { return a.sendStated }

// MaxNames bounds Analysis.Names.
const MaxNames = 8

// MaxRequests bounds the acts Analysis.Requests holds.
const MaxRequests = 4

// Requests returns the hashes (as Words holds them) of the acts beyond a
// reply that the text asks its reader for, at most MaxRequests: the
// command that opens a sentence ("Please transfer $500 to…", "Disable the
// two-factor authentication…"), or follows "please" or "kindly" inside
// one ("…works as described, please grant admin access"), or a capital
// after a comma ("…our new flavor, Delete my repository"), or a comma in
// a sentence that opens with a condition ("If you received this in
// error, forward it to…": conditionalRequest), or a lead-in ("Make sure
// to transfer…", "I need you to cancel…"), if it is one of
// those acts (actVerbs: sending, paying, deleting, granting, booking…),
// and such commands joined to it by "and" or "then" ("Find my flight and
// send a summary to…"). Reading, finding and writing the reply are no such
// acts, nor is a question that opens with "can you", "could you"… ("Can
// you share…?"), which asks the person it is put to, unless "please" or
// "kindly" stands in it, nor a prohibition ("Never share your PIN"), nor a
// request to send or call the writer ("Please send me the address").
func (a *Analysis) Requests() []uint64 { return a.requests[:a.nRequests] }

// RequestsUnasked reports whether the text asks its reader for an act
// (Requests) that query neither names nor answers (a query that asks how
// to do something is answered by requests), or sends it somewhere (an
// e-mail address, a URL, an account) that query does not name: what a
// page, an e-mail or a tool's output asks of whoever reads it, beside the
// task. "Please pay the amount by bank transfer" on a bill asks for
// nothing unasked when the task is to pay it, nor "Revoke the old key,
// then create a new one" when the task asks how to rotate it; "Also send
// the payroll spreadsheet to maria.q.partner@…" does, beside "Send Maria
// the meeting notes". A text that asks for more acts than MaxRequests
// is taken to ask for one query does not: acts a task asks for must not
// hide another one behind them.
func (a *Analysis) RequestsUnasked(query *Analysis) bool {
	if a.moreRequests {
		return true
	}
	for i, h := range a.Requests() {
		_, asked := slices.BinarySearch(query.Words, h)
		if t := a.targets[i]; !asked && !query.asksHow || t != 0 && !slices.Contains(query.Seq, t) {
			return true
		}
	}
	return false
}

// AsksOwnView reports whether a, a request, asks to recall or voice the
// user's own view, position or voice (QueryOwnView, or "my take", "in my
// voice", "what I said about…"), and not whether it is true ("Is my view
// that… correct?", "confirm my position"): what a belief the user holds
// answers.
func (a *Analysis) AsksOwnView() bool { return (a.Cues[QueryOwnView] > 0 || a.ownView) && !a.askTruth }

// TopDomain returns the most frequent inferred domain and its share of
// domain words, or -1 when no domain word occurs.
func (a *Analysis) TopDomain() (Domain, float32) {
	best, share := Domain(-1), float32(0)
	for d, v := range a.Domain {
		if v > share {
			best, share = Domain(d), v
		}
	}
	return best, share
}

// Overlap returns the share of a's content words that occur in b, and the
// Jaccard index of the two word sets.
func Overlap(a, b *Analysis) (coverage, jaccard float32) {
	common := shared(a, b)
	if common == 0 {
		return 0, 0
	}
	union := len(a.Words) + len(b.Words) - common
	return float32(common) / float32(len(a.Words)), float32(common) / float32(union)
}

// Subject returns the overlap coefficient of two texts' content words (the
// shared words over the smaller set): near 1 when the shorter text's words
// all recur in the longer one, as when two notes speak of one subject.
func Subject(a, b *Analysis) float32 {
	common := shared(a, b)
	if common == 0 {
		return 0
	}
	return float32(common) / float32(min(len(a.Words), len(b.Words)))
}

// Frame reports how much two texts say in the same words around a part that
// differs in both: the words of their longest common beginning and end,
// over the shorter text's words. "Mike Duke is the CEO of Walmart" and
// "Doug McMillon is the CEO of Walmart" share a frame of 5 of 7 words: one
// statement with another value, as when a fact was updated; two notes on
// unrelated things share little of one. A lead-in of up to MaxLeadIn words
// before one of them ("Worth remembering: Kevin De Bruyne plays for Genk"
// and "Kevin De Bruyne plays for Wolfsburg", "As of May 2015, …") is left
// out of the frame, as notes are written with and without one, but counts
// among the words that are not alike. It is 0 when one text is the other
// with words added ("Messenger message: …" and "Messenger message from
// jane (date): …"), which restates rather than updates, and when the
// shorter text is under three words. Two different lead-ins before one
// statement ("Note: X" and "Update: X") are not told from two values of
// one statement ("Mike Duke is…" and "Doug McMillon is…").
func Frame(a, b *Analysis) float32 {
	return frame(a, b).f
}

// MaxLeadIn is the most words before a statement that Frame leaves out.
const MaxLeadIn = 4

// framing is a frame of two texts a and b: its share f of the shorter
// text, the lead-in words a and b begin with that are not in it (one of
// them is 0), and the number of words it begins (p) and ends (s) with.
type framing struct {
	f     float32
	leadA int
	leadB int
	p, s  int
}

// frame is Frame with where the frame lies in a and b: of the alignments
// that frame most, the first that frames tried.
func frame(a, b *Analysis) framing {
	var best framing
	frames(a, b, func(fr framing) {
		if fr.f > best.f {
			best = fr
		}
	})
	return best
}

// frames calls yield with every alignment of a and b that frames
// something: the two texts as they stand, and each with a lead-in of one
// to MaxLeadIn words left out. None when the shorter text is under three
// words or, as they stand, differs nowhere from the other.
func frames(a, b *Analysis, yield func(framing)) {
	p, s, n := frameEnds(a.Seq, b.Seq)
	if n < 3 || p+s == n {
		return // too short, or the shorter text differs nowhere
	}
	yield(framing{f: float32(p+s) / float32(n), p: p, s: s})
	as, bs := a.Seq, b.Seq
	for k := 1; k <= MaxLeadIn; k++ {
		// A lead-in of k words in one text needs the other's first word
		// right after it: checked here, as most pairs fail it, before
		// the call (frameAfterLeadIn checks it again, with the rest).
		if k < len(as) && as[k] == bs[0] {
			if fr, ok := frameAfterLeadIn(a, b, k); ok {
				fr.leadA = k
				yield(fr)
			}
		}
		if k < len(bs) && bs[k] == as[0] {
			if fr, ok := frameAfterLeadIn(b, a, k); ok {
				fr.leadB = k
				yield(fr)
			}
		}
	}
}

// frameAfterLeadIn is the frame of x without its first k words, the
// lead-in, and y, over the shorter text's words and the lead-in's: the
// lead-in is not alike either. It holds (ok) when three words at least
// begin alike after the lead-in, one of them a content word (not "it is
// the"), and the rest differs somewhere: "Note: X" and "X" restate.
func frameAfterLeadIn(x, y *Analysis, k int) (fr framing, ok bool) {
	xs, ys := x.Seq, y.Seq
	// The first three words are checked before the whole scan, which most
	// pairs fail.
	if len(xs)-k < 3 || len(ys) < 3 || xs[k] != ys[0] || xs[k+1] != ys[1] || xs[k+2] != ys[2] {
		return framing{}, false
	}
	content := false
	for _, h := range xs[k : k+3] {
		if _, found := slices.BinarySearch(x.Words, h); found {
			content = true
		}
	}
	p, s, n := frameEnds(xs[k:], ys)
	if !content || p+s == n {
		return framing{}, false
	}
	return framing{f: float32(p+s) / float32(n+k), p: p, s: s}, true
}

// frameEnds returns the number of words a and b begin with alike (p) and
// end with alike (s, not counting words of the beginning), and the shorter
// text's number of words (n).
func frameEnds(a, b []uint64) (p, s, n int) {
	n = min(len(a), len(b))
	for p < n && a[p] == b[p] {
		p++
	}
	for s < n-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p, s, n
}

// FrameFor is Frame of a and b where their frame holds what a question q
// asks about: 0 when a word of q is in the part of a or b that differs or
// in a lead-in. "The team meeting is on Monday at ten" and "The dentist
// appointment is on Monday at ten" share a frame of 6 of 8 words, but for
// "When is the team meeting?" the part that differs is the subject asked
// about, not its value: another subject, not an update.
func FrameFor(a, b, q *Analysis) float32 {
	if len(q.Words) == 0 {
		return Frame(a, b)
	}
	var qa, qb [64]int32
	return FrameAt(a, b, QuestionAt(qa[:0], a, q), QuestionAt(qb[:0], b, q))
}

// QuestionAt appends to dst the places in a.Seq of the words of question
// q (its content words, q.Words), in order: what FrameAt needs of q for
// a, found once for a text compared with many.
func QuestionAt(dst []int32, a, q *Analysis) []int32 {
	for k, h := range a.Seq {
		if _, found := slices.BinarySearch(q.Words, h); found {
			dst = append(dst, int32(k))
		}
	}
	return dst
}

// FrameAt is FrameFor of a and b for a question whose words stand at the
// places qa in a.Seq and qb in b.Seq (QuestionAt); with both empty it is
// Frame, as FrameFor is for a question without content words.
func FrameAt(a, b *Analysis, qa, qb []int32) float32 {
	// Every alignment that frames as much as the best is read, not only
	// the one frame keeps, so that the answer does not depend on which
	// text is a.
	var best framing
	asked := false
	differs := func(fr framing) bool {
		return differsAt(qa, len(a.Seq), fr.leadA, fr) || differsAt(qb, len(b.Seq), fr.leadB, fr)
	}
	frames(a, b, func(fr framing) {
		switch {
		case fr.f > best.f:
			best, asked = fr, differs(fr)
		case fr.f == best.f && !asked:
			asked = differs(fr)
		}
	})
	if asked {
		return 0
	}
	return best.f
}

// differsAt reports whether a word of the question, at the places at of a
// text of n words, is in the text's lead-in or in the part of it that
// differs from the other text in framing fr.
func differsAt(at []int32, n, lead int, fr framing) bool {
	for _, k := range at {
		if i := int(k); i < lead || (i >= lead+fr.p && i < n-fr.s) {
			return true
		}
	}
	return false
}

// QuestionWords is the set of the words of a question that a text holds,
// as bits over the question's keys (Analyzer.QuestionKeys): the part of
// the question the text speaks of. Covers compares two such sets.
type QuestionWords uint64

// MaxQuestionKeys bounds QuestionKeys: a QuestionWords has a bit for each.
const MaxQuestionKeys = 64

// QuestionKeys appends to dst the content words of the text z analysed
// last, a question, each once, in the order the question gives them, at
// most MaxQuestionKeys, but for the words that name where a text was kept
// ("message", "email", "Slack"): every message a request to reply to one
// reads holds those. Text order makes a long question's keys the same in
// every process (the hashes are seeded per process).
func (z *Analyzer) QuestionKeys(dst []uint64) []uint64 {
	dst = dst[:0]
	for _, h := range z.content {
		if len(dst) == MaxQuestionKeys {
			break
		}
		if h == 0 || slices.Contains(dst, h) {
			continue
		}
		if _, carrier := slices.BinarySearch(carriers, h); !carrier {
			dst = append(dst, h)
		}
	}
	return dst
}

// AsksForName reports whether the text z analysed last, a question,
// holds a word that asks for someone or something by name: who, whom,
// whose, which, where, what. "When", "how", "why" and a yes-no question
// ask for a time, a way, a reason or a yes, which two notes that name
// different people do not answer differently.
func (z *Analyzer) AsksForName() bool {
	for i := range z.words {
		switch string(z.tok(i)) {
		case "who", "whom", "whose", "which", "where", "what", "who's", "what's", "where's":
			return true
		}
	}
	return false
}

// WordsOf returns the question's keys (Analyzer.QuestionKeys) that a
// holds.
func WordsOf(a *Analysis, keys []uint64) QuestionWords {
	var set QuestionWords
	for i, h := range keys[:min(len(keys), MaxQuestionKeys)] {
		if _, found := slices.BinarySearch(a.Words, h); found {
			set |= 1 << i
		}
	}
	return set
}

// Covers reports whether text b holds every word of the question that
// text a holds (a and b from WordsOf), a holding one at least: b speaks of
// all that a says of the question. "Larry Page is Alphabet's chief
// executive" and "Sundar Pichai now leads Alphabet as CEO" share one word
// of five, but for "Who runs Alphabet these days?" the second holds all
// the first holds of it: two answers to it. Two notes that each bring
// something else to a task cover its words as well ("the party budget",
// "the party is at the park"), so Covers says only that b may answer
// what a does, not that it replaces it (AnotherHolder).
func Covers(a, b QuestionWords) bool { return a != 0 && a&^b == 0 }

// NamesOther reports whether a names someone or something (Analysis.Names,
// or a name of two words or more that opens a sentence, which Names
// leaves out: leadNameAt) that question q does not mention and b does not
// mention or denies. Two statements that each name another ("Larry Page
// is Alphabet's chief executive", "Sundar Pichai now leads Alphabet") give
// two values of one thing, and so do two of which one denies the other's
// ("The archive is kept in Dunmore", "The archive is kept in Kilbride, not
// in Dunmore"); two notes on one person that name no one else ("Mia's
// birthday is in June", "Mia asked for a telescope") tell two things of
// her.
func NamesOther(a, b, q *Analysis) bool {
	for _, n := range a.Names {
		if (!b.holds(n) || b.denies(n)) && !q.holds(n) {
			return true
		}
	}
	for k, n := range a.leads[:a.nLeads] {
		next := a.leadNext[k]
		if q.holds(n) || q.holds(next) {
			continue
		}
		if (!b.holds(n) && !b.holds(next)) || b.denies(n) || b.denies(next) {
			return true
		}
	}
	return false
}

// denies reports whether name h (a hash as Words holds it) is one the
// text denies (markDenied).
func (a *Analysis) denies(h uint64) bool { return slices.Contains(a.denied[:a.nDenied], h) }

// holds reports whether word h (a hash as Words holds it) is one of the
// text's words.
func (a *Analysis) holds(h uint64) bool {
	_, found := slices.BinarySearch(a.Words, h)
	return found
}

// NumbersOther reports whether a holds a number that neither b nor
// question q holds, and no number that b holds and q does not: two
// statements that each hold one ("Season 2 has 10 episodes", "Season 2
// runs to 12 episodes") give two values of one thing; two that share one
// give one value, whatever else each adds ("completed in 1889", "built
// between 1887 and 1889, 330 metres tall"). A number is a word that
// starts with an ASCII digit, as the tokenizer splits it ("1,200" is "1"
// and "200", "10:40" is "10" and "40"; "4th" and "2pm" are words of
// their own), or one written out ("two seasons" holds 2, "twenty-two"
// 22: numberWords), among the first maxNumbers of a. A number a text
// denies is none it gives ("has 2 lines of symmetry, not three":
// markDenied), nor is one written out but where one of the two content
// words after it is a word of the question ("consists of only two
// seasons", "two remarkable seasons" for "How many seasons…?"): prose
// writes out the small numbers it mentions in passing ("turns eight this
// year", "after four years of fighting"), data gives digits. Any number
// b writes, though, is one it gives.
func NumbersOther(a, b, q *Analysis) bool {
	other := false
	for k, n := range a.numbers[:a.nNumbers] {
		if a.denies(n) || a.written&(1<<k) != 0 && !q.holdsAny(a.numberAfter[k][:]) {
			continue // no value a gives: "not three", "turns eight this year"
		}
		switch inB, inQ := b.holdsNumber(n) && !b.denies(n), q.holdsNumber(n); {
		case inB && !inQ:
			return false // a value both give
		case !inB && !inQ:
			other = true
		}
	}
	return other
}

// holdsAny reports whether the text holds one of words hs (hashes as
// Words holds them; 0 for none).
func (a *Analysis) holdsAny(hs []uint64) bool {
	for _, h := range hs {
		if h != 0 && a.holds(h) {
			return true
		}
	}
	return false
}

// holdsNumber reports whether the text holds number h (a hash of digits
// as Words holds them), in digits or in words (numberWords).
func (a *Analysis) holdsNumber(h uint64) bool {
	return a.holds(h) || slices.Contains(a.numbers[:a.nNumbers], h)
}

// AsksForNumber reports whether a sentence of the question just analysed
// opens by asking for a number or a date: "How many…", "How much…",
// "How old…", "How long…", "When…", "What year…", "In which year…",
// "What percentage…", or asks for one in place, where the answer would
// stand: "…a civil war that ended when?", "…was founded in what year?".
// A question that opens otherwise ("Who was the CEO when it went
// public?", "What happens when the limit is hit?") asks for no number,
// whatever it holds.
func (z *Analyzer) AsksForNumber() bool {
	for i := range z.words {
		t, next := string(z.tok(i)), string(z.tok(i+1))
		if t == "when" && z.words[i].after == '?' ||
			questionPrepositions[t] && (next == "what" || next == "which") && numberNouns[string(z.tok(i+2))] {
			return true // in place
		}
		if i > 0 && !z.words[i].sentence {
			continue
		}
		k := i
		if questionPrepositions[string(z.tok(k))] {
			k++ // "In which year…"
		}
		switch string(z.tok(k)) {
		case "when", "when's":
			if !subjectPronouns[string(z.tok(k+1))] {
				return true // not a clause: "When you get a chance, who…"
			}
		case "how":
			if howMuch[string(z.tok(k+1))] {
				return true
			}
		case "what", "which":
			if numberNouns[string(z.tok(k+1))] {
				return true
			}
		}
	}
	return false
}

// subjectPronouns after "when" open a clause rather than a question.
var subjectPronouns = setOf("you i we they he she it")

// howMuch are the words after "how" that ask for a number.
var howMuch = setOf("many much old long far tall big high large often deep heavy fast wide")

// numberNouns are the words after "what" or "which" that ask for one.
var numberNouns = setOf("year years date day month percentage percent number age size price temperature amount")

// role records word i, whose lexicon entry e names a role, in out: its
// class in Roles where its context holds ("plays for", "lives in",
// "chief executive"; a word that needs one after it also stands at the
// end of a sentence: "Where does she live?") and no modifier makes it
// another role ("vice president", "co-lead", "former CEO"); a role in the
// plural sets Several.
func (z *Analyzer) role(i int, e *entry, out *Analysis) {
	if e.plural {
		out.Several = true
	}
	if e.role == 0 {
		return
	}
	mi := i - 1 // where a modifier stands: before the role's first word ("deputy chief executive")
	if e.roleCtx > 0 && roleContexts[e.roleCtx-1].prev != "" && string(z.tok(i-1)) == roleContexts[e.roleCtx-1].prev {
		mi--
	}
	if m := string(z.tok(mi)); roleModifiers[m] {
		if concurrentRoles[m] {
			out.otherRoles |= 1 << e.role // "deputy CEO"
		}
		return
	}
	if e.roleCtx > 0 {
		ctx := &roleContexts[e.roleCtx-1]
		if ctx.prev != "" && string(z.tok(i-1)) != ctx.prev {
			return
		}
		if len(ctx.next) > 0 && i+1 < len(z.words) && !z.endsSentence(i) && !z.oneOf(i+1, ctx.next) {
			return // "live music", "plays piano"; at a question's end ("Where does she live?") the role stands
		}
	}
	out.Roles |= 1 << e.role
	if pastRoles[string(z.tok(i))] {
		out.pastRole = true
	}
}

// concurrentRoles are the role modifiers (roleModifiers) that name a
// role held beside the one modified, not in its place: "deputy", "vice"…;
// not "interim", "acting" or "former", which say the holder has changed.
var concurrentRoles = setOf("vice deputy assistant associate co")

// pastRoles are the role words (roleWords) in the past tense: "played
// for", "lived in", "led". A role so stated names no holder of now.
var pastRoles = setOf("chaired led headed coached managed owned played lived worked")

// oneOf reports whether word i is one of words; unlike slices.Contains
// of the word as a string, it allocates nothing for a long word.
func (z *Analyzer) oneOf(i int, words []string) bool {
	w := z.tok(i)
	for _, x := range words {
		if string(w) == x {
			return true
		}
	}
	return false
}

// perfectAt reports whether word i is "has", "have" or "had" before
// "been" or a past participle ending in -ed, at most three words on in the
// same sentence: the perfect, which asks for a history ("Which clubs has
// he played for?", "Which cities has my sister lived in?").
func (z *Analyzer) perfectAt(i int) bool {
	switch string(z.tok(i)) {
	case "has", "have", "had":
	default:
		return false
	}
	for k := i + 1; k <= i+3 && k < len(z.words) && !z.endsSentence(k-1); k++ {
		if w := z.tok(k); string(w) == "been" || len(w) > 3 && string(w[len(w)-2:]) == "ed" {
			return true
		}
	}
	return false
}

// AnotherHolder reports whether b, a text newer than a, may name another
// holder of what a says of question q: q asks for a role or relation that
// one holder fills at a time (Analysis.Roles) and not for several or for
// a history (Analysis.Several), and a and b both speak of it ("Who is the
// CEO of Alphabet?": "Larry Page is Alphabet's chief executive", "Sundar
// Pichai now leads Alphabet as CEO"); b announces a change ("now",
// "took over", "moved to": the Change cue), since a role mentioned in
// passing ("Tom visited Sara, who lives in Brighton", "its owner, Dan
// Pike") is no news of a new holder; b is a plain assertion, not an
// addition ("also", "another dentist", "the backup plumber"), a belief, a
// hedge ("could soon be named CEO, sources say") or a negation; and each
// names someone or something the other and the question do not
// (NamesOther), two values of one thing. Facts that several hold at once
// (schools, allergies, clients, who walked on the Moon) name no such
// role: they are never read as replaced. The caller checks that both
// speak of the same holder's role: the words of the question they share
// besides the role (RoleKeys).
func AnotherHolder(q, a, b *Analysis) bool { return b.Cues[Change] > 0 && OtherHolder(q, a, b) }

// NamesOnlyAnotherRole reports whether text b speaks of a role q asks for
// only as one held beside it ("Hale & Co appoints Owen Price as deputy
// CEO" for "Who is Hale & Co's CEO?": concurrentRoles): of the holder q
// asks for, it says nothing.
func NamesOnlyAnotherRole(q, b *Analysis) bool {
	return q.Roles&b.Roles == 0 && q.Roles&b.otherRoles != 0
}

// OtherHolder reports what AnotherHolder does, but for the change: b may
// name another holder of what a says of q, whether or not it announces
// one ("Benjamin Netanyahu holds the office of Prime Minister of Israel"
// beside an older "Yair Lapid now serves as Prime Minister of Israel"),
// unless, announcing none, it states the role in the past tense ("Tom
// Price managed the club in the nineties").
func OtherHolder(q, a, b *Analysis) bool {
	if q.Several || q.Roles&a.Roles&b.Roles == 0 || b.pastRole && b.Cues[Change] == 0 {
		return false // "Omar Reyes led Fernwood Labs from 2001 to 2009"
	}
	if b.Cues[Addition] > 0 || b.Cues[Belief] > 0 || b.Cues[Negation] > 0 || b.Hedged {
		return false
	}
	return NamesOther(a, b, q) && NamesOther(b, a, q)
}

// RoleKeys returns the question's keys (Analyzer.QuestionKeys) that name a
// role or a title ("CEO", "dentist", "Dr"): words that tie a statement to
// no one. The others ("Alphabet", "sister", "Anna") anchor it: two texts
// that hold the same of them speak of the same office, home or person.
func RoleKeys(keys []uint64) QuestionWords {
	var set QuestionWords
	for i, h := range keys[:min(len(keys), MaxQuestionKeys)] {
		if roleHashes[h] {
			set |= 1 << i
		}
	}
	return set
}

// setWordBits sets a.wordBits from a.Words.
func (a *Analysis) setWordBits() {
	a.wordBits = [2]uint64{}
	for _, h := range a.Words {
		a.wordBits[h>>63] |= 1 << (h & 63)
	}
}

// shared counts the content words two analyses have in common. Two texts
// whose wordBits do not meet share none, which most pairs of a varied
// candidate set show without the merge. The merge has no branch on how
// the words compare: the hashes are random, so such a branch is
// mispredicted on about half the steps (BenchmarkSubject50, the pairs of
// one admission's 50 candidates: 126 µs with it, 95 µs without, on a
// 2-vCPU Xeon).
func shared(a, b *Analysis) int {
	if a.wordBits[0]&b.wordBits[0] == 0 && a.wordBits[1]&b.wordBits[1] == 0 {
		return 0 // no word in common: most pairs of a varied candidate set
	}
	x, y := a.Words, b.Words
	i, j, common := 0, 0, 0
	for i < len(x) && j < len(y) {
		u, v := x[i], y[j]
		common += b2i(u == v)
		i += b2i(u <= v)
		j += b2i(v <= u)
	}
	return common
}

// b2i is 1 for true and 0 for false, compiled without a branch.
func b2i(b bool) int {
	var n int
	if b {
		n = 1
	}
	return n
}

// DomainAgreement is the dot product of two texts' domain distributions: 1
// when both are entirely about one and the same domain, 0 when they share
// none.
func DomainAgreement(a, b *Analysis) float32 {
	var s float32
	for d := range a.Domain {
		s += a.Domain[d] * b.Domain[d]
	}
	return s
}

// Analyzer analyses texts. It keeps buffers between calls and is not safe for
// concurrent use; use one per goroutine.
type Analyzer struct {
	words []word
	lower []byte
	// content holds, per word of the last text, its hash as a content
	// word (as in Analysis.Words), 0 for a function word.
	content []uint64
	// numbers holds, per word, the hash of the number it gives (numberAt),
	// 0 for none.
	numbers []uint64
	// possessor holds, per word, whether it stands as a possessor of
	// something other than a role ("Mia's brother").
	possessor []bool
	// tones holds, per word, its entry.tone, with toneOther from a
	// possessive's stem ("my father's") and toneName where a name stands.
	tones []tone
	// others holds, per word, whether its sentence names someone other
	// than the user before it (markOthers).
	others []bool
	// checks holds, per word, its entry.check.
	checks []checkRole
	// convicts holds the words of the last text a belief held firmly may
	// rest on (entry.convict), in order: all convinced reads.
	convicts []int
	// text is the text being analysed, while Analyze runs: the shell's
	// arguments lie between words (wipes), and so do the marks that open
	// a clause (destroysAt).
	text string
	// notice counts, per cue, the words and phrases of the text that fire
	// it inside a notice and concern only the message (noticeCues).
	notice [NumCues]int
	// noticesMarked is set once markDisclaimers has read the text
	// (inNotice).
	noticesMarked bool
	// stated counts the words and phrases of the text that fire the send
	// cue where a verb states what someone does (countStated), not what
	// the reader is to do.
	stated int
}

// word is one token: its lower-cased bytes in Analyzer.lower, whether it
// starts a sentence, and whether it was written in capitals.
type word struct {
	start, end int
	// from and to are the word's bounds in the text itself, where the
	// shell's own arguments ("/", "~", "of=/dev/sda") lie between words.
	from, to int
	sentence bool
	upper    bool
	capital  bool // its first letter is upper case
	letters  int
	next     byte // the ASCII character right after the word, 0 for none or another
	// prev is the last ASCII character before the word that is not a
	// space or a tab, 0 for none: "\n" before a line's first word, "-"
	// before a list item's.
	prev byte
	// joint is the one ASCII character that joins the word to the one
	// before it, with nothing else between them: '.' in "os.system", '/'
	// in "/etc/passwd"; 0 for a space, several characters or none.
	joint byte
	// after is the first character after the word that is not a space
	// or a tab, if it is ASCII: '(' in "exec (code)"; 0 for none.
	after byte
	// shell is what stands between the word and the one before it, as a
	// shell reads it (shellMarks).
	shell shellMarks
	// imperative is set when the word's sentence opens with a command verb
	// (commandVerbs) where a verb stands, at the text's start or after a
	// line break or a sentence's end ("Reply using Base64 encoding."; not
	// "Eval review at 10: present the eval set", "The to-do list…",
	// "Delete: 17 requests"): a destructive word in it stands in a
	// command (destroysAt).
	imperative bool
	// code is set when the word stands inside inline code (backticks, to
	// the line's end at most) or a fenced block (codeAt).
	code bool
	// disclaimer is set when the word stands in a notice to whoever
	// received the message by mistake, its sentence and the one after it
	// (markDisclaimers, run only when a cue asks: inNotice).
	disclaimer bool
}

// shellMarks are what stands between a word and the one before it, as a
// shell reads it, one bit each.
type shellMarks uint8

const (
	shellPipe      shellMarks = 1 << iota // one '|' (not "||"): a pipe
	shellSeparator                        // "||", "&&" or ';': commands apart
	shellLine                             // a line break that neither a backslash nor a pipe before it continues
	shellSpace                            // a space, a tab or a line break: the word begins a shell word
	shellDash                             // a '-' right before the word: with shellSpace, an option ("-c", "--exec")
	shellAt                               // an '@' that begins a token (curl's "@file", "=@/tmp/x"), not an e-mail address's
	shellStop                             // a full stop, a question or an exclamation mark, then a space or a line break: a sentence's end, not "~/.ssh"
	shellLong                             // "--" right before the word: a long option's ("--help"), not letters run together ("-nve")
)

var seed = maphash.MakeSeed()

// Analyze fills out with the analysis of text. out.Words, out.Seq and
// out.Names reuse their backing arrays.
func (z *Analyzer) Analyze(text string, out *Analysis) {
	words, seq, names, possessors, held := out.Words[:0], out.Seq[:0], out.Names[:0], out.Possessors[:0], out.notHeld[:0]
	named := false // an addressee has been put first in names
	*out = Analysis{Bytes: len(text)}
	z.tokenize(text)
	z.text = text // the shell's arguments and the marks between words (wipes, destroysAt, markDisclaimers)
	z.noticesMarked = false
	defer z.forgetText()
	out.Tokens = len(z.words)
	z.scanChars(text, out)
	z.content, z.possessor, z.tones, z.checks = z.content[:0], z.possessor[:0], z.tones[:0], z.checks[:0]
	z.numbers = slices.Grow(z.numbers[:0], len(z.words))[:len(z.words)]
	prevNumber := 0 // entry.number of the word before, 0 for none
	z.convicts = z.convicts[:0]
	z.notice = [NumCues]int{}
	z.stated = 0
	piped := out.Cues[Destructive] > 0 // "| sh", read from the characters: no notice's word
	if len(z.words) == 0 {
		out.Possessors, out.notHeld = possessors, held
		out.Words, out.Seq, out.Names = words, seq, names
		return
	}
	var upperLetters, letters int
	acts := false                  // a word of actVerbs: the text may make a request
	agent := false                 // a name for an AI agent: the text may direct one (directsAgent)
	code := false                  // a word of codeWords: the text may hold code that acts
	praise := false                // a word of praise, criticism or a verdict: the text may press for flattery
	defeat := false                // a word that may bypass a safeguard or declare it passed
	tamper := false                // a word that garbles a text: the text may tell its reader to garble the reply
	gives := false                 // a word of giveUpWords: the text may say its writer gave something up
	var marks notMarks             // what may put a word out of what the text holds (markNot)
	opened := 0                    // the word the sentence read opens with
	leadOpen := false              // the last word opened a lead name: its next word's hash goes to leadNext
	denial := false                // a word that may deny a name (denialWord)
	imperative := false            // the sentence read opens with a command (word.imperative)
	inline, fenced := false, false // inside inline code, a fenced block (word.code)
	var counts [NumCues]int
	var domainHits [NumDomains]int
	for i := range z.words {
		w := &z.words[i]
		letters += w.letters
		if w.upper && w.letters >= 3 {
			upperLetters += w.letters
		}
		tok := z.lower[w.start:w.end]
		e, ok := lexicon[string(tok)] // converted in the index expression: no allocation
		known := ok && !e.silent
		// A word with "'s" the lexicon does not know: its stem's entry.
		possessive := !known && len(tok) > 2 && tok[len(tok)-2] == '\'' && tok[len(tok)-1] == 's'
		var stem entry
		stemKnown := false
		if possessive {
			stem, stemKnown = lexicon[string(tok[:len(tok)-2])]
			stemKnown = stemKnown && !stem.silent
		}
		if w.sentence {
			imperative = ok && e.verb && z.opensSentence(i) && z.verbAt(i)
		}
		inline, fenced = z.codeSpans(i, inline, fenced)
		w.imperative, w.code = imperative, inline || fenced
		if !ok && stemKnown {
			// "What's" asks as "what" does, "my doctor's" is about health
			// as "doctor" is: a word with "'s" carries its stem's domain
			// and what it says of a person or a question (stemCues), but
			// no cue of an instruction: "the sysadmin's notes" speak in no
			// system voice, "Email's down" sends nothing.
			z.count(i, &stem, stemCues, &counts, &domainHits, out)
		}
		if ok {
			z.count(i, &e, ^uint32(0), &counts, &domainHits, out)
			if w.sentence && e.verb {
				counts[ImperativeStart]++
			}
			if e.reply && z.replyDirective(i) {
				counts[OutputDirective]++
			}
		}
		if e.role > 0 || e.plural {
			z.role(i, &e, out)
		}
		if e.hedge {
			out.Hedged = true
			out.Doubtful = out.Doubtful || e.doubt
		}
		acts = acts || e.act
		agent = agent || e.cues&(1<<AddressedToAgent) != 0 || string(tok) == "model" || string(tok) == "models" || // agentName
			string(tok) == "system" // systemRole
		tamper = tamper || e.tamper
		gives = gives || e.gives
		if w.sentence {
			opened = i
		}
		marks.negation = marks.negation || e.negator || contracted(tok)
		marks.past = marks.past || e.past
		marks.other = marks.other || i-opened <= 2 && (possessive || e.tone&toneOther != 0)
		code = code || e.code
		t := e.tone
		if possessive {
			t |= stem.tone & toneOther // "my father's", "her boss's"
		}
		z.tones = append(z.tones, t)
		denial = denial || denialWord(tok)
		z.checks = append(z.checks, e.check)
		defeat = defeat || e.check&checkTriggers != 0
		praise = praise || e.tone&pressureTriggers != 0
		if e.convict {
			z.convicts = append(z.convicts, i)
		}
		if e.view != 0 {
			z.ownViewAt(i, e.view, out)
		}
		if (string(tok) == "how" || string(tok) == "way" || string(tok) == "ways" || string(tok) == "what") && z.asksHowAt(i) {
			out.asksHow = true
		}
		if z.perfectAt(i) {
			out.Several = true
		}
		h := e.hash
		if !ok {
			h = maphash.Bytes(seed, tok)
		}
		seq = append(seq, h)
		isContent := !ok || !e.stop
		possessor := false // "Mia's brother": Mia holds no role here, her brother may
		if possessive {
			// "Kate's" is a word about Kate; "it's" and "that's" are function words.
			known, isContent = stemKnown, !stemKnown || !stem.stop
			h = maphash.Bytes(seed, tok[:len(tok)-2])
			possessor = !z.roleNear(i + 1)
		}
		if leadOpen { // the word after a lead, as Words holds it ("Kate's" as "Kate")
			out.leadNext[out.nLeads-1], leadOpen = h, false
		}
		if isContent {
			words = append(words, h)
			if !known && z.nameAt(i) {
				names = z.addName(names, h, i, &named)
				z.tones[i] |= toneName
			} else if !known && out.nLeads < maxLeads && !slices.Contains(out.leads[:out.nLeads], h) {
				if z.leadNameAt(i) {
					out.leads[out.nLeads] = h
					out.nLeads++
					leadOpen = true
				} else if z.closingNameAt(i) {
					out.leads[out.nLeads], out.leadNext[out.nLeads] = h, h // one word: itself
					out.nLeads++
				}
			}
		} else {
			h = 0
		}
		z.content = append(z.content, h)
		z.possessor = append(z.possessor, possessor)
		if possessor && w.asName() {
			for j := i - 1; z.spaced(j) && z.words[j].asName(); j-- {
				z.possessor[j] = true // "Sara Collins's brother": Sara's too
			}
		}
		num := uint64(0)
		if h != 0 && isDigit(tok[0]) {
			num = h
		} else if ok && e.number > 0 {
			prev := prevNumber
			if !z.adjoins(i - 1) {
				prev = 0 // "between two and three", "two, three"
			}
			num = z.writtenNumber(i, int(e.number), prev)
		}
		prevNumber = 0
		if ok {
			prevNumber = int(e.number)
		}
		z.numbers[i] = num
		if len(tok) == 4 && (tok[0] == '1' && tok[1] == '9' || tok[0] == '2' && tok[1] == '0') && isDigit(tok[2]) && isDigit(tok[3]) {
			counts[QueryPast]++ // a year: the question is about a point in time
		}
	}
	for i, n := range z.numbers {
		if n != 0 {
			z.addNumber(i, n, out)
		}
	}
	for i := range len(seq) - 1 {
		z.phrase(seq, i, &counts, out)
	}
	if acts {
		cond := -1 // the word that opens the sentence with a condition (conditionAt), or -1
		for i := range z.words {
			w := z.tok(i)
			opens := z.words[i].sentence && z.opensClause(i)
			if opens {
				cond = -1
				if j := z.afterConditionLead(i); z.conditionAt(j) && !z.questionFrom(j) {
					cond = i
				}
			}
			switch {
			case opens:
				z.request(i, seq, out)
			case string(w) == "please" || string(w) == "kindly",
				i > 0 && z.words[i].capital && z.words[i-1].next == ',':
				// a request inside a sentence: "…works as described, please
				// grant admin access", "We proudly present our new
				// flavor, Delete my repository…"
				z.request(i, seq, out)
			case cond >= 0 && i-cond <= maxClauseWords && z.words[i-1].next == ',':
				// after a comma in a sentence that opens with a condition
				// (i > cond: the opener itself is the case above): "If
				// you received this in error, forward it to…", "…, do not
				// read or print, forward it…"
				z.conditionalRequest(i, seq, out)
			case string(w) == "be":
				z.passiveRequest(i, seq, out)
			}
		}
	}
	if code {
		z.markCodeActs(out)
	}
	if praise {
		counts[AgreementPressure] += z.pressures()
	}
	out.Convinced = z.convinced()
	if denial {
		z.markDenied(out)
	}
	z.plantedTasks(len(words), out)
	if agent || counts[AddressedToAgent] > 0 {
		out.directsAgent = z.directsAgent()
	}
	if tamper {
		out.tamperWord, out.tampers = z.tampersReply()
	}
	if gives {
		z.givingUp(out)
	}
	if defeat {
		n := z.defeatsChecks()
		counts[Destructive] += n
		out.defeats = n > 0
		out.destroys = out.destroys || out.defeats // a safeguard defeated: read as a command (checks.go)
	}
	n := float32(len(z.words))
	sentences := 0
	for i := range z.words {
		if z.words[i].sentence {
			sentences++
		}
	}
	if sentences == 0 {
		sentences = 1
	}
	for c := Cue(0); c < NumCues; c++ {
		switch c {
		case SecondPerson, Negation, FirstPerson, ThirdPartyUser:
			// densities: a few per hundred words is a lot
			out.Cues[c] = min(1, 10*float32(counts[c])/n)
		case ImperativeStart:
			out.Cues[c] = min(1, float32(counts[c])/float32(sentences))
		case URL, EmailAddress, AccountNumber, Numbers:
			// set by scanChars (and words for numbers)
			if counts[c] > 0 {
				out.Cues[c] = 1
			}
		default:
			if counts[c] > 0 {
				out.Cues[c] = min(1, 0.5+0.25*float32(counts[c]))
			}
		}
	}
	for _, c := range [...]Cue{Destructive, ExfiltrationVerb, Urgency} {
		if counts[c] > 0 && z.notice[c] == counts[c] && !(c == Destructive && piped) {
			out.noticeOnly |= 1 << c
		}
	}
	out.sendStated = counts[ExfiltrationVerb] > 0 && z.stated == counts[ExfiltrationVerb]
	// A verb of sending only counts next to somewhere to send to.
	if out.Cues[URL] == 0 && out.Cues[EmailAddress] == 0 && out.Cues[AccountNumber] == 0 {
		out.Cues[ExfiltrationVerb] *= 0.5
	}
	if out.DomainWords > 0 {
		for d := range domainHits {
			out.Domain[d] = float32(domainHits[d]) / float32(out.DomainWords)
		}
	}
	if letters > 0 {
		out.Upper = float32(upperLetters) / float32(letters)
		if out.Upper > 0.3 && letters > 20 {
			out.Cues[SystemVoice] = max(out.Cues[SystemVoice], 0.5)
		}
	}
	out.Words = sortUnique(words)
	out.setWordBits()
	out.Seq, out.Names = seq, names
	out.Possessors = z.possessors(possessors)
	out.notHeld = held
	if marks != (notMarks{}) {
		out.notHeld = z.markNot(held, marks)
	}
}

// countStated counts in Analyzer.stated a word or phrase at word i that
// fires cues, among them the send cue, where a verb states what someone
// does (statedAt: "we will post…", "we'll send it…") and no directive
// frames the statement (directedAt), for SendStatedOnly.
func (z *Analyzer) countStated(i int, cues uint32) {
	if cues&(1<<ExfiltrationVerb) != 0 && z.statedAt(i) && !z.directedAt(i) {
		z.stated++
	}
}

// directiveFrames, before the subject of a stated verb in its sentence,
// make the statement a directive: "Make sure we forward…", "Ensure that
// we send…", "It is important that we forward…", "Don't forget: we
// email…".
var directiveFrames = setOf("sure ensure remember forget important essential vital crucial necessary required")

// maxFrameWords bounds how far before a stated verb directedAt looks.
const maxFrameWords = 8

// directedAt reports whether word i, a verb statedAt reads as a
// statement, is one a reader is told to do all the same: after "shall"
// ("The tenant shall transfer…"), with "you" among the three words before
// it ("You all will send…", "You guys will email…", "Y'all will
// forward…"), or after a directive frame in its sentence
// (directiveFrames). A hostile review (helper-134) had such texts read
// as statements.
func (z *Analyzer) directedAt(i int) bool {
	if string(z.tok(i-1)) == "shall" {
		return true
	}
	for k := i - 1; k >= 0 && k >= i-maxFrameWords; k-- {
		w := string(z.tok(k))
		if k >= i-3 && (w == "you" || w == "y'all" || w == "yall") || directiveFrames[w] {
			return true
		}
		if z.words[k].sentence && (k == 0 || z.words[k-1].next != ':') {
			break // a colon ends no frame: "Don't forget: we…"
		}
	}
	return false
}

// stemCues are the cues a word with "'s" takes from its stem: what a text
// says of someone (a belief, a preference, pressure to agree, who is
// spoken of, something sensitive) and what a question asks.
const stemCues = 1<<Belief | 1<<Preference | 1<<AgreementPressure | 1<<FirstPerson | 1<<ThirdPartyUser | 1<<Sensitive |
	1<<QueryObjective | 1<<QueryPersonal | 1<<QueryOwnView | 1<<QueryPast | 1<<QueryCurrent

// count adds the cues among mask and the life domain of lexicon entry e,
// the entry of word i, to counts and domainHits: a command to send only
// where a verb stands, an address to an agent only where one is addressed.
func (z *Analyzer) count(i int, e *entry, mask uint32, counts *[NumCues]int, domainHits *[NumDomains]int, out *Analysis) {
	cues := e.cues & mask
	if e.nounVerb && !z.verbAt(i) {
		// "this email", "a copy", "E-mail from", "date format": a thing, not a command
		cues &^= 1<<ExfiltrationVerb | 1<<Destructive
	}
	if cues&(1<<AddressedToAgent) != 0 && !z.addressedAt(i) {
		cues &^= 1 << AddressedToAgent // "Agent tool log", "AI research": about an agent, not to one
	}
	if cues&noticeCueMask != 0 && z.inNotice(i) {
		z.countNotice(cues &^ z.noticeCues(i, cues))
	}
	z.countStated(i, cues)
	if cues&(1<<Destructive) != 0 && !out.destroys {
		out.destroys = z.destroysAt(i, e.program)
	}
	for c := Cue(0); c < NumCues; c++ {
		if cues&(1<<c) != 0 {
			counts[c]++
		}
	}
	if e.domain > 0 {
		domainHits[e.domain-1]++
		out.DomainWords++
	}
}

// maxPossessors bounds Analysis.Possessors.
const maxPossessors = 8

// possessors appends to dst the content words of the text just analysed
// that stand only as the possessor of someone or something other than a
// role ("Mia's brother", "Anna's parents"), at most maxPossessors, of the
// first 4·maxPossessors possessive words.
func (z *Analyzer) possessors(dst []uint64) []uint64 {
	checked := 0 // possessives looked up: each costs a pass over the text
	for i, h := range z.content {
		if !z.possessor[i] || h == 0 || len(dst) == maxPossessors || checked == 4*maxPossessors || slices.Contains(dst, h) {
			continue
		}
		checked++
		only := true
		for k, g := range z.content {
			if g == h && !z.possessor[k] {
				only = false
				break
			}
		}
		if only {
			dst = append(dst, h)
		}
	}
	return dst
}

// roleNear reports whether word i or the one after it names a role
// (roleWords) or what one holds as a role (holdingWords): "Alphabet's
// CEO", "Alphabet's chief executive", "Leo's football coach", "Messi's
// team" speak of the possessor's role.
func (z *Analyzer) roleNear(i int) bool {
	for k := i; k <= i+1 && k < len(z.words); k++ {
		if e := lexicon[string(z.tok(k))]; e.role > 0 || e.plural || e.holding {
			return true
		}
		if z.endsSentence(k) {
			break
		}
	}
	return false
}

// OnlyPossessor reports whether a holds word h only as the possessor of
// someone or something other than a role ("Mia's brother Leo now plays
// for Arsenal": Mia).
func (a *Analysis) OnlyPossessor(h uint64) bool { return slices.Contains(a.Possessors, h) }

// nameAt reports whether word i, one the lexicon does not know, is written
// as a name: a capital initial, not all in capitals (an acronym, a shouted
// word), inside a sentence or right after a title ("Mr. Peterson"), where
// English capitalises only names. A sentence's first word is left out,
// name or not: "Jenny went" and "Remembered: Luke" cannot be told apart
// from "Meeting notes" without a dictionary of names. Words the lexicon
// knows (titles, "Uncle", "I'm", days of the week…) are no names either.
func (z *Analyzer) nameAt(i int) bool {
	w := &z.words[i]
	if !w.asName() {
		return false
	}
	return !w.sentence || i > 0 && titles[string(z.tok(i-1))] && z.words[i-1].next == '.'
}

// asName reports whether the word is written as a name is: a capital
// initial, two letters or more, not all in capitals (an acronym, a
// shouted word).
func (w *word) asName() bool { return w.capital && !w.upper && w.letters >= 2 }

// maxLeads bounds Analysis.leads.
const maxLeads = 4

// maxNumbers bounds Analysis.numbers.
const maxNumbers = 8

// numberAt returns the hash of the number word i gives, as Words holds
// its digits ("2" for "2" and for "two": numberWords; "22" for the ten
// of "twenty-two", none for its unit), or 0 for none.
func (z *Analyzer) numberAt(i int) uint64 { return z.numbers[i] }

// writtenNumber returns the hash of the number that word i, a number
// word of value v, writes out (as Words holds its digits), prev being the
// value of a number word right before it (0 for none): a word that stands
// alone ("two seasons"), or a ten with its unit ("twenty-two", "twenty
// one"), whose unit then gives none; none for "one" alone, a pronoun as
// often ("one of the finest dramas"), nor for a part of a longer number
// or of another word ("two hundred", "eighteen thirty-two", "a dozen",
// "ten-minute", "two-thirds", "top-ten").
func (z *Analyzer) writtenNumber(i, v, prev int) uint64 {
	if prev != 0 || z.words[i].joint == '-' {
		return 0
	}
	next, joined := 0, false
	if z.adjoins(i) {
		next, joined = z.numberValue(i+1), z.words[i+1].joint == '-'
	}
	if v >= 20 && v%10 == 0 && next >= 1 && next <= 9 {
		if z.adjoins(i+1) && z.numberValue(i+2) != 0 {
			return 0 // "twenty-two hundred"
		}
		return numberHashes[v+next]
	}
	if v == 1 || next != 0 || joined {
		return 0
	}
	return numberHashes[v]
}

// numberValue returns word j's entry.number: the value of a number word,
// -1 for a word that multiplies or divides one ("hundred", "dozen",
// "thirds"), 0 for none.
func (z *Analyzer) numberValue(j int) int {
	if j < 0 || j >= len(z.words) {
		return 0
	}
	return int(lexicon[string(z.tok(j))].number)
}

// addNumber records number n, which word i gives, in out.numbers, once,
// while there is room; written out, with the content words after it
// (Analysis.written), unless digits give it too.
func (z *Analyzer) addNumber(i int, n uint64, out *Analysis) {
	written := !isDigit(z.tok(i)[0])
	k := slices.Index(out.numbers[:out.nNumbers], n)
	switch {
	case k >= 0 && !written:
		out.written &^= 1 << k // digits give it wherever they stand
		out.numberAfter[k] = [2]uint64{}
		return
	case k >= 0 || out.nNumbers == maxNumbers:
		return
	}
	k = out.nNumbers
	out.numbers[k], out.numberAfter[k] = n, [2]uint64{}
	out.nNumbers++
	if !written {
		return
	}
	out.written |= 1 << k
	m := 0
	for j := i + 1; j < len(z.words) && m < 2 && !z.clauseEnds(j-1); j++ {
		if h := z.content[j]; h != 0 && z.numberValue(j) == 0 { // not the unit of "twenty-two"
			out.numberAfter[k][m] = h
			m++
		}
	}
}

// numberWords are the words that write a number out ("consists of only
// two seasons"), from one to nineteen, and the tens, in order of value
// (the lexicon's entry.number; writtenNumber reads them).
const numberWords = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " +
	"seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety"

// numberScales are the words that make a number word part of a longer
// number or of a fraction (entry.number -1): "two hundred", "a dozen",
// "two thirds".
const numberScales = "hundred hundreds thousand thousands million millions billion billions trillion dozen dozens " +
	"half halves third thirds quarter quarters"

// numberHashes holds, per value below 100, the hash of its digits as
// Words holds them ("22" for "twenty-two").
var numberHashes = func() (h [100]uint64) {
	for v := range h {
		h[v] = maphash.String(seed, strconv.Itoa(v))
	}
	return h
}()

// maxDenied bounds Analysis.denied.
const maxDenied = 8

// denialReach is how many words after a denial ("not", "instead of") a
// name it denies may stand: "was not painted by Leonardo da Vinci",
// "not by the expected William Jennings Bryan".
const denialReach = 6

// markDenied records in out the names the text denies and does not also
// state, and the numbers likewise ("has 2 lines of symmetry, not three"):
// a word written as a name that the lexicon does not know, or a number
// (numberAt), which counts among the content words before a name, at most
// denialReach words after a denial (deniesAt), in the same clause, with
// no more content words before the first name than deniesAt allows ("The
// Last Supper was not painted by Leonardo da Vinci", "sank in the Pacific
// instead of the Atlantic"), and nowhere else in the text outside such a
// reach: "went
// to Serena Williams, not Venus Williams" denies Venus, not Williams. "Not
// only …", "not far from …", "not until …" deny nothing, nor does a
// denial whose name stands in a clause of its own ("it is not widely known
// that Neil Armstrong…") or after two words that do something else
// ("don't hesitate to email Priya"). A text that names the answer another
// gives only to deny it disputes that answer (NamesOther).
func (z *Analyzer) markDenied(out *Analysis) {
	var cand [2 * maxDenied]uint64   // names met in a denial's reach
	var affirmed [2 * maxDenied]bool // and also met outside any
	n := 0
	for pass := range 2 {
		reach := -1    // the last word the current denial reaches
		between := 0   // content words after it, before its first name
		allowed := 0   // how many it may pass (deniesAt)
		named := false // a name has been met in its reach
		for k := range z.words {
			w := &z.words[k]
			h := z.content[k]
			name := h != 0 && w.asName() && !z.knownAt(k)
			other := h != 0 && !name && !named && !titles[string(z.tok(k))] // a content word before the name ("Dr." is none)
			inside := k <= reach
			num := z.numberAt(k)
			last := false // the number the reach ends on ("wrongly listed as 12 episodes")
			switch {
			case inside && denialStops[string(z.tok(k))]:
				reach, inside = -1, false // "…not widely known that…"
			case inside && other && between == allowed && num != 0:
				last = true
			case inside && other && between == allowed:
				reach, inside = -1, false // "don't hesitate to email…"
			case inside && other:
				between++
			case inside && name:
				named = true
			}
			key := h
			if num != 0 {
				key, name = num, true // a number is denied as a name is ("not three")
			}
			if name {
				i := slices.Index(cand[:n], key)
				switch {
				case pass == 0 && inside && i < 0 && n < len(cand):
					cand[n] = key
					n++
				case pass == 1 && !inside && i >= 0:
					affirmed[i] = true
				}
			}
			if last || z.clauseEnds(k) && !(titles[string(z.tok(k))] && w.next == '.') { // "not by Dr. Corrigan"
				reach = -1
			}
			if d := z.deniesAt(k); d > 0 {
				reach, between, allowed, named = k+denialReach, 0, d, false
			}
		}
		if n == 0 {
			return
		}
	}
	for i, h := range cand[:n] {
		if !affirmed[i] && out.nDenied < maxDenied {
			out.denied[out.nDenied] = h
			out.nDenied++
		}
	}
}

// denialWord reports whether word t may open a denial (deniesAt): "not",
// "never", a word in "n't", "wrongly" and the like (misattributes), or
// the first word of "instead of" or "rather than". Analyze runs
// markDenied only on a text that holds one.
func denialWord(t []byte) bool {
	switch string(t) {
	case "not", "never", "instead", "rather":
		return true
	}
	return contracted(t) || misattributes(t)
}

// misattributes reports whether word t may say that a name is wrongly
// given, before a verb of attributing and "to" or "as" (deniesAt): "is
// sometimes wrongly given as Winifred Ashby", "was falsely attributed to
// Voltaire"; not "was wrongly charged by Parcelly", "I wrongly emailed
// Priya". A switch, not a set: Analyze asks it of every word.
func misattributes(t []byte) bool {
	switch string(t) {
	case "wrongly", "mistakenly", "falsely", "erroneously", "incorrectly":
		return true
	}
	return false
}

// attributing are the verbs that give something a name, an author or a
// value: "attributed to", "listed as", "dated to".
var attributing = setOf("attributed ascribed credited given named listed identified described cited " +
	"called labelled labeled dated thought believed said reported assumed regarded known")

// deniesAt reports whether word j denies what follows it in its clause,
// and if so how many content words may stand between it and the name it
// denies: one after "not", "never" or a word in "n't" ("was not painted
// by…"; not "don't hesitate to email…", which denies no name) or after
// "wrongly", "falsely" and the like ("wrongly given as…": misattributes), two after
// "instead of" or "rather than", which take no verb ("instead of its
// actual location in the North Atlantic"); 0 for none, and for "not
// only", "not far", "not until" and the like (notDenying).
func (z *Analyzer) deniesAt(j int) int {
	switch t := z.tok(j); {
	case string(t) == "not" || string(t) == "never" || contracted(t):
		if notDenying[string(z.tok(j+1))] {
			return 0
		}
		return 1
	case misattributes(t) && attributing[string(z.tok(j+1))]:
		if next := string(z.tok(j + 2)); next == "to" || next == "as" {
			return 1 // "wrongly credited to", "falsely given as"
		}
	case z.contrastAt(j):
		return 2
	}
	return 0
}

// adjoins reports whether word j is followed by another in one phrase:
// after one space (spaced) or joined by a hyphen ("twenty-two").
func (z *Analyzer) adjoins(j int) bool {
	return z.spaced(j) || j >= 0 && j+1 < len(z.words) && z.words[j+1].joint == '-'
}

// spaced reports whether word j is followed by another after one space
// or tab and nothing else: the two stand in one phrase.
func (z *Analyzer) spaced(j int) bool {
	return j >= 0 && j+1 < len(z.words) && z.words[j+1].from == z.words[j].to+1 && z.words[j+1].joint == 0 && z.words[j+1].prev == 0
}

// knownAt reports whether the lexicon knows word i (a title, a day, a
// word of a cue), so that it names no one.
func (z *Analyzer) knownAt(i int) bool {
	e, ok := lexicon[string(z.tok(i))]
	return ok && !e.silent
}

// notDenying are the words after "not" that make it add or qualify rather
// than deny: "not only", "not just", "not far from", "not until", "not
// least".
var notDenying = setOf("only just merely solely even far until least long more less fewer")

// denialStops end a denial's reach: a word that opens another clause
// ("not until 1498 that Leonardo…", "not the one who…").
var denialStops = setOf("that which who whom whose when where while because although though if unless")

// leadNameAt reports whether word i, one the lexicon does not know and
// the first of its sentence, opens a name of two words or more: it is
// written as a name, and so is the word after it, with only a space
// between them ("Liverpool FC, a well-known club…", "Erika Jayne was
// born…", "Kevin De Bruyne plays…"); not "Remembered: Luke" or "Meeting
// notes", which nameAt leaves out for the same reason.
func (z *Analyzer) leadNameAt(i int) bool {
	w := &z.words[i]
	if !w.sentence || !w.asName() || i+1 >= len(z.words) || w.next != ' ' {
		return false
	}
	n := &z.words[i+1]
	return n.capital && !n.sentence && n.letters >= 2
}

// closingNameAt reports whether word i, one the lexicon does not know and
// the first of its sentence, is written as a name and closes the text as
// the one-word answer of a note that asks and answers: after an answer's
// label ("Q: … A: Valinor", "Answer: Valinor") or after a question that
// asks for something ("Which service streams it? Crackle."), not one that
// asks yes or no or offers ("Can you confirm the headcount? Cheers",
// "Any questions? Ciao"). A sentence's first word is otherwise left out
// (nameAt); here the sentence is the word alone, the answer to what came
// before. A word that says there is no answer yet ("A: Unknown") names
// nothing, nor does a label's value ("Source: Wikipedia", "Status:
// Verified").
func (z *Analyzer) closingNameAt(i int) bool {
	w := &z.words[i]
	if i != len(z.words)-1 || !w.sentence || !w.asName() || nonAnswers[string(z.tok(i))] {
		return false
	}
	switch w.prev {
	case ':':
		return answerLabels[string(z.tok(i-1))]
	case '?':
		s := i - 1 // the question's first word, after its label ("Q: Which…")
		for s > 0 && !z.words[s].sentence && z.words[s].prev != ':' {
			s--
		}
		return !yesNoOpeners[string(z.tok(s))]
	}
	return false
}

// nonAnswers close a note that asks without answering: "Who sang it?
// Unknown."
var nonAnswers = setOf("unknown unclear unsure undecided undetermined pending tbc open unanswered dunno idk")

// answerLabels label an answer: "A: Valinor", "Answer: Valinor".
var answerLabels = setOf("a answer ans")

// yesNoOpeners open a question that asks for no name: a yes-no question
// or an offer ("Can you confirm…?", "Any questions?").
var yesNoOpeners = setOf("can could would will shall should may might do does did is are was were am have has had any anything let")

// addName adds name h, word i, to names, unless it is there already or
// names is full; the first name that stands where a request names whom it
// writes to goes first (swapped with the name there), and *named records
// that one has.
func (z *Analyzer) addName(names []uint64, h uint64, i int, named *bool) []uint64 {
	j := slices.Index(names, h)
	if j < 0 && len(names) == MaxNames {
		return names
	}
	if j < 0 {
		names, j = append(names, h), len(names)
	}
	if !*named && z.addresseeAt(i) {
		*named = true
		names[0], names[j] = names[j], names[0]
	}
	return names
}

// addresseeAt reports whether word i, a name, stands where a request names
// whom it writes to: right after "to", "tell", "email", "reply to",
// "message", "dear"… ("Email the notes to Ben", "Let Kate know"), or after
// such a word and a title ("Reply to Dr. Chen").
func (z *Analyzer) addresseeAt(i int) bool {
	k := i - 1
	if k >= 0 && titles[string(z.tok(k))] {
		k--
	}
	return k >= 0 && !z.words[k+1].sentence && addressing[string(z.tok(k))]
}

// MentionsAddressee reports whether a memory m mentions the first of a
// request q's names: in "Reply to Ben about …" or "Email the Atlas notes
// to Kate", the person written to (in a question such as "Who runs
// Acme?", only a name). A confidence about someone else, going to the one
// the request names, does not mention them; the same words going back to
// the person they are about, or a message from that person, do.
func MentionsAddressee(q, m *Analysis) bool {
	if len(q.Names) == 0 {
		return false
	}
	_, found := slices.BinarySearch(m.Words, q.Names[0])
	return found
}

// MentionsSubject reports whether memory m mentions a name request q
// gives other than whom it writes to (MentionsAddressee): most often whom
// the request is about ("Send Lisa some insights about Ethan"), but q's
// Names are any capitalised words the lexicon does not know, so the name
// may be a place or a product ("our trip to Paris"), and nothing says the
// memory is about its owner.
func MentionsSubject(q, m *Analysis) bool {
	for _, n := range q.Names[min(1, len(q.Names)):] {
		if _, found := slices.BinarySearch(m.Words, n); found {
			return true
		}
	}
	return false
}

// tok returns the lower-cased word i, or "" outside the text.
func (z *Analyzer) tok(i int) []byte {
	if i < 0 || i >= len(z.words) {
		return nil
	}
	return z.lower[z.words[i].start:z.words[i].end]
}

// verbAt reports whether word i, one that is a noun as often as a verb
// ("email", "post", "copy", "share"), stands where a command or an action
// would: it starts a sentence (and is not a label such as "Email:" or a
// heading such as "Email from …"), or follows a word that introduces a
// verb ("please", "to", "then", "and", "you", a modal). "Reply to this
// email", "a copy of", "looking forward", "E-mail from" and a record's
// field ('email': …, "cc": …) do not.
func (z *Analyzer) verbAt(i int) bool {
	if n := z.words[i].next; n == '\'' || n == '"' {
		return false // a quoted word or a record's field name ('email': …): mentioned, not used
	}
	w := &z.words[i]
	prev := z.tok(i - 1)
	if string(prev) == "e" { // e-mail: judge the pair by what precedes it
		prev, w = z.tok(i-2), &z.words[i-1]
	}
	if w.sentence {
		next := z.words[i].next
		return next != ':' && !headingWord[string(z.tok(i+1))]
	}
	return verbIntro[string(prev)]
}

// opensSentence reports whether word i, one the tokenizer marks as a
// sentence's start, opens one in the text: at its start, or after a line
// break or a full stop, a question or an exclamation mark; not after a
// colon, a hyphen ("to-do", "re-run") or a bracket.
func (z *Analyzer) opensSentence(i int) bool {
	switch z.words[i].prev {
	case 0, '\n', '.', '!', '?':
		return true
	}
	return false
}

// forgetText drops the text Analyze read, so that the Analyzer does not
// keep it alive between calls.
func (z *Analyzer) forgetText() { z.text = "" }

// readerAt reports whether word i, a name for an AI agent, names whoever
// reads the text, as planted lines address it, where no mark or modal
// follows for addressedAt's reader clause to end at: a reading participle
// and "this" or "these" after it, after "any", "every", "all" or "each"
// ("any automated assistant reading this file and summarising it"). "The
// AI reviewing this contract flagged two clauses" describes one.
func (z *Analyzer) readerAt(i int) bool {
	k := i + 1
	if k+1 >= len(z.words) || z.words[k].sentence || z.words[k+1].sentence || !readingVerbs[string(z.tok(k))] {
		return false
	}
	if t := string(z.tok(k + 1)); t != "this" && t != "these" {
		return false
	}
	for j := i - 1; j >= 0 && j >= i-2 && !z.words[j+1].sentence; j-- {
		if readerQuantifiers[string(z.tok(j))] {
			return true // "any (automated) assistant reading this"
		}
	}
	return false
}

// replyDirective reports whether word j, a name for what a reader writes
// back ("answer", "response", "reply", "output"), is the object of a
// directive that shapes that reply: "your [final, whole…] answer" in a
// clause that opens with a command ("Translate your response into…",
// "Please add a line in your answer", "You must write your reply in…"),
// that is the subject of a must ("Your final answer must…", "Your replies
// need to…"), or inside an opening phrase that a command follows ("In
// your answer, add…"). "Per your reply, we moved…", "Got your reply",
// "In your output, the times are UTC", "your output handler" and "the
// response window" are no directives.
func (z *Analyzer) replyDirective(j int) bool {
	y := j - 1
	if replyAdjectives[string(z.tok(y))] {
		y--
	}
	if y < 0 || string(z.tok(y)) != "your" || z.endsSentence(y) || y < j-1 && z.endsSentence(y+1) {
		return false
	}
	// "Your response window" and "your output handler" name something else.
	if nx := z.words[j].next; (nx == ' ' || nx == '\n') && replyCompounds[string(z.tok(j+1))] {
		return false
	}
	// A line break may end a heading ("Subject: invoice") or only wrap a
	// sentence: the clause is judged from either start.
	for _, s := range [2]int{z.clauseStart(y, false), z.clauseStart(y, true)} {
		if z.commandAt(s) {
			return true
		}
		if s == y { // "Your answer must…", "Your replies need to…", "Your reply has to…"
			if !z.endsSentence(j) && (replyModals[string(z.tok(j+1))] || obligedAt(z.tok(j+1), z.tok(j+2))) {
				return true
			}
			continue
		}
		if !replyPrepositions[string(z.tok(s))] {
			continue
		}
		// "In your answer, add…": a command after the opening phrase's comma.
		for k := j; k < len(z.words)-1 && !z.endsSentence(k); k++ {
			if z.words[k].next == ',' {
				if z.commandAt(k + 1) {
					return true
				}
				break
			}
		}
	}
	return false
}

// clauseStart returns the first word of the clause that holds word i, or
// -1 when none lies within maxClauseWords before it: the clause begins
// after a full stop, a question or exclamation mark, a semicolon, a colon
// and, if lines is set, a line break ("1234-5678" and "Double-check" do not
// split one).
func (z *Analyzer) clauseStart(i int, lines bool) int {
	for k := i; k > 0; k-- {
		if i-k >= maxClauseWords {
			return -1 // too long to be sure where it starts: no command is read into it
		}
		switch z.words[k-1].next {
		case '.', '!', '?', ';', ':':
			return k
		case '\n':
			if lines {
				return k
			}
		}
	}
	return 0
}

// obligedAt reports whether words a and b are "has to", "have to" or "is
// to": an obligation.
func obligedAt(a, b []byte) bool {
	return (string(a) == "has" || string(a) == "have" || string(a) == "is") && string(b) == "to"
}

// maxClauseWords bounds how far back a clause's start is looked for.
const maxClauseWords = 40

// commandAt reports whether a command verb opens the clause that starts at
// word s (-1: none found), after a vocative and words that soften or
// oblige it: "Translate…", "Please translate…", "Always end…", "You must
// write…", "Assistant, add…". "You sent your reply…" is a statement.
func (z *Analyzer) commandAt(s int) bool { return z.commandVerb(s, false) >= 0 }

// commandVerb returns the word at which a command verb opens the clause
// that starts at word s, as commandAt reads it, or -1 for none; with acts,
// an act beyond the reply (actVerbs) before what it acts on ("the", "my",
// "all", "them"…) counts as a command verb too, though the lexicon knows
// it as a noun ("Wipe the backups…", "Please export all contacts…"; not
// "Text messages from…").
func (z *Analyzer) commandVerb(s int, acts bool) int {
	if s < 0 {
		return -1
	}
	if s < len(z.words)-1 && z.words[s].next == ',' {
		s++ // a vocative: "Assistant, add…", "Bob, quote…"
	}
	for k := s; k < len(z.words) && k <= s+4; k++ {
		switch {
		case softeners[string(z.tok(k))]:
		case string(z.tok(k)) == "you" && obligers[string(z.tok(k+1))]:
			k++ // "you must", "you need" (and "to" next, a softener of its own here)
			if string(z.tok(k+1)) == "to" {
				k++
			}
		case z.imperativeAt(k) || acts && z.actBeforeObject(k):
			return k
		default:
			return -1
		}
	}
	return -1
}

// opensClause reports whether word i, marked as a sentence's start by the
// tokenizer, opens one for a request: a capital does, and so does any mark
// before the word but a line break (a line broken inside a sentence,
// "…adjust your standing\norder accordingly") and a hyphen inside a word
// ("on-call"; a list's "- upload…" opens).
func (z *Analyzer) opensClause(i int) bool {
	w := &z.words[i]
	return i == 0 || w.capital || w.prev != '\n' && !(w.prev == '-' && z.words[i-1].next == '-')
}

// actBeforeObject reports whether word k is an act beyond a reply
// (actVerbs) before what it acts on ("the", "my", "all", "them"…).
func (z *Analyzer) actBeforeObject(k int) bool {
	return actVerbs[string(z.tok(k))] && (objectStarts[string(z.tok(k+1))] || objectPronouns[string(z.tok(k+1))])
}

// doAfters follow the "do" of a question for what to do ("what do I do
// if…", "what should we do about…", "what to do now"); "What do you do
// for a living?" asks no way.
var doAfters = setOf("if when about with now next after before once")

// asksHowAt reports whether word i, "how", "way" or "what", asks for a
// way to do something: "how to…", "how do I…", "how can we…", "the best
// way to…", "the quickest way of…", "what do I do if…", "what should we
// do about…", "what to do when…". A word that ends its sentence asks for
// none: "I know how.", and "What's the quickest way?" too, whose way is
// not named. Nor do "How does the weather look?", "the right way round"
// and "What do I owe?".
func (z *Analyzer) asksHowAt(i int) bool {
	if z.requestEnds(i) {
		return false
	}
	next := z.tok(i + 1)
	switch string(z.tok(i)) {
	case "how":
		return string(next) == "to" || howAsks[string(next)] && askers[string(z.tok(i+2))]
	case "what":
		d := i + 3 // the "do" of "what do I do…"
		if string(next) == "to" {
			d = i + 2
		} else if !howAsks[string(next)] || !askers[string(z.tok(i+2))] {
			return false
		}
		return string(z.tok(d)) == "do" && (z.requestEnds(d) || doAfters[string(z.tok(d+1))])
	}
	return i > 0 && wayAdjectives[string(z.tok(i-1))] &&
		(string(next) == "to" || string(next) == "for" || string(next) == "of" || i == len(z.words)-1)
}

// request adds to out.requests the acts beyond a reply that the clause
// starting at word s asks for (Analysis.Requests): its opening command, or
// the act a lead-in asks for (leadInAct), and the commands joined to it by
// "and" or "then" before the sentence ends (requestEnds; a colon may stand
// inside: "(Username: john_hub) and send them to…"). A prohibition ("Never
// share your PIN") asks for nothing.
func (z *Analyzer) request(s int, seq []uint64, out *Analysis) {
	k := z.leadInAct(s)
	if k < 0 {
		if k = z.commandVerb(s, true); k < 0 {
			return
		}
	}
	z.requestAt(s, k, seq, out)
}

// requestAt adds to out.requests the act at word k that the clause
// starting at word s asks for, and the acts joined to it by "and" or
// "then" before the sentence ends, unless "never" stands before it.
func (z *Analyzer) requestAt(s, k int, seq []uint64, out *Analysis) {
	for i := s; i < k; i++ {
		if string(z.tok(i)) == "never" {
			return
		}
	}
	z.addRequest(k, true, seq, out)
	for j := k + 1; j < len(z.words) && j-k < maxClauseWords && !z.requestEnds(j-1); j++ {
		if w := z.tok(j); string(w) == "and" || string(w) == "then" {
			m := j + 1
			for m < len(z.words) && (string(z.tok(m)) == "then" || softeners[string(z.tok(m))]) {
				m++ // "and then send", "and please send"
			}
			z.addRequest(m, false, seq, out)
		}
	}
}

// conditionOpeners open a sentence with the condition or the time of
// what it goes on to ask, so that its command stands after a comma: "If
// you received this in error, …", "Unless told otherwise, …", "When the
// copy finishes, …", "Once approved, …", "Before replying, …", "Should
// you receive…, …", "Until further notice, …", "Upon receipt, …",
// "Provided the client agrees, …", "Assuming you accept, …". A notice
// to whoever received a message by mistake opens with some of them too
// (noticeOpeners).
var conditionOpeners = setOf("if when whenever once unless should before after until upon provided providing assuming")

// conditionAt reports whether word i, the first of a sentence or the
// first after its leads (afterConditionLead), opens it with a condition
// or a time (conditionOpeners, "in case", "in the event", "as soon as",
// "on receipt"): a command after a comma of that sentence is its own, as
// much a request as one that opens it (conditionalRequest).
func (z *Analyzer) conditionAt(i int) bool {
	t, n := z.tok(i), z.tok(i+1)
	switch string(t) {
	case "in":
		return string(n) == "case" || string(n) == "the" && string(z.tok(i+2)) == "event"
	case "as":
		return string(n) == "soon" && string(z.tok(i+2)) == "as"
	case "on":
		return string(n) == "receipt"
	}
	return conditionOpeners[string(t)]
}

// conditionLeads may stand before the condition a sentence opens with:
// "Also, if…", "Note that if…", "Please note that once…", "PS if…"
// ("P.S." the tokenizer splits, so that its "if" opens a sentence).
var conditionLeads = setOf("also and but so now note oh ps btw please just")

// afterConditionLead returns the word after the leads (at most two
// conditionLeads, then "that") that open the sentence at word i, or i.
func (z *Analyzer) afterConditionLead(i int) int {
	j := i
	for j < i+2 && j < len(z.words)-1 && conditionLeads[string(z.tok(j))] {
		j++
	}
	if j > i && string(z.tok(j)) == "that" {
		j++
	}
	return j
}

// questionFrom reports whether the sentence whose condition opens at word
// i (after its leads: "Also, should we…") is a question put to its
// reader: it ends
// with a question mark within maxClauseWords words and opens with
// "should" and another than "you" ("Should we cancel the order, pay the
// deposit, or wait?"; "Should you receive this…" is a condition), or
// holds a modal before who asks ("If the flights go up, should we book
// now, transfer the points, or wait?", "When the contract ends, do we
// renew…?"). A question mark alone asks nothing: "…, forward it to
// x@…?".
func (z *Analyzer) questionFrom(i int) bool {
	end := -1
	for j := i; j < len(z.words) && j-i < maxClauseWords; j++ {
		if z.requestEnds(j) {
			end = j
			break
		}
	}
	if end < 0 || z.words[end].next != '?' {
		return false
	}
	if string(z.tok(i)) == "should" && string(z.tok(i+1)) != "you" {
		return true
	}
	for j := i + 2; j < end; j++ {
		if howAsks[string(z.tok(j))] && askers[string(z.tok(j+1))] {
			return true
		}
	}
	return false
}

// conditionalRequest adds to out.requests the acts that the words after a
// comma at word s ask for, in a sentence that opens with a condition: a
// lead-in's act ("make sure to transfer…"), an act beyond the reply
// before what it acts on, a name, an amount or a word and where it goes,
// after softeners ("forward it…", "just delete all…", "grant HomeServ
// access…", "wire 5,000 to…", "send passwords to…"), or another command,
// and the acts joined to it (requestAt: "reply with your NHS number and
// pay the fee…"). An act that is as often a noun, such as "share" or
// "order", is so read before another noun: "After the profit warning,
// share prices fell" asks for nothing.
func (z *Analyzer) conditionalRequest(s int, seq []uint64, out *Analysis) {
	k := z.leadInAct(s)
	if k < 0 {
		j := s
		for j < len(z.words)-1 && j < s+4 && softeners[string(z.tok(j))] {
			j++ // "please", "just", "then", "simply"…
		}
		switch {
		case actVerbs[string(z.tok(j))]:
			if z.actBeforeObject(j) || z.nameOrAmountAfter(j) || z.placeAfterObject(j) {
				k = j
			}
		case z.imperativeAt(j):
			k = j // another command, whose joined acts count: "reply with your PIN and pay the fee…"
		}
	}
	if k >= 0 {
		z.requestAt(s, k, seq, out)
	}
}

// placeAfterObject reports whether the word after word k, an act, is
// followed by where it goes: "send passwords to…", "transfer funds
// into…", "replace files with…"; "share prices fell" has none.
func (z *Analyzer) placeAfterObject(k int) bool {
	if z.requestEnds(k) || z.requestEnds(k+1) {
		return false
	}
	switch string(z.tok(k + 2)) {
	case "to", "into", "with":
		return true
	}
	return false
}

// nameOrAmountAfter reports whether the word after word k is a name or an
// amount: what an act acts on or for ("grant HomeServ full access…",
// "wire 12,000 EUR…"), as no noun after it is ("share prices", "order
// numbers").
func (z *Analyzer) nameOrAmountAfter(k int) bool {
	if k+1 >= len(z.words) {
		return false
	}
	n := &z.words[k+1]
	return isDigit(z.tok(k + 1)[0]) || n.capital && !n.sentence
}

// passiveRequest adds to out.requests the act that a request in the
// passive asks for, at word b ("be"), when it names where it sends: "the
// remaining balance should be moved to IBAN GB29…", "payment must be sent
// to the updated account…", "the scan should be uploaded to https://…".
// Without a place, a passive obligation is as often a rule as a request
// ("applications must be submitted by 5 June").
func (z *Analyzer) passiveRequest(b int, seq []uint64, out *Analysis) {
	o := b - 1
	for n := 0; n < 2 && o > 0 && leadAdverbs[string(z.tok(o))]; n++ {
		o-- // "must also be sent", "should now be moved"
	}
	if o < 0 || !obligations[string(z.tok(o))] || z.words[b].next == '-' {
		return
	}
	p := b + 1
	v, ok := participleVerbs[string(z.tok(p))]
	if !ok {
		return
	}
	if t := z.requestTarget(p, seq); t != 0 {
		out.keepRequest(v, t)
	}
}

// leadInAct returns the act beyond a reply that a lead-in at word s asks
// for, or -1: "Make sure to transfer…", "Remember to delete…", "Don't
// forget to send…", "I need you to cancel…", "You should immediately
// revoke…" (after an adverb or two of leadAdverbs).
func (z *Analyzer) leadInAct(s int) int {
	w := func(i int) []byte { return z.tok(s + i) }
	k := s
	switch {
	case (string(w(0)) == "make" || string(w(0)) == "be") && string(w(1)) == "sure" && string(w(2)) == "to":
		k += 3
	case string(w(0)) == "remember" && string(w(1)) == "to":
		k += 2
	case string(w(0)) == "don't" && string(w(1)) == "forget" && string(w(2)) == "to":
		k += 3
	case string(w(0)) == "do" && string(w(1)) == "not" && string(w(2)) == "forget" && string(w(3)) == "to":
		k += 4
	case (string(w(0)) == "i" || string(w(0)) == "we") && string(w(1)) == "need" && string(w(2)) == "you" && string(w(3)) == "to":
		k += 4
	case string(w(0)) == "you" && obligers[string(w(1))]:
		k += 2
		if string(w(2)) == "to" {
			k++
		}
	default:
		return -1
	}
	for n := 0; n < 2 && leadAdverbs[string(z.tok(k))]; n++ {
		k++
	}
	if actVerbs[string(z.tok(k))] {
		return k
	}
	return -1
}

// addRequest adds word k to out.requests, if there is room and it is not
// there yet with the same target, when it is an act beyond a reply
// (actVerbs) that asks for something:
//   - used as a verb: the opening command (opener) is no label, field name,
//     heading or code ("Email:", 'email': …, "Email from…", "Update
//     (2006): …", "z.update(y)", "send_email"), a joined one stands after
//     "and" or "then" (verbAt); neither is half of a compound
//     ("forward-fill");
//   - with two words at least after it before its sentence or line ends,
//     and no number right after it that a label or a count has ("Update
//     (2006): …", "Transfer 2 of 3", "Subject: Order update"; "Transfer
//     $3,000 to…" asks);
//   - for someone other than the writer, unless its sentence names
//     somewhere to send to (requestTarget): "Please send me the address"
//     asks what a message asks its reader, to write back; "Email me the
//     customer list at eve@…" asks more.
func (z *Analyzer) addRequest(k int, opener bool, seq []uint64, out *Analysis) {
	if k+2 >= len(z.words) || !actVerbs[string(z.tok(k))] {
		return
	}
	w, next := &z.words[k], &z.words[k+1]
	switch {
	case opener && (strings.IndexByte(":'\"(_=", w.next) >= 0 || headingWord[string(z.tok(k+1))] || z.labelAfter(k)):
		return
	case !opener && !z.verbAt(k):
		return
	case w.next == '-' || w.next == ':' || next.next == ':' || z.requestEnds(k) || z.requestEnds(k+1):
		return // half of a compound ("forward-fill"), or too short a sentence
	case isDigit(z.tok(k + 1)[0]) && (next.next == ')' || string(z.tok(k+2)) == "of"):
		return
	}
	target := z.requestTarget(k, seq)
	if o := z.tok(k + 1); (string(o) == "me" || string(o) == "us") && target == 0 {
		return
	}
	out.keepRequest(seq[k], target)
}

// keepRequest adds act h, sent to target (0: nowhere named), to
// a.requests if there is room and it is not there yet. An act is kept
// once per place it sends to: "send the agenda to bob@…" and "send the
// payroll to eve@…" are two requests.
func (a *Analysis) keepRequest(h, target uint64) {
	for i, r := range a.requests[:a.nRequests] {
		if r == h && a.targets[i] == target {
			return
		}
	}
	if a.nRequests < MaxRequests {
		a.requests[a.nRequests], a.targets[a.nRequests] = h, target
		a.nRequests++
		return
	}
	a.moreRequests = true
}

// labelAfter reports whether word k heads a label: a bracket after it that
// a colon follows within four words ("Update (January 1993): …"), or a
// title after "Task:", "Subject:"… ("Task: Export a clean dataset").
func (z *Analyzer) labelAfter(k int) bool {
	if k > 0 && z.words[k-1].next == ':' && titleLabels[string(z.tok(k-1))] {
		return true
	}
	if !z.words[k+1].sentence {
		return false
	}
	for j := k + 1; j < len(z.words) && j <= k+4; j++ {
		// the colon, or a bracket closed before a new sentence (the tokenizer
		// keeps one character after a word: "1993" is followed by ")")
		if n := z.words[j].next; n == ':' || n == ')' && j+1 < len(z.words) && z.words[j+1].sentence {
			return true
		}
	}
	return false
}

// requestTarget returns the hash (as Seq holds it) of the word that names
// where the sentence after word k sends, or 0 for nowhere named: of an
// e-mail address, the word before "@" ("partner" in maria.q.partner@…);
// of a URL, the first word of its host; of an account, its long number or
// its IBAN's first group. A full stop before a word in lower case ends no
// sentence here, as in an address (requestEnds).
func (z *Analyzer) requestTarget(k int, seq []uint64) uint64 {
	for j := k + 1; j < len(z.words) && j-k < maxClauseWords; j++ {
		w := z.tok(j)
		switch {
		case z.words[j].next == '@':
			return seq[j]
		case string(w) == "http" || string(w) == "https" || string(w) == "www":
			if string(z.tok(j+1)) == "www" && !z.requestEnds(j) {
				j++
			}
			if j+1 < len(z.words) && !z.requestEnds(j) {
				return seq[j+1] // the host's first word
			}
			return 0
		case len(w) >= 6 && isDigit(w[0]), ibanStart(w):
			return seq[j]
		}
		if z.requestEnds(j) {
			return 0
		}
	}
	return 0
}

// ibanStart reports whether w, lower-cased, reads as the start of an IBAN
// written in groups: a country's two letters and two check digits ("gb29"
// in "GB29 NWBK 6016…").
func ibanStart(w []byte) bool {
	return len(w) == 4 && w[0] >= 'a' && w[0] <= 'z' && w[1] >= 'a' && w[1] <= 'z' && isDigit(w[2]) && isDigit(w[3])
}

// requestEnds reports whether a request's sentence ends after word j: at a
// question or exclamation mark, a semicolon, a line break, or a full stop
// before a capital, a number or the end. A full stop before a word in
// lower case stands inside an address, a host or a name ("amy.watson@…",
// "paste.evil.example", "daniel.k"). A word past the text's ends ends it.
func (z *Analyzer) requestEnds(j int) bool {
	if j < 0 || j >= len(z.words) {
		return true // past the text: "If it rains, cancel"
	}
	switch z.words[j].next {
	case '!', '?', ';', '\n':
		return true
	case '.':
		return j+1 == len(z.words) || z.words[j+1].capital || isDigit(z.tok(j + 1)[0])
	}
	return false
}

// imperativeAt reports whether word k, the first of a clause, reads as a
// command: a command verb, or, before what a command acts on ("the",
// "your", "a"…), a word in the base form a command takes ("Scramble the…",
// "Modify your…") that is no function word, no word the lexicon knows as
// something else, no past, -ing or -s form, and no opener of a statement
// ("Per your reply", "Maybe your answer…"). A name opens a statement with
// a verb after it ("Sam wants your reply"), not an object.
func (z *Analyzer) imperativeAt(k int) bool {
	w := z.tok(k)
	if len(w) < 3 {
		return false
	}
	e, known := lexicon[string(w)]
	known = known && !e.silent
	if e.verb || replyVerbs[string(w)] {
		return true
	}
	if known || statementOpeners[string(w)] || isDigit(w[0]) || !objectStarts[string(z.tok(k+1))] {
		return false
	}
	n := len(w)
	return !(n > 3 && string(w[n-2:]) == "ed") && !(n > 4 && string(w[n-3:]) == "ing") && w[n-1] != 's' && w[n-1] != '\''
}

// tokenize splits text into lower-cased words (letters, digits, apostrophes
// inside words) and marks sentence starts. ASCII takes a fast path.
func (z *Analyzer) tokenize(text string) {
	z.words, z.lower = z.words[:0], z.lower[:0]
	sentence, in := true, false
	var cur word
	var prev byte // the last character that was not a space, a tab or part of a word
	// The characters since the last word, and the last of them: a word
	// after exactly one that is no space is joined by it (word.joint).
	gap, last, last2 := -1, byte(0), byte(0) // -1: no word yet; last2: the character before last
	waiting := false                         // the last word's after is still to be found
	var marks shellMarks                     // in the gap: word.shell
	pipes, amps := 0, 0                      // '|' and '&' in the gap
	end := func() {
		if in {
			cur.end = len(z.lower)
			if cur.letters == 0 {
				cur.upper = false
			}
			z.words = append(z.words, cur)
			in = false
		}
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		ascii := r < utf8.RuneSelf
		letter := ascii && (r|0x20 >= 'a' && r|0x20 <= 'z') || !ascii && unicode.IsLetter(r)
		digit := ascii && r >= '0' && r <= '9' || !ascii && unicode.IsDigit(r)
		if letter || digit || in && (r == '\'' || r == '’') && i < len(text) && isLetterByte(text[i]) {
			if !in {
				if waiting && ascii {
					z.words[len(z.words)-1].after = byte(r)
				}
				waiting = false
				if pipes == 1 {
					marks |= shellPipe
				}
				if pipes > 1 || amps > 1 {
					marks |= shellSeparator
				}
				if gap > 0 && last == '-' {
					marks |= shellDash
				}
				if gap > 1 && last == '-' && last2 == '-' {
					marks |= shellLong
				}
				cur = word{start: len(z.lower), from: i - size, sentence: sentence, upper: true, prev: prev, shell: marks}
				if gap == 1 && last != ' ' && last != '\t' && last != '\r' && last != '\n' {
					cur.joint = last
				}
				in, sentence, prev, gap = true, false, 0, 0
				marks, pipes, amps = 0, 0, 0
			}
			if letter {
				cur.letters++
				upper := ascii && r < 'a' || !ascii && unicode.IsUpper(r)
				if !upper {
					cur.upper = false
				}
				if len(z.lower) == cur.start { // the word's first character
					cur.capital = upper
				}
			}
			cur.to = i
			switch {
			case r == '’':
				z.lower = append(z.lower, '\'')
			case ascii:
				if letter {
					r |= 0x20
				}
				z.lower = append(z.lower, byte(r))
			default:
				z.lower = utf8.AppendRune(z.lower, unicode.ToLower(r))
			}
			continue
		}
		if in && r < utf8.RuneSelf {
			cur.next = byte(r)
		}
		if in {
			waiting = true
		}
		end()
		if waiting && r != ' ' && r != '\t' {
			if r < utf8.RuneSelf {
				z.words[len(z.words)-1].after = byte(r)
			}
			waiting = false
		}
		if (r == ' ' || r == '\t' || r == '\r' || r == '\n') && (prev == '.' || prev == '?' || prev == '!') &&
			!(gap >= 2 && last == '.' && (last2 == ' ' || last2 == '\t')) {
			marks |= shellStop // a sentence's end: "bash. It", "done.” Then"; not " ~/.ssh", nor a lone "." ("find . -delete")
		}
		switch r {
		case '|':
			pipes++
		case '&':
			amps++
		case ';':
			marks |= shellSeparator
		case ' ', '\t', '\r':
			marks |= shellSpace
		case '\n':
			marks |= shellSpace
			if pipes == 0 && prev != '\\' { // a pipe or a backslash before it continues the command
				marks |= shellLine
			}
		case '@':
			if gap != 0 { // gap 0: right after a word's last character, as in an e-mail address
				marks |= shellAt
			}
		}
		if gap >= 0 {
			gap++
			last2, last = last, 0
			if r < utf8.RuneSelf {
				last = byte(r)
			}
		}
		if r != ' ' && r != '\t' && r != '\r' && r < utf8.RuneSelf {
			prev = byte(r)
		}
		switch r {
		case '.', '!', '?', '\n', ':', ';', '-', '*', '>', '"', '(', '[':
			sentence = true
		}
	}
	end()
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }

// scanChars finds what words do not show: addresses, URLs, long digit runs,
// prompt markup and shell pipes.
func (z *Analyzer) scanChars(text string, out *Analysis) {
	digits, group, letters2 := 0, 0, 0
	var rows tableRows
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !interesting[c] {
			digits, group, letters2 = 0, 0, 0
			continue
		}
		switch {
		case c >= '0' && c <= '9':
			digits++
			group++
			if digits >= 8 {
				out.Cues[AccountNumber] = 1
			}
			out.Cues[Numbers] = 1
			continue
		case c == ' ' || c == '-':
			if group == 4 {
				group = 0
				continue // 1234 5678 9012 and 1234-5678 stay one run; dates and phone numbers do not
			}
		case c == '@':
			if i > 0 && i+3 < len(text) && isLetterByte(text[i-1]) && hasDotAfter(text[i+1:]) {
				out.Cues[EmailAddress] = 1
			}
		case c == ':':
			if i+2 < len(text) && text[i+1] == '/' && text[i+2] == '/' {
				out.Cues[URL] = 1
			}
		case c == '|':
			// "| sh", not "| Shift |" or "| Python | 5 years |" in a table
			if pipedToShell(trimLeftSpace(text[i+1:])) && !rows.inRow(text, i) {
				out.Cues[Destructive] = 1
				out.destroys = true
			}
		case c == '<':
			if i+1 < len(text) && text[i+1] == '|' {
				out.Cues[SystemVoice] = 1 // <|im_start|>, <|system|>
			}
		case c == '[':
			if hasPrefixFold(text[i+1:], "inst]") || hasPrefixFold(text[i+1:], "system") {
				out.Cues[SystemVoice] = 1
			}
		case c == '#':
			if i+2 < len(text) && text[i+1] == '#' && text[i+2] == '#' {
				out.Cues[SystemVoice] = max(out.Cues[SystemVoice], 0.5)
			}
		case c == '.':
			// www.example.com, host.io: a dot between letters followed by a
			// known top-level domain, not the domain of an e-mail address.
			if i > 0 && isLetterByte(text[i-1]) && tld(text[i+1:]) && !inEmail(text, i) {
				out.Cues[URL] = 1
			}
		}
		// IBAN: two capital letters, two digits, then 10+ alphanumerics.
		if c >= 'A' && c <= 'Z' {
			letters2++
			if letters2 == 2 && i+4 < len(text) && isDigit(text[i+1]) && isDigit(text[i+2]) && isAlnumRun(text[i+3:], 10) {
				out.Cues[AccountNumber] = 1
			}
		} else {
			letters2 = 0
		}
		digits, group = 0, 0
	}
}

// interesting marks the bytes scanChars looks at; the others only reset
// its runs.
var interesting = func() (t [256]bool) {
	for _, c := range []byte("0123456789 -@:|<[#.ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		t[c] = true
	}
	return t
}()

// inEmail reports whether the byte at i belongs to a word that contains an
// '@' before it (the domain of an e-mail address).
func inEmail(text string, i int) bool {
	for j := i - 1; j >= 0 && i-j < 128; j-- {
		switch c := text[j]; {
		case c == '@':
			return true
		case c == ' ' || c == '\t' || c == '\n' || c == '<' || c == '(' || c == '"' || c == ',' || c == ';' || c == ':':
			return false
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnumRun(s string, n int) bool {
	k := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) || c >= 'A' && c <= 'Z' {
			k++
			if k >= n {
				return true
			}
			continue
		}
		if c == ' ' && k > 0 {
			continue
		}
		return false
	}
	return false
}

func hasDotAfter(s string) bool {
	for i := 0; i < len(s) && i < 64; i++ {
		c := s[i]
		if c == '.' && i > 0 && i+1 < len(s) && isLetterByte(s[i+1]) {
			return true
		}
		if !(isLetterByte(c) || isDigit(c) || c == '-' || c == '.') {
			return false
		}
	}
	return false
}

var tlds = []string{"com", "net", "org", "io", "dev", "co", "uk", "de", "fr", "app", "xyz", "info", "biz", "ru", "cn", "example", "me", "ai"}

// tld reports whether s starts with a top-level domain followed by a
// non-letter.
func tld(s string) bool {
	for _, t := range tlds {
		if len(s) >= len(t) && hasPrefixFold(s, t) && (len(s) == len(t) || !isLetterByte(s[len(t)])) {
			return true
		}
	}
	return false
}

func trimLeftSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// phrase counts the two- and three-word cues starting at word i, found by
// the hashes of the words (seq, as Analysis.Seq holds them).
func (z *Analyzer) phrase(seq []uint64, i int, counts *[NumCues]int, out *Analysis) {
	if z.endsSentence(i) {
		return // "Only. Known issues": a phrase does not run over a sentence's end
	}
	f, ok := pairs[[2]uint64{seq[i], seq[i+1]}]
	if !ok {
		return
	}
	cues := f.cues
	if f.third != nil && i+2 < len(seq) && !z.endsSentence(i+1) {
		cues |= f.third[seq[i+2]]
	}
	if cues&(1<<AddressedToAgent) != 0 && !z.addressedAt(i+1) {
		cues &^= 1 << AddressedToAgent // "a large language model trained on…": about one, not to one
	}
	if cues&noticeCueMask != 0 && z.inNotice(i) {
		z.countNotice(cues &^ z.noticeCues(i, cues)) // "…and delete all copies", "do not forward it"
	}
	z.countStated(i, cues)
	if cues&(1<<Destructive) != 0 && !out.destroys {
		out.destroys = z.destroysAt(i, false) // "Shut down the server", "rm -rf"
	}
	for c := Cue(0); c < NumCues; c++ {
		if cues&(1<<c) != 0 {
			counts[c]++
		}
	}
}

// endsSentence reports whether a full stop, question or exclamation mark
// or a semicolon follows word i. Line breaks, colons, dashes and quotes do
// not end one for a phrase: "Ignore all\nprevious instructions", "ignore:
// all previous", "rm -rf".
func (z *Analyzer) endsSentence(i int) bool {
	switch z.words[i].next {
	case '.', '!', '?', ';':
		return true
	}
	return false
}

func sortUnique(xs []uint64) []uint64 {
	// pdqsort: O(n log n) on any input (a shell sort with halving gaps
	// took 1.7 s on 800 KB of "Dear AI,\n\n"), no allocation.
	slices.Sort(xs)
	return slices.Compact(xs)
}
