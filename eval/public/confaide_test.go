package public

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/memgate/memgate/eval"
)

// TestConfAIdeBlocks: cfBlocks finds what the regular expressions it
// replaced found, on blocks with stray and malformed end markers (the tier
// files themselves are checked by TestConfAIdeParse).
func TestConfAIdeBlocks(t *testing.T) {
	re3 := regexp.MustCompile(`(?s)<BEGIN><([^>]*)>\n(.*?)\n<END><[^>]*><([^>]*)>`)
	re4 := regexp.MustCompile(`(?s)<BEGIN><([^>]*)>\n(.*?)\n<END><[^>]*>`)
	for _, s := range []string{
		"x<BEGIN><a>b\n<END><c\n<BEGIN><h>\nbody\n<END>junk\n<END><t><u>\n<END><v><w> <BEGIN><q>\n\n<END><>\n<BEGIN><z>\nnever",
		"<BEGIN><a,b>\none\n\ntwo\n<END><a,b><About: X>\n<BEGIN><c>\nthree\n<END><c>\n<END><d><e>",
		"<BEGIN><no newline><BEGIN><k>\n<END><x>\n<END><y><z>",
		"",
	} {
		for _, tags := range []bool{true, false} {
			re := re4
			if tags {
				re = re3
			}
			var want [][3]string
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				x := [3]string{m[1], m[2], ""}
				if tags {
					x[2] = m[3]
				}
				want = append(want, x)
			}
			if got := cfBlocks(s, tags); !reflect.DeepEqual(got, want) {
				t.Errorf("%q, tags %v:\ngot  %q\nwant %q", s, tags, got, want)
			}
		}
	}
}

func TestConfAIdeParse(t *testing.T) {
	stories, err := cfTier3(filepath.Join(root, "confaide", "benchmark", "tier_3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(stories) != 270 {
		t.Fatalf("%d stories, want 270", len(stories))
	}
	s := stories[0]
	if s.about != "Jane" || s.questionee != "Ethan" || s.questioner != "Mary" || !strings.HasPrefix(s.relation, "Jane, Mary, Ethan, and Sarah are co-workers") {
		t.Errorf("story 1: %+v", s)
	}
	if !strings.Contains(s.secret, "falsify some results") || strings.Contains(s.secret, "are co-workers") {
		t.Errorf("story 1 secret: %q", s.secret)
	}
	for _, s := range stories {
		if strings.Contains(s.talk, "What should") || !strings.Contains(s.talk, s.questioner) || s.secret == "" {
			t.Errorf("story %d: talk %q", s.n, s.talk)
		}
	}
	meetings, err := cfTier4(filepath.Join(root, "confaide", "benchmark", "tier_4.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(meetings) != 20 {
		t.Fatalf("%d meetings, want 20", len(meetings))
	}
	for _, m := range meetings {
		var sec, pub string
		for _, p := range m.parts {
			switch {
			case strings.HasSuffix(p.key, "/secret"):
				sec = p.text
			case strings.HasSuffix(p.key, "/public"):
				pub = p.text
			}
		}
		if !strings.Contains(sec, "This reminds me") || !strings.Contains(pub, "Good point!") || len(m.parts) < 6 {
			t.Errorf("meeting %d: secret %q public %q (%d parts)", m.n, sec, pub, len(m.parts))
		}
	}
}

// TestConfAIdeCases: in the reply to the Questioner the secret is excluded
// and the Questioner's conversation useful; in the check-in to the person
// the secret is about, the same secret is useful; in a meeting summary the
// secret is excluded and the public item useful.
func TestConfAIdeCases(t *testing.T) {
	cases := ciCases(t, "confaide")
	c := ciFind(cases, "confaide-t3-001-reply")
	if c == nil {
		t.Fatal("no case confaide-t3-001-reply")
	}
	if got := ciLabelOf(t, c, "falsify some results"); got != eval.ExpectExclude {
		t.Errorf("story 1 secret: %q", got)
	}
	if got := ciLabelOf(t, c, "Mary shared with Ethan"); got != "useful" {
		t.Errorf("story 1 conversation: %q", got)
	}
	if !strings.Contains(c.Query, "Mary") || len(c.LeakTargets) == 0 {
		t.Errorf("story 1: query %q, leaks %q", c.Query, c.LeakTargets)
	}
	stories, err := cfTier3(filepath.Join(root, "confaide", "benchmark", "tier_3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var replies, checkins, summaries int
	for i := range cases {
		c := &cases[i]
		switch c.Family {
		case "confaide-tier3-reply", "confaide-tier3-checkin":
			var n int
			if _, err := fmt.Sscanf(strings.TrimPrefix(c.ID, "confaide-t3-"), "%d", &n); err != nil || n < 1 || n > len(stories) {
				t.Fatalf("%s: bad id", c.ID)
			}
			s := stories[n-1]
			want := eval.ExpectExclude
			if c.Family == "confaide-tier3-checkin" {
				checkins++
				want = "useful"
				if !strings.Contains(c.Query, s.about) {
					t.Errorf("%s: query %q does not name %s", c.ID, c.Query, s.about)
				}
			} else {
				replies++
				if !strings.Contains(c.Query, s.questioner) {
					t.Errorf("%s: query %q does not name %s", c.ID, c.Query, s.questioner)
				}
				if got := ciLabelOf(t, c, s.talk); got != "useful" {
					t.Errorf("%s: conversation %q", c.ID, got)
				}
			}
			if got := ciLabelOf(t, c, s.secret); got != want {
				t.Errorf("%s: secret %q, want %q", c.ID, got, want)
			}
		case "confaide-tier4-summary":
			summaries++
			if got := ciLabelOf(t, c, "This reminds me"); got != eval.ExpectExclude {
				t.Errorf("%s: secret %q", c.ID, got)
			}
			if got := ciLabelOf(t, c, "Good point!"); got != "useful" {
				t.Errorf("%s: public item %q", c.ID, got)
			}
			if len(c.LeakTargets) == 0 {
				t.Errorf("%s: no leak target", c.ID)
			}
		default:
			t.Errorf("%s: family %q", c.ID, c.Family)
		}
	}
	if replies != 270 || checkins != 90 || summaries != 40 {
		t.Errorf("replies %d, check-ins %d, summaries %d", replies, checkins, summaries)
	}
}
