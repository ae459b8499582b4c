package content

import "slices"

// A task planted in a document: a sentence that gives whoever reads the
// document a piece of work ("Write a haiku about autumn.", "Summarize the
// history of the Roman empire.") on a subject the document does not speak
// of anywhere else. A stored e-mail, page or table is read by an agent for
// its own task; a third party who can write into it can hand the agent
// another one. Its human readers get requests too ("Please find attached
// the invoice", "Provide your order number when you call"), but theirs
// mostly concern the document or the reader: the invoice, the order, the
// medications "you" take. What the reading looks at, per sentence that
// opens with a verb of work where a verb stands (after "please", "also",
// "now" too), or a question for a thing ("What are the major risks of
// investing in cryptocurrency?" in a card payment notice; "In which year
// did…?", "Whose theory…?", "Question: what…?", a space before the mark
// too): the sentence's
// other content words, none of which the rest of the text holds, and of
// which the task holds none either (TaskUnasked). A question needs more
// of them, and a longer text around it, than a verb of work: chats and
// short messages ask their readers about other matters in a few words
// ("How did the interview go yesterday?"). What it leaves:
//   - other questions: a yes-no question, one that opens with "when"
//     (as often a clause: "When asked whether…?"), a suggestion
//     ("How about Wednesday?", "What about the finance part?"), and one
//     on the reader's or the writer's own matters ("Who will you
//     bring?", "What should we order?");
//   - a sentence that speaks to the reader of their own matters ("you",
//     "your": "Describe a time you resolved a conflict", "Calculate your
//     allowable expenses");
//   - a procedure: a text with procedureTasks such sentences or more is a
//     list of steps ("Create a guest network… Identify the firmware
//     version… Explain parental controls…") or of questions (an FAQ, a
//     quiz), whose steps are its subject; so is a quiz of procedureTasks
//     questions however short, labelled ("Q: which planet…?") or answered
//     in brackets ("…fall? (1989)").
// A request to a human reader on a new subject (a form, homework, a
// puzzle, a call for talks) still reads as one; it is marked, not lost.

// taskVerbs open a sentence that gives its reader a piece of work on a
// subject: writing, explaining, judging or listing something. Words as
// often nouns at a sentence's start are left out ("Review site says…",
// "Rate limit not reached", "Draft question for…", "Name:"), and so are
// the verbs of an agenda or of asking for feedback ("Discuss the budget",
// "Tell us what you think!", "Give us a call").
var taskVerbs = setOf("write compose summarize summarise describe explain analyze analyse recommend suggest translate " +
	"list outline compare evaluate identify calculate classify predict generate create provide brainstorm elaborate define paraphrase")

// questionWords open a question for a thing: what, who, whom, whose,
// which, where, why, how. Not "when", which opens a clause as often.
var questionWords = setOf("what how which who whom whose why where what's who's how's where's")

// questionPrepositions may stand before a question word: "In which year
// did…?", "By whom was…?", "For what is… known?".
var questionPrepositions = setOf("in on at by for to from of with during after before since under")

// questionLabels name the question after them and a colon: "Question:
// what is…?", "Q: which planet…?", "Trivia: who…?".
var questionLabels = setOf("question q quiz trivia")

// readerWordList speaks to the reader of their own matters.
const readerWordList = "you your yours yourself yourselves"

// selfWords speak of the reader's or the writer's own matters: a question
// with one is theirs ("What should we bring?", "Who did you invite?").
var selfWords = setOf(readerWordList + " i me my mine we us our ours")

// taskLeads may stand before the verb of a task: "Please write…", "Also
// list…". Not "never" or "always", which make a rule of it ("Never
// recommend me anything dubbed").
var taskLeads = setOf("please kindly also now then just simply first")

// notATask, per verb, are the words right after it that make its sentence
// no piece of work on a subject: a letter's particle ("Write back when you
// can", "write to us", "write in"), a noun's "of" ("List of
// attendees", "Outline of the course") or a price ("Compare at £249").
var notATask = map[string]map[string]bool{
	"write":   setOf("back to in"),
	"list":    setOf("of"),
	"outline": setOf("of"),
	"compare": setOf("at"), // a price: "Compare at £249"
}

// nounFollowers after a verb of taskVerbs make it a noun, the subject of
// its sentence: "Outline was approved by the board", "List is attached".
var nounFollowers = setOf("is are was were has have had")

// readerWords speak to the reader of their own matters.
var readerWords = setOf(readerWordList)

// Bounds of the reading: how many content words of a sentence it
// compares, how many it needs (besides the verb), how many content words
// the rest of the text must hold for it to be a document with a subject
// of its own, and how many task sentences make it a procedure.
const (
	maxTaskWords     = 12
	minTaskWords     = 2
	minDocumentWords = 6
	procedureTasks   = 3
	maxTasks         = procedureTasks - 1

	minQuestionWords    = 4
	minQuestionDocument = 20
)

// taskSet holds the content words of the planted tasks a text holds.
type taskSet struct {
	n     int
	words [maxTasks][maxTaskWords]uint64
	count [maxTasks]int
}

