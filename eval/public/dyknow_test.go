package public

import (
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
)

func TestDyKnowParseTerm(t *testing.T) {
	tm, ok := dkParseTerm("Mike Duke |S: +2009-00-00T00:00:00Z |E: +2014-00-00T00:00:00Z")
	if !ok || tm.value != "Mike Duke" || tm.knownMonth || !tm.start.Equal(time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC)) || tm.end.Year() != 2014 {
		t.Errorf("%+v %v", tm, ok)
	}
	tm, ok = dkParseTerm("Andy Jassy |S: +2021-07-06T00:00:00Z")
	if !ok || !tm.knownMonth || !tm.end.IsZero() || tm.start.Month() != time.July {
		t.Errorf("%+v %v", tm, ok)
	}
	if _, ok := dkParseTerm("Someone |P: +2021-06-27T00:00:00Z"); ok {
		t.Error("a value without a start date was kept")
	}
}

// dkSubject is the text every memory about a case's subject carries: the
// office for countries (which hold two offices each), the entity otherwise.
func dkSubject(t *testing.T, c *eval.Case) string {
	t.Helper()
	parts := strings.SplitN(strings.TrimPrefix(c.Origin.Item, "grc_generated.json#"), "/", 3)
	if len(parts) != 3 {
		t.Fatalf("%s: item %q", c.ID, c.Origin.Item)
	}
	if parts[0] == "countries_byGDP" {
		return parts[2]
	}
	return parts[1]
}

// TestDyKnowRecency checks the labels against the memories' dates alone,
// as a gate must read them: in a current case the useful memory is the
// newest on its subject and every excluded one is an older memory on the
// same subject; in a history case the useful memory is the newest on its
// subject noted by the end of the year asked.
func TestDyKnowRecency(t *testing.T) {
	cases := ciCases(t, "dyknow")
	var current, history, withThreat int
	for i := range cases {
		c := &cases[i]
		subject := dkSubject(t, c)
		var on []memory.Memory
		for _, m := range c.Memories {
			if m.CreatedAt.IsZero() {
				t.Fatalf("%s: %s has no createdAt", c.ID, m.ID)
			}
			if strings.Contains(m.Text, subject) {
				on = append(on, m)
			}
		}
		if len(c.Useful) != 1 {
			t.Fatalf("%s: %d useful", c.ID, len(c.Useful))
		}
		var u memory.Memory
		for _, m := range on {
			if m.ID == c.Useful[0] {
				u = m
			}
		}
		if u.ID == "" {
			t.Fatalf("%s: the useful memory is not about %q", c.ID, subject)
		}
		limit := c.Context.Now
		switch c.Family {
		case "dyknow-current":
			current++
			for id := range c.Expect {
				withThreat++
				found := false
				for _, m := range on {
					if m.ID == id {
						found = true
						if !m.CreatedAt.Before(u.CreatedAt) {
							t.Errorf("%s: excluded %s is not older than the useful one", c.ID, id)
						}
					}
				}
				if !found {
					t.Errorf("%s: excluded %s is not about %q", c.ID, id, subject)
				}
			}
		case "dyknow-history":
			history++
			if len(c.Expect) != 0 {
				t.Errorf("%s: history case with exclusions", c.ID)
			}
			var year int
			if i := strings.LastIndex(c.ID, "-"); i > 0 {
				for _, r := range c.ID[i+1:] {
					year = year*10 + int(r-'0')
				}
			}
			if !strings.Contains(c.Query, c.ID[strings.LastIndex(c.ID, "-")+1:]) || year < 1960 {
				t.Fatalf("%s: query %q", c.ID, c.Query)
			}
			limit = time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC)
			if u.CreatedAt.Year() >= year+1 {
				t.Errorf("%s: useful memory noted in %d", c.ID, u.CreatedAt.Year())
			}
		default:
			t.Fatalf("%s: family %q", c.ID, c.Family)
		}
		for _, m := range on {
			if m.ID != u.ID && m.CreatedAt.Before(limit) && m.CreatedAt.After(u.CreatedAt) {
				t.Errorf("%s: %q (%s) is newer than the useful %q (%s)", c.ID, m.Text, m.CreatedAt.Format("2006-01"), u.Text, u.CreatedAt.Format("2006-01"))
			}
		}
	}
	if current < 120 || history < 100 || withThreat < 250 {
		t.Errorf("current %d, history %d, stale memories %d", current, history, withThreat)
	}
}

func TestDyKnowWalmart(t *testing.T) {
	c := ciFind(ciCases(t, "dyknow"), "dyknow-walmart-current")
	if c == nil {
		t.Fatal("no case dyknow-walmart-current")
	}
	if got := ciLabelOf(t, c, "Doug McMillon"); got != "useful" {
		t.Errorf("Doug McMillon: %q", got)
	}
	if got := ciLabelOf(t, c, "Mike Duke"); got != eval.ExpectExclude {
		t.Errorf("Mike Duke: %q", got)
	}
}
