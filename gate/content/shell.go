package content

import (
	"bytes"
	"strings"
)

// The shell, as Decisions 8 reads it in a text: commands (between pipes,
// "&&", "||", ';', line breaks and sentences' ends), each made of shell
// words (tokens between spaces: "https://x.example/a.sh" is one, of four
// words), whose first is the program and whose words that begin with '-'
// are options. The tokenizer keeps, per word, what stood before it
// (word.shell).

// maxCommand bounds how many words of a shell command are read either way
// of a word (a URL's every part is a word).
const maxCommand = 32

// maxPrefix bounds how many words "sudo", "doas" or "env" and their
// options may take before the program they run (programAt).
const maxPrefix = 8

// maxLetters bounds a shell word of one-letter options run together, or of
// one with its value ("-ne", "-mjson"), that ownCode reads.
const maxLetters = 5

// scriptExtensions are the extensions of a script an interpreter runs as
// its program (ownCode).
var scriptExtensions = []string{"py", "pl", "rb", "js", "mjs", "cjs", "sh", "ps1"}

// programSuffixes are what may follow a program's name after a dot: Windows'
// ".exe", Debian's two netcats.
var programSuffixes = []string{"exe", "traditional", "openbsd"}

// downloads are the programs whose output an interpreter may run: curl,
// wget, PowerShell's Invoke-WebRequest and Invoke-RestMethod ("webrequest",
// "restmethod" after "Invoke-") and their aliases.
var downloads = []string{"curl", "wget", "iwr", "irm", "webrequest", "restmethod"}

// option is an option of a command as codeWords writes it: its name, in
// lower case, with its parts ("upload-file"); for one letter, its case
// ("F" is curl's "-F", not its "-f"); and, written with a final '@', that
// it counts only before a value that begins with '@' ("-F file=@/tmp/x"
// sends a file, "-F name=alice" a form's field).
type option struct {
	name    string
	upper   bool
	needsAt bool
}

// parseOption reads an option as codeWords writes it.
func parseOption(s string) option {
	name, at := strings.CutSuffix(s, "@")
	return option{name: strings.ToLower(name), upper: name != strings.ToLower(name), needsAt: at}
}

// commandBreak reports whether a shell command ends before word k: at a
// pipe, "||", "&&" or ';', at a line break that neither a backslash nor a
// pipe continues, or at a sentence's end (a full stop, a question or an
// exclamation mark, then a space).
func (z *Analyzer) commandBreak(k int) bool {
	w := &z.words[k]
	return w.shell&(shellPipe|shellSeparator|shellLine) != 0 ||
		w.shell&shellSpace != 0 && (w.prev == '.' || w.prev == '?' || w.prev == '!')
}

// command returns the bounds [b, e) of the shell command that holds word
// i, at most maxCommand words either way of it.
func (z *Analyzer) command(i int) (b, e int) {
	b = i
	for b > 0 && i-b < maxCommand && !z.commandBreak(b) {
		b--
	}
	e = i + 1
	for e < len(z.words) && e-i <= maxCommand && !z.commandBreak(e) {
		e++
	}
	return b, e
}

// shellWordEnd returns the end of the shell word that begins at word k,
// within a command that ends at e: the next word a space stands before.
func (z *Analyzer) shellWordEnd(k, e int) int {
	if k >= e {
		return e
	}
	j := k + 1
	for j < e && z.words[j].shell&shellSpace == 0 {
		j++
	}
	return j
}

// isOption reports whether word k begins an option: a shell word that
// begins with '-' ("-c", "--exec", "-InFile").
func (z *Analyzer) isOption(k int) bool {
	return z.words[k].shell&(shellSpace|shellDash) == shellSpace|shellDash
}

// optionIs reports whether the option that begins at word k, in a command
// that ends at e, is o: one letter in its case, or every part of a longer
// name, joined by '-' as written ("--upload-file", not "--data-raw" for
// "data"); with a value that begins with '@' when o needs one.
func (z *Analyzer) optionIs(k, e int, o option) bool {
	w := &z.words[k]
	t := z.tok(k)
	end := k + 1 // after the option's name
	if len(o.name) == 1 {
		if len(t) != 1 || t[0] != o.name[0] || w.upper != o.upper {
			return false
		}
	} else {
		name := o.name
		for j := k; ; j++ {
			part, rest, more := strings.Cut(name, "-")
			if j >= e || string(z.tok(j)) != part || j > k && z.words[j].joint != '-' {
				return false
			}
			if !more {
				end = j + 1
				break
			}
			name = rest
		}
	}
	if end < e && z.words[end].joint == '-' && z.words[end].shell&shellSpace == 0 {
		return false // a longer name: "--data-raw", "--post-data"
	}
	if !o.needsAt {
		return true
	}
	if end < e && z.words[end].joint == '@' { // "-d@file", "-F@file"
		return true
	}
	// '@' before the value: in the option's own word ("--data-binary=@x")
	// or the next ("-d @x", "-F file=@/tmp/x").
	for j := end; j < z.shellWordEnd(z.shellWordEnd(k, e), e); j++ {
		if z.words[j].shell&shellAt != 0 {
			return true
		}
	}
	return false
}

// wholeName reports whether word i stands as a whole name, not a part of a
// longer one: not "bash_completion", "build.sh", "zsh/zshrc",
// "curl-output.txt"; a program's own suffix may follow ("nc.exe",
// "nc.traditional": programSuffixes).
func (z *Analyzer) wholeName(i int) bool {
	if j := z.words[i].joint; j == '.' || j == '_' {
		return false
	}
	if i+1 >= len(z.words) {
		return true
	}
	next := &z.words[i+1]
	if next.joint == '.' && next.shell&shellSpace == 0 && hasWord(programSuffixes, z.tok(i+1)) {
		return i+2 >= len(z.words) || z.words[i+2].shell&shellSpace != 0
	}
	return next.shell&shellSpace != 0 || next.joint == 0
}