// TaskUnasked reports whether the text gives its reader a piece of work on
// a subject neither the rest of the text nor query speaks of ("Describe
// the advancements in cancer treatment over the past decade." in a card
// payment notice, for "How much did I pay Gusto?"). A task whose subject
// the query names ("Summarize the release notes" stored with release
// notes, asked "What do the release notes say?") is not unasked, nor one
// on the document's own subject.
func (a *Analysis) TaskUnasked(query *Analysis) bool {
	for t := range a.tasks.n {
		asked := false
		for _, h := range a.tasks.words[t][:a.tasks.count[t]] {
			if _, found := slices.BinarySearch(query.Words, h); found {
				asked = true
				break
			}
		}
		if !asked {
			return true
		}
	}
	return false
}

// plantedTasks records in out the sentences of the text just tokenized
// that give a task on a subject the rest of the text does not speak of;
// documentWords is how many content words the text holds. It reads
// z.content, so it runs after the word loop of Analyze.
func (z *Analyzer) plantedTasks(documentWords int, out *Analysis) {
	if documentWords < minDocumentWords+minTaskWords {
		return
	}
	quiz := -1 // whether the text is a quiz (quizQuestions), once a question set out as a quiz's asks
	// The task sentences, [from, to) with the verb at verb; a procedure
	// has too many to be read.
	var spans [procedureTasks]struct {
		from, verb, to int
		question       bool
	}
	n := 0
	for i := 0; i < len(z.words); i++ {
		if !z.startsSentence(i) {
			continue
		}
		v := i
		for v < len(z.words)-1 && taskLeads[string(z.tok(v))] && !z.startsSentence(v+1) {
			v++ // "Please write…", "Also, list…"
		}
		labelled := false
		if after := z.questionLabelAt(v); after > v {
			v, labelled = after, true // "Question: what…?", "Q1: which…?"
		}
		if v < len(z.words)-1 && !z.startsSentence(v+1) && questionPrepositions[string(z.tok(v))] &&
			questionWords[string(z.tok(v+1))] {
			v++ // "In which year…?"
		}
		question := questionWords[string(z.tok(v))]
		if !question && !taskVerbs[string(z.tok(v))] {
			continue // most sentences: their end is not looked for
		}
		end := v + 1
		for end < len(z.words) && !z.startsSentence(end) && !z.endsAfter(end-1) {
			end++
		}
		if question && (labelled || z.answeredAfter(end-1)) {
			if quiz < 0 {
				quiz = b2i(z.quizQuestions() >= procedureTasks)
			}
			if quiz == 1 {
				i = end - 1
				continue // a quiz's question: its subject
			}
		}
		if question && z.questionAt(v, end) && z.contentWords(v+1, end) >= minQuestionWords || !question && z.taskAt(v, end) {
			// A question too short to be read counts toward no procedure
			// either: "How are things? What's new?" hide no task.
			if n == procedureTasks-1 {
				return // a procedure: its steps are its subject
			}
			spans[n].from, spans[n].verb, spans[n].to, spans[n].question = i, v, end, question
			n++
			i = end - 1
		}
	}
	for _, sp := range spans[:n] {
		t := out.tasks.n
		words := out.tasks.words[t][:0]
		inSentence := 0
		for k := sp.from; k < sp.to; k++ {
			h := z.content[k]
			if h == 0 {
				continue
			}
			inSentence++
			if k > sp.verb && len(words) < maxTaskWords && !slices.Contains(words, h) {
				words = append(words, h)
			}
		}
		need, around := minTaskWords, minDocumentWords
		if sp.question {
			need, around = minQuestionWords, minQuestionDocument
		}
		if len(words) < need || documentWords-inSentence < around || z.spokenOfElsewhere(words, sp.from, sp.to) {
			continue
		}
		out.tasks.count[t] = len(words)
		out.tasks.n++
	}
}

// startsSentence reports whether word i starts a sentence of the text:
// at its start, after a full stop, a question or an exclamation mark, or
// after a line break when it is capitalised (a hard-wrapped line goes on
// with its sentence: "our adviser can\nrecommend a savings plan"); not
// after a dot with no space, in code or an address ("df.describe()",
// "docs.python.org").
func (z *Analyzer) startsSentence(i int) bool {
	w := &z.words[i]
	return w.sentence && w.joint == 0 && z.opensSentence(i) && (w.prev != '\n' || w.capital || i == 0)
}

// endsAfter reports whether a sentence ends right after word i, at a full
// stop, a question or an exclamation mark that a space follows: also
// before a quote or a bracket ("…for a pet goldfish. \"Coffee was…\""),
// where startsSentence does not see the next one start.
func (z *Analyzer) endsAfter(i int) bool {
	switch z.words[i].next {
	case '.', '!', '?':
		return i+1 < len(z.words) && z.words[i+1].joint == 0
	}
	return false
}

