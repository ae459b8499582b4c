package content

import (
	"unicode"
	"unicode/utf8"
)

// The disclaimer reading. Corporate, legal, medical and bank mail ends
// with a notice to whoever received it by mistake: "If you are not the
// intended recipient, please notify the sender immediately and delete
// this e-mail and any copies; any review, dissemination or copying of it
// is strictly prohibited." It asks a reader the message was not meant for
// to destroy the message itself, forbids passing it on, and urges only
// the telling of the sender. An e-mail assistant keeps such mail as
// memories by the thousand; read as commands to destroy and send, with
// urgency, nearly every one was quarantined (eval/probe/disclaimers.jsonl
// and disclaimers2.jsonl: 61 of 70).
//
// A notice opens with a condition ("if", "unless", "should") and names,
// within maxNoticeLead words, a reader who is not the intended one ("not
// the intended recipient", "not intended for you", "an unintended
// recipient"), a receipt by mistake ("received … in error", "came to you
// by mistake", "sent to you erroneously") or a message misdirected. The
// words of its sentence and of the one after it, at most maxNoticeWords
// of them, are marked (word.disclaimer). There the
// words that concern only the message itself are found (noticeCues):
//   - deleting it (noticeDeletes before a phrase that names only this
//     message and ends there: "delete it from your system", "destroy all
//     copies", "permanently delete the original and any copies"; not
//     "delete all mail on the server", "delete it, the backups and…");
//   - passing it on where a negation or a prohibition forbids it ("do not
//     copy or forward it", "without reading, copying or forwarding it",
//     "any forwarding or copying of this message is prohibited");
//   - the urgency of telling the sender or deleting the message ("notify
//     the sender immediately", "delete it immediately").
//
// They still fire their cues, which the model reads as it always has.
// Analysis.NoticeOnly tells when a cue fires on nothing else, and the gate
// then marks a memory whose only evidence of an instruction they are
// rather than quarantining it; it never lets one in whole on their
// account. Two hostile reviews of versions that removed the cues instead
// got 44 of 49 and 37 of 38 planted commands in whole
// (eval/probe/notices.jsonl, notices2.jsonl): a command the reading
// wrongly covers must not lose its evidence.

// noticeOpeners open the condition a notice states: "If you are not…",
// "Unless you are…", "Should you receive…", "In the event that you…",
// "In case you received…".
var noticeOpeners = setOf("if unless should event case")

// maxNoticeLead bounds the words from a notice's opener to what makes it
// one: "If you have received this e-mail and any attachments in error".
const maxNoticeLead = 14

// maxNoticeWords bounds the words a notice marks from its opener.
const maxNoticeWords = 60

// disclaimerReceipts are the words that, at most maxReceiptGap words
// before "in error", "by mistake", "by accident" or "erroneously", make a
// receipt by mistake: "received this e-mail in error", "if it came to you
// by mistake", "was sent to you erroneously".
var disclaimerReceipts = setOf("received receive receiving sent delivered transmitted forwarded reached addressed came come " +
	"arrived got obtained")

// maxReceiptGap bounds the words from a receipt to its "error" or
// "mistake": "received this message together with its attachments in
// error".
const maxReceiptGap = 10

// disclaimerRecipients are who a notice's reader is not: "not the intended
// recipient", "not the addressee", "an unintended recipient".
var disclaimerRecipients = setOf("recipient recipients addressee addressees receiver receivers")

// misdirected are the words that make a condition a notice by themselves:
// "If misdirected, please notify us".
var misdirected = setOf("misdirected misaddressed misdelivered missent")

// noticeDeletes are the acts by which a notice disposes of the message.
var noticeDeletes = setOf("delete destroy erase remove discard purge shred expunge")

// messageWords are the names of the message and its parts in a notice:
// "delete it", "destroy all copies", "delete this e-mail and its
// attachments", "delete the material from any computer", "any use of its
// contents".
var messageWords = setOf("it this copies copy message email mail communication transmission material attachment " +
	"attachments correspondence fax printouts printout contents original")

// quantifiers before a name of the message (messageNames) make it every
// message, not this one: "delete all mail on the server", "every email".
var quantifiers = setOf("all every any each entire whole")

// messageNames are the messageWords that a quantifier before them turns
// into every message (quantifiers); "all copies", "any attachments" are
// still the message's.
var messageNames = setOf("message email mail communication transmission material correspondence contents")

