package content

import (
	"bytes"
	"slices"
	"strings"
)

// Commands that destroy a system or its data wholesale, as Decisions 8
// reads them (codeWiper). Their danger lies in arguments the tokenizer
// keeps no word of ("/", "~", "/*") or in a device's path, so they are
// read from the text itself, one shell argument at a time (argReader).

// systemDirs are the directories under the root whose removal breaks a
// system or loses every user's files: Linux's and macOS's.
var systemDirs = []string{
	"bin", "boot", "dev", "etc", "home", "lib", "lib64", "proc", "root", "sbin", "sys", "usr", "var",
	"applications", "library", "system", "users",
}

// windowsDirs are the directories under a Windows drive's root whose
// removal breaks the system or loses every user's files, with '/' for
// '\' (rootClass).
var windowsDirs = []string{"windows", "windows/system32", "users", "programdata", "program files"}

// homeDirs are the ways a shell names the user's home directory, in lower
// case, with '/' for '\' (rootClass).
var homeDirs = []string{
	"~", "$home", "${home}", "$(home)", "${home:?}", "%userprofile%", "$env:userprofile", "%homepath%", "$env:homepath",
	"/home/$user", "/home/${user}", "/users/$user", "/users/${user}",
}

// systemVars are the variables by which Windows names its own directory
// or drive.
var systemVars = []string{"%systemroot%", "$env:systemroot", "%windir%", "$env:windir", "%systemdrive%", "$env:systemdrive"}

// diskNames are how a whole disk or one of its partitions begins under
// /dev: SCSI/SATA, IDE, virtio, Xen, NVMe, SD cards, macOS's disks,
// software RAID, device-mapper volumes, network block devices.
var diskNames = []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "nbd"}

// storeObjects are what a DROP statement destroys with all it holds
// (Cassandra's keyspace among them), and truncated what TRUNCATE empties.
var (
	storeObjects = []string{"database", "table", "schema", "keyspace"}
	truncated    = []string{"table"}
)

// diskErasers are diskutil's verbs that erase a whole disk or volume.
var diskErasers = []string{"erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase", "partitiondisk"}

// wholeDeletes are, per command-line tool, the arguments by which it
// deletes a whole store of resources: its first arguments that are no
// options, in order, and options it needs anywhere ("--force": a bucket
// with its contents).
var wholeDeletes = map[string][]string{
	"kubectl":  {"delete namespace", "delete namespaces", "delete ns", "delete all --all", "delete all --all-namespaces", "delete all -A"},
	"gh":       {"repo delete"},
	"gcloud":   {"projects delete"},
	"az":       {"group delete"},
	"heroku":   {"apps:destroy"},
	"aws":      {"s3 rb --force", "dynamodb delete-table"},
	"firebase": {"firestore:delete --all-collections"},
	// a Windows machine's shadow copies and backup catalog, which
	// ransomware deletes first so that nothing can be restored ('/'
	// switches are options: windowsTools)
	"vssadmin": {"delete shadows /all"},
	"wmic":     {"shadowcopy delete", "path win32_shadowcopy delete"},
	"wbadmin":  {"delete catalog", "delete backup -keepversions:0", "delete systemstatebackup -keepversions:0"},
}

// windowsTools are the tools of wholeDeletes whose options begin with
// '/' ("/all", "/quiet", "/node:host").
var windowsTools = []string{"vssadmin", "wmic", "wbadmin"}

// infraTools are the programs whose destroy removes every resource of
// an infrastructure.
var infraTools = []string{"terraform", "tofu", "pulumi", "terragrunt"}

// runLeadIns are the words after which prose hands its reader a command to
// run ("just run sudo rm -rf /", "type format C:").
var runLeadIns = []string{"run", "type", "execute", "enter", "paste", "try"}

// removal is how a command that removes files or changes their
// permissions says that it recurses.
type removal uint8

const (
	removeUnix       removal = iota // rm: "-r", "-R", "-rf", "--recursive"
	removeMode                      // chmod, chown: "-R", "--recursive" ("-r" is a mode)
	removeCmd                       // rd, rmdir, del: "/s"
	removePowerShell                // Remove-Item: "-r", "-rec", "-Recurse"
)

// root is what a path names, for removesRoot.
type root uint8

const (
	rootNone   root = iota
	rootHome        // a home directory
	rootSystem      // the root, a system directory, a drive
)

