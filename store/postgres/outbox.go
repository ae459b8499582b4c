package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memgate/memgate/store"
)

var _ store.Outbox = (*Store)(nil)

// EnableOutbox sets the meta key that makes the triggers of schema v4
// record every change of a memory in index_outbox; its value is the
// consumer.
func (s *Store) EnableOutbox(ctx context.Context, consumer string, takeOver bool) error {
	if s.readOnly {
		return fmt.Errorf("enable the index outbox: %w", store.ErrReadOnly)
	}
	var taken *store.OutboxTakenError
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.drainLock); err != nil {
			return err
		}
		var have string
		err := tx.QueryRow(ctx, "SELECT value FROM meta WHERE key = 'index_outbox'").Scan(&have)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		case have == consumer:
			return nil
		case !takeOver:
			taken = &store.OutboxTakenError{Consumer: have, Asked: consumer}
			return taken
		}
		_, err = tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('index_outbox', $1)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, consumer)
		return err
	})
	if taken != nil {
		return taken
	}
	if err != nil {
		return fmt.Errorf("enable the index outbox: %w", describe(err))
	}
	return nil
}

// DrainOutbox takes up to max records in one transaction that holds the
// drain lock (a transaction-scoped advisory lock, freed if the process
// dies), calls apply, and deletes exactly the records it took: a record
// committed meanwhile with a smaller seq is not lost, it waits for the next
// drain.
func (s *Store) DrainOutbox(ctx context.Context, consumer string, max int, apply func(context.Context, []store.OutboxRecord) error) (int, error) {
	if max <= 0 {
		return 0, fmt.Errorf("drain the index outbox: max is %d, want > 0", max)
	}
	if s.readOnly {
		return 0, fmt.Errorf("drain the index outbox: %w", store.ErrReadOnly)
	}
	var applyErr error
	n := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		n = 0
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.drainLock); err != nil {
			return err
		}
		var have string
		if err := tx.QueryRow(ctx, "SELECT coalesce((SELECT value FROM meta WHERE key = 'index_outbox'), '')").Scan(&have); err != nil {
			return err
		}
		if have != consumer {
			applyErr = &store.OutboxTakenError{Consumer: have, Asked: consumer}
			return applyErr
		}
		rows, err := tx.Query(ctx, "SELECT seq, user_id, memory_id FROM index_outbox ORDER BY seq LIMIT $1", max)
		if err != nil {
			return err
		}
		recs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.OutboxRecord, error) {
			var rec store.OutboxRecord
			err := r.Scan(&rec.Seq, &rec.UserID, &rec.MemoryID)
			return rec, err
		})
		if err != nil || len(recs) == 0 {
			return err
		}
		if applyErr = apply(ctx, recs); applyErr != nil {
			return applyErr
		}
		seqs := make([]int64, len(recs))
		for i, r := range recs {
			seqs[i] = r.Seq
		}
		if _, err := tx.Exec(ctx, "DELETE FROM index_outbox WHERE seq = ANY($1)", seqs); err != nil {
			return err
		}
		n = len(recs)
		return nil
	})
	if applyErr != nil {
		return 0, applyErr
	}
	if err != nil {
		return 0, fmt.Errorf("drain the index outbox: %w", describe(err))
	}
	return n, nil
}

// HoldOutbox runs fn in a transaction that holds the drain lock; fn does
// its own reads and writes (the transaction only holds the lock).
func (s *Store) HoldOutbox(ctx context.Context, fn func(context.Context) error) error {
	var fnErr error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.drainLock); err != nil {
			return err
		}
		fnErr = fn(ctx)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("hold the index outbox: %w", describe(err))
	}
	return nil
}

// StopOutbox removes the outbox's consumer, which the triggers read, and
// its pending records, in one transaction that holds the drain lock.
func (s *Store) StopOutbox(ctx context.Context) (int, error) {
	if s.readOnly {
		return 0, fmt.Errorf("stop the index outbox: %w", store.ErrReadOnly)
	}
	n := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.drainLock); err != nil {
			return err
		}
		// Wait for the writes in flight, whose triggers may have seen the
		// outbox enabled, and keep new ones out until this commits.
		if _, err := tx.Exec(ctx, "LOCK TABLE memories IN SHARE MODE"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM meta WHERE key = 'index_outbox'"); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "DELETE FROM index_outbox")
		n = int(tag.RowsAffected())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("stop the index outbox: %w", describe(err))
	}
	return n, nil
}

// OutboxLag counts the pending records and ages the oldest by the server's
// clock.
func (s *Store) OutboxLag(ctx context.Context) (store.OutboxState, error) {
	var st store.OutboxState
	var oldestNanos *int64
	var consumer *string
	err := s.pool.QueryRow(ctx, `SELECT (SELECT value FROM meta WHERE key = 'index_outbox'),
		(SELECT count(*) FROM index_outbox),
		(SELECT (extract(epoch FROM clock_timestamp()) * 1000000000)::int8 - min(recorded_at) FROM index_outbox)`).
		Scan(&consumer, &st.Pending, &oldestNanos)
	if err != nil {
		return st, fmt.Errorf("read the index outbox: %w", describe(err))
	}
	if consumer != nil {
		st.Enabled, st.Consumer = true, *consumer
	}
	if oldestNanos != nil && *oldestNanos > 0 {
		st.Oldest = time.Duration(*oldestNanos)
	}
	return st, nil
}
