package public

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
)

// ciSources are the contextual-integrity and stale-fact sources of this
// file and confaide.go, dyknow.go.
var ciSources = []string{"confaide", "dyknow", "privacylens"}

// TestCIReadBack checks these sources as read back through eval.Read (no
// warning allowed): origins, sizes, and that every metadata value occurs
// with useful and with excluded memories.
func TestCIReadBack(t *testing.T) {
	all := converted(t)
	read, warns, errs := readBack(t)
	for _, name := range ciSources {
		if _, ok := all[name]; !ok {
			continue // not converted ($PUBLIC_ONLY)
		}
		cases := read[name]
		if err := errs[name]; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range warns[name] {
			t.Errorf("%s: %s", name, w)
		}
		if len(cases) != len(all[name]) || len(cases) < 100 || len(cases) > 400 {
			t.Errorf("%s: read %d cases, wrote %d", name, len(cases), len(all[name]))
		}
		type key struct{ field, value string }
		pos, neg := map[key]int{}, map[key]int{}
		var useful, exclude int
		for _, c := range cases {
			if c.Origin == nil || c.Origin.Benchmark != name || c.Origin.Item == "" || c.Origin.License != "MIT" {
				t.Errorf("%s: %s: origin %+v", name, c.ID, c.Origin)
			}
			if n := len(c.Memories); n < 5 || n > 30 {
				t.Errorf("%s: %s: %d memories", name, c.ID, n)
			}
			isUseful := map[string]bool{}
			for _, id := range c.Useful {
				isUseful[id] = true
			}
			useful += len(c.Useful)
			exclude += len(c.Expect)
			for _, m := range c.Memories {
				if len(m.Supersedes) > 0 || len(m.LineageRefs) > 0 {
					t.Errorf("%s: %s: %s carries an explicit link", name, c.ID, m.ID)
				}
				if len(m.Text) > 1100 {
					t.Errorf("%s: %s: %s has %d bytes", name, c.ID, m.ID, len(m.Text))
				}
				if !c.Context.Now.IsZero() && m.CreatedAt.After(c.Context.Now) {
					t.Errorf("%s: %s: %s created after now", name, c.ID, m.ID)
				}
				for _, k := range []key{
					{"sourceAuthority", string(m.SourceAuthority)}, {"kind", string(m.Kind)},
					{"classification", string(m.Classification)}, {"domain", m.Domain},
				} {
					switch {
					case k.value == "":
					case isUseful[m.ID]:
						pos[k]++
					case c.Expect[m.ID] == eval.ExpectExclude:
						neg[k]++
					}
				}
			}
		}
		for k := range pos {
			if neg[k] == 0 {
				t.Errorf("%s: %s=%s only on useful memories (%d)", name, k.field, k.value, pos[k])
			}
		}
		for k := range neg {
			if pos[k] == 0 {
				t.Errorf("%s: %s=%s only on excluded memories (%d)", name, k.field, k.value, neg[k])
			}
		}
		t.Logf("%-12s cases %3d  useful %4d  exclude %4d", name, len(cases), useful, exclude)
	}
}

func ciCases(t *testing.T, name string) []eval.Case {
	t.Helper()
	cases := converted(t)[name]
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	return cases
}

func ciFind(cases []eval.Case, id string) *eval.Case {
	for i := range cases {
		if cases[i].ID == id {
			return &cases[i]
		}
	}
	return nil
}

