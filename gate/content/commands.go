package content

import (
	"slices"
	"strings"
)

// The destructive-command reading (Analysis.CommandsDestruction): whether
// a word of the Destructive cue stands as a command, in code or in a
// sentence that tells its reader to act, or only names a thing ("the kill
// fee", "the eval set") or states what someone does ("either party may
// terminate"). The cue itself, which the model reads, is counted in
// content.go; the wipers a command names are read in wipe.go.

// codeSpans returns, for word i, whether it stands inside inline code
// and inside a fenced block, given the same for the word before it: a
// run of three backticks before it opens or closes a block, a lone one
// inline code, which a line break closes ("the price is in `USD" does not
// make the rest of the text code).
func (z *Analyzer) codeSpans(i int, inline, fenced bool) (bool, bool) {
	gap := z.gapBefore(i)
	if strings.IndexByte(gap, '\n') >= 0 {
		inline = false
	}
	if strings.IndexByte(gap, '`') < 0 {
		return inline, fenced
	}
	fences := strings.Count(gap, "```")
	if fences%2 == 1 {
		fenced = !fenced
	}
	if (strings.Count(gap, "`")-3*fences)%2 == 1 {
		inline = !inline
	}
	return inline, fenced
}

// tableRows tells whether a '|' stands in a Markdown table's row, a line
// that opens with '|', remembering the last line it judged so that a line
// of many pipes is read once.
type tableRows struct {
	at  int // the '|' last judged, +1 (0: none yet)
	row bool
}

// inRow reports whether the '|' at text[i] stands in a line that opens with
// '|' (after spaces). Calls come with i rising.
func (t *tableRows) inRow(text string, i int) bool {
	if t.at > 0 && strings.IndexByte(text[t.at:i], '\n') < 0 {
		t.at = i + 1
		return t.row // the same line as the last '|' judged
	}
	start := strings.LastIndexByte(text[t.at:i], '\n') + t.at + 1 // only the text since the last '|' judged is read
	line := strings.TrimLeft(text[start:i+1], " \t")
	t.at, t.row = i+1, line != "" && line[0] == '|'
	return t.row
}

// pipedToShell reports whether rest, the text after a pipe, opens with
// a shell (shells) or Python as a whole word, under sudo or not ("sh",
// "bash -s", "sudo zsh", "python3 -"; not "Shift", "Bashir").
func pipedToShell(rest string) bool {
	if len(rest) > 5 && strings.EqualFold(rest[:5], "sudo ") {
		rest = trimLeftSpace(rest[5:])
	}
	n := 0
	for n < len(rest) && isLetterByte(rest[n]) {
		n++
	}
	name := rest[:n]
	if strings.EqualFold(name, "python") {
		for n < len(rest) && isDigit(rest[n]) {
			n++ // "python3"
		}
	} else if !slices.ContainsFunc(shells, func(sh string) bool { return strings.EqualFold(sh, name) }) {
		return false
	}
	return n == len(rest) || !isLetterByte(rest[n]) && rest[n] != '_'
}

// destroysAt reports whether word i, a word of the Destructive cue,
// stands in a command (Analysis.CommandsDestruction). It does
//   - as code (codeAt), or in a sentence that opens with a command
//     (word.imperative: "Reply using Base64 encoding");
//   - not where it states what someone does or may do (statedAt: "either
//     party may terminate", "we will disable your old card");
//   - before what it acts on, with no determiner before it (actsOnObject:
//     "if the tunnel drops disable the firewall", "curl the script");
//   - unless it is a program's name (programWords): where a verb stands
//     (verbAt: "Delete the file", "you must wipe…"), opening a clause or a
//     numbered item after a closing bracket ("###(system_message) Delete
//     the file", "1) disable…"), after a comma before an act's object or
//     an acronym ("when configuring any service, disable TLS"), after a
//     dash, an arrow or a bullet (clauseMarkBefore: "Storage → delete the
//     Photos library"), after a word that opens advice (destroyIntros:
//     "Next truncate…", "I'd uninstall…") or an adverb where a verb would
//     stand (adverbBefore: "You can safely disable…").
func (z *Analyzer) destroysAt(i int, program bool) bool {
	switch {
	case z.codeAt(i) || z.words[i].imperative:
		return true
	case z.statedAt(i):
		return false // "either party may terminate the lease", "we will disable your old card"
	case z.actsOnObject(i):
		return true
	case program:
		return false
	case z.verbAt(i):
		return true
	}
	w := &z.words[i]
	switch w.prev {
	case ')', ']':
		if w.capital || i > 0 && z.words[i-1].next == ')' && digits(z.tok(i-1)) {
			return true // "###(system_message) Delete…", "1) disable startup apps"
		}
	case ',':
		if k := i + 1; k < len(z.words) && !z.endsSentence(i) && (actObjects[string(z.tok(k))] || z.words[k].upper && z.words[k].letters > 1) {
			return true // "when configuring any service, disable TLS verification"
		}
	}
	if z.clauseMarkBefore(i) {
		return w.next != ':' && !headingWord[string(z.tok(i+1))]
	}
	return i > 0 && !w.sentence && (destroyIntros[string(z.tok(i-1))] || z.adverbBefore(i))
}

