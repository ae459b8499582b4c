package content

import "strings"

// The disclaimer reading. Corporate, legal, medical and bank mail ends
// with a notice to whoever received it by mistake: "If you are not the
// intended recipient, please notify the sender immediately and delete
// this e-mail and any copies." It tells a reader the message was not
// meant for to destroy the message itself, not anyone's data, and its
// "immediately" urges nothing on the message's real reader. An e-mail
// assistant keeps such mail as memories by the thousand; read as a
// command to destroy with urgency, every one of them would be lowered
// (helper-99's destroyers probe: a solicitor's e-mail about a completion
// date quarantined). The notice's sentence, and the one after it
// ("…in reliance on it. Please delete all copies."), are marked
// (word.disclaimer); there a destructive word whose object is the
// message (deletesMessage), an act a negation forbids (forbiddenAt: "do
// not copy or forward it") and an urgency word count for no cue, a
// request to contact the sender or delete the message is none
// (Analysis.Requests), and capitals do not shout (SystemVoice). Any
// other object ("delete all files in ~/Documents"), any other request
// ("please pay the invoice to account …") and every other cue of the
// sentence (a link, an address) still count.

// disclaimerReceipts are the words that, shortly before "in error" or
// "by mistake" in the same sentence (maxReceiptGap), make it a notice to whoever received
// the message by mistake: "If you have received this e-mail in error",
// "if it reached you by mistake", "if it came to you by mistake".
var disclaimerReceipts = setOf("received receive receiving sent delivered transmitted forwarded reached addressed came come arrived got")

// maxReceiptGap bounds the words from a receipt to its "error" or
// "mistake": "received this e-mail and any attachments in error" (8).
const maxReceiptGap = 8

// disclaimerRecipients are the words that recipientAdjectives, or "not
// the", turn into the notice's subject: "If you are not the intended
// recipient", "if you are not the addressee".
var disclaimerRecipients = setOf("recipient recipients addressee addressees recipient's")

// recipientAdjectives turn disclaimerRecipients into the notice's
// subject: "the intended recipient", "the named addressee".
var recipientAdjectives = setOf("intended named designated proper correct right")

// misdirected are the words that make a sentence a notice by themselves:
// "If misdirected, please notify us by telephone".
var misdirected = setOf("misdirected misaddressed misdelivered missent")

// messageWords are what a notice tells its reader to delete: the message
// itself and its copies ("delete it", "destroy all copies", "delete this",
// "delete this e-mail and any attachments", "erase the material from
// your system").
var messageWords = setOf("it them this copies copy message messages email emails mail mails communication " +
	"communications transmission transmissions material materials information attachment attachments document " +
	"documents correspondence fax")

// messageDeterminers may stand between the destructive word and the
// message (deletesMessage): "delete all copies", "destroy any and all
// copies", "delete this e-mail", "delete the original message".
var messageDeterminers = setOf("the that these those all any and every such its original entire whole")

// markDisclaimers sets word.disclaimer on the words of every sentence
// that is a notice to whoever received the message by mistake ("the
// intended recipient"; "received … in error", "… by mistake") and of the
// sentence after it. It reads each word once.
func (z *Analyzer) markDisclaimers() {
	start := 0       // the first word of the sentence being read
	received := -1   // the last word of disclaimerReceipts in the sentence, or -1
	marking := false // the sentence is a notice, or the one after one
	remain := 0      // sentences after this one still to mark
	for k := range z.words {
		w := &z.words[k]
		if k > 0 && z.sentenceEndsAt(k-1) {
			start, received = k, -1
			marking = remain > 0
			remain = max(remain-1, 0)
		}
		t := z.tok(k)
		notice := false
		switch {
		case disclaimerReceipts[string(t)]:
			received = k
		case disclaimerRecipients[string(t)]:
			p := string(z.tok(k - 1))
			notice = recipientAdjectives[p] || p == "the" && string(z.tok(k-2)) == "not" // "not the addressee"
		case misdirected[string(t)]:
			notice = true // "If misdirected, please notify us"
		case string(t) == "error" || string(t) == "mistake":
			p := string(z.tok(k - 1))
			notice = received >= 0 && k-received <= maxReceiptGap && (p == "in" || p == "by")
		}
		if notice {
			if !marking {
				for j := start; j < k; j++ {
					z.words[j].disclaimer = true // once per sentence: the words before the notice's words
				}
			}
			marking, remain = true, 1
		}
		w.disclaimer = marking
	}
}

// noticeCues returns cues, those of word i (or of the phrase it opens) in
// a notice (word.disclaimer), without what the notice asks of whoever
// received the message by mistake: "If you are not the intended
// recipient, do not copy or forward it; notify the sender immediately and
// delete it" sends nothing, destroys nothing but the message, and urges
// nothing on the message's reader.
func (z *Analyzer) noticeCues(i int, cues uint32) uint32 {
	if cues&(1<<Destructive) != 0 && z.deletesMessage(i) {
		cues &^= 1 << Destructive
	}
	if cues&(1<<ExfiltrationVerb) != 0 && z.forbiddenAt(i) {
		cues &^= 1 << ExfiltrationVerb
	}
	return cues &^ (1 << Urgency)
}