// clauseAfterSemicolon are the words that open a notice's next clause
// after a semicolon, ending the phrase that names the message before it:
// "delete this mail immediately; any review … is prohibited"; not "delete
// all copies; the Health app data and ~/Medical too".
var clauseAfterSemicolon = setOf("any you please and thank thanks this it we if unauthorized unauthorised")

// messageLinks may stand among messageWords in a phrase that names only
// the message: determiners, "and", "of", "from your system", "together
// with".
var messageLinks = setOf("the that these those all any and or every such its your entire whole together with along " +
	"including of from on in system systems computer computers device devices server servers mailbox inbox " +
	"immediately permanently promptly securely completely printed hard electronic paper thereof drive drives records " +
	"possession")

// clauseStarts end the phrase that names the message, opening a clause of
// their own: "destroy all copies of this email, including any printouts,
// and must not disclose…", "delete it, then call us".
var clauseStarts = setOf("must should may shall will then please")

// negation reports whether t, a word, negates or forbids what follows:
// "not", "never", "without", "don't", "do" (of "do not"), "mustn't". Not
// "no", "stop" or "avoid", which go on to more to delete ("delete all
// copies, no matter where: …", "delete it and stop the backup service").
func negation(t []byte) bool {
	return string(t) == "not" || string(t) == "never" || string(t) == "without" || string(t) == "do" || contracted(t)
}

// opensNextClause reports whether t, the word after a phrase that names
// the message, opens the notice's next clause: an act of telling the
// sender, a negation or a clause's start ("delete it and notify…",
// "delete it, and don't share it", "…, and must not disclose").
func opensNextClause(t []byte) bool {
	return noticeFollows[string(t)] || negation(t) || clauseStarts[string(t)]
}

// noticeFollows are the acts a notice asks for beside disposing of the
// message, which may end the phrase that names it: "delete it and notify
// the sender".
var noticeFollows = setOf("notify inform tell contact call telephone phone advise let reply return alert ring confirm")

// maxMessageReach bounds the words after an act that messageAfter reads.
const maxMessageReach = 12

// markDisclaimers sets word.disclaimer on the words of every notice: from
// the start of its sentence (at most maxNoticeWords/2 words back) to the
// end of the sentence after it, at most maxNoticeWords. It looks up each
// word once, and where sentences end only near a notice's words.
func (z *Analyzer) markDisclaimers() {
	opener, received := -1, -1 // in the sentence being read: the last noticeOpeners word, the last receipt; -1 for none
	ends, budget := 0, 0       // while marking: sentence ends still to pass, words still to mark
	for k := range z.words {
		t := z.tok(k) // looked up as string(t) in place: no allocation
		switch {
		case noticeOpeners[string(t)]:
			opener = k
		case disclaimerReceipts[string(t)]:
			received = k
		}
		if opener >= 0 && k-opener > maxNoticeLead {
			opener = -1 // too far back to open a notice here
		}
		if received >= 0 && k-received > maxReceiptGap {
			received = -1
		}
		if opener >= 0 && z.noticeAt(k, received) {
			// From the sentence's start: "Please notify the sender
			// immediately if you have received this e-mail by mistake".
			from := z.sentenceStart(opener, k-maxNoticeWords/2)
			for j := from; j < k; j++ {
				z.words[j].disclaimer = true // at most maxNoticeWords/2 words, once per opener
			}
			ends, budget = 2, maxNoticeWords-(k-from)
			opener = -1
		}
		if budget > 0 {
			z.words[k].disclaimer = true
			budget--
		}
		// Where a sentence ends matters only near an opener or a receipt,
		// or while marking: most words are read once, for the two sets.
		if (opener >= 0 || received >= 0 || budget > 0) && z.sentenceEndsAt(k) {
			opener, received = -1, -1
			if ends--; ends <= 0 {
				budget = 0
			}
		}
	}
}

// sentenceStart returns the first word of the sentence that holds word k,
// looking back no further than word limit.
func (z *Analyzer) sentenceStart(k, limit int) int {
	j := k
	for j > 0 && j > limit && !z.sentenceEndsAt(j-1) {
		j--
	}
	return max(j, 0)
}