// wipes reports whether word i, a wiper of codeWords, stands as a command
// that destroys a system or its data wholesale: a removal, recursive, of
// the root, a home or a system directory, or a recursive change of
// permissions of the root or a system directory (removesRoot: "sudo rm
// -rf /", "rm -rf ~/*", "rd /s /q C:\", "Remove-Item $env:USERPROFILE
// -Recurse", "chmod -R 777 /", "chown -R me /usr"), and Go's
// os.RemoveAll of one; dd writing onto a disk ("dd if=/dev/zero
// of=/dev/sda"); mkfs formatting one ("mkfs.ext4 /dev/nvme0n1"); diskutil
// erasing one; Windows' format given a drive ("format C:"), PowerShell's
// Clear-Disk; a DROP of a database, a table, a schema or a keyspace, or a
// TRUNCATE of a table, in SQL (dropsStore), MongoDB's dropDatabase(),
// Redis's FLUSHALL; a command-line tool deleting a whole store of
// resources, a Windows machine's shadow copies or its backup catalog
// (deletesWhole: "kubectl delete namespace prod", "vssadmin delete
// shadows /all"); etcd's keys deleted wholesale (deletesKeys); a disk's
// signatures erased (erasesSignatures: "wipefs -a /dev/sdb"); diskpart's
// clean of a selected disk (cleansDisk); an infrastructure tool's
// destroy (destroysInfra). Scoped cleanups are none: "rm -rf
// node_modules", "rm -rf /tmp/build", "chown -R $USER ~", "dd if=x.iso
// of=disk.img", "Export format: CSV", "a price drop".
func (z *Analyzer) wipes(i int) bool {
	w := &z.words[i]
	prev := z.tok(i - 1) // compared in place: a conversion kept would allocate
	switch string(z.tok(i)) {
	case "rm":
		return z.wholeName(i) && z.removesRoot(i, removeUnix)
	case "rd", "rmdir", "del":
		return z.wholeName(i) && z.removesRoot(i, removeCmd)
	case "chmod", "chown":
		return z.wholeName(i) && z.removesRoot(i, removeMode)
	case "item": // Remove-Item
		return w.joint == '-' && string(prev) == "remove" && z.removesRoot(i, removePowerShell)
	case "removeall": // Go's os.RemoveAll("/")
		return w.joint == '.' && string(prev) == "os" && z.anyArg(i, namesRoot)
	case "dd":
		return z.wholeName(i) && z.anyArg(i, writesDisk)
	case "mkfs": // "mkfs.ext4": the file system after a dot
		return w.joint != '.' && w.joint != '_' && z.anyArg(i, isDisk)
	case "diskutil": // diskutil eraseDisk APFS Untitled disk0
		return z.wholeName(i) && z.nextIn(i, diskErasers)
	case "format":
		return z.formatsDrive(i)
	case "disk": // Clear-Disk, not clear-disk-space.sh
		return w.joint == '-' && string(prev) == "clear" && z.wholeName(i)
	case "drop":
		return z.dropsStore(i, storeObjects)
	case "truncate":
		return z.dropsStore(i, truncated)
	case "dropdatabase": // db.dropDatabase()
		return w.after == '('
	case "flushall":
		return z.wholeName(i)
	case "kubectl", "gh", "gcloud", "az", "heroku", "aws", "firebase", "vssadmin", "wmic", "wbadmin":
		return z.wholeName(i) && z.deletesWhole(i)
	case "etcdctl":
		return z.wholeName(i) && z.deletesKeys(i)
	case "shadowcopy": // PowerShell's Win32_ShadowCopy
		return w.joint == '_' && string(prev) == "win32" && z.deletesShadowCopies(i)
	case "wipefs":
		return z.wholeName(i) && z.erasesSignatures(i)
	case "clean":
		return z.cleansDisk(i)
	case "find":
		return z.wholeName(i) && z.findsRoot(i)
	case "shred":
		return z.wholeName(i) && z.anyArg(i, isDisk)
	case "destroy":
		return z.destroysInfra(i)
	}
	return false
}

// nextIn reports whether the word after word i begins another shell word
// of the same command and, unless words is nil, is one of words.
func (z *Analyzer) nextIn(i int, words []string) bool {
	k := i + 1
	return k < len(z.words) && z.words[k].shell&shellSpace != 0 && !z.commandBreak(k) && (words == nil || hasWord(words, z.tok(k)))
}

// handedCommand reports whether word i stands where prose or a prompt hands
// over a command: as its command's program (programAt), or after "sudo"
// or "doas" and before that a lead-in ("run", "type"…: runLeadIns), a
// prompt's '$' or '>', a colon, an opening parenthesis, quote or
// backtick. "Use rm -r on the folder / directory" holds none.
func (z *Analyzer) handedCommand(i int) bool {
	if b, _ := z.command(i); z.programAt(i, b) {
		return true
	}
	k := z.commandStart(i)
	switch z.words[k].prev {
	case '`', '\'', '"', '$', '>', ':', '(':
		return true
	}
	return k > 0 && hasWord(runLeadIns, z.tok(k-1))
}

// commandStart returns the first word of the command word i runs: "sudo"
// or "doas" right before it, or word i.
func (z *Analyzer) commandStart(i int) int {
	if t := z.tok(i - 1); i > 0 && (string(t) == "sudo" || string(t) == "doas") && z.words[i].shell&shellSpace != 0 {
		return i - 1
	}
	return i
}

// argReader reads, one at a time, the shell arguments of a command from
// the text.
type argReader struct {
	rest  string
	quote byte // the quote or backtick before the command: its closing one ends it
	done  bool
	read  int // arguments returned so far: next stops at maxCommand
}

