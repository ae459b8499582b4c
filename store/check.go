package store

import (
	"errors"
	"fmt"
	"slices"

	"github.com/memgate/memgate/memory"
)

// Owner is whose memory an id is, and whether it was forgotten (an id
// stays taken by its tombstone).
type Owner struct {
	UserID    string
	Forgotten bool
}

// CheckInsert is the check every store's CheckBatch and Insert run, so
// that all of them report the same problems in the same order with the same
// messages: memories without an id, creation time or embedding, invalid
// ones, ids repeated in the batch, ids already taken (a taken id reads the
// same whoever holds it and whether or not it was forgotten), and lineage
// or supersedes naming an id that is neither in the batch nor stored or
// forgotten for the same user (another user's memory reads like a missing
// one). owners looks up, in one call, whose memories ids are; an id it
// leaves out is unknown. Problems come back as ItemErrors sorted by index,
// a failure of owners as it is. It returns, for each memory, whether an
// insert with ConflictSkip leaves it alone (its id is stored for its user).
func CheckInsert(ms []memory.Memory, onConflict OnConflict, owners func(ids []string) (map[string]Owner, error)) ([]bool, error) {
	var errs ItemErrors
	fail := func(i int, err error) { errs = append(errs, &ItemError{Index: i, ID: ms[i].ID, Err: err}) }
	batch := make(map[string]int, len(ms))
	for i := range ms {
		m := &ms[i]
		if m.ID == "" || m.CreatedAt.IsZero() || len(m.Embedding) == 0 {
			fail(i, errors.New("id, createdAt and embedding must be set before insert"))
			continue
		}
		if err := m.Validate(); err != nil {
			fail(i, err)
		}
		if j, dup := batch[m.ID]; dup {
			fail(i, &RepeatError{ID: m.ID, First: j})
			continue
		}
		batch[m.ID] = i
	}
	// Every id to look up: the batch's own and the references outside it.
	var lookup []string
	wanted := map[string]bool{}
	want := func(id string) {
		if !wanted[id] {
			wanted[id] = true
			lookup = append(lookup, id)
		}
	}
	for i := range ms {
		if ms[i].ID != "" {
			want(ms[i].ID)
		}
		for _, refs := range [][]string{ms[i].LineageRefs, ms[i].Supersedes} {
			for _, ref := range refs {
				if _, inBatch := batch[ref]; !inBatch {
					want(ref)
				}
			}
		}
	}
	found, err := owners(lookup)
	if err != nil {
		return nil, err
	}

	skip := make([]bool, len(ms))
	for i := range ms {
		m := &ms[i]
		if m.ID == "" {
			continue
		}
		o, ok := found[m.ID]
		switch {
		case ok && onConflict == ConflictSkip && !o.Forgotten && o.UserID == m.UserID:
			skip[i] = true
		case ok:
			fail(i, &TakenError{ID: m.ID})
		}
	}
	for i := range ms {
		m := &ms[i]
		if skip[i] {
			continue
		}
		// check returns the first reference of refs that is not a memory of
		// m's user.
		check := func(field string, refs []string) error {
			for j, ref := range refs {
				if k, inBatch := batch[ref]; inBatch {
					if ms[k].UserID == m.UserID {
						continue
					}
				} else if o, ok := found[ref]; ok && o.UserID == m.UserID {
					continue
				}
				return &memory.FieldError{Field: fmt.Sprintf("%s[%d]", field, j),
					Problem: fmt.Sprintf("unknown memory id %q (it must name a memory of user %q)", ref, m.UserID)}
			}
			return nil
		}
		if err := check("lineageRefs", m.LineageRefs); err != nil {
			fail(i, err)
		} else if err := check("supersedes", m.Supersedes); err != nil {
			fail(i, err)
		}
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *ItemError) int { return a.Index - b.Index })
		return nil, errs
	}
	return skip, nil
}
