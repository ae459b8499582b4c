package content

import "strings"

// Commands that destroy a system or its data wholesale, as Decisions 8
// reads them (codeWiper). Their danger lies in arguments the tokenizer
// keeps no word of ("/", "~", "/*") or in a device's path, so they are
// read from the text itself, one shell argument at a time (nextArg).

// systemDirs are the directories under the root whose removal breaks a
// system or loses every user's files: Linux's and macOS's.
var systemDirs = []string{
	"bin", "boot", "dev", "etc", "home", "lib", "lib64", "opt", "proc", "root", "sbin", "srv", "sys", "usr", "var",
	"applications", "library", "system", "users",
}

// windowsDirs are the directories under a Windows drive's root whose
// removal breaks the system or loses every user's files.
var windowsDirs = []string{"windows", `windows\system32`, "users", "programdata"}

// homeDirs are the ways a shell names the user's home directory, or
// Windows' own directories.
var homeDirs = []string{"~", "$home", "${home}", "$(home)", "%userprofile%", "$env:userprofile", "%homepath%", "$env:homepath",
	"%systemroot%", "$env:systemroot", "%windir%", "$env:windir", "%systemdrive%", "$env:systemdrive"}

// diskNames are how a whole disk or one of its partitions begins under
// /dev: SCSI/SATA, IDE, virtio, Xen, NVMe, SD cards, macOS's disks,
// software RAID, device-mapper volumes, network block devices.
var diskNames = []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "nbd"}

// storeObjects are what a DROP statement destroys with all it holds
// (Cassandra's keyspace among them), and what TRUNCATE empties.
var (
	storeObjects = []string{"database", "table", "schema", "keyspace"}
	truncated    = []string{"table"}
)

// diskErasers are diskutil's verbs that erase a whole disk or volume.
var diskErasers = []string{"erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase", "partitiondisk"}

// namespaceWords are what kubectl deletes with everything in it.
var namespaceWords = []string{"namespace", "namespaces", "ns"}

// wipes reports whether word i, a wiper of codeWords, stands as a command
// that destroys a system or its data wholesale: a removal or a change of
// permissions, recursive, of the root, a home or a system directory
// (removesRoot: "sudo rm -rf /", "rm -rf ~/*", "rd /s /q C:\",
// "Remove-Item $env:USERPROFILE -Recurse", "chmod -R 777 /", "chown -R
// me /"); dd writing onto a disk ("dd if=/dev/zero of=/dev/sda"); mkfs
// formatting one ("mkfs.ext4 /dev/nvme0n1"); Windows' format given a
// drive ("format C:"), PowerShell's Clear-Disk; a DROP of a database, a
// table, a schema or a keyspace, or a TRUNCATE of a table, in SQL,
// MongoDB's dropDatabase(), Redis's FLUSHALL; Go's os.RemoveAll of such a
// directory; diskutil erasing a disk; kubectl deleting a namespace;
// terraform or pulumi destroy. Scoped cleanups are none: "rm -rf
// node_modules", "rm -rf /tmp/build", "dd if=x.iso of=disk.img", "Export
// format: CSV", "a price drop".
func (z *Analyzer) wipes(i int) bool {
	_, e := z.command(i)
	prev := z.tok(i - 1) // compared in place: a conversion kept would allocate
	switch w := &z.words[i]; string(z.tok(i)) {
	case "rm", "rd", "rmdir", "del", "chmod", "chown":
		return z.wholeName(i) && z.removesRoot(i, e)
	case "item": // Remove-Item
		return w.joint == '-' && string(prev) == "remove" && z.removesRoot(i, e)
	case "dd":
		return z.wholeName(i) && z.anyArg(i, e, writesDisk)
	case "mkfs": // "mkfs.ext4": the file system after a dot
		return w.joint != '.' && w.joint != '_' && z.anyArg(i, e, isDisk)
	case "format":
		return z.formatsDrive(i)
	case "disk": // Clear-Disk
		return w.joint == '-' && string(prev) == "clear"
	case "drop":
		return z.dropsStore(i, e, storeObjects)
	case "truncate":
		return z.dropsStore(i, e, truncated)
	case "dropdatabase": // db.dropDatabase()
		return w.after == '('
	case "flushall":
		return z.wholeName(i)
	case "diskutil": // diskutil eraseDisk APFS Untitled disk0
		return z.wholeName(i) && i+1 < len(z.words) && z.words[i+1].shell&shellSpace != 0 && hasWord(diskErasers, z.tok(i+1))
	case "kubectl": // kubectl delete namespace production
		return z.wholeName(i) && string(z.tok(i+1)) == "delete" && hasWord(namespaceWords, z.tok(i+2)) &&
			z.words[i+2].shell&shellSpace != 0
	case "removeall": // Go's os.RemoveAll("/")
		return w.joint == '.' && string(prev) == "os" && z.anyArg(i, e, isRootTarget)
	case "destroy":
		return w.joint == 0 && w.shell&shellSpace != 0 && (string(prev) == "terraform" || string(prev) == "pulumi")
	}
	return false
}

// args returns the text of the shell arguments after the shell word that
// begins at word i, to the end e of its command ("", when the text is
// not at hand).
func (z *Analyzer) args(i, e int) string {
	from, to := z.words[z.shellWordEnd(i, e)-1].to, len(z.text)
	if e < len(z.words) {
		to = z.words[e].from
	}
	if from > to || to > len(z.text) {
		return ""
	}
	return z.text[from:to]
}