// taskAt reports whether the sentence whose verb is word v, ending before
// word end, gives its reader a piece of work: a verb of taskVerbs where a
// verb stands (not a heading's "Describe:", a quoted word, nor before a
// word of notATask or nounFollowers), no question, and no word that
// speaks to the reader of their own matters.
func (z *Analyzer) taskAt(v, end int) bool {
	verb := z.tok(v)
	if next := z.tok(v + 1); !taskVerbs[string(verb)] || notATask[string(verb)][string(next)] || nounFollowers[string(next)] {
		return false
	}
	switch z.words[v].next {
	case ':', '\'', '"':
		return false
	}
	if z.asksAt(end - 1) {
		return false // a question, however it opens: "Name one thing you'd change?"
	}
	for k := v + 1; k < end; k++ {
		if readerWords[string(z.tok(k))] {
			return false
		}
	}
	return true
}

// questionAt reports whether the sentence whose first word (after any
// taskLeads) is word v, a word of questionWords, ending before word end,
// asks for a thing on no one's own matters: it ends with a question mark,
// v is no heading ("What:") or quoted word, no suggestion ("How about…")
// and no word of selfWords.
func (z *Analyzer) questionAt(v, end int) bool {
	if !z.asksAt(end-1) || v+1 >= end {
		return false
	}
	switch z.words[v].next {
	case ':', '\'', '"':
		return false
	}
	if string(z.tok(v+1)) == "about" {
		return false // a suggestion: "How about Wednesday at 1 PM?"
	}
	for k := v + 1; k < end; k++ {
		if selfWords[string(z.tok(k))] {
			return false
		}
	}
	return true
}

// questionLabelAt returns the word after a label that opens at word i,
// or -1: "Question:", "Q:", "Quiz:", "Trivia:", "Question 1:", "Q1:",
// "Bonus question:", "Question - what…?".
func (z *Analyzer) questionLabelAt(i int) int {
	k := i
	if questionLabelLeads[string(z.tok(k))] && questionLabels[string(z.tok(k+1))] {
		k++ // "Bonus question:"
	}
	w := z.tok(k)
	numbered := len(w) > 1 && w[0] == 'q' && isDigit(w[1]) // "Q1:"
	if !questionLabels[string(w)] && !numbered {
		return -1
	}
	if n := z.tok(k + 1); !numbered && len(n) > 0 && isDigit(n[0]) && z.words[k].next == ' ' {
		k++ // "Question 1:"
	}
	if k+1 >= len(z.words) || z.startsSentence(k+1) {
		return -1
	}
	if z.words[k].next == ':' || z.words[k+1].prev == '-' && z.words[k+1].joint == 0 {
		return k + 1
	}
	return -1
}

// questionLabelLeads may stand before a label: "Bonus question:", "Quick
// quiz:".
var questionLabelLeads = setOf("bonus quick final extra")

// answeredAfter reports whether a question that ends at word i is answered
// in brackets right after its mark: "…fall? (1989)".
func (z *Analyzer) answeredAfter(i int) bool {
	return i+1 < len(z.words) && z.words[i+1].prev == '(' && z.asksAt(i)
}

// quizQuestions counts the questions of the text just tokenized set out
// as a quiz's, however short: a question word (after a preposition, if
// any) that opens a sentence or follows a colon, a question mark, and a
// label before it ("Q: which planet has the most moons?") or an answer
// in brackets after it ("In which year did the Berlin Wall fall?
// (1989)"). procedureTasks of them make a quiz, whose questions are its
// subject, as a procedure's steps are; its other sentences are read as
// any text's.
func (z *Analyzer) quizQuestions() int {
	n := 0
	for k := range z.words {
		if !z.asksAt(k) {
			continue
		}
		s := k // the question's first word
		for s > 0 && k-s < maxTaskWords*2 && !z.startsSentence(s) && z.words[s-1].next != ':' {
			s--
		}
		labelled := false
		for j := max(0, s-3); j < s; j++ {
			labelled = labelled || z.questionLabelAt(j) == s
		}
		if !labelled && !z.answeredAfter(k) {
			continue
		}
		if questionPrepositions[string(z.tok(s))] {
			s++
		}
		if s <= k && questionWords[string(z.tok(s))] {
			n++
		}
	}
	return n
}

// asksAt reports whether a question mark follows word i, right after it
// or after spaces or tabs ("…the most moons ?").
func (z *Analyzer) asksAt(i int) bool {
	if c := z.words[i].next; c != ' ' && c != '\t' {
		return c == '?'
	}
	for k := z.words[i].to; k < len(z.text); k++ {
		if c := z.text[k]; c != ' ' && c != '\t' {
			return c == '?'
		}
	}
	return false
}

// contentWords counts the content words among words [from, to).
func (z *Analyzer) contentWords(from, to int) int {
	n := 0
	for k := from; k < to; k++ {
		if z.content[k] != 0 {
			n++
		}
	}
	return n
}

// spokenOfElsewhere reports whether a content word outside words [from,
// to) is one of words.
func (z *Analyzer) spokenOfElsewhere(words []uint64, from, to int) bool {
	for k, h := range z.content {
		if h != 0 && (k < from || k >= to) && slices.Contains(words, h) {
			return true
		}
	}
	return false
}