// args returns a reader of the shell arguments after the shell word that
// begins at word i (after its name, for a call's: os.RemoveAll("/home")),
// to the end of its command: up to a separator, a line
// break or a comment after its last word, and, where the command was cut
// at maxCommand words, without its last argument, which may be part of
// one ("…/var" of "/var/tmp/x").
func (z *Analyzer) args(i int) argReader {
	_, e := z.command(i)
	from, to := z.words[z.shellWordEnd(i, e)-1].to, z.words[e-1].to
	if z.words[i].after == '(' { // a call's
		from = z.words[i].to
	}
	if e < len(z.words) && !z.commandBreak(e) {
		if k := strings.LastIndexAny(z.text[from:to], " \t\r\n"); k >= 0 {
			to = from + k
		} else {
			to = from
		}
	} else {
		end := len(z.text)
		if e < len(z.words) {
			end = z.words[e].from
		}
		tail := z.text[to:end]
		if k := strings.IndexAny(tail, ";&|\n#"); k >= 0 {
			tail = tail[:k]
		}
		to += len(tail)
	}
	r := argReader{rest: z.text[from:to]}
	switch q := z.words[z.commandStart(i)].prev; q {
	case '`', '\'', '"':
		r.quote = q
	}
	return r
}

// next returns the next argument, and false after the last or the
// maxCommand-th (a command is read that far only): the text up
// to a space, a tab or a line break, a quoted part with its spaces ("C:\Old
// Files"), without the parentheses, brackets and separators around it, a
// final full stop or an HTML tag after it ("/</code>"). The closing quote
// of the command, or an argument that opens a comment ('#'), ends the
// arguments.
func (r *argReader) next() (string, bool) {
	s := trimLeft(r.rest, " \t\r\n")
	if r.done || s == "" || r.read == maxCommand {
		return "", false
	}
	r.read++
	end := 0
	for end < len(s) && s[end] != ' ' && s[end] != '\t' && s[end] != '\r' && s[end] != '\n' {
		if q := s[end]; (q == '"' || q == '\'') && q != r.quote {
			if j := strings.IndexByte(s[end+1:], q); j >= 0 {
				end += j + 2 // a quoted part, spaces and all
				continue
			}
		}
		end++
	}
	arg := s[:end]
	r.rest = s[end:]
	if r.quote != 0 {
		if j := strings.IndexByte(arg, r.quote); j >= 0 {
			arg, r.done = arg[:j], true
		}
	}
	if strings.HasPrefix(arg, "#") {
		r.done = true
		return "", false
	}
	if j := strings.Index(arg, "</"); j > 0 {
		arg = arg[:j]
	}
	arg = trimRight(trimLeft(arg, "(["), ";|&,)]")
	if len(arg) > 1 {
		arg = strings.TrimSuffix(arg, ".")
	}
	return arg, true
}

// anyArg reports whether one of the shell arguments after word i, at most
// maxCommand, satisfies is.
func (z *Analyzer) anyArg(i int, is func(string) bool) bool {
	r := z.args(i)
	for arg, ok := r.next(); ok; arg, ok = r.next() {
		if arg != "" && is(arg) {
			return true
		}
	}
	return false
}

// removesRoot reports whether the command at word i, one that removes
// files or changes their permissions, does so recursively (removal) to
// the root, a home or a system directory (rootClass; for a change of
// permissions, the root or a system directory only: "sudo chown -R $USER
// ~" mends a home), or to everything in a working directory that a cd
// right before it made one of them (cdRoot: "cd ~ && rm -rf *"), or with
// "--no-preserve-root". A bare "/" counts only where a command stands
// (handedCommand): "rm -r on the folder / directory" is prose.
func (z *Analyzer) removesRoot(i int, how removal) bool {
	r := z.args(i)
	if !hasAny(r.rest, "/~$%:*") {
		return false // no root, home, system directory, drive or the working directory to name
	}
	recursive, target := false, false
	bareOK := z.handedCommand(i)
	here, hereRead := rootNone, false // what the working directory is, read once
	for arg, ok := r.next(); ok; arg, ok = r.next() {
		switch {
		case arg == "":
		case arg == "--recursive":
			recursive = true
		case arg == "--no-preserve-root":
			target = true
		case recurses(arg, how):
			recursive = true
		case arg[0] == '-', how == removeCmd && len(arg) == 2 && arg[0] == '/': // an option: "-f", "/q"
		default:
			c := rootClass(arg)
			if c == rootNone && slices.Contains(hereGlobs, strings.Trim(arg, "`'\"")) {
				if !hereRead {
					here, hereRead = z.cdRoot(i), true
				}
				c = here // "cd ~ && rm -rf *"
			}
			target = target || (c == rootSystem || c == rootHome && how != removeMode) && (bareOK || strings.Trim(arg, "/") != "")
		}
	}
	return recursive && target
}

// hereGlobs are the arguments by which a removal names everything in the
// working directory ("." and "./" rm refuses).
var hereGlobs = []string{"*", "./*", "*.*"}