// nextArg splits the first shell argument off s: the text up to a space,
// a tab or a line break, without the quotes, backticks and parentheses
// around it nor the separators or the full stop that may follow it
// ("`/`", "'$HOME';", "/.").
func nextArg(s string) (arg, rest string) {
	s = strings.TrimLeft(s, " \t\r\n")
	end := strings.IndexAny(s, " \t\r\n")
	if end < 0 {
		end = len(s)
	}
	arg, rest = s[:end], s[end:]
	arg = strings.TrimLeft(arg, "`'\"(")
	arg = strings.TrimRight(arg, "`'\";|&,)")
	if len(arg) > 1 {
		arg = strings.TrimSuffix(arg, ".")
	}
	return arg, rest
}

// anyArg reports whether one of the shell arguments after word i, in a
// command that ends at e, is what is tells.
func (z *Analyzer) anyArg(i, e int, is func(string) bool) bool {
	for rest := z.args(i, e); rest != ""; {
		var arg string
		if arg, rest = nextArg(rest); arg != "" && is(arg) {
			return true
		}
	}
	return false
}

// removesRoot reports whether the command at word i, one that removes
// files or changes their permissions, in a command that ends at e, does
// so recursively ("-r", "-R", "-rf", "--recursive", PowerShell's
// "-Recurse", cmd's "/s") to the root, a home or a system directory
// (isRootTarget), or with "--no-preserve-root".
func (z *Analyzer) removesRoot(i, e int) bool {
	recursive, target := false, false
	for rest := z.args(i, e); rest != ""; {
		var arg string
		arg, rest = nextArg(rest)
		switch {
		case arg == "":
		case arg == "--recursive", strings.EqualFold(arg, "/s"):
			recursive = true
		case arg == "--no-preserve-root":
			target = true
		case len(arg) > 1 && arg[0] == '-' && arg[1] != '-':
			recursive = recursive || asciiLetters(arg[1:]) && strings.ContainsAny(arg, "rR")
		default:
			target = target || isRootTarget(arg)
		}
	}
	return recursive && target
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

// isRootTarget reports whether a path names the root ("/", "/*"), a home
// directory ("~", "~/*", "$HOME", "${HOME}/", "%USERPROFILE%",
// "$env:USERPROFILE"), a directory of systemDirs ("/etc", "/usr/*"), a
// Windows drive's root ("C:\", "D:/*") or a directory of windowsDirs
// ("C:\Windows\*.*").
func isRootTarget(p string) bool {
	for _, suffix := range []string{"/*", "/", `\*.*`, `\*`, `\`} {
		if s, ok := strings.CutSuffix(p, suffix); ok {
			p = s
			break
		}
	}
	switch {
	case p == "":
		return true // "/", "/*"
	case len(p) >= 2 && p[1] == ':' && asciiLetters(p[:1]):
		dir := strings.TrimLeft(p[2:], `\/`)
		return dir == "" || foldIn(windowsDirs, dir) // "C:\", "C:\Windows"
	case p[0] == '/':
		return foldIn(systemDirs, p[1:])
	}
	return foldIn(homeDirs, p)
}

// foldIn reports whether list holds s, ignoring case.
func foldIn(list []string, s string) bool {
	for _, w := range list {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// writesDisk reports whether a dd argument names a disk as its output
// ("of=/dev/sda").
func writesDisk(arg string) bool {
	return len(arg) > 3 && strings.EqualFold(arg[:3], "of=") && isDisk(arg[3:])
}

// isDisk reports whether a path names a disk or a partition of one
// (diskNames under /dev, or Windows' \.\PhysicalDrive0); not /dev/null,
// /dev/zero or a file.
func isDisk(p string) bool {
	if name, ok := cutPrefixFold(p, `\\.\physicaldrive`); ok {
		return name != ""
	}
	name, ok := cutPrefixFold(p, "/dev/")
	if !ok {
		return false
	}
	for _, d := range diskNames {
		if rest, ok := cutPrefixFold(name, d); ok && rest != "" {
			return true
		}
	}
	return false
}

// cutPrefixFold is strings.CutPrefix, ignoring case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// formatsDrive reports whether the format at word i is Windows' format
// given a drive ("format C:", "format d: /q"): a drive's letter after it,
// in capitals or with nothing but an option, a stop or the end after its
// colon; not "Export format: CSV" nor "the date format d: day".
func (z *Analyzer) formatsDrive(i int) bool {
	k := i + 1
	if k >= len(z.words) || z.words[i].joint != 0 || z.words[k].shell&shellSpace == 0 || z.words[k].letters != 1 ||
		len(z.tok(k)) != 1 || z.words[k].next != ':' {
		return false
	}
	if z.words[k].capital {
		return true
	}
	after := z.words[k].to + 1 // past the colon
	if after > len(z.text) {
		return false
	}
	rest := strings.TrimLeft(z.text[after:], " \t")
	return rest == "" || strings.IndexByte("/\r\n.;`'\")", rest[0]) >= 0
}

// dropsStore reports whether the word at i, in a command that ends at e,
// opens SQL's DROP (or TRUNCATE) of one of objects: in capitals ("DROP
// TABLE users", "DROP KEYSPACE prod"), or ended by a semicolon ("drop
// database shop;"); not "a drop table" in prose.
func (z *Analyzer) dropsStore(i, e int, objects []string) bool {
	k := i + 1
	if k >= len(z.words) || !z.wholeName(i) || z.words[k].shell&shellSpace == 0 || !hasWord(objects, z.tok(k)) {
		return false
	}
	if z.words[i].upper && z.words[k].upper {
		return true
	}
	return strings.IndexByte(z.args(k, e), ';') >= 0
}
