package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/memgate/memgate/config"
	"github.com/memgate/memgate/store"
)

// reindexNote is what migrate says of the candidate index, which a logical
// dump does not hold.
const reindexNote = "The candidate index is not copied. The default (exact) index loads itself from the store; " +
	"a scale-out index (--index weaviate://…) must be rebuilt from the destination with `memgate reindex` before serving from it."

// dumpStore is a store that can be dumped and restored: the backends that
// migrate copies between.
type dumpStore interface {
	store.Store
	store.Dumper
	store.Restorer
}

// testHookAfterRestore, if set, runs on the destination between the copy
// and its verification: tests corrupt it there, to show the verification
// notices.
var testHookAfterRestore func(ctx context.Context, dst store.Store) error

// migrateReport is what migrate prints with --json.
type migrateReport struct {
	From        string        `json:"from"`
	To          string        `json:"to"`
	Copied      bool          `json:"copied"` // false with --verify
	Source      store.Summary `json:"source"`
	Destination store.Summary `json:"destination"`
	Match       bool          `json:"match"`
	Differences []string      `json:"differences,omitempty"`
	CopySeconds float64       `json:"copySeconds"`
	// VerifySeconds is the time of the destination's dump (with
	// --verify, of both dumps).
	VerifySeconds float64 `json:"verifySeconds"`
	Index         string  `json:"index"`
}

