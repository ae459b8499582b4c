// Command genmem writes a deterministic synthetic memory set as JSON Lines,
// in the format `memgate import` reads, for benchmarks such as
// scripts/bench-cli.sh:
//
//	go run ./scripts/genmem -n 100000 -users 100 > mem.jsonl
//	memgate --db bench.db import mem.jsonl
//
// The same flags always produce the same file. Memory i belongs to user
// "user<i mod users>" and has the id "m<i>"; texts are 9 to 22 words from a
// fixed vocabulary, with scope, authority, kind and classification drawn
// from fixed distributions, and a few expired memories.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/memgate/memgate/internal/synthtext"
)

var (
	words       = synthtext.Words
	names       = synthtext.Names
	domains     = []string{"work", "family", "health", "finance", "travel", ""}
	authorities = []string{"user_confirmed", "user_confirmed", "tool_verified", "model_inferred", "external", "system"}
	kinds       = []string{"fact", "preference", "event", "rule", "procedure", "tool_experience"}
	classes     = []string{"public", "internal", "internal", "confidential", "restricted"}
	base        = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

type record struct {
	ID              string    `json:"id"`
	Text            string    `json:"text"`
	UserID          string    `json:"userId"`
	WorkspaceID     string    `json:"workspaceId,omitempty"`
	ProjectID       string    `json:"projectId,omitempty"`
	Domain          string    `json:"domain,omitempty"`
	SourceAuthority string    `json:"sourceAuthority,omitempty"`
	Kind            string    `json:"kind,omitempty"`
	Classification  string    `json:"classification,omitempty"`
	CreatedAt       time.Time `json:"createdAt"`
	ExpiresAt       time.Time `json:"expiresAt,omitzero"`
}

func main() {
	n := flag.Int("n", 100000, "number of memories")
	users := flag.Int("users", 100, "number of users (memory i belongs to user<i mod users>)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *n < 0 || *users < 1 {
		fmt.Fprintln(os.Stderr, "genmem: want -n >= 0 and -users >= 1")
		os.Exit(2)
	}
	r := rand.New(rand.NewPCG(*seed, 42))
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	enc := json.NewEncoder(w)
	for i := range *n {
		var b strings.Builder
		b.WriteString(names[r.IntN(len(names))])
		for range 8 + r.IntN(14) {
			b.WriteByte(' ')
			b.WriteString(words[r.IntN(len(words))])
		}
		rec := record{
			ID: fmt.Sprintf("m%d", i), Text: b.String(), UserID: fmt.Sprintf("user%d", i%*users),
			ProjectID: fmt.Sprintf("p%d", r.IntN(8)), Domain: domains[r.IntN(len(domains))],
			SourceAuthority: authorities[r.IntN(len(authorities))], Kind: kinds[r.IntN(len(kinds))],
			Classification: classes[r.IntN(len(classes))],
			CreatedAt:      base.Add(time.Duration(i) * time.Minute),
		}
		if r.IntN(4) == 0 {
			rec.WorkspaceID = fmt.Sprintf("w%d", r.IntN(3))
		}
		if r.IntN(50) == 0 {
			rec.ExpiresAt = rec.CreatedAt.Add(24 * time.Hour) // expired by the time anyone searches
		}
		if err := enc.Encode(&rec); err != nil {
			fmt.Fprintln(os.Stderr, "genmem:", err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genmem:", err)
		os.Exit(1)
	}
}
