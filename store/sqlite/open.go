package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/memgate/memgate/store"
)

// Errors that say what is wrong with a store's file rather than with a
// request. They are returned wrapped, in a sentence that says what to do; test
// for them with errors.Is.
var (
	// ErrNoStore: there is no store at the path (no file, or an empty
	// one) and the store was opened with MustExist or ReadOnly.
	ErrNoStore = store.ErrNoStore
	// ErrReadOnly: a write was refused because the store was opened
	// read-only or its file, its directory or the file system is read-only.
	ErrReadOnly = store.ErrReadOnly
	// ErrDiskFull: a write failed because the disk (or a quota) is full.
	// Nothing of that write was stored.
	ErrDiskFull = errors.New("the disk is full")
	// ErrBusy: another connection held the store locked for longer than
	// the busy timeout (BusyTimeout).
	ErrBusy = errors.New("the store is locked by another process")
	// ErrCantOpen: SQLite could not open the store's file or the files it
	// keeps beside it (PATH-wal, PATH-shm).
	ErrCantOpen = errors.New("cannot open the store's file")
)

// BusyTimeout is how long an operation waits for a lock held by another
// connection or process before it fails with ErrBusy.
const BusyTimeout = 10 * time.Second

// OpenOptions control OpenWith. The zero value is Open: create the store if
// there is none, and open it for reading and writing.
type OpenOptions struct {
	// MustExist refuses to create a store: if there is no file at the
	// path, or only an empty one, OpenWith fails with an error wrapping
	// ErrNoStore and creates nothing.
	MustExist bool
	// ReadOnly opens an existing store for reading only, through a
	// read-only SQLite connection (mode=ro, query_only): it implies
	// MustExist, works on a write-protected file, and every write fails
	// with an error wrapping ErrReadOnly. The file's content is never
	// changed, with one exception: a store of an older schema is first
	// upgraded in place, as Open does, if the file is writable (if it is
	// not, OpenWith fails with ErrReadOnly and says so).
	ReadOnly bool
	// AuditSync is how durable an admission record (RecordAdmission) and
	// AppendEvents are when they return: AuditSyncNormal, the zero value
	// and default, survives a crash of the process; AuditSyncFull also a
	// power loss. See AuditSync and the package documentation.
	AuditSync AuditSync
}

// Open opens the store at path, creating it if it does not exist and
// upgrading its schema if it is older than this build. A file that is not a
// SQLite database, is another program's database, or was written by a newer
// memgate is refused with an error saying so. Several processes may open,
// and create, the same path at the same time. Open is OpenWith with the zero
// OpenOptions.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, OpenOptions{})
}

// OpenWith opens the store at path as o says; see OpenOptions and Open.
// Errors about the file wrap ErrNoStore, ErrReadOnly, ErrDiskFull, ErrBusy or
// ErrCantOpen where one applies.
func OpenWith(ctx context.Context, path string, o OpenOptions) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty path")
	}
	exists, err := checkHeader(path)
	if err != nil {
		return nil, err
	}
	if !exists {
		if o.MustExist || o.ReadOnly {
			return nil, fmt.Errorf("open store %s: %w", path, ErrNoStore)
		}
		dir := filepath.Dir(path)
		if fi, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("open store %s: %w: the directory %s does not exist", path, ErrCantOpen, dir)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("open store %s: %w: %s is not a directory", path, ErrCantOpen, dir)
		}
	}
	if o.ReadOnly {
		return openReadOnly(ctx, path)
	}
	if _, err := o.AuditSync.pragma(); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s, err := openDB(path, modeReadWrite)
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx, o.MustExist); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, describe(err))
	}
	if err := startAuditWriter(s, o.AuditSync); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// openReadOnly opens an existing store read-only, first upgrading an older
// schema through a writable connection.
func openReadOnly(ctx context.Context, path string) (*Store, error) {
	for upgraded := false; ; upgraded = true {
		s, err := openDB(path, modeReadOnly)
		if err != nil {
			return nil, err
		}
		sc, err := readSchema(ctx, s.db)
		if isCode(err, sqlite3.SQLITE_READONLY_DIRECTORY, sqlite3.SQLITE_READONLY_CANTINIT, sqlite3.SQLITE_CANTOPEN) && !hasWAL(path) {
			// In a directory it may not write, SQLite cannot create the
			// -shm file a WAL store is read through. No -wal file holds
			// writes to replay, and a writer would have to create one in
			// that directory too (only its owner or root can), so the file
			// is read as it is, without locks.
			s.db.Close()
			if s, err = openDB(path, modeImmutable); err != nil {
				return nil, err
			}
			sc, err = readSchema(ctx, s.db)
		}
		if err == nil {
			err = sc.check()
		}
		if err == nil && sc.empty() {
			err = ErrNoStore
		}
		if err != nil || sc.version == len(migrations) || upgraded {
			if err != nil {
				s.db.Close()
				return nil, fmt.Errorf("open store %s: %w", path, describe(err))
			}
			return s, nil
		}
		s.db.Close()
		w, err := OpenWith(ctx, path, OpenOptions{MustExist: true})
		if errors.Is(err, ErrReadOnly) {
			return nil, fmt.Errorf("open store %s: its schema v%d is older than this memgate's v%d, and it cannot be upgraded because %w; "+
				"open it once where it is writable (any memgate command upgrades it)", path, sc.version, len(migrations), ErrReadOnly)
		}
		if err != nil {
			return nil, err
		}
		w.Close()
	}
}