// cdRoot tells what directory the command at word i runs in when the
// command right before it on its line, joined by a separator ("&&",
// ";"), is a cd handed over as one (handedCommand) with one directory or
// none: the root or a system directory, a home ("cd ~", "cd" alone, "cd
// /d %USERPROFILE%"), or none ("cd ~/project", a cd on the line before,
// which may not have run, "Tip: cd ~ is home; rm -rf * …", "…and rm -rf
// *").
func (z *Analyzer) cdRoot(i int) root {
	for i > 0 && z.words[i].joint != 0 && z.words[i].shell&shellSpace == 0 {
		i-- // the shell word's first word: "remove" of Remove-Item
	}
	b := z.commandStart(i)
	if b == 0 || z.words[b].shell&shellSeparator == 0 || z.words[b].shell&shellLine != 0 {
		return rootNone
	}
	cb, _ := z.command(b - 1)
	for k := b - 1; k >= cb; k-- {
		at := z.changesDir(k)
		if at < 0 {
			continue
		}
		if at != cb && !z.handedCommand(at) {
			return rootNone // "cd" in prose: "the cd drive"
		}
		dir, dirs := rootHome, 0 // "cd" alone goes home
		r := z.args(k)
		for arg, ok := r.next(); ok; arg, ok = r.next() {
			switch arg {
			case "", "-L", "-P", "/d", "/D", "--":
				continue // cd's options: cmd's "/d" changes the drive too
			}
			if dirs++; dirs > 1 {
				return rootNone // prose: "cd ~ is home"
			}
			dir = rootClass(arg)
		}
		return dir
	}
	return rootNone
}

// changesDir returns the first word of the command that word k names if
// it changes the working directory (cd, chdir, pushd, PowerShell's
// Set-Location), or -1.
func (z *Analyzer) changesDir(k int) int {
	switch string(z.tok(k)) {
	case "cd", "chdir", "pushd":
		if z.wholeName(k) {
			return k
		}
	case "location":
		if z.words[k].joint == '-' && string(z.tok(k-1)) == "set" && z.wholeName(k) {
			return k - 1
		}
	}
	return -1
}

// shortOptions reports whether arg is one or more options of one letter
// run together: "-r", "-rf", "-af".
func shortOptions(arg string) bool {
	return len(arg) > 1 && arg[0] == '-' && arg[1] != '-' && asciiLetters(arg[1:])
}

// recurses reports whether arg is how asks for recursion.
func recurses(arg string, how removal) bool {
	short := shortOptions(arg)
	switch how {
	case removeUnix:
		return short && strings.ContainsAny(arg, "rR")
	case removeMode:
		return short && strings.Contains(arg, "R")
	case removeCmd:
		return strings.EqualFold(arg, "/s")
	case removePowerShell:
		const recurse = "-recurse" // "-r", "-rec", "-Recurse"; not "-Force"
		return len(arg) > 1 && len(arg) <= len(recurse) && strings.EqualFold(arg, recurse[:len(arg)])
	}
	return false
}

// asciiLetters reports whether s is ASCII letters only.
func asciiLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// maxPath bounds the paths rootClass and isDisk read: no root, home,
// system directory or disk is longer.
const maxPath = 48

// pathOf writes arg into buf as a path: without quotes or backticks
// (ASCII or typographic: `"$HOME"/*`, “/”), in lower case, with '/' for
// '\' and a run of '/' as one but at the start ("\\.\"). It returns
// false for a path longer than buf.
func pathOf(arg string, buf *[maxPath]byte) ([]byte, bool) {
	n := 0
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			continue
		case c == 0xE2 && i+2 < len(arg) && arg[i+1] == 0x80 && (arg[i+2] == 0x98 || arg[i+2] == 0x99 || arg[i+2] == 0x9C || arg[i+2] == 0x9D):
			i += 2 // ‘ ’ “ ”
			continue
		case c == '\\':
			c = '/'
		case c >= 'A' && c <= 'Z':
			c |= 0x20
		}
		if c == '/' && n > 1 && buf[n-1] == '/' {
			continue // "////" as "/"; "//./PhysicalDrive0" keeps its two
		}
		if n == len(buf) {
			return nil, false
		}
		buf[n] = c
		n++
	}
	return buf[:n], true
}

