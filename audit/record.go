package audit

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/memgate/memgate/admit"
)

// Event is one record of the append-only audit trail. Stores assign Seq, a
// number that grows with every event appended, and never change an event
// once it is appended.
type Event struct {
	Seq         int64     `json:"seq"`
	Kind        Kind      `json:"kind"`
	At          time.Time `json:"at"`
	TaskID      string    `json:"taskId,omitempty"`
	UserID      string    `json:"userId,omitempty"`
	PrincipalID string    `json:"principalId,omitempty"`
	// SearchID links a decision, injection or binding to the search event
	// of its admission (the search's own Seq).
	SearchID int64  `json:"searchId,omitempty"`
	MemoryID string `json:"memoryId,omitempty"`
	// Decision is a decision event's admit.Decision, a binding's verdict
	// or a review's status.
	Decision string `json:"decision,omitempty"`
	// Payload is the kind's details as JSON: see DecisionPayload and
	// ChangePayload; the other kinds' payloads are documented in
	// docs/admission.md.
	Payload json.RawMessage `json:"payload"`
}

// Filter selects audit events; zero fields match everything.
type Filter struct {
	Kind     Kind
	TaskID   string
	UserID   string
	MemoryID string
	Decision string
	// SearchID selects one admission: its search event and the events
	// linked to it.
	SearchID int64
	After    int64 // sequence number to continue after
	Limit    int   // 0 means no limit
}

// Matches reports whether ev passes f, ignoring After and Limit. Stores that
// filter in Go (rather than in a query) use it so every store agrees.
func (f *Filter) Matches(ev *Event) bool {
	switch {
	case f.Kind != "" && ev.Kind != f.Kind,
		f.TaskID != "" && ev.TaskID != f.TaskID,
		f.UserID != "" && ev.UserID != f.UserID,
		f.MemoryID != "" && ev.MemoryID != f.MemoryID,
		f.Decision != "" && ev.Decision != f.Decision,
		f.SearchID != 0 && ev.SearchID != f.SearchID && ev.Seq != f.SearchID:
		return false
	}
	return true
}

// DecisionPayload is what the audit trail keeps of one candidate's decision,
// beside the event's Decision and MemoryID.
type DecisionPayload struct {
	Reasons     []admit.Reason    `json:"reasons"`
	Constraints admit.Constraints `json:"constraints"`
	Scores      admit.Scores      `json:"scores"`
	// GateOnly: decided over a candidate the caller supplied; Bind ignores
	// it, so a caller cannot relabel a stored memory by sending its id.
	GateOnly bool `json:"gateOnly,omitempty"`
}

// Decided is one decision event, decoded: what Bind needs of a task's
// admissions.
type Decided struct {
	Seq      int64
	SearchID int64
	MemoryID string
	Decision admit.Decision
	DecisionPayload
}

// DecodeDecision decodes a decision event.
func DecodeDecision(ev *Event) (Decided, error) {
	if ev.Kind != Decision {
		return Decided{}, fmt.Errorf("audit event %d is a %s event, not a decision", ev.Seq, ev.Kind)
	}
	d := Decided{Seq: ev.Seq, SearchID: ev.SearchID, MemoryID: ev.MemoryID, Decision: admit.Decision(ev.Decision)}
	if err := json.Unmarshal(ev.Payload, &d.DecisionPayload); err != nil {
		return Decided{}, fmt.Errorf("audit event %d: decision payload: %w", ev.Seq, err)
	}
	return d, nil
}

// Admission is everything one admission records, written by a store in one
// transaction: its search event, one decision event per candidate, and the
// quarantined candidates for review. The store assigns the search event's
// Seq, links the decisions and queue items to it (their SearchID), and
// returns it.
type Admission struct {
	Search     Event
	Decisions  []Event
	Quarantine []QuarantineItem
}

