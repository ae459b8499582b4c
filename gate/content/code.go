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
// ("shutil.rmtree") or a whole system ("rm -rf /", "dd of=/dev/sda",
// "DROP DATABASE"), captures keystrokes or the clipboard, crafts network
// packets, edits the Windows registry or reads the system's account files
// ("/etc/passwd"). A word counts only where it stands as code: a module
// imported or before a dot, a function after its module's dot or imported
// from it, a builtin before its parenthesis, a file in its directory's
// path; "the socket by the door", "Please post the notes" and
// "model.eval()" hold none. Each call is named once, in alphabetical order,
// by its codeWords key ("chmod#wiper" for chmod's second use).
func (a *Analysis) CodeActs() []string {
	var names []string
	for i, w := range codeOrder {
		if a.code.has(i) {
			names = append(names, w)
		}
	}
	return names
}

// CodeActsUnasked reports whether the text holds code that acts beyond
// computing an answer (CodeActs) in a way query does not speak of: no
// word of what the call does ("shell", "socket", "email", "upload",
// "clipboard"…, or the call's own name where it is no English word:
// "subprocess", "smtplib") is among query's words, nor, for code that
// deletes a directory tree or wipes a system, a verb and an object of what
// it does ("wipe" and "disk", "delete" and "table", "clean" and "folder").
// A forum answer to a question about a KeyError that also posts the
// environment to a server does; the same call in an answer to "How do I
// post JSON with requests?" does not. Every call counts, however many the
// text holds.
func (a *Analysis) CodeActsUnasked(query *Analysis) bool {
	for i := range codeOrder {
		if !a.code.has(i) {
			continue
		}
		t := &codeTopics[i]
		if !anyWord(query, t.names) && !actsOn(query, t.verbs, t.objects) {
			return true
		}
	}
	return false
}

// codeAsk is what a task says when it asks for what a code word does: one
// of names, or one of verbs acting on one of objects (actsOn: "wipe the
// old USB drive" for dd, where either alone asks for nothing: "wipe my
// browser history", "my disk is full", "delete old rows from the
// sessions table"). Each word is a hash as in Analysis.Words.
type codeAsk struct {
	names, verbs, objects []uint64
}

// maxAskGap bounds the words between a verb and the object it acts on
// (actsOn): "empty the staging events table".
const maxAskGap = 3

// askBlockers are the words after which a noun is no longer the verb's
// object: "delete rows from the table", "remove one key in Redis".
var askBlockers = hashesOf("from in on of at to for with into inside within than by across")

// askNegations are the words before a verb, at most maxNegationReach
// back, that say a task does not ask for the act: "never drop the
// database", "how do I prevent accidentally deleting the production
// database?", "how do I prevent ransomware from deleting shadow copies?".
var askNegations = hashesOf("never not don't dont avoid prevent without stop")

// maxNegationReach bounds how far before a verb actsOn looks for an
// askNegations word.
const maxNegationReach = 3

// askAdjectives are verbs that are as often adjectives right before a
// noun: they act on an object only with a word between ("clean out the
// folder", "empty my folder"; not "a clean folder structure", "an empty
// folder").
var askAdjectives = hashesOf("clean clear empty")

// actsOn reports whether a's words hold one of verbs followed, at most
// maxAskGap words and no askBlockers later, by one of objects: "tear down
// the preview environment", "delete a table", "format my USB drive".
func actsOn(a *Analysis, verbs, objects []uint64) bool {
	if len(verbs) == 0 {
		return false
	}
	for p, h := range a.Seq {
		if !slices.Contains(verbs, h) {
			continue
		}
		if negatedAt(a, p) {
			continue // "never drop the database", "prevent accidentally deleting it"
		}
		adjective := slices.Contains(askAdjectives, h)
		for q := p + 1; q < len(a.Seq) && q <= p+maxAskGap+1; q++ {
			if slices.Contains(objects, a.Seq[q]) && !(adjective && q == p+1) {
				return true
			}
			if slices.Contains(askBlockers, a.Seq[q]) {
				break
			}
		}
	}
	return false
}