func (e *env) migrateCmd() *cobra.Command {
	var (
		from, to       string
		asJSON, verify bool
	)
	cmd := &cobra.Command{
		Use:   "migrate --from STORE --to STORE [--verify] [--json]",
		Short: "Copy a whole store into a new, empty one (SQLite or PostgreSQL), verified by counts and checksums",
		Long: `Copy everything a store holds into a new, empty store, and check the copy:
the embedder identity; every memory in insertion order, with its vector, its
sequence number and its revocation; tombstones of forgotten memories; lineage
and supersession links; the audit trail with its sequence numbers and times;
the review queue with its verdicts; labelled examples; and API keys (the
hashes of their secrets, as stored). Ids, sequence numbers, times to the
nanosecond and the bytes of every text are kept, so List cursors, review item
numbers and audit sequence numbers mean the same in the copy.

Stores are given as --store takes them: a SQLite file path or sqlite:PATH,
or postgres://USER:PASSWORD@HOST:PORT/DATABASE (add ?search_path=SCHEMA for
a schema of its own). Either may be either: SQLite to PostgreSQL to scale
out, PostgreSQL to SQLite, or SQLite to a new SQLite file as a backup.

The source is read in one consistent snapshot (stop its writers first:
writes made during the copy are not in it). The destination must be new or
empty, and is written in one transaction: on any failure nothing is written
to it. Afterwards the destination is dumped again, and the counts and SHA-256
checksums of both dumps (per kind of record and for the whole) must match;
they are printed either way. With --verify, nothing is copied: both stores
are only dumped and compared, to check a copy made earlier.

A new SQLite file gets the permission bits of a SQLite source's file,
whatever the umask, once the copy is complete (until then it is its
owner's alone), but never write permission for all, and its owner's only
when the copy's group is not the source's; the copy of a PostgreSQL store gets
0600, its owner's only. An existing empty file keeps its own.

The candidate index is not copied. The default (exact) index loads itself
from the store; a scale-out index (--index weaviate://…) must be rebuilt from
the destination with ` + "`memgate reindex`" + ` before serving from it. See
docs/migrate.md.`,
		Example: `  memgate migrate --from sqlite:memgate.db --to 'postgres://memgate:PASSWORD@db.internal:5432/memgate'
  memgate migrate --from 'postgres://memgate:PASSWORD@db.internal:5432/memgate' --to sqlite:backup.db
  memgate migrate --from sqlite:memgate.db --to sqlite:backup.db --verify --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, dst, err := migrateLocations(from, to)
			if err != nil {
				return err
			}
			return e.migrate(cmd.Context(), src, dst, verify, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "the store to copy (required; as --store takes it)")
	f.StringVar(&to, "to", "", "the new or empty store to copy it into (required; as --store takes it)")
	f.BoolVar(&verify, "verify", false, "copy nothing: only dump both stores and compare their counts and checksums")
	f.BoolVar(&asJSON, "json", false, "print the counts and checksums as JSON")
	return cmd
}

// migrateLocations parses --from and --to, and refuses what cannot be
// migrated whatever the stores hold: a missing flag, a location that does
// not parse, an in-memory store, or one store named twice.
func migrateLocations(from, to string) (src, dst config.Location, err error) {
	if strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" {
		return src, dst, usageError{errors.New("--from and --to are required: the store to copy and the store to copy it into")}
	}
	for _, l := range []struct {
		flag, value string
		loc         *config.Location
	}{{"from", from, &src}, {"to", to, &dst}} {
		loc, err := config.ParseStore(l.value)
		if err != nil {
			return src, dst, flagError("--"+l.flag, err)
		}
		if loc.Kind == "mem" {
			return src, dst, usageError{fmt.Errorf("--%s mem: an in-memory store lives only as long as one command; "+
				"migrate copies between SQLite files and PostgreSQL databases", l.flag)}
		}
		*l.loc = loc
	}
	if sameStore(src, dst) {
		return src, dst, usageError{fmt.Errorf("--from and --to name the same store (%s)", src)}
	}
	return src, dst, nil
}

// sameStore reports whether a and b are one store: the same file (after
// symbolic links), or the same database and schema on the same server,
// whoever connects.
func sameStore(a, b config.Location) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == "sqlite" {
		pa, errA := filepath.Abs(a.Path)
		pb, errB := filepath.Abs(b.Path)
		if errA == nil && errB == nil && pa == pb {
			return true
		}
		fa, errA := os.Stat(a.Path)
		fb, errB := os.Stat(b.Path)
		return errA == nil && errB == nil && os.SameFile(fa, fb)
	}
	ua, errA := url.Parse(a.Path)
	ub, errB := url.Parse(b.Path)
	if errA != nil || errB != nil {
		return a.Path == b.Path
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return "5432"
	}
	return strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub) &&
		strings.Trim(ua.Path, "/") == strings.Trim(ub.Path, "/") &&
		ua.Query().Get("search_path") == ub.Query().Get("search_path")
}

// openDumpStore opens the store at loc: an existing one, read-only, for
// the source; for the destination, one that may be created.
func openDumpStore(ctx context.Context, loc config.Location, create bool) (dumpStore, error) {
	access := config.Read
	if create {
		access = config.Create
	}
	st, err := config.OpenStore(ctx, loc, access)
	if errors.Is(err, store.ErrNoStore) && create && loc.Kind == "postgres" {
		return nil, fmt.Errorf("the database of %s does not exist: create it first (CREATE DATABASE); "+
			"migrate creates memgate's tables in it: %w", loc, err)
	}
	if err != nil {
		return nil, err
	}
	ds, ok := st.(dumpStore)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("store %s cannot be dumped or restored", loc)
	}
	return ds, nil
}

// migrate copies src into dst (unless verifyOnly), dumps dst again and
// compares the two dumps' summaries, and prints them.
//
// A SQLite destination that does not exist yet is written under a
// temporary name beside it (newStoreFile) and linked into place only once
// the copy is verified: a failed or interrupted run leaves nothing at the
// destination, and never removes a file that another run may be writing.
// Any other destination (an empty SQLite file, a PostgreSQL database) is
// restored in one transaction, so a failure writes nothing to it either.
func (e *env) migrate(ctx context.Context, srcLoc, dstLoc config.Location, verifyOnly, asJSON bool) error {
	src, err := openDumpStore(ctx, srcLoc, false)
	if err != nil {
		return interrupted(ctx, fmt.Errorf("--from: %w", err), "")
	}
	defer src.Close()
	if dstLoc.Kind == "sqlite" {
		dstLoc.Path = filepath.Clean(dstLoc.Path) // as the SQLite store opens it: "d/../x.db" is "x.db"
	}
	target := dstLoc         // where the copy is written
	var srcFile os.FileInfo  // a SQLite source's file, whose permissions a new file gets once it is complete
	var madeFile os.FileInfo // the new file made for the copy
	nothing := "; nothing was written to " + dstLoc.String()
	if dstLoc.Kind == "sqlite" && !verifyOnly {
		tmp, made, err := newStoreFile(dstLoc.Path)
		if err != nil {
			return fmt.Errorf("--to: %w%s", err, nothing)
		}
		if tmp != "" {
			defer removeStoreFiles(tmp) // after a success, only the link to it is left
			madeFile = made
			if srcFile, err = sourceFile(srcLoc); err != nil {
				return fmt.Errorf("--from: %w%s", err, nothing)
			}
			target = config.Location{Kind: "sqlite", Path: tmp}
			left, err := leftCopies(dstLoc.Path, tmp)
			if err != nil {
				// A note, not a failure: the copy is made and published as
				// well without it (a copy being written by another run is
				// never replaced).
				fmt.Fprintf(e.err, "memgate: cannot look in %s for copies an earlier migrate to %s left: %s\n",
					safe(filepath.Dir(dstLoc.Path)), safe(dstLoc.Path), safe(err.Error()))
			}
			for _, old := range left {
				fmt.Fprintf(e.err, "memgate: %s is a copy an earlier migrate to %s began and did not finish (killed, or still running); remove it if no migrate is running\n",
					safe(old), safe(dstLoc.Path))
			}
		}
	}
	dst, err := openDumpStore(ctx, target, !verifyOnly)
	if err != nil {
		return interrupted(ctx, fmt.Errorf("--to: %w", err), nothing)
	}
	closed := false
	defer func() {
		if !closed {
			dst.Close()
		}
	}()
	rep := migrateReport{From: srcLoc.String(), To: dstLoc.String(), Copied: !verifyOnly, Index: reindexNote}

	var srcDigest store.Digest
	start := time.Now()
	update, done := e.progress("copying")
	if verifyOnly {
		err = dumpInto(ctx, src, &srcDigest, update)
	} else {
		err = dst.Restore(ctx, counted(fromSource(ctx, store.Tee(store.Records(ctx, src), &srcDigest)), update))
	}
	done()
	if err != nil {
		if verifyOnly {
			return interrupted(ctx, fmt.Errorf("--from: %w", err), "")
		}
		var se sourceError
		if errors.As(err, &se) {
			err = fmt.Errorf("--from: %w", se.err)
		}
		return interrupted(ctx, err, nothing)
	}
	rep.Source = srcDigest.Summary()
	if !verifyOnly {
		rep.CopySeconds = time.Since(start).Seconds()
		if testHookAfterRestore != nil {
			if err := testHookAfterRestore(ctx, dst); err != nil {
				return err
			}
		}
		start = time.Now()
	}

	var dstDigest store.Digest
	update, done = e.progress("verifying")
	err = dumpInto(ctx, dst, &dstDigest, update)
	done()
	if err != nil {
		if target != dstLoc {
			return interrupted(ctx, fmt.Errorf("verify the copy: %w", err), nothing)
		}
		if !verifyOnly {
			// The copy is committed: say so, and how to check it.
			return interrupted(ctx, fmt.Errorf("verify %s: %w", dstLoc, err),
				fmt.Sprintf("; the copy was written: check it with memgate migrate --from %s --to %s --verify", safe(srcLoc.String()), safe(dstLoc.String())))
		}
		return interrupted(ctx, fmt.Errorf("verify %s: %w", dstLoc, err), "")
	}
	rep.Destination = dstDigest.Summary()
	rep.VerifySeconds = time.Since(start).Seconds()
	rep.Differences = rep.Destination.Diff(rep.Source)
	rep.Match = rep.Differences == nil && rep.Destination.SHA256 == rep.Source.SHA256
	if rep.Match && target != dstLoc {
		closed = true
		if err := publish(dst, target.Path, dstLoc.Path, srcFile, madeFile); err != nil {
			return fmt.Errorf("--to: %w%s", err, nothing)
		}
	}

	if asJSON {
		if err := e.printJSON(rep); err != nil {
			return err
		}
	} else {
		e.printMigration(&rep)
	}
	if !rep.Match {
		switch {
		case verifyOnly:
			return fmt.Errorf("%s does not match %s: %s", dstLoc, srcLoc, strings.Join(rep.Differences, "; "))
		case target != dstLoc:
			return fmt.Errorf("the copy does not match %s: %s%s", srcLoc, strings.Join(rep.Differences, "; "), nothing)
		}
		return fmt.Errorf("the copy in %s does not match %s: %s", dstLoc, srcLoc, strings.Join(rep.Differences, "; "))
	}
	return nil
}

// interrupted returns err, or, once ctx is done (an interrupt or SIGTERM),
// an error that says so; after is added to either.
func interrupted(ctx context.Context, err error, after string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted (%w)%s", context.Cause(ctx), after)
	}
	return fmt.Errorf("%w%s", err, after)
}

// newStoreFile returns the path of a new, empty file beside path, made by
// this run alone, into which a copy meant for path is written, and the
// file it made (for publish to know it again); "" when path exists
// already (the copy then goes into it, and it is never removed).
func newStoreFile(path string) (string, os.FileInfo, error) {
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return "", nil, nil
	}
	if err := noStaleLog(path); err != nil {
		return "", nil, err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".migrate-*")
	if _, statErr := os.Stat(dir); err != nil && errors.Is(statErr, os.ErrNotExist) {
		return "", nil, fmt.Errorf("the directory %s does not exist", dir)
	}
	if err != nil {
		return "", nil, fmt.Errorf("create a file beside %s for the copy: %w", path, err)
	}
	made, err := f.Stat()
	return f.Name(), made, errors.Join(err, f.Close())
}

// leftCopies lists the files beside path that newStoreFile made for a copy
// into path, other than ours: a run killed before it could remove its own
// (kill -9, a power cut) leaves one, and so does a run still going. Their
// names are the prefix and os.CreateTemp's digits. The error is that of
// listing the directory, which a directory one may write in but not read
// (mode -wx) refuses; those listed before it are returned with it.
func leftCopies(path, ours string) ([]string, error) {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	prefix := "." + filepath.Base(path) + ".migrate-"
	var out []string
	for _, d := range entries {
		name := d.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || name == filepath.Base(ours) {
			continue
		}
		out = append(out, filepath.Join(dir, name))
	}
	return out, err
}

// noStaleLog fails if path, a store file that does not exist, has a
// write-ahead log, its index or a rollback journal beside it: an earlier
// store's of that name, whose file was removed. SQLite finds them by name,
// and would apply them to the copy once it bore that name; even an empty
// one may belong to a process that still has that store open, and writes
// to it.
func noStaleLog(path string) error {
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Lstat(path + suffix); err == nil {
			return fmt.Errorf("%s is left from an earlier store named %s, which SQLite would apply to the copy: "+
				"remove it if no process has that store open", path+suffix, path)
		}
	}
	return nil
}

// sourceFile returns what a SQLite source's file is (its permissions and
// group, for the copy's: see copyPerm), and nil for a PostgreSQL source.
func sourceFile(src config.Location) (os.FileInfo, error) {
	if src.Kind != "sqlite" {
		return nil, nil
	}
	fi, err := os.Stat(src.Path)
	if err != nil {
		return nil, fmt.Errorf("read the permissions of the source's file: %w", err)
	}
	return fi, nil
}

// copyPerm returns the permission bits of a copy (its file: cp) of the
// store whose file is src: src's own, so that the copy is shared as the
// source is (no wider, and no narrower: a group that may use the source may
// use the copy), as cp -p does, without the umask; but never write
// permission for all, and its owner's only when the copy's group is
// another (a directory whose group its files take, or a user of another
// primary group, copies to a group the source did not name, and others may
// not have more than the group). A PostgreSQL
// source's copy (src nil) is its owner's only: the database's roles guarded
// its records.
func copyPerm(src, cp os.FileInfo) os.FileMode {
	if src == nil {
		return 0o600
	}
	perm := src.Mode().Perm() &^ 0o002
	if !sameGroup(src, cp) {
		perm &^= 0o077 // others may not have more than the group
	}
	return perm
}

// publish closes the store written at tmp, gives it the permission bits
// copyPerm gives a copy of the store whose file is src, and gives it the
// name path, unless a file of that name appeared meanwhile (another run's
// copy, say), which is left as it is. The permissions are set only now,
// on the complete copy: until then it is its owner's alone, and writable,
// whatever the source's say. They are set on the file opened, after
// checking that it is the file made for the copy (made) and that tmp
// names it without a link: a link put in its place (by whoever may write
// in the directory) never passes the permissions on to another file.
func publish(st store.Store, tmp, path string, src, made os.FileInfo) error {
	if err := st.Close(); err != nil {
		return fmt.Errorf("close the copy: %w", err)
	}
	// Closing the last connection checkpoints the log into the file and
	// removes it; a log left behind would hold part of the copy.
	if fi, err := os.Stat(tmp + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("the copy's write-ahead log %s was not checkpointed", tmp+"-wal")
	}
	if err := noStaleLog(path); err != nil { // one may have appeared during the copy
		return err
	}
	if err := chmodCopy(tmp, src, made); err != nil {
		return err
	}
	err := os.Link(tmp, path) // fails if path exists: never replaces a file
	switch {
	case errors.Is(err, os.ErrExist):
		return fmt.Errorf("%s was created by someone else during the copy", path)
	case err != nil:
		// A file system without hard links: rename, after checking once
		// more that nothing took the name.
		if _, statErr := os.Lstat(path); !errors.Is(statErr, os.ErrNotExist) {
			return fmt.Errorf("%s was created by someone else during the copy", path)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("name the copy %s: %w", path, err)
		}
	}
	return nil
}

// chmodCopy gives the copy at tmp its permissions (copyPerm), on the file
// opened, once it is known to be the file made for the copy, which tmp
// names itself (not through a symbolic link).
func chmodCopy(tmp string, src, made os.FileInfo) error {
	named, err := os.Lstat(tmp)
	if err != nil {
		return fmt.Errorf("look at the copy %s: %w", tmp, err)
	}
	if !named.Mode().IsRegular() {
		return fmt.Errorf("the copy %s was replaced during the copy", tmp)
	}
	// Not blocking: a named pipe put in its place since would wait for a
	// writer (and is refused below, being another file).
	f, err := os.OpenFile(tmp, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("open the copy %s: %w", tmp, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return fmt.Errorf("look at the copy %s: %w", tmp, err)
	}
	if !os.SameFile(named, opened) || !os.SameFile(made, opened) {
		return fmt.Errorf("the copy %s was replaced during the copy", tmp)
	}
	perm := copyPerm(src, opened)
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("give the copy the permissions %#o: %w", perm, err)
	}
	return nil
}

// sourceError is an error of reading the source store: a failed copy names
// the store at fault, which the destination's restore would otherwise
// report as its own.
type sourceError struct{ err error }

func (e sourceError) Error() string { return e.err.Error() }
func (e sourceError) Unwrap() error { return e.err }

// testHookRecord, if set, runs before each record read from the source
// is copied: a test stops the process there with a signal.
var testHookRecord func(ctx context.Context, n int)

// fromSource marks the errors records yields as the source's.
func fromSource(ctx context.Context, records iter.Seq2[store.Record, error]) iter.Seq2[store.Record, error] {
	return func(yield func(store.Record, error) bool) {
		n := 0
		for r, err := range records {
			if n++; testHookRecord != nil {
				testHookRecord(ctx, n)
			}
			if err != nil {
				err = sourceError{err}
			}
			if !yield(r, err) {
				return
			}
		}
	}
}

// dumpInto adds d's dump to digest.
func dumpInto(ctx context.Context, d store.Dumper, digest *store.Digest, update func(done, total int)) error {
	n := 0
	return d.Dump(ctx, func(r store.Record) error {
		if n++; update != nil && n%1024 == 0 {
			update(n, -1)
		}
		return digest.Add(&r)
	})
}

// counted yields records, telling update now and then how many went by.
func counted(records iter.Seq2[store.Record, error], update func(done, total int)) iter.Seq2[store.Record, error] {
	if update == nil {
		return records
	}
	return func(yield func(store.Record, error) bool) {
		n := 0
		for r, err := range records {
			if n++; n%1024 == 0 {
				update(n, -1)
			}
			if !yield(r, err) {
				return
			}
		}
	}
}

// removeStoreFiles removes the temporary file of a copy, with the files
// SQLite keeps beside it.
func removeStoreFiles(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
}

// printMigration prints the report as a table of counts and the
// checksums.
func (e *env) printMigration(rep *migrateReport) {
	if rep.Copied {
		fmt.Fprintf(e.out, "copied %s → %s in %s (%d records); verified in %s\n", safe(rep.From), safe(rep.To),
			seconds(rep.CopySeconds), rep.Source.Records, seconds(rep.VerifySeconds))
	} else {
		fmt.Fprintf(e.out, "compared %s with %s in %s\n", safe(rep.From), safe(rep.To), seconds(rep.VerifySeconds))
	}
	fmt.Fprintf(e.out, "%-14s %12s %12s\n", "records", "source", "destination")
	for i, ks := range rep.Source.Kinds {
		var d store.KindSummary
		if i < len(rep.Destination.Kinds) {
			d = rep.Destination.Kinds[i]
		}
		mark := ""
		if ks != d {
			mark = "  differs"
		}
		fmt.Fprintf(e.out, "%-14s %12d %12d%s\n", ks.Kind, ks.Count, d.Count, mark)
	}
	fmt.Fprintf(e.out, "sha256 source       %s\n", rep.Source.SHA256)
	fmt.Fprintf(e.out, "sha256 destination  %s\n", rep.Destination.SHA256)
	if rep.Match {
		fmt.Fprintln(e.out, "checksums match")
	} else {
		fmt.Fprintln(e.out, "checksums DIFFER")
	}
	if rep.Copied {
		fmt.Fprintln(e.out, reindexNote)
	}
}

func seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Millisecond).String()
}
