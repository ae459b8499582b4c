package content

import (
	"hash/maphash"
	"slices"
	"strings"
)

// MaxCodeActs bounds the calls Analysis.CodeActs holds.
const MaxCodeActs = 4

// CodeActs returns the hashes (as Words holds them) of the calls, at most
// MaxCodeActs, by which code in the text acts beyond computing an answer
// (codeWords): it runs shell commands ("os.system(…)", "import
// subprocess"), runs code given as text ("exec(…)"), sends data to other
// machines ("requests.post(…)", "import smtplib", "socket.socket(…)"),
// downloads files ("urlretrieve"), deletes directory trees
// ("shutil.rmtree"), captures keystrokes or the clipboard, crafts network
// packets, edits the Windows registry or reads the system's account files
// ("/etc/passwd"). A word counts only where it stands as code: a module
// imported or before a dot, a function after its module's dot, a builtin
// before its parenthesis; "the socket by the door", "Please post the
// notes" and "model.eval()" hold none.
func (a *Analysis) CodeActs() []uint64 { return a.code[:a.nCode] }

// CodeActsUnasked reports whether the text holds code that acts beyond
// computing an answer (CodeActs) in a way query does not speak of: no
// word of what the call does ("shell", "socket", "email", "upload",
// "clipboard"…, or the call's own name) is among query's words. A forum
// answer to a question about a KeyError that also posts the environment
// to a server does; the same call in an answer to "How do I post JSON with
// requests?" does not.
func (a *Analysis) CodeActsUnasked(query *Analysis) bool {
	for _, h := range a.CodeActs() {
		asked := false
		for _, t := range codeTopics[h] {
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
	// socket", "from pynput import…") or before a dot ("smtplib.SMTP").
	codeModule codeUse = iota + 1
	// codeMember is a function of one of the modules codeWord.modules
	// names, after its dot: "os.system", "requests.post".
	codeMember
	// codeBuiltin is a builtin before its parenthesis, not after a dot or
	// "def": "exec(…)", not "model.eval()".
	codeBuiltin
	// codeFile is a file under /etc: "/etc/passwd".
	codeFile
)

// codeWord is what the lexicon knows of a word that acts as code.
type codeWord struct {
	use     codeUse
	modules []string // the modules a codeMember belongs to
}

// codeWords are the words by which code acts beyond computing an answer,
// each with how it stands when it is code and, after '=', the words of a
// task that asks for what it does; the word itself always counts as one.
// They name what Python's standard library and its best-known packages
// use to run commands and code, reach other machines, capture input and
// touch the system: the calls a security linter flags, not any dataset's
// phrasing.
var codeWords = map[string]string{
	// running commands and code given as text
	"subprocess": "module=shell command commands terminal",
	"system":     "member os=shell command commands terminal subprocess",
	"popen":      "member os=shell command commands terminal subprocess",
	"exec":       "builtin=execute",
	"eval":       "builtin=evaluate",
	// reaching other machines
	"socket":      "module=sockets tcp udp port server",
	"smtplib":     "module=smtp email emails mail",
	"aiosmtplib":  "module=smtp smtplib email emails mail",
	"ftplib":      "module=ftp upload",
	"telnetlib":   "module=telnet",
	"paramiko":    "module=ssh sftp scp upload",
	"scp":         "module=ssh sftp paramiko upload",
	"post":        "member requests httpx session=upload api endpoint webhook",
	"put":         "member requests httpx session=upload api endpoint",
	"urlretrieve": "member request urllib=download",
	// deleting, capturing, the system's own files
	"rmtree":         "member shutil=delete remove",
	"pynput":         "module=keyboard keystrokes keystroke mouse",
	"pyperclip":      "module=clipboard paste",
	"win32clipboard": "module=clipboard paste",
	"winreg":         "module=registry",
	"scapy":          "module=packet packets",
	"passwd":         "file=password users",
	"shadow":         "file=password users passwd",
}

// codeLexicon and codeTopics are codeWords by word and by the word's hash:
// how it stands as code, and the hashes of the words of a task that asks
// for it.
var (
	codeLexicon = map[string]codeWord{}
	codeTopics  = map[uint64][]uint64{}
)

func init() {
	uses := map[string]codeUse{"module": codeModule, "member": codeMember, "builtin": codeBuiltin, "file": codeFile}
	for w, spec := range codeWords {
		head, topics, _ := strings.Cut(spec, "=")
		f := strings.Fields(head)
		use, ok := uses[f[0]]
		if !ok || (use == codeMember) != (len(f) > 1) {
			panic("content: code word " + w + ": bad spec " + spec)
		}
		codeLexicon[w] = codeWord{use: use, modules: f[1:]}
		h := maphash.String(seed, w)
		codeTopics[h] = append(codeTopics[h], h)
		for _, t := range strings.Fields(topics) {
			codeTopics[h] = append(codeTopics[h], maphash.String(seed, t))
		}
	}
}

// codeActAt reports whether word i, one of codeWords, stands as code
// (codeUse).
func (z *Analyzer) codeActAt(i int, c codeWord) bool {
	w := &z.words[i]
	prev := string(z.tok(i - 1))
	switch c.use {
	case codeModule:
		j := i - 1
		for j >= 0 && z.words[j].next == ',' {
			j-- // "import requests, paramiko, scp"
		}
		imported := string(z.tok(j)) == "import" || prev == "from"
		return imported || w.next == '.' && i+1 < len(z.words) && z.words[i+1].joint == '.'
	case codeMember:
		return w.joint == '.' && slices.Contains(c.modules, prev)
	case codeBuiltin:
		return w.next == '(' && w.joint != '.' && w.joint != '_' && prev != "def"
	case codeFile:
		return w.joint == '/' && prev == "etc"
	}
	return false
}

// codeActs adds to out.code the words of codeWords that stand as code.
func (z *Analyzer) codeActs(seq []uint64, out *Analysis) {
	for i := range z.words {
		c, ok := codeLexicon[string(z.tok(i))]
		if !ok || !z.codeActAt(i, c) || slices.Contains(out.code[:out.nCode], seq[i]) {
			continue
		}
		out.code[out.nCode] = seq[i]
		if out.nCode++; out.nCode == MaxCodeActs {
			return
		}
	}
}