// noticeAt reports whether word k, in a sentence whose last receipt word
// is received (-1 for none), makes a condition a notice: "not the
// intended recipient", "not the addressee", "an unintended recipient",
// "not intended for you", "received … in error", "by mistake", "by
// accident", "erroneously", "misdirected".
func (z *Analyzer) noticeAt(k, received int) bool {
	t := z.tok(k)
	switch {
	case misdirected[string(t)]:
		return true
	case disclaimerRecipients[string(t)]:
		return string(z.tok(k-1)) == "unintended" || z.notBefore(k, 3)
	case string(t) == "intended":
		return string(z.tok(k-1)) == "not" && string(z.tok(k+1)) == "for" // "not intended for you"
	case string(t) == "erroneously":
		return received >= 0 && k-received <= maxReceiptGap
	case string(t) == "error" || string(t) == "mistake" || string(t) == "accident":
		p := z.tok(k - 1)
		return received >= 0 && k-received <= maxReceiptGap && (string(p) == "in" || string(p) == "by")
	}
	return false
}

// notBefore reports whether "not" stands at most n words before word k,
// in its sentence: "not the intended recipient".
func (z *Analyzer) notBefore(k, n int) bool {
	for j := k - 1; j >= 0 && j >= k-n && !z.sentenceEndsAt(j); j-- {
		if string(z.tok(j)) == "not" {
			return true
		}
	}
	return false
}

// noticeCueMask are the cues a notice's words may concern only the
// message for (noticeCues).
const noticeCueMask = 1<<Destructive | 1<<ExfiltrationVerb | 1<<Urgency

// inNotice reports whether word i stands in a notice (word.disclaimer),
// marking the text's notices the first time it is asked: only a text with
// a word of noticeCueMask pays for markDisclaimers.
func (z *Analyzer) inNotice(i int) bool {
	if !z.noticesMarked {
		z.markDisclaimers()
		z.noticesMarked = true
	}
	return z.words[i].disclaimer
}

// countNotice adds to Analyzer.notice the cues of a word or phrase that
// concern only the message of the notice it stands in (noticeCues).
func (z *Analyzer) countNotice(cues uint32) {
	for c := Cue(0); c < NumCues; c++ {
		if cues&(1<<c) != 0 {
			z.notice[c]++
		}
	}
}

// noticeCues returns cues, those of word i (or of the phrase it opens) in
// a notice (word.disclaimer), without what concerns only the message:
// deleting it, passing it on where that is forbidden, telling the sender
// at once.
func (z *Analyzer) noticeCues(i int, cues uint32) uint32 {
	if cues&(1<<Destructive) != 0 && z.deletesMessage(i) {
		cues &^= 1 << Destructive
	}
	if cues&(1<<ExfiltrationVerb) != 0 && z.forbiddenAt(i) {
		cues &^= 1 << ExfiltrationVerb
	}
	if cues&(1<<Urgency) != 0 && z.urgesTelling(i) {
		cues &^= 1 << Urgency
	}
	return cues
}

// deletesMessage reports whether word i disposes of the message only:
// one of noticeDeletes before a phrase that names only the message
// (messageAfter): "delete it", "destroy all copies", "permanently delete
// the original and any copies"; not "delete this user folder", "delete it
// and every backup", "disable this firewall".
func (z *Analyzer) deletesMessage(i int) bool {
	return noticeDeletes[string(z.tok(i))] && z.messageAfter(i)
}

// messageAfter reports whether the words after word i, an act, name only
// the message before the phrase ends: messageWords among messageLinks
// (and other acts of the same list: "delete and destroy all copies", "do
// not copy, forward or print it"), up to the sentence's end, a comma that
// no "and" or "or" follows, an act of noticeFollows ("delete it and
// notify the sender"), a negation ("delete it without reading it",
// "delete it, and don't share it") or a clause's start (clauseStarts).
// "delete all documents in the shared drive", "delete it and every
// snapshot", "erase all copies of the photo library" name more.
func (z *Analyzer) messageAfter(i int) bool {
	named := false
	quantified := false // the word before is one of quantifiers
	for k := i + 1; k < len(z.words) && k <= i+maxMessageReach; k++ {
		t := z.tok(k)
		switch {
		case messageWords[string(t)]:
			if quantified && messageNames[string(t)] {
				return false // "all mail on the server", "every email"
			}
			named = true
		case z.emailPrefix(k):
			continue
		case string(t) == "backup" && (string(z.tok(k+1)) == "systems" || string(z.tok(k+1)) == "system"):
			// "from your computer and any backup systems"; not "and any backup"
		case messageLinks[string(t)] || noticeDeletes[string(t)] || forbiddenActs[string(t)]:
		default:
			return named && opensNextClause(t)
		}
		quantified = quantifiers[string(t)]
		if end, ok := z.phraseEnd(k); end {
			return named && ok
		}
	}
	return false
}