// programAt reports whether word i is the program of the command that
// begins at word b: its first word, or the last of its path ("/bin/sh",
// "/usr/bin/env bash"), or after "sudo", "doas" or "env" and their options
// and values ("sudo -E -u root bash"), or PowerShell's "Invoke-" before
// it; and a whole name (wholeName).
func (z *Analyzer) programAt(i, b int) bool {
	if !z.wholeName(i) {
		return false
	}
	for k := b; k < i; {
		switch t := string(z.tok(k)); {
		case z.words[k+1].joint == '/' && z.words[k+1].shell&shellSpace == 0:
			k++ // a directory of the program's path
		case t == "sudo" || t == "doas" || t == "env":
			k++
			for n := 0; k < i && z.isOption(k) && n < maxPrefix; n++ {
				letter := z.shellWordEnd(k, i) == k+1 && len(z.tok(k)) == 1
				k = z.shellWordEnd(k, i)
				if letter && k < i && !z.isOption(k) { // its value: "-u root"
					k = z.shellWordEnd(k, i)
				}
			}
		case t == "invoke" && k+1 == i && z.words[i].joint == '-':
			k++
		default:
			return false
		}
	}
	return true
}

// runsDownload reports whether word i is an interpreter that runs a
// download as its program: substitutesDownload, or a download command
// pipes into it ("curl -s https://… | bash", "wget -qO- … | sudo sh", "iwr
// … | iex"), unless one of own, its options for code of its own ("-c" of a
// shell, "-m" of Python, "-e" of Perl), or a script file as its first
// argument tells it to run something else ("| python3 -m json.tool", "|
// perl -ne …", "| python3 parse.py"; "| python - data.csv" runs what it
// reads).
func (z *Analyzer) runsDownload(i int, own []option) bool {
	b, e := z.command(i)
	if z.wholeName(i) && z.substitutes(i, e) { // substitutesDownload, with the command found once
		return true
	}
	if s := z.words[b].shell; s&shellPipe == 0 || s&shellLine != 0 || b == 0 || !z.programAt(i, b) || z.ownCode(i, e, own) {
		return false // not piped (or a table's row: "\n| bash |"), or piped into another program ("| sudo tee …/bash_completion.d/x")
	}
	// A download in the command before the pipe, with something to fetch
	// (not "| curl | bash |"). A prose sentence may lead into it ("Fetch
	// and run the helper: curl -s https://… | bash"), so it need not be
	// that command's first word.
	pb, pe := z.command(b - 1)
	for k := pb; k < pe; k++ {
		if hasWord(downloads, z.tok(k)) && z.wholeName(k) && z.shellWordEnd(k, pe) < pe {
			return true
		}
	}
	return false
}

// substitutesDownload reports whether word i, a whole name (wholeName),
// has as its first argument a download's output, substituted: "bash
// <(curl …)", "sh -c \"$(curl …)\"", "sh -c \"`curl …`\"", "eval
// \"$(curl …)\"" (not "python3 app.py --host $(curl …)", nor "a bash
// terminal, run `curl …`").
func (z *Analyzer) substitutesDownload(i int) bool {
	_, e := z.command(i)
	return z.wholeName(i) && z.substitutes(i, e)
}

// substitutes reports whether the first argument after word i, in a
// command that ends at e, is a download's output, substituted.
func (z *Analyzer) substitutes(i, e int) bool {
	for k := i + 1; k < e; k = z.shellWordEnd(k, e) {
		if !z.isOption(k) {
			p := z.words[k].prev
			return (p == '(' || p == '`') && hasWord(downloads, z.tok(k))
		}
	}
	return false
}

// ownCode reports whether the interpreter at word i, in a command that
// ends at e, is told to run code of its own rather than what it reads: by
// one of own, one letter alone or among others ("-c", "-ne", "-mjson.tool")
// or a longer name ("--eval"), or by a script file as its first argument.
func (z *Analyzer) ownCode(i, e int, own []option) bool {
	for k := i + 1; k < e; k = z.shellWordEnd(k, e) {
		if !z.isOption(k) {
			end := z.shellWordEnd(k, e)
			last := end - 1
			return last > k && z.words[last].joint == '.' && hasWord(scriptExtensions, z.tok(last))
		}
		t := z.tok(k)
		letters := z.words[k].letters == len(t) && len(t) <= maxLetters // one or a few letters: "-c", "-ne", "-mjson"
		for _, o := range own {
			long := len(o.name) > 1 && string(t) == o.name
			short := len(o.name) == 1 && letters && bytes.IndexByte(t, o.name[0]) >= 0
			if long || short {
				return true
			}
		}
	}
	return false
}

// sendsAt reports whether word i, a whole name (wholeName), is given one
// of options (optionIs) in its command: "curl -F file=@… https://…", "nc
// -e /bin/sh …", not "nc -l 8080 | grep -e GET". A prose sentence may lead
// into the command ("On the box, run nc -e /bin/sh …").
func (z *Analyzer) sendsAt(i int, options []option) bool {
	_, e := z.command(i)
	if !z.wholeName(i) {
		return false
	}
	for k := i + 1; k < e; k++ {
		if !z.isOption(k) {
			continue
		}
		for _, o := range options {
			if z.optionIs(k, e, o) {
				return true
			}
		}
	}
	return false
}
