package eval_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/client"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/eval/suite"
	"github.com/memgate/memgate/server"
	"github.com/memgate/memgate/store/mem"
)

// TestSearchModeThroughTheAPI: the built-in suite's test split evaluated in
// search mode through memgate serve's HTTP API gives the same report as the
// engine in-process, every measure of every baseline, category and origin
// (latencies aside).
func TestSearchModeThroughTheAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates a suite split twice")
	}
	ctx := context.Background()
	cases := suite.Generate(1, 4)["test"]
	if len(cases) < 50 {
		t.Fatalf("only %d cases", len(cases))
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

	st := mem.New()
	eng, err := memgate.New(ctx, st, &memgate.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	plain, key, err := auth.NewKey(auth.Principal{ID: "eval", Role: auth.Admin, Users: []string{auth.AllUsers}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	h, err := server.New(eng, st, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	local, err := eval.Run(ctx, cases, eval.Options{Mode: eval.ModeSearch, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	remote, err := eval.Run(ctx, cases, eval.Options{Mode: eval.ModeSearch, Now: now,
		Retrieve: eval.RemoteRetriever(client.New(srv.URL, plain, nil), "eval")})
	if err != nil {
		t.Fatal(err)
	}
	a, b := measures(t, local), measures(t, remote)
	if a != b {
		t.Errorf("the reports differ:\nin-process %s\nthrough the API %s", a, b)
	}
	if local.Skipped != 0 || remote.Skipped != 0 || len(remote.Warnings) != len(local.Warnings) {
		t.Errorf("skipped %d/%d, warnings %v / %v", local.Skipped, remote.Skipped, local.Warnings, remote.Warnings)
	}
}

// measures renders a report without its latencies.
func measures(t *testing.T, r *eval.Report) string {
	t.Helper()
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if strings.Contains(strings.ToLower(k), "latency") {
					delete(x, k)
					continue
				}
				x[k] = strip(e)
			}
		case []any:
			for i := range x {
				x[i] = strip(x[i])
			}
		}
		return v
	}
	out, _ := json.Marshal(strip(v))
	return string(out)
}