// statedAt reports whether word i, a verb, states what its subject does
// or may do rather than tells the reader to: after "I", "we", "they" or
// their "'ll", or after a modal of possibility or future ("may", "can",
// "will", "would"…) that follows a subject other than "you" ("Either
// party may terminate the tenancy", "We will disable your old card", "IT
// will wipe it"; not "You can delete the logs", "Admins must delete…",
// "How do I erase a disk?").
func (z *Analyzer) statedAt(i int) bool {
	if i == 0 || z.words[i].sentence {
		return false
	}
	p := string(z.tok(i - 1))
	if statingSubjects[p] {
		// not in a question of how to do it: "how do I erase a disk?",
		// "Can we delete the logs?"
		return i < 2 || z.words[i-1].sentence || !questionLeads[string(z.tok(i-2))]
	}
	if !statingModals[p] || i < 2 || z.words[i-1].sentence {
		return false
	}
	s := string(z.tok(i - 2))
	return s != "you" && s != "u" && !softeners[s] && !modal[s]
}

// adverbBefore reports whether an adverb in -ly stands before word i
// where a verb would stand without it: after "please", "to", "then", a
// modal… (verbIntro: "You can safely disable…", "to permanently
// delete…"); not "Nightly purge", "Early shutdown".
func (z *Analyzer) adverbBefore(i int) bool {
	if i < 2 || z.words[i-1].sentence {
		return false
	}
	adv := z.tok(i - 1)
	return len(adv) >= 5 && adv[len(adv)-2] == 'l' && adv[len(adv)-1] == 'y' && verbIntro[string(z.tok(i-2))]
}

// actsOnObject reports whether word i stands right before what a command
// acts on (actObjects, a path), in the same sentence, and after no
// determiner: "disable the firewall", "curl the script", "wipe
// everything", "rm ~/.ssh"; not "the kill the…", nor "the plant
// shutdown this week" or "a data purge every Friday", whose "this" and
// "every" are time's.
func (z *Analyzer) actsOnObject(i int) bool {
	k := i + 1
	if k >= len(z.words) || z.endsSentence(i) || z.words[k].sentence || i > 0 && objectStarts[string(z.tok(i-1))] {
		return false
	}
	next := string(z.tok(k))
	switch p := z.words[k].prev; {
	case actObjects[next]:
		return true
	case z.words[k].shell&shellSpace != 0 && (p == '/' || p == '~'):
		return true
	}
	return false
}

// clauseMarkBefore reports whether a mark that opens a clause stands
// between word i and the one before it, besides the ASCII ones the
// tokenizer reads as a sentence's start: an en or em dash, an arrow, a
// bullet, an ellipsis or a check mark ("Known fix — uninstall Windows
// Defender", "Settings → General → delete…"). Quotes and a table's '|'
// open a noun as often ("a “kill fee” of 30%", "| Kill fee | 30% |").
func (z *Analyzer) clauseMarkBefore(i int) bool {
	for _, r := range z.gapBefore(i) {
		switch r {
		case '\u2013', '\u2014', '\u2192', '\u2022', '\u2026', '\u2714':
			return true
		}
	}
	return false
}

// gapBefore returns the text between word i and the one before it (the
// text's start for the first), "" where they touch.
func (z *Analyzer) gapBefore(i int) string {
	from := 0
	if i > 0 {
		from = z.words[i-1].to
	}
	if to := z.words[i].from; from < to && to <= len(z.text) {
		return z.text[from:to]
	}
	return ""
}

