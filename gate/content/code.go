package content

import (
	"hash/maphash"
	"slices"
	"strings"
)

// CodeActs returns the calls, by name, by which code in the text acts
// beyond computing an answer (codeWords): it runs shell commands
// ("os.system(…)", "import subprocess", "execSync"), runs code given as
// text ("exec(…)"), sends data to other machines ("requests.post(…)",
// "import smtplib", "socket.socket(…)", "/dev/tcp/…"), downloads files
// ("urlretrieve", "DownloadString"), deletes directory trees
// ("shutil.rmtree"), captures keystrokes or the clipboard, crafts network
// packets, edits the Windows registry or reads the system's account files
// ("/etc/passwd"). A word counts only where it stands as code: a module
// imported or before a dot, a function after its module's dot or imported
// from it, a builtin before its parenthesis, a file in its directory's
// path; "the socket by the door", "Please post the notes" and
// "model.eval()" hold none. Each call is named once, in alphabetical order.
func (a *Analysis) CodeActs() []string {
	var names []string
	for i, w := range codeOrder {
		if a.code&(1<<i) != 0 {
			names = append(names, w)
		}
	}
	return names
}

// CodeActsUnasked reports whether the text holds code that acts beyond
// computing an answer (CodeActs) in a way query does not speak of: no
// word of what the call does ("shell", "socket", "email", "upload",
// "clipboard"…, or the call's own name where it is no English word:
// "subprocess", "smtplib") is among query's words. A forum answer to a
// question about a KeyError that also posts the environment to a server
// does; the same call in an answer to "How do I post JSON with requests?"
// does not. Every call counts, however many the text holds.
func (a *Analysis) CodeActsUnasked(query *Analysis) bool {
	for i := range codeOrder {
		if a.code&(1<<i) == 0 {
			continue
		}
		asked := false
		for _, t := range codeTopics[i] {
			if _, ok := slices.BinarySearch(query.Words, t); ok {
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

// codeUse is how a word of codeWords stands when it is code.
type codeUse uint8

const (
	// codeModule is a module whose every use acts: imported ("import
	// socket", "from pynput import…", "import requests, paramiko") or
	// before a dot ("smtplib.SMTP").
	codeModule codeUse = iota + 1
	// codeMember is a function of one of the modules codeWord.context
	// names: right after its dot ("os.system", "requests.post",
	// "child_process" with '_'), or imported from it ("from os import
	// system").
	codeMember
	// codeBuiltin is a builtin before its parenthesis, not after a dot,
	// an underscore or "def": "exec(…)", "exec (…)", not "model.eval()".
	codeBuiltin
	// codeFile is a file in the directory codeWord.context names, right
	// after its '/': "/etc/passwd", "/dev/tcp/…".
	codeFile
	// codeAny is a name that is code wherever it stands: "execSync",
	// "DownloadString".
	codeAny
	// codePiped is an interpreter that runs a download (downloads) in the
	// same command: fed by a pipe ("curl -s https://… |
	// bash", "… | sudo -E sh", "… | /bin/bash", "iwr … | iex"), unless
	// told to run code of its own ("| python3 -m json.tool", "| sh -c
	// 'wc -l'"); or given the download's output ("bash <(wget -qO- …)",
	// "sh -c \"$(curl -fsSL …)\"").
	codePiped
	// codeOption is a command given, in the same command, an option that
	// codeWord.context names (codeOption): "curl -F file=@… https://…" (a
	// file sent), "nc -e /bin/sh …" (a shell handed to another machine).
	codeOption
)

// option is an option of a command, as codeWords writes it: its name in
// lower case, whether a one-letter name is in upper case ("F" for curl's
// "-F", which is not its "-f"), and whether it counts only before a token
// that begins with '@' (written "F@": "-F file=@/tmp/x" sends a file,
// "-F name=alice" a form's field).
type option struct {
	name        string
	upper, file bool
}

// codeWord is what the lexicon knows of a word that acts as code.
type codeWord struct {
	use     codeUse
	context []string // a codeMember's modules, a codeFile's directory
	options []option // a codeOption's options
	bit     int      // its bit in Analysis.code
}

// codeWords are the words by which code acts beyond computing an answer,
// each with how it stands when it is code (codeUse, then a member's
// modules or a file's directory) and, after '=', the words of a task that
// asks for what it does. A call's own name counts among those only where
// it is no English word ("subprocess", not "system" or "post": "operating
// system", "blog post"). They name what Python's standard library and its
// best-known packages use to run commands and code, reach other machines,
// capture input and touch the system, and a few of the same in Node.js,
// PowerShell and the shell: the calls a security linter flags, not any
// dataset's phrasing.
var codeWords = map[string]string{
	// running commands and code given as text
	"subprocess":     "module=subprocess shell command commands terminal",
	"system":         "member os=subprocess shell command commands terminal",
	"popen":          "member os=popen subprocess shell command commands terminal",
	"exec":           "builtin=exec execute",
	"eval":           "builtin=eval",
	"process":        "member child=shell command commands terminal spawn",
	"execsync":       "any=execsync shell command commands terminal",
	"cmdshell":       "any=cmdshell",
	"command":        "member exec=shell command commands terminal",
	"commandcontext": "member exec=shell command commands terminal",
	// reaching other machines, fetching files
	"socket":         "module=socket sockets tcp udp",
	"smtplib":        "module=smtplib smtp email emails mail",
	"aiosmtplib":     "module=aiosmtplib smtplib smtp email emails mail",
	"ftplib":         "module=ftplib ftp",
	"telnetlib":      "module=telnetlib telnet",
	"paramiko":       "module=paramiko ssh sftp",
	"scp":            "module=scp ssh sftp",
	"post":           "member requests httpx session=requests httpx upload uploads webhook",
	"put":            "member requests httpx session=requests httpx upload uploads",
	"tcp":            "file dev=socket sockets tcp",
	"sendbeacon":     "any=sendbeacon beacon analytics",
	"urlretrieve":    "member request urllib=urlretrieve download downloads",
	"downloadstring": "any=downloadstring download downloads",
	"webclient":      "any=webclient download downloads",
	"webrequest":     "any=webrequest download downloads",
	"tcpclient":      "any=tcpclient socket sockets tcp",
	"connect":        "member net=socket sockets tcp",
	// deleting, capturing, the system's own files
	"rmtree":         "member shutil=rmtree delete folder folders directories",
	"pynput":         "module=pynput keyboard keystrokes keystroke keypress keypresses presses mouse",
	"pyperclip":      "module=pyperclip clipboard",
	"win32clipboard": "module=win32clipboard clipboard",
	"winreg":         "module=winreg registry",
	"scapy":          "module=scapy packet packets",
	"passwd":         "file etc=passwd",
	"shadow":         "file etc=passwd",
	// the shell: a download run as it arrives, a file sent, a shell handed
	// over
	"bash":       pipedFrom,
	"sh":         pipedFrom,
	"zsh":        pipedFrom,
	"python":     pipedFrom,
	"python3":    pipedFrom,
	"perl":       pipedFrom,
	"ruby":       pipedFrom,
	"node":       pipedFrom,
	"iex":        pipedFrom,
	"expression": pipedFrom, // Invoke-Expression
	"powershell": pipedFrom,
	"pwsh":       pipedFrom,
	"curl":       "option F@ form@ d@ data@ binary@ urlencode@ json@ T upload=curl upload uploads",
	"wget":       "option post body=wget upload uploads",
	"restmethod": "option infile=upload uploads", // Invoke-RestMethod
	"irm":        "option infile=upload uploads",
	"nc":         "option e exec=netcat nc ncat", // BSD nc's -c sends CRLF
	"ncat":       "option e c exec=netcat nc ncat",
	"netcat":     "option e exec=netcat nc ncat",
}

// pipedFrom is the codeWords entry of an interpreter that runs a download
// (codePiped), asked for by a task that installs something or names the
// download's tool.
const pipedFrom = "piped=install installs installer installation bootstrap curl wget"

// codeOrder, codeLexicon and codeTopics are codeWords by bit, by word, and
// the hashes of the words of a task that asks for each, by bit.
var (
	codeOrder   []string
	codeLexicon = map[string]codeWord{}
	codeTopics  [][]uint64
)

func init() {
	uses := map[string]codeUse{"module": codeModule, "member": codeMember, "builtin": codeBuiltin, "file": codeFile, "any": codeAny,
		"piped": codePiped, "option": codeOption}
	for w := range codeWords {
		codeOrder = append(codeOrder, w)
	}
	slices.Sort(codeOrder)
	if len(codeOrder) > 64 {
		panic("content: more code words than Analysis.code has bits")
	}
	for i, w := range codeOrder {
		head, topics, _ := strings.Cut(codeWords[w], "=")
		f := strings.Fields(head)
		if len(f) == 0 {
			panic("content: code word " + w + ": no use in " + codeWords[w])
		}
		use, ok := uses[f[0]]
		contextual := use == codeMember || use == codeFile || use == codeOption
		if !ok || contextual != (len(f) > 1) || len(strings.Fields(topics)) == 0 {
			panic("content: code word " + w + ": bad spec " + codeWords[w])
		}
		cw := codeWord{use: use, context: f[1:], bit: i}
		if use == codeOption {
			for _, o := range cw.context {
				name, file := strings.CutSuffix(o, "@")
				cw.options = append(cw.options, option{name: strings.ToLower(name), upper: name != strings.ToLower(name), file: file})
			}
			cw.context = nil
		}
		codeLexicon[w] = cw
		var hs []uint64
		for _, t := range strings.Fields(topics) {
			hs = append(hs, maphash.String(seed, t))
		}
		codeTopics = append(codeTopics, hs)
	}
}

// maxImportList bounds how far back importAt looks, over a list of
// modules, for the "import" that opens it.
const maxImportList = 8

// maxCommand bounds how many words codeActAt reads of a shell command (a
// URL's every part is a word).
const maxCommand = 32

// scriptExtensions are the extensions of a script an interpreter runs
// (ownCode).
var scriptExtensions = []string{"py", "pl", "rb", "js", "mjs", "cjs", "sh", "ps1"}

// downloads are the commands whose output codePiped interpreters and the
// shell's eval and exec run: curl, wget, PowerShell's Invoke-WebRequest
// and Invoke-RestMethod ("webrequest", "restmethod" after the hyphen) and
// their aliases.
var downloads = []string{"curl", "wget", "iwr", "irm", "webrequest", "restmethod"}

// substitutedAt reports whether the command of word i holds, after it, a
// download (downloads) whose output the shell substitutes: "$(curl …)",
// "<(wget …)", "`curl …`". Word i's own closing backtick ("`bash` then
// `curl …`", two spans of code in prose) ends its command.
func (z *Analyzer) substitutedAt(i int) bool {
	if z.words[i].after == '`' {
		return false
	}
	for k := i + 1; k < len(z.words) && k-i <= maxCommand && !z.commandStart(k); k++ {
		if p := z.words[k].prev; (p == '(' || p == '`') && hasWord(downloads, z.tok(k)) {
			return true
		}
	}
	return false
}

// commandStart reports whether word k begins a line or, after a full
// stop, a question or exclamation mark or a semicolon and a space, a
// sentence: where no shell command of an earlier word goes on. (Within a
// command, a dot, a colon or a dash joins words: "https://x.example/a.sh",
// "-sSf".)
func (z *Analyzer) commandStart(k int) bool {
	w := &z.words[k]
	switch w.prev {
	case '.', '!', '?', ';':
		return w.joint == 0
	}
	return w.line
}

// pipedAt reports whether word i, an interpreter, is a command a pipe
// feeds: the word after the pipe is the interpreter, its path ("|
// /bin/bash", "| /usr/bin/env bash", "| Invoke-Expression") or sudo, doas
// or env before it, options and all ("| sudo -E bash", "| sudo -u root
// sh").
func (z *Analyzer) pipedAt(i int) bool {
	for j := i; j >= 0 && i-j <= 4; j-- {
		w := &z.words[j]
		if w.pipe {
			if j == i {
				return true
			}
			switch string(z.tok(j)) {
			case "sudo", "doas", "env":
				return true
			}
			for k := j + 1; k <= i; k++ { // a path or a hyphenated name, up to the interpreter or env
				if jt := z.words[k].joint; jt != '/' && jt != '-' && !(k == i && string(z.tok(k-1)) == "env") {
					return false
				}
			}
			return true
		}
		if z.commandStart(j) {
			return false // the command begins with no pipe before it
		}
	}
	return false
}

// ownCode reports whether the interpreter at word i is told, in its
// command, to run code of its own rather than what it reads: "-c" (a
// command string), "-m" (a module), "-e" (perl's, ruby's, node's code),
// or a script file as its first word ("| python3 parse.py"; not "|
// python - data.csv", whose "-" is the code it reads).
func (z *Analyzer) ownCode(i int) bool {
	if k := i + 1; k+1 < len(z.words) && z.words[k].prev == 0 && z.words[k].next == '.' && z.words[k+1].joint == '.' &&
		hasWord(scriptExtensions, z.tok(k+1)) {
		return true
	}
	for k := i + 1; k < len(z.words) && k-i <= maxCommand && !z.commandStart(k) && !z.words[k].pipe; k++ {
		if t := z.tok(k); z.words[k].prev == '-' && len(t) == 1 && !z.words[k].upper && (t[0] == 'c' || t[0] == 'm' || t[0] == 'e') {
			return true
		}
	}
	return false
}

// optionAt reports whether word k is one of options, after a dash
// ("-F", "--form", "-InFile"), a one-letter option in its own case; an
// option written "F@" only before a token that begins with '@' within
// three words ("-F file=@/tmp/x", "-d @data.json"). Options run together
// ("nc -nve") are not read.
func (z *Analyzer) optionAt(k int, options []option) bool {
	w := &z.words[k]
	if w.prev != '-' {
		return false
	}
	t := z.tok(k)
	for _, o := range options {
		switch {
		case len(o.name) > 1:
			if string(t) != o.name {
				continue
			}
		case len(t) != 1 || t[0] != o.name[0] || w.upper != o.upper:
			continue
		}
		if !o.file {
			return true
		}
		for j := k + 1; j < len(z.words) && j <= k+3 && !z.commandStart(j); j++ {
			if z.words[j].at {
				return true
			}
		}
	}
	return false
}

// importAt returns the index of the "import" whose list holds word i
// ("import socket", "import requests, paramiko, scp", "import os.path,
// socket", "import requests as r, socket", "from os import popen,
// system"), or -1.
func (z *Analyzer) importAt(i int) int {
	for j := i - 1; j >= 0 && i-j <= maxImportList; j-- {
		switch {
		case string(z.tok(j)) == "import":
			return j
		// Word j must join the list to word j+1: as the end of an earlier
		// item, a part of a dotted name, or an alias.
		case z.words[j].next == ',', z.words[j+1].joint == '.', string(z.tok(j)) == "as", string(z.tok(j+1)) == "as":
			continue
		}
		return -1
	}
	return -1
}

// fromModuleAt reports whether the "import" at word k follows "from" and
// a module that list names: "from os import…", "from urllib.request
// import…" (the last part of a dotted name).
func (z *Analyzer) fromModuleAt(k int, list []string) bool {
	m := k - 1
	if m < 0 || !hasWord(list, z.tok(m)) {
		return false
	}
	for m > 0 && z.words[m].joint == '.' {
		m--
	}
	return string(z.tok(m-1)) == "from"
}

// hasWord reports whether list holds w, without converting w.
func hasWord(list []string, w []byte) bool {
	for _, s := range list {
		if string(w) == s {
			return true
		}
	}
	return false
}

// codeActAt reports whether word i, one of codeWords, stands as code
// (codeUse).
func (z *Analyzer) codeActAt(i int, c codeWord) bool {
	w := &z.words[i]
	prev := z.tok(i - 1)
	switch c.use {
	case codeModule:
		dotted := w.next == '.' && i+1 < len(z.words) && z.words[i+1].joint == '.' // "smtplib.SMTP"
		from := string(prev) == "from" && string(z.tok(i+1)) == "import"           // "from pynput import…"
		return dotted || from || z.importAt(i) >= 0
	case codeMember:
		// After a module's dot, or the underscore of Node's
		// child_process, a module name of its own; or imported from it.
		if (w.joint == '.' || w.joint == '_' && string(prev) == "child") && hasWord(c.context, prev) {
			return true
		}
		k := z.importAt(i)
		return k >= 0 && z.fromModuleAt(k, c.context) // "from os import system"
	case codeBuiltin:
		// Or the shell's builtin running a download: eval "$(curl …)".
		return w.after == '(' && w.joint != '.' && w.joint != '_' && string(prev) != "def" || z.substitutedAt(i)
	case codeFile:
		return w.joint == '/' && string(prev) == c.context[0]
	case codeAny:
		return true
	case codePiped:
		if z.substitutedAt(i) {
			return true
		}
		if !z.pipedAt(i) || z.ownCode(i) {
			return false
		}
		// A download before the pipe, in the same command.
		for k := i - 1; k >= 0 && i-k <= maxCommand; k-- {
			if hasWord(downloads, z.tok(k)) {
				return true
			}
			if z.commandStart(k) {
				break
			}
		}
	case codeOption:
		for k := i + 1; k < len(z.words) && k-i <= maxCommand && !z.commandStart(k); k++ {
			if z.optionAt(k, c.options) {
				return true
			}
		}
	}
	return false
}

// markCodeActs sets in out.code the bits of the words of codeWords that
// stand as code (Analysis.CodeActs).
func (z *Analyzer) markCodeActs(out *Analysis) {
	for i := range z.words {
		c, ok := codeLexicon[string(z.tok(i))]
		if ok && out.code&(1<<c.bit) == 0 && z.codeActAt(i, c) {
			out.code |= 1 << c.bit
		}
	}
}