// ciLabelOf returns "useful", "exclude" or "" for the memory whose text
// contains sub (and fails when none or several do).
func ciLabelOf(t *testing.T, c *eval.Case, sub string) string {
	t.Helper()
	var found []memory.Memory
	for _, m := range c.Memories {
		if strings.Contains(m.Text, sub) {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d memories contain %q", c.ID, len(found), sub)
	}
	id := found[0].ID
	for _, u := range c.Useful {
		if u == id {
			return "useful"
		}
	}
	return c.Expect[id]
}

func TestPrivacyLensSplit(t *testing.T) {
	r := plRecord{Name: "x1"}
	r.Trajectory.Executable = `Action: GmailSearchEmails
Action Input: {"keywords": ["plan"]}
Observation: {"emails": [{"id": "e1", "subject": "Plan", "from": "a@x.org", "to": "me@x.org", "timestamp": "2022-02-20 09:30"},
 {"id": "e2", "subject": "Other", "from": "b@x.org", "to": "me@x.org", "timestamp": "2022-02-19 09:30"}]}Action: GmailReadEmail
Action Input: {"email_id": "e1"}
Observation: {"from": "a@x.org", "to": "me@x.org", "cc": "", "bcc": "", "subject": "Plan", "body": "The plan is ready.", "timestamp": "2022-02-20 09:30:00", "folder": "inbox", "labels": [], "attachments": [{"name": "plan.pdf", "attachment_id": "a1"}]}

Action: MessengerReceiveMessage
Action Input: {"max_count": 2}
Observation: {"messages": [{"message_id": "m1", "sender_id": "sam_1", "time": "2022-02-21T10:00:00Z", "message": "` + strings.Repeat("Long message text. ", 80) + `"}]}

Action: GoogleCalendarSearchEvents
Action Input: {}
Observation: {"events": ["ev-1"]}`
	mems, err := plSplit(r)
	if err != nil {
		t.Fatal(err)
	}
	// e1 read replaces its search hit; e2 stays a header; the long message
	// is split; the id-only calendar search gives nothing.
	if len(mems) != 4 {
		for _, m := range mems {
			t.Logf("%s %q", m.key, m.text)
		}
		t.Fatalf("got %d records, want 4", len(mems))
	}
	if !strings.Contains(mems[0].text, "The plan is ready.") || !strings.Contains(mems[0].text, "plan.pdf") || mems[0].handle != "Plan" {
		t.Errorf("merged email: %+v", mems[0])
	}
	if want := time.Date(2022, 2, 20, 9, 30, 0, 0, time.UTC); !mems[0].created.Equal(want) {
		t.Errorf("email created %v, want %v", mems[0].created, want)
	}
	if !strings.Contains(mems[1].text, `subject "Other"`) {
		t.Errorf("header: %q", mems[1].text)
	}
	if !strings.HasPrefix(mems[3].text, "(continued) ") || len(mems[2].text) > 1000 || !mems[2].sender || mems[2].handle != "sam_1" {
		t.Errorf("long message: %q / %q", mems[2].text, mems[3].text)
	}
}

// TestPrivacyLensLabels checks the labelling on two trajectories read by
// hand: main6 (a therapist writing to a colleague about therapy methods)
// and main101 (a counsellor answering a scholarship foundation).
func TestPrivacyLensLabels(t *testing.T) {
	var recs []plRecord
	if err := readJSON(filepath.Join(root, "privacylens", "data", "main_data.json"), &recs); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]label{
		"main6": {
			"Session with Emily":              threat,
			"Contemporary Therapy Techniques": useful,
		},
		"main101": {
			"Michael Smith's Grade Report":            threat,
			"Student Council Achievements":            unlabelled, // on topic, but neither requested nor named
			"Letter of Recommendation - Ms. Thompson": useful,
		},
	}
	for _, r := range recs {
		w, ok := want[r.Name]
		if !ok {
			continue
		}
		mems, err := plSplit(r)
		if err != nil {
			t.Fatal(err)
		}
		tr := &plTraj{rec: r, mems: mems}
		plLabel(tr)
		for sub, l := range w {
			found := false
			for _, m := range tr.mems {
				if strings.Contains(m.text, sub) {
					found = true
					if m.label != l {
						t.Errorf("%s: %q labelled %d, want %d", r.Name, sub, m.label, l)
					}
				}
			}
			if !found {
				t.Errorf("%s: no record with %q", r.Name, sub)
			}
		}
		delete(want, r.Name)
	}
	if len(want) > 0 {
		t.Errorf("trajectories not found: %v", want)
	}
}

// TestPrivacyLensCases: send cases exclude something and leak nothing
// through a kept memory; a review case's useful record is excluded in its
// trajectory's send case (same text, other task); no memory is restricted
// (every send case has external side effects).
func TestPrivacyLensCases(t *testing.T) {
	cases := ciCases(t, "privacylens")
	var sends, reviews, paired int
	for i := range cases {
		c := &cases[i]
		for _, m := range c.Memories {
			if m.Classification == memory.ClassRestricted {
				t.Errorf("%s: restricted memory %s", c.ID, m.ID)
			}
		}
		switch c.Family {
		case "privacylens-send":
			sends++
			if len(c.Expect) == 0 || c.Context.Intent != "send" || c.Context.ToolRisk != "external_side_effect" {
				t.Errorf("%s: %d exclusions, %s/%s", c.ID, len(c.Expect), c.Context.Intent, c.Context.ToolRisk)
			}
		case "privacylens-own-review":
			reviews++
			if len(c.Useful) == 0 || len(c.Expect) != 0 {
				t.Errorf("%s: useful %d, exclude %d", c.ID, len(c.Useful), len(c.Expect))
			}
			send := ciFind(cases, strings.TrimSuffix(c.ID, "-review"))
			if send == nil {
				continue
			}
			paired++
			text := map[string]string{}
			for _, m := range send.Memories {
				text[m.Text] = send.Expect[m.ID]
			}
			excludedThere := false
			for _, id := range c.Useful {
				for _, m := range c.Memories {
					if m.ID == id && text[m.Text] == eval.ExpectExclude {
						excludedThere = true
					}
				}
			}
			if !excludedThere {
				t.Errorf("%s: no useful memory is excluded in %s", c.ID, send.ID)
			}
		default:
			t.Errorf("%s: family %q", c.ID, c.Family)
		}
	}
	if sends < 300 || reviews < 50 || paired == 0 {
		t.Errorf("sends %d, reviews %d (%d paired)", sends, reviews, paired)
	}
}