// openMode is how openDB opens a store's file.
type openMode int

const (
	modeReadWrite openMode = iota
	modeReadOnly           // mode=ro and query_only
	modeImmutable          // read-only, and SQLite takes no locks and reads no WAL
)

// openDB opens the connection pool; SQLite opens files lazily, so errors
// about the file show up on first use.
func openDB(path string, mode openMode) (*Store, error) {
	conn, err := sqlite.NewConnector(dsn(path, mode, "&_pragma=synchronous(FULL)"))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(8)
	s := &Store{db: db, path: path, readOnly: mode != modeReadWrite, cache: newRecordCache()}
	s.stmts.db = db
	return s, nil
}

// dsn is the driver's name for the store at path, opened as mode says;
// pragmas (the synchronous setting, at least) are added to those of a
// writable connection.
func dsn(path string, mode openMode, pragmas string) string {
	// The path goes into a file: URI, where SQLite decodes %XX and the
	// driver splits at '?'.
	uri := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.Clean(path))
	busy := fmt.Sprintf("&_pragma=busy_timeout(%d)", BusyTimeout.Milliseconds())
	switch mode {
	case modeReadOnly:
		return uri + "?mode=ro" + busy + "&_query_only=1"
	case modeImmutable:
		return uri + "?mode=ro&immutable=1" + busy + "&_query_only=1"
	}
	return uri + "?_txlock=immediate" + busy +
		"&_pragma=foreign_keys(1)&_pragma=secure_delete(1)" + pragmas
}

// isCode reports whether err is a SQLite error with one of the given
// (extended) result codes.
func isCode(err error, codes ...int) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && slices.Contains(codes, se.Code())
}

// hasWAL reports whether the store has a write-ahead log with content.
func hasWAL(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err == nil && fi.Size() > 0
}

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// checkHeader refuses a non-empty file that is not SQLite before the driver
// sees it, since drivers report that only on first use and vaguely, and
// anything that is not a regular file, before opening it: opening a named
// pipe to read waits for a writer, for ever. It reports whether there is a
// non-empty file at path.
func checkHeader(path string) (bool, error) {
	// SQLite opens the journal, the log and its index beside the file by
	// their names too, beside the file a link names if path is one: a
	// named pipe there would block it for good.
	bases := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		bases = append(bases, real)
	}
	for _, base := range bases {
		for _, side := range []string{"-journal", "-wal", "-shm"} {
			if err := besideStore(path, base+side); err != nil {
				return false, err
			}
		}
	}
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return false, nil // OpenWith says why it cannot be created
	}
	if err != nil {
		return false, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := regular(path, fi); err != nil {
		return false, err
	}
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("open store %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil { // what was opened, should path have changed meanwhile
		if err := regular(path, fi); err != nil {
			return false, err
		}
	}
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF || err == nil) {
		return false, nil // an empty file becomes a new store
	}
	if n < 16 || !bytes.Equal(head, []byte("SQLite format 3\x00")) {
		return false, fmt.Errorf("open store %s: not a memgate store (the file is not a SQLite database)", path)
	}
	return true, nil
}

// regular refuses fi, the file at path, unless it is a regular file: a
// directory, or a device or a pipe (/dev/null), which would read as an
// empty new store, with SQLite's journal created beside it. The error says
// what it is, and names no flag: the path may come from --db, --store,
// migrate's --from or --to, or a program.
func regular(path string, fi os.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("open store %s: it is %s, not a regular file (a store is one file, such as memgate.db)", path, kindOf(fi.Mode()))
}

// besideStore checks a file SQLite keeps beside the store at path (its
// journal, log or log index, name): none, or a regular file, or a link
// to one.
func besideStore(path, name string) error {
	li, err := os.Lstat(name)
	if err != nil {
		return nil // none (or SQLite's to report)
	}
	fi, err := os.Stat(name)
	switch {
	case err != nil && li.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("open store %s: %s beside it is a link to nothing: remove it", path, name)
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("open store %s: %s beside it is %s, not a regular file: remove it", path, name, kindOf(fi.Mode()))
	}
	return nil
}

// kindOf names what a file that is not a regular one is.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "something else"
}