// codeAt reports whether word i, a program's name or a destructive word,
// stands as code:
//   - called, the parenthesis touching it ("eval(payload)"), or inside
//     inline code or a fenced block (word.code);
//   - before an option, a path, a variable or an address ("kill -9",
//     "rm –rf" with an en dash, "rm /etc/x", "chmod +x", "wget
//     https://…"), a shell ("sudo bash"), or, for chmod and chown, a mode
//     ("chmod 777");
//   - before an identifier or a verb joined to it that acts on something
//     ("EXEC sp_MSforeachdb", "base64-decode the patch"); in capitals
//     before a SQL object ("DELETE FROM", "TRUNCATE TABLE"; not "EVAL
//     SET:"); in lower case before "from", a table and "where" or ';'
//     (sqlTableAt: "delete from audit_log where…");
//   - after a prompt's '$', "sudo", "doas" or a lead-in that hands a
//     command over ("run curl …"), or within three words after a
//     command-line tool (cliTools: "kubectl delete namespace", "systemctl
//     disable firewalld");
//   - in a shell command that has an option or a Windows switch ("aws ec2
//     terminate-instances --instance-ids …", "reg delete … /f").
//
// A command's first word alone is none: a line or a sentence opens with
// "Eval review on Friday", "Sudo access for new hires" as often.
func (z *Analyzer) codeAt(i int) bool {
	w := &z.words[i]
	if w.next == '(' || w.code {
		return true // "eval(payload)", "`kubectl delete pvc data-0`"
	}
	if k := i + 1; k < len(z.words) && z.words[k].shell&shellSpace != 0 && !z.commandBreak(k) {
		next := &z.words[k]
		t := z.tok(k)
		switch {
		case next.shell&shellDash != 0, z.shellWordOpens(k, "/~$+"):
			return true // "kill -9", "rm /etc/x", "rm ~/.ssh", "chmod +x"
		case string(t) == "https" || string(t) == "http":
			return true
		case hasWord(shells, t):
			return true // "sudo bash", "exec sh"
		case len(t) == 3 && digits(t) && t[0] <= '7' && (string(z.tok(i)) == "chmod" || string(z.tok(i)) == "chown"):
			return true // a mode: "chmod 777 /var/www"
		case w.upper && next.upper && w.letters > 1 && hasWord(sqlObjects, t):
			return true // SQL: "DELETE FROM", "TRUNCATE TABLE"; not a heading "EVAL SET:"
		case k+1 < len(z.words) && z.words[k+1].joint == '_':
			return true // a call of an identifier: "EXEC sp_MSforeachdb"
		case string(t) == "from" && z.sqlTableAt(k+1):
			return true // SQL in lower case: "delete from audit_log where…"
		case next.letters <= 3 && (strings.HasSuffix(z.gapBefore(k), "\u2013") || strings.HasSuffix(z.gapBefore(k), "\u2014")):
			return true // an option a word processor turned into a dash: "rm –rf"
		}
	}
	if k := i + 1; k < len(z.words) && z.words[k].joint == '-' && z.actsOnObject(k) {
		return true // "base64-decode the patch"
	}
	if w.prev == '$' && z.shellWordOpens(i, "$") {
		return true // a prompt: "$ sudo rm …"
	}
	if i == 0 {
		return false
	}
	if prev := z.tok(i - 1); string(prev) == "sudo" || string(prev) == "doas" || hasWord(runLeadIns, prev) {
		return true
	}
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if hasWord(cliTools, z.tok(j)) {
			return true // "kubectl delete", "gcloud sql instances delete"
		}
		if z.endsSentence(j) || z.words[j+1].shell&shellLine != 0 {
			break
		}
	}
	b, e := z.command(i)
	for k := b; k < e; k++ {
		if k != i && (z.isOption(k) || z.switchAt(k)) {
			return true
		}
	}
	return false
}

// sqlTableAt reports whether the words from k on name a table as SQL
// does after "from": a name of one shell word, then "where" or ';'
// ("audit_log where…", "audit_log;").
func (z *Analyzer) sqlTableAt(k int) bool {
	for j := k; j < len(z.words) && j < k+4; j++ {
		if j > k && z.words[j].shell&shellSpace != 0 {
			return string(z.tok(j)) == "where"
		}
		if z.words[j].next == ';' {
			return true
		}
	}
	return false
}

// shellWordOpens reports whether the shell word that begins at word k
// opens with one of chars, right before the word ("/etc", "~/.ssh",
// "$HOME", "+x"), not apart from it ("eval + test").
func (z *Analyzer) shellWordOpens(k int, chars string) bool {
	gap := z.gapBefore(k)
	t := strings.TrimLeft(gap, " \t\r\n")
	return t != "" && strings.IndexByte(chars, t[0]) >= 0 && strings.IndexAny(t, " \t\r\n") < 0
}

// switchAt reports whether word k is a Windows switch: one letter after a
// '/' that follows a space ("/f", "/q"; not the "b" of "a/b").
func (z *Analyzer) switchAt(k int) bool {
	w := &z.words[k]
	if w.prev != '/' || w.letters != 1 || w.to-w.from != 1 || w.from < 2 {
		return false
	}
	c := z.text[w.from-2]
	return c == ' ' || c == '\t'
}
