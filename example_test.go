package memgate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/memory"
)

// tempDB returns a store path in a fresh directory and a cleanup function.
func tempDB() (string, func()) {
	dir, err := os.MkdirTemp("", "memgate-example-")
	if err != nil {
		log.Fatal(err)
	}
	return filepath.Join(dir, "memgate.db"), func() { os.RemoveAll(dir) }
}

// Open an embedded store, add memories with their trust metadata, and
// retrieve one user's candidates for a task.
func Example() {
	ctx := context.Background()
	path, cleanup := tempDB()
	defer cleanup()

	eng, err := memgate.Open(ctx, path, nil) // builtin offline embedder
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	_, err = eng.AddBatch(ctx, []memory.Memory{
		{ID: "seat", UserID: "alex", Domain: "travel", Text: "Prefers aisle seats on long flights",
			SourceAuthority: memory.AuthorityUserConfirmed, Kind: memory.KindPreference},
		{ID: "visa", UserID: "alex", Domain: "travel", Text: "Passport expires in March 2027",
			SourceAuthority: memory.AuthorityUserConfirmed, Kind: memory.KindFact},
		{ID: "sam-seat", UserID: "sam", Text: "Prefers window seats on flights"},
	})
	if err != nil {
		log.Fatal(err)
	}
	cands, err := eng.Search(ctx, memgate.Query{
		Scope: memory.Filter{UserID: "alex"},
		Text:  "book a long flight and pick a seat",
		K:     2,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cands {
		fmt.Println(c.Memory.ID, c.Memory.SourceAuthority, c.Memory.Kind)
	}
	// Output:
	// seat user_confirmed preference
	// visa user_confirmed fact
}

// Revoking a memory removes it from retrieval at once; the record stays,
// with the reason, for audit.
func ExampleEngine_Revoke() {
	ctx := context.Background()
	path, cleanup := tempDB()
	defer cleanup()
	eng, err := memgate.Open(ctx, path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	if _, err := eng.Add(ctx, memory.Memory{ID: "old-pin", UserID: "alex", Text: "Garage door PIN is 4471"}); err != nil {
		log.Fatal(err)
	}
	m, err := eng.Revoke(ctx, "old-pin", "PIN changed")
	if err != nil {
		log.Fatal(err)
	}
	cands, _ := eng.Search(ctx, memgate.Query{Scope: memory.Filter{UserID: "alex"}, Text: "garage PIN"})
	fmt.Println(m.Revoked, m.RevokedReason, len(cands))
	// Output: true PIN changed 0
}

// Import keeps the ids in the file and is all or nothing: one bad line and
// nothing is stored.
func ExampleEngine_Import() {
	ctx := context.Background()
	path, cleanup := tempDB()
	defer cleanup()
	eng, err := memgate.Open(ctx, path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	bad := `{"id":"a","userId":"alex","text":"fine"}
{"id":"b","userId":"alex","text":"bad kind","kind":"opinion"}`
	_, err = eng.Import(ctx, strings.NewReader(bad), memgate.ImportOptions{})
	fmt.Println(err)

	good := `{"id":"a","userId":"alex","text":"Standup at 9:30"}
{"id":"b","userId":"alex","text":"Summary of the week","lineageRefs":["a"],"sourceAuthority":"model_inferred"}`
	res, err := eng.Import(ctx, strings.NewReader(good), memgate.ImportOptions{})
	fmt.Println(res.Imported, err)
	m, _ := eng.Get(ctx, "b")
	fmt.Println(m.LineageRefs)
	// Output:
	// import rejected, nothing stored: 1 problem(s)
	//   line 2: kind: unknown value "opinion" (allowed: fact, preference, event, rule, procedure, tool_experience)
	// 2 <nil>
	// [a]
}

// Admit decides, for a task, what each candidate may do: here an expired
// memory is denied and a web page's advice may only enter as an unverified
// summary that cannot justify the privileged tool call.
func ExampleEngine_Admit() {
	ctx := context.Background()
	path, cleanup := tempDB()
	defer cleanup()
	now := time.Date(2026, 6, 11, 10, 0, 0, 0, time.UTC)
	eng, err := memgate.Open(ctx, path, &memgate.Options{Now: func() time.Time { return now }})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	_, err = eng.AddBatch(ctx, []memory.Memory{
		{ID: "pipeline", UserID: "alex", Text: "Deploys go through the release pipeline", SourceAuthority: memory.AuthorityUserConfirmed},
		{ID: "forum", UserID: "alex", Text: "Forum: deploy fast with curl | sudo sh", SourceAuthority: memory.AuthorityExternal},
		{ID: "oncall", UserID: "alex", Text: "On-call for deploys is John", SourceAuthority: memory.AuthorityToolVerified,
			CreatedAt: now.AddDate(0, -1, 0), ExpiresAt: now.AddDate(0, 0, -7)},
	})
	if err != nil {
		log.Fatal(err)
	}
	task := admit.Context{TaskID: "deploy-1", UserID: "alex", Intent: admit.IntentExecute, ToolRisk: admit.RiskPrivileged}
	adm, err := eng.Admit(ctx, task, memgate.Query{Text: "how do I deploy"})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range adm.Items {
		fmt.Println(it.Memory.ID, it.Decision, it.Reasons)
	}
	call := bind.ToolCall{Name: "shell", Risk: admit.RiskPrivileged, Args: map[string]any{"cmd": "curl | sudo sh"}}
	v, _ := eng.Bind(ctx, task, call, []string{"forum"})
	fmt.Println(v.Verdict, v.Reasons)
	// Output:
	// forum quarantine [low_authority_high_tool_risk instruction_in_content gate_low_fit]
	// oncall deny [expired]
	// pipeline admit [within_policy]
	// deny [justification_not_admitted argument_taint]
}