// describe turns SQLite's result codes about the file and the storage under
// it into a sentence a user can act on. The sentence wraps one of the
// package's errors (ErrReadOnly, …) and SQLite's own error; it replaces any
// error it was wrapped in, such as an *ItemError, since a full disk is not
// the fault of the row being written.
func describe(err error) error {
	if err == nil {
		return nil
	}
	for _, known := range []error{ErrReadOnly, ErrDiskFull, ErrBusy, ErrCantOpen} {
		if errors.Is(err, known) {
			return err // described already
		}
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("not a memgate store (the file is not a SQLite database): %w", err)
	case sqlite3.SQLITE_CORRUPT:
		return fmt.Errorf("the database file is corrupt; restore it from a backup or export what `memgate export` can still read: %w", err)
	case sqlite3.SQLITE_READONLY:
		return fmt.Errorf("%w: nothing was written; make the store's file and its directory writable "+
			"(SQLite also writes the -wal and -shm files beside it), or only read it (SQLite: %w)", ErrReadOnly, se)
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("%w: nothing was written; free some space and retry (SQLite: %w)", ErrDiskFull, se)
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w for more than %s; nothing was done; retry when the other process has finished (SQLite: %w)",
			ErrBusy, BusyTimeout, se)
	case sqlite3.SQLITE_CANTOPEN:
		return fmt.Errorf("%w: check that it and its directory exist and that you may read them, and write them for a command that writes "+
			"(SQLite keeps -wal and -shm files beside the store) (SQLite: %w)", ErrCantOpen, se)
	case sqlite3.SQLITE_IOERR:
		return fmt.Errorf("the file system failed to read or write the store; check the disk and retry (SQLite: %w)", se)
	}
	return err
}

// schemaState is what a connection sees of the schema.
type schemaState struct{ appID, version, objects int }

// empty says the file holds no schema at all: a new store.
func (sc schemaState) empty() bool { return sc.version == 0 && sc.appID == 0 && sc.objects == 0 }

// check refuses files that are not memgate stores this build can read.
func (sc schemaState) check() error {
	switch {
	case sc.appID == 0 && sc.objects > 0:
		return errors.New("not a memgate store (a SQLite database of another program)")
	case sc.appID != 0 && sc.appID != applicationID:
		return fmt.Errorf("not a memgate store (SQLite application id %#x)", sc.appID)
	case sc.version > len(migrations):
		return fmt.Errorf("store schema v%d was written by a newer memgate; this build reads up to v%d", sc.version, len(migrations))
	}
	return nil
}

type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readSchema(ctx context.Context, q rowQueryer) (schemaState, error) {
	var sc schemaState
	err := q.QueryRowContext(ctx, `SELECT (SELECT application_id FROM pragma_application_id),
		(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)`).
		Scan(&sc.appID, &sc.version, &sc.objects)
	return sc, err
}

// migrate brings the schema up to date and the file into WAL mode. Several
// processes may do it at once: the schema is read again inside an
// immediate transaction, which only one connection holds at a time, so the
// one that waited sees what the other created and does nothing.
func (s *Store) migrate(ctx context.Context, mustExist bool) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	sc, err := readSchema(ctx, conn)
	if err != nil {
		return err
	}
	if err := sc.check(); err != nil {
		return err
	}
	if mustExist && sc.empty() {
		return ErrNoStore
	}
	// Only now that the file is known to be ours (or new) may its journal
	// mode change.
	if err := enableWAL(ctx, conn); err != nil {
		return err
	}
	if sc.version == len(migrations) {
		return nil
	}
	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if sc, err = readSchema(ctx, tx); err != nil {
		return err
	}
	if err := sc.check(); err != nil {
		return err
	}
	if mustExist && sc.empty() {
		return ErrNoStore
	}
	if sc.version == len(migrations) {
		return nil // another connection migrated it while this one waited
	}
	for v := sc.version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate schema to v%d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, len(migrations))); err != nil {
		return fmt.Errorf("migrate schema to v%d: %w", len(migrations), err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate schema to v%d: %w", len(migrations), err)
	}
	return nil
}

// enableWAL switches the file to WAL mode, which then persists in the file.
// The switch needs a moment of exclusive access; when another process holds
// the file, SQLite's busy handler waits for it, and a switch that still
// fails with SQLITE_BUSY is retried until the busy timeout.
func enableWAL(ctx context.Context, conn *sql.Conn) error {
	deadline := time.Now().Add(BusyTimeout)
	for {
		var mode string
		err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
		if err == nil && strings.EqualFold(mode, "wal") {
			return nil
		}
		if err == nil {
			err = conn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
			if err == nil && strings.EqualFold(mode, "wal") {
				return nil
			}
			if err == nil {
				return fmt.Errorf("switch to WAL mode: SQLite kept journal mode %q", mode)
			}
		}
		var se *sqlite.Error
		if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return fmt.Errorf("switch to WAL mode: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