// Check reports an admission a store must refuse: events of the wrong kinds
// or users, quarantine items for memories that were not decided.
func (a *Admission) Check() error {
	if a.Search.Kind != Search {
		return fmt.Errorf("admission: first event is a %q event, want %q", a.Search.Kind, Search)
	}
	decided := make(map[string]bool, len(a.Decisions))
	for i := range a.Decisions {
		d := &a.Decisions[i]
		if d.Kind != Decision {
			return fmt.Errorf("admission: decision %d is a %q event", i, d.Kind)
		}
		if d.UserID != a.Search.UserID || d.TaskID != a.Search.TaskID {
			return fmt.Errorf("admission: decision %d is for user %q task %q, the search for user %q task %q",
				i, d.UserID, d.TaskID, a.Search.UserID, a.Search.TaskID)
		}
		decided[d.MemoryID] = true
	}
	for i, q := range a.Quarantine {
		if !decided[q.MemoryID] || q.UserID != a.Search.UserID {
			return fmt.Errorf("admission: quarantine item %d (memory %q) was not decided in this admission", i, q.MemoryID)
		}
	}
	return nil
}

// ChangePayload is the payload of a revoke or forget event.
type ChangePayload struct {
	Reason string `json:"reason"`
}

// ChangeEvent is the audit event of a revocation or forgetting, built once
// for every store.
func ChangeEvent(kind Kind, at time.Time, userID, memoryID, principalID, reason string) Event {
	p, _ := json.Marshal(ChangePayload{Reason: reason})
	return Event{Kind: kind, At: at.UTC(), UserID: userID, MemoryID: memoryID, PrincipalID: principalID, Payload: p}
}

// VerdictPayload is the payload of a reviewer's verdict event.
type VerdictPayload struct {
	ReviewItem int64  `json:"reviewItem"`
	Verdict    string `json:"verdict"`
	Reviewer   string `json:"reviewer"`
	Note       string `json:"note"`
}

// Review statuses of a quarantine item.
const (
	Pending  = "pending"
	Approved = "approved"
	Rejected = "rejected"
)

// QuarantineItem is one quarantined memory awaiting (or given) a verdict.
type QuarantineItem struct {
	Seq       int64           `json:"id"`
	MemoryID  string          `json:"memoryId"`
	UserID    string          `json:"userId"`
	TaskID    string          `json:"taskId,omitempty"`
	SearchID  int64           `json:"searchId,omitempty"`
	At        time.Time       `json:"at"`
	Query     string          `json:"query,omitempty"`
	Context   json.RawMessage `json:"context"`
	Reasons   json.RawMessage `json:"reasons"`
	Status    string          `json:"status"` // Pending, Approved or Rejected
	Reviewer  string          `json:"reviewer,omitempty"`
	VerdictAt time.Time       `json:"verdictAt,omitzero"`
	Note      string          `json:"note,omitempty"`
}

// QueueFilter selects review items; zero fields match everything.
type QueueFilter struct {
	Status string // Pending, Approved, Rejected or "" for all
	UserID string
	Limit  int // 0 means no limit
}

// Review is a reviewer's verdict on a quarantined memory.
type Review struct {
	Item     int64
	Approve  bool
	Reviewer string
	Note     string
	At       time.Time
}

// Status is the review status the verdict sets, and Label the training
// label it gives the example it creates.
func (v *Review) Status() (status, label string) {
	if v.Approve {
		return Approved, "admit"
	}
	return Rejected, "exclude"
}

// Event is the audit event of the verdict on item it.
func (v *Review) Event(it *QuarantineItem) Event {
	status, _ := v.Status()
	p, _ := json.Marshal(VerdictPayload{ReviewItem: v.Item, Verdict: status, Reviewer: v.Reviewer, Note: v.Note})
	return Event{Kind: Verdict, At: v.At.UTC(), TaskID: it.TaskID, UserID: it.UserID, PrincipalID: v.Reviewer,
		MemoryID: it.MemoryID, Decision: status, Payload: p}
}

// Example is a labelled admission example from a reviewer's verdict.
type Example struct {
	MemoryID string          `json:"memoryId"`
	Query    string          `json:"query,omitempty"`
	Context  json.RawMessage `json:"context"`
	Label    string          `json:"label"` // admit or exclude
	Source   string          `json:"source"`
	At       time.Time       `json:"at"`
}