// rootClass tells what a path names: the root ("/", "/*", "//", "/**"),
// a system directory ("/etc", "/usr/*"), a Windows drive's root or
// system directory ("C:\", "D:/*", "C:\Windows\*.*", "%SystemRoot%"), a
// home directory ("~", "~/*", `"$HOME"/*`, "${HOME}/", "%USERPROFILE%",
// "/home/$USER"), or none ("*", "./", "C:" alone, "~/.cache", "").
func rootClass(arg string) root {
	if arg == "" {
		return rootNone
	}
	switch c := arg[0]; {
	case c == '/', c == '~', c == '$', c == '%', c == '"', c == '\'', c == '`', c == 0xE2, len(arg) > 1 && arg[1] == ':':
	default:
		return rootNone // no root, home, system directory or drive: "build", "node_modules"
	}
	var buf [maxPath]byte
	p, ok := pathOf(arg, &buf)
	if !ok || len(p) == 0 {
		return rootNone
	}
	if n := len(p); n >= 4 && string(p[n-4:]) == "/*.*" {
		p = p[:n-3]
	}
	t := bytes.TrimRight(p, "/*")
	switch {
	case len(p) >= 3 && p[1] == ':' && p[2] == '/' && p[0] >= 'a' && p[0] <= 'z': // a drive and its root
		dir := bytes.TrimLeft(t[min(2, len(t)):], "/")
		if len(dir) == 0 || hasWord(windowsDirs, dir) {
			return rootSystem
		}
	case len(t) == 0:
		if p[0] == '/' {
			return rootSystem
		}
	case hasWord(homeDirs, t):
		return rootHome
	case hasWord(systemVars, t):
		return rootSystem
	case t[0] == '/' && hasWord(systemDirs, t[1:]):
		return rootSystem
	}
	return rootNone
}

// namesRoot reports whether arg names the root, a home or a system
// directory (rootClass).
func namesRoot(arg string) bool { return rootClass(arg) != rootNone }

// trimLeft and trimRight are strings.TrimLeft and TrimRight for a
// cutset of a few ASCII characters, without building a set per call
// (every argument of every command is trimmed).
func trimLeft(s, cutset string) string {
	for len(s) > 0 && strings.IndexByte(cutset, s[0]) >= 0 {
		s = s[1:]
	}
	return s
}

func trimRight(s, cutset string) string {
	for len(s) > 0 && strings.IndexByte(cutset, s[len(s)-1]) >= 0 {
		s = s[:len(s)-1]
	}
	return s
}

// hasAny reports whether s holds one of chars, a few ASCII characters.
func hasAny(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) >= 0 {
			return true
		}
	}
	return false
}

// writesDisk reports whether a dd argument names a disk as its output
// ("of=/dev/sda", `of="/dev/sda"`).
func writesDisk(arg string) bool {
	return hasPrefixFold(arg, "of=") && isDisk(arg[3:])
}

// isDisk reports whether a path names a disk or a partition of one
// (diskNames under /dev, or Windows' \\.\PhysicalDrive0); not /dev/null,
// /dev/zero or a file.
func isDisk(arg string) bool {
	var buf [maxPath]byte
	p, ok := pathOf(arg, &buf)
	if !ok {
		return false
	}
	if name, ok := cutPrefixBytes(p, "//./physicaldrive"); ok {
		return len(name) > 0
	}
	name, ok := cutPrefixBytes(p, "/dev/")
	if !ok {
		return false
	}
	for _, d := range diskNames {
		rest, ok := cutPrefixBytes(name, d)
		switch {
		case !ok || len(rest) == 0:
		case d == "mapper/":
			return true
		case d == "sd" || d == "hd" || d == "vd" || d == "xvd":
			// a letter, then a partition's number: "sdb", "sdb1"; not "hdmi"
			return rest[0] >= 'a' && rest[0] <= 'z' && digits(rest[1:])
		default:
			// a number, then a partition's: "nvme0n1p2", "mmcblk0p1", "disk2s1"
			return rest[0] >= '0' && rest[0] <= '9' && diskTail(rest)
		}
	}
	return false
}

// digits reports whether b is ASCII digits only (or empty).
func digits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// diskTail reports whether b is a device's tail of digits and the letters
// that number its namespaces and partitions ("0n1p2", "2s1"): no '.', no
// word ("sdcard.img").
func diskTail(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) && c != 'n' && c != 'p' && c != 's' {
			return false
		}
	}
	return true
}

// cutPrefixBytes is bytes.CutPrefix for a string prefix.
func cutPrefixBytes(b []byte, prefix string) ([]byte, bool) {
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return b, false
	}
	return b[len(prefix):], true
}

// formatsDrive reports whether the format at word i is Windows' format
// given a drive, where a command stands (handedCommand: "type format C: /q",
// a line's "format d: /q"): a drive's letter after it, in the same
// command, with nothing but an option, a path's '\', a stop or the end
// after its colon; not "Export format: CSV", "Use the format Q: question",
// "the date format d: day", "Format C: a full day".
func (z *Analyzer) formatsDrive(i int) bool {
	k := i + 1
	if z.words[i].joint != 0 || z.words[i].next == ':' || !z.nextIn(i, nil) || z.words[k].letters != 1 ||
		len(z.tok(k)) != 1 || z.words[k].next != ':' || !z.handedCommand(i) {
		return false
	}
	rest := trimLeftSpace(z.text[z.words[k].to+1:]) // past the colon
	return rest == "" || strings.IndexByte("/\\\r\n.;`'\")", rest[0]) >= 0
}