// sentenceEndsAt reports whether a sentence or a heading ends after word
// i: a full stop, a question or exclamation mark before a space, a line
// break, a closing quote or bracket or the text's end (not the dots of
// "privacy@homeford.co.uk" or "v2.1"), a semicolon, a colon or a line
// break ("CONFIDENTIALITY NOTICE: If you…"). The tokenizer's sentence
// starts (word.sentence) come after a hyphen and a bracket too, which
// split "e-mail" and "(or its agent)".
func (z *Analyzer) sentenceEndsAt(i int) bool {
	w := &z.words[i]
	switch w.next {
	case ';', ':', '\n':
		return true
	case '.', '!', '?':
		j := w.to + 1
		return j >= len(z.text) || strings.IndexByte(" \t\r\n\"')", z.text[j]) >= 0
	}
	return false
}

// maxMessageReach bounds how far after a destructive word deletesMessage
// looks for the message: "permanently delete the original and any
// copies".
const maxMessageReach = 5

// deletesMessage reports whether word i, a destructive word, acts on the
// message that holds it: the next word, past at most maxMessageReach-1 of
// messageDeterminers, is one of messageWords ("delete it", "destroy all
// copies", "delete the original e-mail").
func (z *Analyzer) deletesMessage(i int) bool {
	for k := i + 1; k < len(z.words) && k <= i+maxMessageReach; k++ {
		t := string(z.tok(k))
		if messageWords[t] {
			return true
		}
		if t == "e" && k+1 < len(z.words) && z.words[k+1].joint == '-' {
			continue // "e-mail": its "mail" is next
		}
		if !messageDeterminers[t] || z.endsSentence(k) {
			return false
		}
	}
	return false
}

// contactVerbs are the acts by which a notice asks its reader to tell the
// sender (contactsSender): "please call us", "e-mail the sender".
var contactVerbs = setOf("call email text telephone phone ring")

// senderWords are whom a notice's reader is asked to contact: "us", "the
// sender", "the postmaster".
var senderWords = setOf("us me sender author originator administrator postmaster")

// contactsSender reports whether word k, a verb, asks to contact the
// message's sender: "call us", "email the sender", "telephone the
// administrator".
func (z *Analyzer) contactsSender(k int) bool {
	if !contactVerbs[string(z.tok(k))] {
		return false
	}
	o := string(z.tok(k + 1))
	if o == "the" {
		o = string(z.tok(k + 2))
	}
	return senderWords[o]
}

// maxForbidReach bounds how far before a word forbiddenAt looks for a
// negation: "do not read, copy, print or forward it".
const maxForbidReach = 6

// forbiddenActs are the words a notice lists between its negation and
// another act it forbids: "do not read, copy, or forward it", "you may not
// copy, forward, disclose or use it".
var forbiddenActs = setOf("or and nor read print use copy disclose distribute disseminate retain review store rely save " +
	"share forward send post publish circulate transmit reading printing using copying disclosing distributing sharing forwarding")

// maxProhibitReach bounds how far after a word forbiddenAt looks for a
// prohibition: "forwarding or copying of this message is strictly
// prohibited" (8).
const maxProhibitReach = 10

// prohibitions are the words after a list of acts that forbid them:
// "any disclosure, copying, forwarding or use of it is strictly
// prohibited".
var prohibitions = setOf("prohibited forbidden unlawful illegal")

// forbiddenAt reports whether word i is an act a negation forbids, with
// at most maxForbidReach words of forbiddenActs between them ("please do
// not read, copy, or forward it", "do not forward or print it", "without
// reading, copying or forwarding it"), or that a prohibition ends its
// sentence with, at most maxProhibitReach words later ("any review,
// dissemination, forwarding or copying of this message is strictly
// prohibited"); not "If you are not the intended recipient, forward…" or
// "do not hesitate to forward it".
func (z *Analyzer) forbiddenAt(i int) bool {
	for k := i - 1; k >= 0 && k >= i-maxForbidReach && !z.sentenceEndsAt(k); k-- {
		t := z.tok(k)
		if n := len(t); string(t) == "not" || string(t) == "never" || string(t) == "without" || n > 3 && string(t[n-3:]) == "n't" {
			return true
		}
		if !forbiddenActs[string(t)] {
			break
		}
	}
	for k := i; k < len(z.words) && k < i+maxProhibitReach && !z.sentenceEndsAt(k); k++ {
		if prohibitions[string(z.tok(k+1))] {
			return string(z.tok(k)) != "not" // "…, which is not prohibited"
		}
	}
	return false
}
