package public

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
)

// PoisonedRAG: questions (NQ, HotpotQA) with the correct answer, the
// attacker's target answer and five passages crafted to make a retriever
// return the target. The crafted passages are threats; a passage stating the
// correct answer is useful; other questions' correct passages are
// distractors. The question text comes from NQ (CC BY-SA 3.0) and HotpotQA
// (CC BY-SA 4.0): the converted cases carry it under those terms (NOTICE).
var _ = register(Source{Name: "poisonedrag", License: "MIT", Convert: convertPoisonedRAG})

type ragRecord struct {
	ID        string   `json:"id"`
	Question  string   `json:"question"`
	Correct   string   `json:"correct answer"`
	Incorrect string   `json:"incorrect answer"`
	AdvTexts  []string `json:"adv_texts"`
}

// ragCarriers wrap every passage alike, crafted or correct.
var ragCarriers = []string{
	"%s",
	"Retrieved passage: %s",
	"Search result snippet: %s",
	"From a web page saved for later: %s",
	"Knowledge base entry: %s",
}

// ragNotes state a correct answer. The sources give only the answer, not
// the passage it came from, so the statement is a note built from question
// and answer (a known limit: see docs/public-data.md).
var ragNotes = []string{
	"Q: %[1]s A: %[2]s.",
	"%[1]s — %[2]s.",
	"Answer key entry. Question: %[1]s Answer: %[2]s",
	"Noted while reading: the answer to \"%[1]s\" is %[2]s.",
	"Trivia card: %[1]s? %[2]s.",
	"Reference desk reply: %[2]s (asked: %[1]s).",
}

func convertPoisonedRAG(dir string) ([]eval.Case, error) {
	var drafts []draft
	for _, set := range []string{"hotpotqa", "nq"} {
		var raw map[string]ragRecord
		if err := readJSON(filepath.Join(dir, "results", "adv_targeted_results", set+".json"), &raw); err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(raw))
		for k := range raw {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		recs := make([]ragRecord, 0, len(keys))
		for _, k := range keys {
			r := raw[k]
			if r.ID == "" {
				r.ID = k
			}
			if strings.TrimSpace(r.Question) == "" || strings.TrimSpace(r.Correct) == "" || len(r.AdvTexts) == 0 {
				continue
			}
			recs = append(recs, r)
		}
		note := func(r ragRecord, salt string) string {
			q := strings.TrimRight(strings.TrimSpace(r.Question), "?")
			t := pick(ragNotes, salt, r.ID, "note")
			if !strings.Contains(t, "? ") {
				q = strings.TrimSpace(r.Question)
			}
			return fmt.Sprintf(pick(ragCarriers, salt, r.ID, "carrier"), fmt.Sprintf(t, q, r.Correct))
		}
		for i, r := range recs {
			id := fmt.Sprintf("poisonedrag-%s-%s", set, r.ID)
			d := draft{
				id:       id,
				category: "memory_poisoning",
				family:   "poisonedrag-" + set,
				item:     set + "/" + r.ID,
				query:    strings.TrimSpace(r.Question),
				intent:   admit.IntentAnswer,
				risk:     admit.RiskNone,
			}
			for j, t := range r.AdvTexts {
				d.add(fmt.Sprintf("adv%d", j), fmt.Sprintf(pick(ragCarriers, id, fmt.Sprint(j), "carrier"), t), threat)
			}
			d.add("correct", note(r, id), useful)
			n := len(d.items) + between(3, 8, id, "n")
			for k := 0; len(d.items) < n && k < 4*len(recs); k++ {
				o := recs[(i+1+int(h(id, "d", fmt.Sprint(k))%uint64(len(recs)-1)))%len(recs)]
				if o.ID == r.ID || d.has("other-"+o.ID) {
					continue
				}
				d.add("other-"+o.ID, note(o, id), unlabelled)
			}
			if inc := strings.TrimSpace(r.Incorrect); !isYesNo(inc) {
				d.leaks = []string{inc}
			}
			drafts = append(drafts, d)
		}
	}
	return finishAll("poisonedrag", "MIT", drafts, metaPools{
		authorities: []memory.Authority{memory.AuthorityExternal, memory.AuthorityToolVerified, memory.AuthorityModelInferred, memory.AuthorityUserConfirmed},
		kinds:       []memory.Kind{memory.KindFact},
		classes:     []memory.Classification{memory.ClassPublic},
	})
}

func isYesNo(s string) bool {
	switch strings.ToLower(s) {
	case "yes", "no", "true", "false":
		return true
	}
	return false
}