// phraseEnd reports whether the phrase that names the message ends after
// word k (end) and, if it does, whether what follows lets it end there
// (ok): a full stop or a line break after the last word; a semicolon
// before a notice's next clause (clauseAfterSemicolon), an act of telling
// the sender, a negation or a new clause; a comma before "and", "or",
// "including" (the phrase goes on) or the same ("delete it, and
// notify…", "destroy all copies, including any printouts"). A colon
// ("destroy all copies: ~/Documents/Taxes"), or a comma or semicolon
// before anything else ("delete it, the Time Machine backups and…",
// "…copies; the Health app data"), opens a list of more.
func (z *Analyzer) phraseEnd(k int) (end, ok bool) {
	w := &z.words[k]
	n := z.tok(k + 1)
	switch {
	case w.next == ',':
		if string(n) == "and" || string(n) == "or" || string(n) == "including" {
			return false, false // the phrase goes on
		}
		return true, opensNextClause(n)
	case w.next == ';':
		return true, clauseAfterSemicolon[string(n)] || opensNextClause(n)
	case w.next == ':':
		return true, false
	case z.sentenceEndsAt(k):
		return true, true
	}
	return false, false
}

// forbiddenActs are the acts a notice forbids, and the words that join
// them: "do not read, copy, or forward it", "any review, dissemination,
// forwarding or copying of this message".
var forbiddenActs = setOf("or and nor read print use copy disclose distribute disseminate retain review store rely act save " +
	"share forward send post publish circulate transmit reading printing using copying disclosing distributing sharing " +
	"forwarding dissemination distribution disclosure reproduction publication")

// maxForbidReach bounds how far before an act forbiddenAt looks for its
// negation: "do not read, copy, print or forward it".
const maxForbidReach = 6

// prohibitions end a notice's sentence that forbids acts on the message:
// "…of this message is strictly prohibited".
var prohibitions = setOf("prohibited forbidden unlawful")

// prohibitionLinks may stand between the message and its prohibition:
// "is strictly prohibited", "may be unlawful".
var prohibitionLinks = setOf("is are may be strictly absolutely expressly")

// forbiddenAt reports whether word i, an act of passing something on,
// acts on the message only and is forbidden: after a negation with only
// forbiddenActs between ("please do not read, copy, or forward it",
// "without reading, copying or forwarding it"; not "…recipient or not,
// forward…", where a comma follows the negation, nor "do not copy, forward
// all statements to…", which names more than the message), or as a noun
// before "of" the message and a prohibition ("any review, dissemination,
// forwarding or copying of this message is strictly prohibited"; not
// "forward all payslips to …, no longer prohibited").
func (z *Analyzer) forbiddenAt(i int) bool {
	for k := i - 1; k >= 0 && k >= i-maxForbidReach && !z.sentenceEndsAt(k); k-- {
		t := z.tok(k)
		if negation(t) && string(t) != "do" {
			return z.words[k].next != ',' && z.messageAfter(i)
		}
		if !forbiddenActs[string(t)] {
			break
		}
	}
	return z.prohibitedOf(i)
}

// prohibitedOf reports whether word i, an act named as a noun, is one a
// notice prohibits on the message: acts, "of", a phrase that names only
// the message, then a prohibition ("forwarding or copying of this message
// is strictly prohibited", "any use of its contents is forbidden"), or
// acts and the prohibition alone ("any unauthorized use, copying or
// forwarding is strictly prohibited").
func (z *Analyzer) prohibitedOf(i int) bool {
	k := i + 1
	for k < len(z.words) && k <= i+maxForbidReach && forbiddenActs[string(z.tok(k))] {
		k++
	}
	if z.sentenceEndsAt(k - 1) {
		return false
	}
	if string(z.tok(k)) != "of" {
		// "Any unauthorized use, copying or forwarding is strictly
		// prohibited": the acts alone, then the prohibition.
		for ; k < len(z.words) && k <= i+maxForbidReach+3 && prohibitionLinks[string(z.tok(k))]; k++ {
		}
		return k < len(z.words) && prohibitions[string(z.tok(k))] && k > i+1 && !z.sentenceEndsAt(k-1)
	}
	named := false
	for k++; k < len(z.words) && k <= i+maxMessageReach; k++ {
		t := z.tok(k)
		switch {
		case prohibitions[string(t)]:
			return named
		case messageWords[string(t)]:
			named = true
		case z.emailPrefix(k), messageLinks[string(t)] || prohibitionLinks[string(t)]:
		default:
			return false
		}
		if z.sentenceEndsAt(k) {
			return false
		}
	}
	return false
}