// dropsStore reports whether the word at i opens SQL's DROP (or
// TRUNCATE) of one of objects, in the same command: in capitals ("DROP
// TABLE users", "DROP KEYSPACE prod"), or where a command stands
// (handedCommand) with the statement's end right after the object's name, a
// semicolon then the line's end or another statement, or the closing
// quote ("drop database shop;", psql -c 'drop table orders'), in lower
// case or quoted; not "a drop table" in prose, "Drop table borders; they
// clutter the page", "drop table 4; it repeats…", "In v3 we drop database
// migrations;", "a sharp drop; table 3 shows…".
func (z *Analyzer) dropsStore(i int, objects []string) bool {
	k := i + 1
	if !z.wholeName(i) || !z.nextIn(i, objects) {
		return false
	}
	if z.words[i].upper && z.words[k].upper {
		return true
	}
	q := z.words[z.commandStart(i)].prev
	quoted := q == '\'' || q == '"' || q == '`'
	name := k + 1
	if !z.nextIn(k, nil) || !z.handedCommand(i) || z.words[i].capital && !quoted || z.words[name].letters == 0 {
		return false // "Drop table borders; …", "drop table 4; …"
	}
	_, e := z.command(name)
	rest := trimLeftSpace(z.text[z.words[z.shellWordEnd(name, e)-1].to:])
	if quoted && rest != "" && rest[0] == q {
		return true // psql -c "drop database prod"
	}
	if rest == "" || rest[0] != ';' {
		return false
	}
	// After the semicolon, the statement's line ends, its quote closes, or
	// another statement begins: not "drop table styling; use the theme".
	rest = trimLeftSpace(rest[1:])
	if rest == "" || rest[0] == '\n' || rest[0] == '\r' || rest[0] == q && quoted || rest[0] == '-' {
		return true
	}
	end := 0
	for end < len(rest) && rest[end]|0x20 >= 'a' && rest[end]|0x20 <= 'z' {
		end++
	}
	return foldIn(sqlStarts, rest[:end])
}

// sqlStarts are the words that open an SQL statement after a DROP's
// semicolon ("DROP DATABASE x; CREATE DATABASE x;").
var sqlStarts = []string{"create", "insert", "drop", "alter", "select", "update", "delete", "truncate", "grant", "commit", "begin", "vacuum"}