// negatedAt reports whether one of the maxNegationReach words before word
// p of a's Seq is one of askNegations.
func negatedAt(a *Analysis, p int) bool {
	for k := max(0, p-maxNegationReach); k < p; k++ {
		if slices.Contains(askNegations, a.Seq[k]) {
			return true
		}
	}
	return false
}

// hashesOf returns the hashes of the words of s, as in Analysis.Words.
func hashesOf(s string) []uint64 {
	var hs []uint64
	for _, t := range strings.Fields(s) {
		hs = append(hs, maphash.String(seed, t))
	}
	return hs
}

// anyWord reports whether a's words hold one of hashes.
func anyWord(a *Analysis, hashes []uint64) bool {
	for _, h := range hashes {
		if _, ok := slices.BinarySearch(a.Words, h); ok {
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
	// codeInterpreter is a shell command that runs code no one has read
	// as its program (Analyzer.runsUnreadCode): a download, as it arrives
	// or once saved, a decoded blob, what another machine sends ("curl -s
	// https://… | bash", "bash <(wget -qO- …)", "curl -o x.sh … && bash
	// x.sh"); codeWord.options are its own options for code of its own
	// ("-c"), which a download piped to it does not run.
	codeInterpreter
	// codeSender is a shell command given one of codeWord.options
	// (Analyzer.sendsAt): "curl -F file=@… https://…" (a file sent), "nc
	// -e /bin/sh …" (a shell handed to another machine).
	codeSender
	// codeRunner is chmod making runnable a file a download saved
	// (Analyzer.makesRunnable): "curl -o /tmp/p https://… && chmod +x
	// /tmp/p".
	codeRunner
	// codeRelay is socat given an address of one of the kinds
	// codeWord.context names, which runs a program (Analyzer.relays):
	// "socat exec:'bash -li',pty tcp:host:4444".
	codeRelay
	// codeCopier is a copy to another machine of a secret
	// (Analyzer.copiesSecret): "scp ~/.ssh/id_rsa user@host:/tmp/".
	codeCopier
	// codeWiper is a command that destroys a system or its data wholesale
	// (Analyzer.wipes): "rm -rf /", "dd of=/dev/sda", "mkfs.ext4
	// /dev/nvme0n1", "format C:", "DROP DATABASE".
	codeWiper
)

// codeWord is what the lexicon knows of a word that acts as code.
type codeWord struct {
	use     codeUse
	also    codeUse  // a second use, or 0: scp is a Python module and a program
	context []string // a codeMember's modules, a codeFile's directory, a codeRelay's kinds of address
	options []option // a codeInterpreter's or codeSender's options
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
// dataset's phrasing. A word with a second use of its own topics is
// written again after '#' ("chmod#wiper").
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
	"scp":            "module+copier=scp sftp rsync backup migrate move transfer",
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
	"rmtree":         "member shutil=rmtree|" + fileVerbs + " " + clearVerbs + "|" + folderNouns,
	"pynput":         "module=pynput keyboard keystrokes keystroke keypress keypresses presses mouse",
	"pyperclip":      "module=pyperclip clipboard",
	"win32clipboard": "module=win32clipboard clipboard",
	"winreg":         "module=winreg registry",
	"scapy":          "module=scapy packet packets",
	"passwd":         "file etc=passwd",
	"shadow":         "file etc=passwd",
	// the shell: a download run as it arrives or once saved, or a
	// decoded blob or what another machine sends run (an interpreter and
	// the options by which it runs code of its own), a download made
	// runnable, a file sent (the options that send one; "@": before a
	// value that begins with '@'), a shell handed over ("!": before a
	// shell's name), a secret copied to another machine
	"bash":       "interpreter c" + downloadTopics,
	"sh":         "interpreter c" + downloadTopics,
	"zsh":        "interpreter c" + downloadTopics,
	"python":     "interpreter c m" + downloadTopics,
	"python3":    "interpreter c m" + downloadTopics,
	"perl":       "interpreter e" + downloadTopics,
	"ruby":       "interpreter e" + downloadTopics,
	"node":       "interpreter e p eval print" + downloadTopics,
	"iex":        "interpreter" + downloadTopics,
	"expression": "interpreter" + downloadTopics, // Invoke-Expression
	"powershell": "interpreter c command encodedcommand file" + downloadTopics,
	"pwsh":       "interpreter c command encodedcommand file" + downloadTopics,
	"curl":       "sender F@ form@ d@ data@ data-binary@ data-urlencode@ json@ T upload-file=curl upload uploads",
	"wget":       "sender post-file body-file=wget upload uploads",
	"restmethod": "sender infile=upload uploads", // Invoke-RestMethod
	"irm":        "sender infile=upload uploads",
	"nc":         "sender e exec c!=netcat nc ncat", // "-c" only before a shell: BSD nc's ends lines with CRLF
	"ncat":       "sender e c exec sh-exec=netcat nc ncat",
	"netcat":     "sender e exec c!=netcat nc ncat", // GNU netcat's "-c" closes the connection
	"socat":      "relay exec system=socat",
	"chmod":      "runner" + downloadTopics,
	"rsync":      "copier=scp sftp rsync backup migrate move transfer",
	// a system or its data destroyed wholesale: the root or a system
	// directory removed recursively or handed to everyone, a whole disk
	// overwritten, formatted or cleared, a database dropped or flushed, an
	// infrastructure destroyed; asked for by a task that names the
	// command, or says what it does to what ("format the USB drive",
	// "delete the staging tables", "tear down the preview environment")
	"rm":           "wiper=" + fileAsk,
	"rd":           "wiper=rmdir" + fileAsk,
	"rmdir":        "wiper=rd rmdir" + fileAsk,
	"del":          "wiper=" + fileAsk,
	"item":         "wiper=" + fileAsk,          // PowerShell's Remove-Item
	"removeall":    "wiper=removeall" + fileAsk, // Go's os.RemoveAll
	"chmod#wiper":  "wiper=chmod",
	"chown":        "wiper=chown",
	"dd":           "wiper=bootable" + diskAsk,
	"mkfs":         "wiper=mkfs" + diskAsk,
	"diskutil":     "wiper=diskutil" + diskAsk,
	"format":       "wiper=" + diskAsk,
	"disk":         "wiper=" + diskAsk, // PowerShell's Clear-Disk
	"drop":         "wiper=" + storeAsk,
	"truncate":     "wiper=" + storeAsk,
	"dropdatabase": "wiper=" + storeAsk,
	"flushall":     "wiper=flushall|" + storeVerbs + "|redis database databases db",
	"destroy":      "wiper=" + infraAsk, // terraform destroy
	"kubectl":      "wiper=" + infraAsk, // kubectl delete namespace
	"gh":           "wiper=" + cloudAsk, // gh repo delete
	"gcloud":       "wiper=" + cloudAsk, // gcloud projects delete
	"az":           "wiper=" + cloudAsk, // az group delete
	"heroku":       "wiper=" + cloudAsk, // heroku apps:destroy
	"aws":          "wiper=" + cloudAsk, // aws s3 rb --force
	"firebase":     "wiper=" + cloudAsk, // firebase firestore:delete --all-collections
	"find":         "wiper=" + fileAsk,  // find / -delete
	"shred":        "wiper=" + diskAsk,
	"wipefs":       "wiper=wipefs" + diskAsk + " signature signatures filesystem filesystems",
	"clean":        "wiper=diskpart|" + diskVerbs + " clean cleaning delete deleting remove removing|" + diskNouns, // diskpart's clean
	"vssadmin":     backupWiper,
	"wmic":         backupWiper, // wmic shadowcopy delete
	"wbadmin":      backupWiper, // wbadmin delete catalog
	"shadowcopy":   backupWiper, // PowerShell's Win32_ShadowCopy … .Delete()
	"etcdctl":      "wiper=etcdctl|" + storeVerbs + "|etcd keyspace",
}

// The words of a task that asks for what a wiper does (codeAsk): a verb
// and an object, per kind of wiper.
const (
	fileVerbs = "wipe wipes wiping erase erases erasing delete deletes deleting remove removes removing"
	fileNouns = "filesystem server machine computer laptop"
	fileAsk   = "|" + fileVerbs + "|" + fileNouns
	// shutil.rmtree of any directory: asked for by clearing one out, not
	// by naming one ("my temp folder keeps filling up")
	clearVerbs  = "clean cleans cleaning clear clears clearing empty empties emptying purge purging"
	folderNouns = "folder folders directory directories dir dirs"
	diskVerbs   = "wipe wipes wiping erase erases erasing format formats formatting reformat reformatting flash flashing burn write writing zero clone"
	diskNouns   = "disk disks drive drives partition partitions usb sd ssd hdd nvme iso"
	diskAsk     = "|" + diskVerbs + "|" + diskNouns
	storeVerbs  = "drop drops dropping truncate truncating delete deletes deleting remove removing wipe wiping erase reset resets resetting purge flush flushing empty emptying clear clearing recreate"
	storeNouns  = "database databases db table tables schema schemas keyspace keyspaces"
	storeAsk    = "|" + storeVerbs + "|" + storeNouns
	infraVerbs  = "destroy destroying tear teardown decommission delete deleting remove removing"
	infraNouns  = "environment environments infrastructure workspace workspaces cluster namespace namespaces terraform pulumi tofu"
	infraAsk    = "|" + infraVerbs + "|" + infraNouns
	// a Windows machine's shadow copies and backups ("shadow", "copies"
	// and "restore" alone are a CSS drop shadow, photos, a button)
	backupVerbs = "delete deletes deleting remove removes removing clear clearing purge purging wipe wiping reset resetting"
	backupNouns = "shadows snapshot snapshots backup backups catalog vss"
	backupAsk   = "|" + backupVerbs + "|" + backupNouns
	backupWiper = "wiper=vssadmin wmic wbadmin shadowcopy" + backupAsk // the tools ask for one another
	cloudAsk    = "|" + infraVerbs + " rb|" + infraNouns +
		" repo repos repository repositories project projects bucket buckets"
)

// downloadTopics is the end of the codeWords entry of an interpreter: a task
// that installs something or names the download's tool asks for a download
// run.
const downloadTopics = "=install installs installer installation bootstrap curl wget"

// codeOrder, codeLexicon and codeTopics are codeWords by bit, by word, and
// the hashes of the words of a task that asks for each, by bit.
var (
	codeOrder   []string
	codeLexicon = map[string][]codeWord{}
	codeTopics  []codeAsk
)

func init() {
	uses := map[string]codeUse{"module": codeModule, "member": codeMember, "builtin": codeBuiltin, "file": codeFile, "any": codeAny,
		"interpreter": codeInterpreter, "sender": codeSender, "runner": codeRunner, "relay": codeRelay, "copier": codeCopier,
		"wiper": codeWiper}
	for w := range codeWords {
		codeOrder = append(codeOrder, w)
	}
	slices.Sort(codeOrder)
	if len(codeOrder) > codeBits {
		panic("content: more code words than Analysis.code has bits")
	}
	for i, w := range codeOrder {
		head, topics, _ := strings.Cut(codeWords[w], "=")
		f := strings.Fields(head)
		if len(f) == 0 {
			panic("content: code word " + w + ": no use in " + codeWords[w])
		}
		first, second, two := strings.Cut(f[0], "+")
		use, ok := uses[first]
		also, alsoOK := uses[second]
		if two && (!alsoOK || also == use || also == codeMember || also == codeFile || also == codeSender || also == codeRelay || also == codeInterpreter) {
			// A second use shares the first's bit, topics and context; one
			// that needs a context or options of its own cannot have them.
			panic("content: code word " + w + ": bad second use in " + codeWords[w])
		}
		needs := use == codeMember || use == codeFile || use == codeSender || use == codeRelay // a context or options
		if !ok || needs && len(f) == 1 || !needs && use != codeInterpreter && len(f) > 1 || len(strings.Fields(topics)) == 0 {
			panic("content: code word " + w + ": bad spec " + codeWords[w])
		}
		cw := codeWord{use: use, also: also, bit: i}
		if use == codeInterpreter || use == codeSender {
			for _, o := range f[1:] {
				cw.options = append(cw.options, parseOption(o))
			}
		} else {
			cw.context = f[1:]
		}
		token, _, _ := strings.Cut(w, "#")
		codeLexicon[token] = append(codeLexicon[token], cw)
		codeTopics = append(codeTopics, parseAsk(w, topics))
	}
}

// parseAsk reads the words of a task that asks for what code word w does,
// as codeWords writes them: names, then, after '|', verbs and, after
// another '|', objects.
func parseAsk(w, topics string) codeAsk {
	parts := strings.Split(topics, "|")
	if len(parts) != 1 && len(parts) != 3 || len(parts) == 3 && (strings.TrimSpace(parts[1]) == "" || strings.TrimSpace(parts[2]) == "") {
		panic("content: code word " + w + ": bad topics " + topics)
	}
	ask := codeAsk{names: hashesOf(parts[0])}
	if len(parts) == 3 {
		ask.verbs, ask.objects = hashesOf(parts[1]), hashesOf(parts[2])
	}
	return ask
}

// maxImportList bounds how far back importAt looks, over a list of
// modules, for the "import" that opens it.
const maxImportList = 8

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
// (codeUse) in one of its uses.
func (z *Analyzer) codeActAt(i int, c codeWord) bool {
	return z.usedAs(i, c, c.use) || c.also != 0 && z.usedAs(i, c, c.also)
}

// usedAs reports whether word i, one of codeWords, stands as code in use.
func (z *Analyzer) usedAs(i int, c codeWord, use codeUse) bool {
	w := &z.words[i]
	prev := z.tok(i - 1)
	switch use {
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
		return w.after == '(' && w.joint != '.' && w.joint != '_' && string(prev) != "def" || z.substitutesDownload(i)
	case codeFile:
		return w.joint == '/' && string(prev) == c.context[0]
	case codeAny:
		return true
	case codeInterpreter:
		return z.runsUnreadCode(i, c.options)
	case codeSender:
		return z.sendsAt(i, c.options) || z.fedSecret(i)
	case codeRunner:
		return z.makesRunnable(i)
	case codeRelay:
		return z.relays(i, c.context)
	case codeCopier:
		return z.copiesSecret(i)
	case codeWiper:
		return z.wipes(i)
	}
	return false
}

// codeBits is how many code words Analysis.code can tell apart.
const codeBits = 128

// codeSet has bit b set for codeOrder[b] (Analysis.code).
type codeSet [codeBits / 64]uint64

// has reports whether bit b is set.
func (s *codeSet) has(b int) bool { return s[b/64]&(1<<(b%64)) != 0 }

// set sets bit b.
func (s *codeSet) set(b int) { s[b/64] |= 1 << (b % 64) }

// markCodeActs sets in out.code the bits of the words of codeWords that
// stand as code (Analysis.CodeActs).
func (z *Analyzer) markCodeActs(out *Analysis) {
	for i := range z.words {
		for _, c := range codeLexicon[string(z.tok(i))] {
			if !out.code.has(c.bit) && z.codeActAt(i, c) {
				out.code.set(c.bit)
				out.destroys = out.destroys || c.use == codeWiper || c.also == codeWiper && z.wipes(i)
			}
		}
	}
}