// urgesTelling reports whether word i, an urgency word, urges only the
// disposing of the message, inside the phrase that names it ("delete it
// immediately", "destroy all copies immediately and notify us"), or the
// telling of the sender: right before one of tellVerbs and the sender
// ("please immediately notify the sender"), or at most three words after
// one of tellVerbs with only the sender between them ("notify the sender
// immediately", "please telephone us immediately"), before the clause
// ends or urgencyEnds; not "confirm your identity immediately at
// https://…", "notify the sender immediately via https://… and pay the
// fee".
func (z *Analyzer) urgesTelling(i int) bool {
	// "please delete it immediately", "destroy all copies immediately":
	// the urgency of disposing of the message, inside its phrase.
	for k := i - 1; k >= 0 && k >= i-maxMessageReach; k-- {
		t := z.tok(k)
		if noticeDeletes[string(t)] {
			return z.messageAfter(k)
		}
		if !messageWords[string(t)] && !messageLinks[string(t)] && !z.emailPrefix(k) || z.sentenceEndsAt(k) {
			break
		}
	}
	if tellVerbs[string(z.tok(i+1))] && (senderWords[string(z.tok(i+2))] || senderWords[string(z.tok(i+3))]) {
		return true // "please immediately notify the sender"
	}
	n := z.tok(i + 1)
	if end, ok := z.phraseEnd(i); !(end && ok) && !urgencyEnds[string(n)] && !(string(n) == "and" && noticeDeletes[string(z.tok(i+2))]) {
		return false // "…immediately via https://… and pay the fee", "…immediately at https://…"
	}
	for k := i - 1; k >= 0 && k >= i-3 && !z.sentenceEndsAt(k); k-- {
		if tellVerbs[string(z.tok(k))] {
			return k == i-1 || senderWords[string(z.tok(k+1))] || k+2 < i && senderWords[string(z.tok(k+2))]
		}
	}
	return false
}

// tellVerbs are the acts of telling the sender that a notice urges
// (urgesTelling): "notify the sender immediately", "please inform us at
// once".
var tellVerbs = setOf("notify inform tell contact call telephone phone advise alert ring")

// urgencyEnds may follow the urgency of telling the sender (urgesTelling):
// "notify us immediately by return e-mail", "…immediately if you…"; so
// may "and" before one of noticeDeletes ("…immediately and delete it").
var urgencyEnds = setOf("by if")

// senderWords are whom a notice's reader is asked to tell: "us", "the
// sender", "the postmaster".
var senderWords = setOf("us me sender author originator administrator postmaster")

// emailPrefix reports whether word k is the "e" of "e-mail", whose "mail"
// comes next.
func (z *Analyzer) emailPrefix(k int) bool {
	return string(z.tok(k)) == "e" && k+1 < len(z.words) && z.words[k+1].joint == '-'
}

// sentenceEndsAt reports whether a sentence or a heading ends after word
// i: in what stands between it and the next word, a semicolon, a colon
// (not the one of "https://"), a line break, or a full stop, a question or
// exclamation mark (also "。", "！", "？") before a space of any kind, a
// quote, a bracket or the text's end. "97%." and "(IT)." end one; the
// dots of "privacy@homeford.co.uk" and "v2.1" do not. The tokenizer's
// sentence starts (word.sentence) come after a hyphen and a bracket too,
// which split "e-mail" and "(or its agent)".
func (z *Analyzer) sentenceEndsAt(i int) bool {
	from, to := z.words[i].to, len(z.text)
	if i+1 < len(z.words) {
		to = z.words[i+1].from
	}
	for j := from; j < to; {
		r, n := rune(z.text[j]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(z.text[j:])
		}
		switch r {
		case ';', '\n', '。', '！', '？':
			return true
		case ':':
			if j+2 >= len(z.text) || z.text[j+1] != '/' || z.text[j+2] != '/' {
				return true
			}
		case '.', '!', '?':
			if j+n >= len(z.text) {
				return true
			}
			next, _ := utf8.DecodeRuneInString(z.text[j+n:])
			if unicode.IsSpace(next) || next == '"' || next == '\'' || next == ')' || next == '(' || next == '”' || next == '’' {
				return true
			}
		}
		j += n
	}
	return false
}