// foldIn reports whether list, in lower case, holds s, ignoring case.
func foldIn(list []string, s string) bool {
	for _, w := range list {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// maxInfraReach bounds how many words before its destroy destroysInfra
// looks for the tool ("terraform -chdir=prod destroy").
const maxInfraReach = 6

// destroysInfra reports whether the destroy at word i is an
// infrastructure tool's (infraTools), in the same command, with only its
// options and "apply" or "run-all" between ("terraform destroy",
// "terraform -chdir=prod destroy", "terraform apply -destroy",
// "terragrunt run-all destroy"), neither for help nor for one target; not
// "Terraform plans can destroy resources", "…with Terraform. Destroy
// nothing by hand.", "terraform destroy --help", "terraform destroy
// -target=module.preview".
func (z *Analyzer) destroysInfra(i int) bool {
	r := z.args(i)
	for arg, ok := r.next(); ok; arg, ok = r.next() {
		if name, _, _ := strings.Cut(arg, "="); noRun(name) || name == "-target" || name == "--target" {
			return false // help, a dry run, one target destroyed
		}
	}
	for j := i - 1; j >= 0 && i-j <= maxInfraReach && !z.commandBreak(j+1); j-- {
		switch t := z.tok(j); {
		case hasWord(infraTools, t):
			return z.words[j].shell&shellDash == 0
		case z.words[j].shell&shellSpace == 0, z.isOption(j), string(t) == "apply", string(t) == "run":
			// a part of the shell word before, an option, "apply", "run-all"
		default:
			return false
		}
	}
	return false
}

// deletesWhole reports whether the tool at word i deletes a whole store
// of resources (wholeDeletes): "kubectl delete namespace production",
// "gh repo delete acme/api --yes", "gcloud projects delete acme-prod",
// "az group delete --name rg-prod", "heroku apps:destroy --app x", "aws
// s3 rb s3://x --force"; not "kubectl delete pod web-1", "gcloud compute
// instances delete vm-1", "aws s3 rb s3://empty-bucket".
func (z *Analyzer) deletesWhole(i int) bool {
	for _, pattern := range wholeDeletes[string(z.tok(i))] {
		if z.argsMatch(i, pattern) {
			return true
		}
	}
	return false
}

// argsMatch reports whether the arguments after word i begin, leaving
// options and their values aside, with pattern's words that are no
// options, in order ("kubectl -n kube-system delete namespace foo"), and
// hold its options anywhere, by name ("--force=true"; one letter in its
// case); and no option asks only for help or a dry run (noRun).
func (z *Analyzer) argsMatch(i int, pattern string) bool {
	slash := hasWord(windowsTools, z.tok(i)) // its options begin with '/'
	words, options := pattern, ""
	k := strings.Index(pattern, " -")
	if j := strings.Index(pattern, " /"); slash && j >= 0 && (k < 0 || j < k) {
		k = j // "/all"; wbadmin's are "-quiet", "-keepVersions:0"
	}
	if k >= 0 {
		words, options = pattern[:k], pattern[k+1:]
	}
	need := uint32(1)<<(strings.Count(options, " ")+1) - 1 // a bit per option
	if options == "" {
		need = 0
	}
	var found uint32
	valued := false // the last argument was an option that may take the next as its value
	r := z.args(i)
	for arg, ok := r.next(); ok; arg, ok = r.next() {
		switch {
		case arg == "":
		case arg[0] == '-', slash && arg[0] == '/':
			name, _, hasValue := strings.Cut(arg, "=")
			if noRun(name) {
				return false
			}
			rest := options
			for j := 0; rest != ""; j++ {
				var o string
				o, rest, _ = strings.Cut(rest, " ")
				if name == o || len(o) > 2 && strings.EqualFold(name, o) {
					found |= 1 << j
				}
			}
			valued = !hasValue
			continue
		case words != "":
			w, rest, _ := strings.Cut(words, " ")
			switch {
			case strings.EqualFold(arg, w):
				words = rest
			case !valued:
				return false
			}
		}
		valued = false
	}
	return words == "" && found&need == need
}

// deletesKeys reports whether the etcdctl at word i deletes every key
// or every key from one on: "etcdctl del \"\" --from-key", "etcdctl del
// \"\" --prefix", "etcdctl del /registry --prefix" (all of Kubernetes'
// state), etcd v2's "etcdctl rm --recursive /"; not "etcdctl del
// /registry/pods/default/web-1", "etcdctl get \"\" --from-key", "etcdctl
// rm -r /jobs/old".
func (z *Analyzer) deletesKeys(i int) bool {
	r := z.args(i)
	del, rm, keyed, fromKey, prefix, recursive := false, false, false, false, false, false
	key := ""
	for arg, ok := r.next(); ok; arg, ok = r.next() {
		name, _, _ := strings.Cut(arg, "=")
		switch {
		case arg == "":
		case noRun(name):
			return false
		case name == "--from-key":
			fromKey = true
		case name == "--prefix": // v3's
			prefix = true
		case name == "--recursive", name == "-r": // v2's
			recursive = true
		case arg[0] == '-':
		case !del && !rm:
			del = strings.EqualFold(arg, "del") // after options and their values
			rm = strings.EqualFold(arg, "rm")   // etcd v2's
		case !keyed:
			keyed, key = true, strings.Trim(arg, "\"'/")
		}
	}
	whole := key == "" || key == "registry"
	return keyed && (del && (fromKey || prefix && whole) || rm && recursive && whole)
}

// deletesShadowCopies reports whether the Win32_ShadowCopy at word i is
// the class whose instances a PowerShell line deletes: by their Delete
// method ("Get-WmiObject Win32_ShadowCopy | ForEach-Object {
// $_.Delete() }", "foreach ($s in Get-WmiObject Win32_ShadowCopy) {
// $s.Delete() }"), or piped to Remove-CimInstance or Remove-WmiObject
// ("Get-CimInstance Win32_ShadowCopy | Remove-CimInstance"), before the
// line or the sentence ends, with no filter that keeps to some copies
// and no dry run; not "Get-CimInstance Win32_ShadowCopy | Select-Object
// ID, InstallDate", "Win32_ShadowCopy has a Delete method", "…
// -Filter \"ID='{…}'\" | Remove-CimInstance", "… | Where-Object { … } |
// Remove-CimInstance", "… | Remove-CimInstance -WhatIf".
func (z *Analyzer) deletesShadowCopies(i int) bool {
	piped, deletes := false, false
	for k := i + 1; k < len(z.words) && k-i <= maxCommand; k++ {
		w := &z.words[k]
		if w.shell&(shellLine|shellStop) != 0 {
			break
		}
		piped = piped || w.shell&shellPipe != 0
		switch t := string(z.tok(k)); {
		case w.shell&shellDash != 0 && (t == "whatif" || t == "filter"):
			return false // a dry run, or one copy: "-Filter \"ID='{5C1A…}'\""
		case t == "object" && w.joint == '-' && string(z.tok(k-1)) == "where":
			return false // some copies: "| Where-Object { … } |"
		case t == "delete": // $_.Delete()
			deletes = deletes || (w.prev == '.' || w.joint == '.') && w.after == '('
		case t == "ciminstance", t == "wmiobject": // Remove-CimInstance
			deletes = deletes || piped && w.joint == '-' && string(z.tok(k-1)) == "remove"
		}
	}
	return deletes
}

// erasesSignatures reports whether the wipefs at word i erases every
// signature of a disk ("wipefs -a /dev/sdb", "wipefs --all --force
// /dev/nvme0n1"), neither listing them ("wipefs /dev/sdb") nor as a dry
// run ("wipefs -n -a /dev/sdb", "--no-act").
func (z *Analyzer) erasesSignatures(i int) bool {
	r := z.args(i)
	all, disk := false, false
	for arg, ok := r.next(); ok; arg, ok = r.next() {
		switch {
		case arg == "":
		case arg == "--no-act", noRun(arg):
			return false
		case arg == "--all":
			all = true
		case shortOptions(arg):
			if strings.IndexByte(arg, 'n') > 0 {
				return false
			}
			all = all || strings.IndexByte(arg, 'a') > 0
		default:
			disk = disk || isDisk(arg)
		}
	}
	return all && disk
}

// diskpartCommands are the commands of diskpart that may follow its clean
// on one line, in a script told as prose ("select disk 0 clean create
// partition primary").
var diskpartCommands = []string{"create", "convert", "format", "list", "exit", "online", "offline", "attributes", "assign", "rescan"}

// maxCleanReach bounds how many words before diskpart's clean cleansDisk
// looks for the disk it selects: "select disk 1", "online disk noerr",
// "attributes disk clear readonly noerr", "clean".
const maxCleanReach = 16

// cleansDisk reports whether the word "clean" at word i is diskpart's,
// which erases the selected disk's partitions: right after "select disk
// N" or at a line's or a command's start, a "select disk N" at most
// maxCleanReach words before it, and nothing after it but "all" or
// diskpart's next command ("select disk 1; clean", "select disk
// 0\nclean all", "select disk 0 clean create partition primary"); not
// "clean up disk 2", "select disk 2 … and keep it clean", "Select disk 2
// from the dropdown. Click Clean.", "select disk 1 then clean all
// temporary files".
func (z *Analyzer) cleansDisk(i int) bool {
	if !z.wholeName(i) {
		return false
	}
	if k := i + 1; k < len(z.words) && z.words[k].shell&shellSpace != 0 && !z.commandBreak(k) {
		t := z.tok(k)
		if string(t) == "all" {
			k++
			if k < len(z.words) && !z.commandBreak(k) {
				t = z.tok(k)
			} else {
				t = nil
			}
		}
		if t != nil && !hasWord(diskpartCommands, t) {
			return false // "clean up", "clean the disk", "clean all temporary files"
		}
	}
	if !z.selectsDisk(i-1) && z.words[i].shell&(shellLine|shellSeparator) == 0 {
		return false // prose: "…, and keep it clean", "Click Clean."
	}
	for k := i - 1; k >= 0 && k >= i-maxCleanReach; k-- {
		if z.selectsDisk(k) {
			return true
		}
	}
	return false
}

// selectsDisk reports whether word k is the disk of diskpart's "select
// disk N" ("sel disk 1", "select disk $n").
func (z *Analyzer) selectsDisk(k int) bool {
	if k < 2 {
		return false
	}
	t := z.tok(k)
	if !(len(t) > 0 && digits(t) || z.words[k].prev == '$') || string(z.tok(k-1)) != "disk" {
		return false
	}
	s := z.tok(k - 2)
	return string(s) == "select" || string(s) == "sel"
}

// noRun reports whether an option's name asks a command only for help or
// a dry run: "--help", "-h", "--dry-run", "--dryrun", PowerShell's
// "-WhatIf".
func noRun(name string) bool {
	return name == "--help" || name == "-h" || strings.EqualFold(name, "--dry-run") || strings.EqualFold(name, "--dryrun") ||
		strings.EqualFold(name, "-whatif") // PowerShell's
}

// findsRoot reports whether the find at word i deletes ("-delete",
// "-exec rm", "-exec /bin/rm") what it finds under the root, a home or a
// system directory, one of the paths before its first expression, with
// no test that narrows what it finds: "find / -mtime +7 -delete", "find
// -L ~ -exec rm -f {} +"; not "find /var/log/app -mtime +30 -delete",
// "find ~ -name .DS_Store -delete", "find ~ -type d -empty -delete". A
// bare "/" counts wherever it stands (a cron line's "root find / …"): no
// prose deletes with an unnarrowed "-delete".
func (z *Analyzer) findsRoot(i int) bool {
	r := z.args(i)
	root, deletes, narrowed, paths, exec := false, false, false, true, false
	for arg, ok := r.next(); ok; arg, ok = r.next() {
		switch {
		case arg == "":
		case paths && (arg == "-H" || arg == "-L" || arg == "-P"):
		case paths && (arg == "." || arg == "./"):
			root = root || z.cdRoot(i) != rootNone // "cd ~ && find . -delete"
		case paths && arg[0] != '-' && arg[0] != '!' && arg != "(":
			root = root || rootClass(arg) != rootNone
		case arg == "-delete", exec && (arg == "rm" || strings.HasSuffix(arg, "/rm")):
			paths = false
			deletes = true
		default:
			paths = false
			narrowed = narrowed || foldIn(findNarrowers, arg)
		}
		exec = arg == "-exec" || arg == "-execdir"
	}
	return root && deletes && !narrowed
}

// findNarrowers are find's tests that keep what it deletes to some files:
// by name, path or pattern, empty ones only, the starting point alone.
var findNarrowers = []string{"-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-wholename", "-empty", "-maxdepth"}
