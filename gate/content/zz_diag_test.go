package content

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"testing"
)

type diagCase struct {
	ID       string `json:"id"`
	Query    string `json:"query"`
	Memories []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"memories"`
	Expect map[string]string `json:"expect"`
	Useful []string          `json:"useful"`
}

func TestZZDiag(t *testing.T) {
	f, err := os.Open(os.Getenv("ZZ_CASES"))
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	stat := map[string]int{}
	for sc.Scan() {
		var c diagCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		var z Analyzer
		var q Analysis
		z.Analyze(c.Query, &q)
		obj := q.Cues[QueryObjective] > 0 && q.Cues[QueryPersonal] == 0 && !q.Several
		byName, byNum := obj && z.AsksForName(), obj && z.AsksForNumber()
		keys := z.QuestionKeys(nil)
		as := map[string]*Analysis{}
		ans := map[string]bool{}
		var za Analyzer
		for _, m := range c.Memories {
			a := &Analysis{}
			za.Analyze(m.Text, a)
			as[m.ID] = a
			w := WordsOf(a, keys)
			ans[m.ID] = 2*bits.OnesCount64(uint64(w)) >= len(keys)
		}
		for _, u := range c.Useful {
			for id, l := range c.Expect {
				if l != "exclude" {
					continue
				}
				why := "disputed"
				switch {
				case !obj:
					why = fmt.Sprintf("notobjective(obj=%v pers=%v sev=%v)", q.Cues[QueryObjective], q.Cues[QueryPersonal], q.Several)
				case !byName && !byNum:
					why = "asksneither"
				case len(keys) < 2:
					why = "fewkeys"
				case !ans[u]:
					why = "useful<half"
				case !ans[id]:
					why = "planted<half"
				case byName && !(NamesOther(as[u], as[id], &q) && NamesOther(as[id], as[u], &q)):
					why = fmt.Sprintf("names u>p=%v p>u=%v", NamesOther(as[u], as[id], &q), NamesOther(as[id], as[u], &q))
				case byNum && !byName && !(NumbersOther(as[u], as[id], &q) && NumbersOther(as[id], as[u], &q)):
					why = "numbers"
				}
				stat[why]++
				if os.Getenv("ZZ_V") != "" {
					var txt, ut string
					for _, m := range c.Memories {
						if m.ID == id {
							txt = m.Text
						}
						if m.ID == u {
							ut = m.Text
						}
					}
					fmt.Printf("%s | Q: %s\n   U: %.160s\n   P: %.160s\n", why, c.Query, ut, txt)
				}
			}
		}
	}
	for k, v := range stat {
		fmt.Println(v, k)
	}
}
