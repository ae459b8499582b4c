package content

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
// message (deletesMessage) and an urgency word count for no cue. Any
// other object ("delete all files in ~/Documents") still counts, as
// does every other cue of the sentence (a link, an address, a command to
// send).

// disclaimerReceipts are the words that, before "in error" or "by
// mistake" in the same sentence, make it a notice to whoever received
// the message by mistake: "If you have received this e-mail in error",
// "if it reached you by mistake".
var disclaimerReceipts = setOf("received receive receiving sent delivered transmitted forwarded reached addressed")

// disclaimerRecipients are the words that "intended" turns into the
// notice's subject: "If you are not the intended recipient".
var disclaimerRecipients = setOf("recipient recipients addressee addressees recipient's")

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
	start := 0        // the first word of the sentence being read
	received := false // a word of disclaimerReceipts so far in the sentence
	marking := false  // the sentence is a notice, or the one after one
	remain := 0       // sentences after this one still to mark
	for k := range z.words {
		w := &z.words[k]
		if k > 0 && z.sentenceEndsAt(k-1) {
			start, received = k, false
			marking = remain > 0
			remain = max(remain-1, 0)
		}
		t := z.tok(k)
		notice := false
		switch {
		case disclaimerReceipts[string(t)]:
			received = true
		case disclaimerRecipients[string(t)]:
			notice = string(z.tok(k-1)) == "intended"
		case string(t) == "error" || string(t) == "mistake":
			p := string(z.tok(k - 1))
			notice = received && (p == "in" || p == "by")
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

// sentenceEndsAt reports whether a sentence or a heading ends after word
// i: a full stop, a question or exclamation mark, a semicolon, a colon or
// a line break ("CONFIDENTIALITY NOTICE: If you…"). The tokenizer's
// sentence starts (word.sentence) come after a hyphen and a bracket too,
// which split "e-mail" and "(or its agent)".
func (z *Analyzer) sentenceEndsAt(i int) bool {
	n := z.words[i].next
	return z.endsSentence(i) || n == ':' || n == '\n'
}

// deletesMessage reports whether word i, a destructive word, acts on the
// message that holds it: the next word, past at most three of
// messageDeterminers, is one of messageWords ("delete it", "destroy all
// copies", "delete the original e-mail").
func (z *Analyzer) deletesMessage(i int) bool {
	for k := i + 1; k < len(z.words) && k <= i+4; k++ {
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
