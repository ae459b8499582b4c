package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The MCP endpoint (extra.go) is outside the OpenAPI document: its case
// attacks alice's data with bob's keys through each MCP tool.
func init() { routeCases["/mcp"] = mcpIsolation }

// mcpTool calls an MCP tool on /mcp with key, as one stateless JSON-RPC
// request, and returns the tool result's text and whether it is an error.
func (x *isolation) mcpTool(t *testing.T, key, tool string, args map[string]any) (string, bool) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, _ := http.NewRequest("POST", x.w.srv.URL+"/mcp", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := x.w.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || bytes.Contains(raw, []byte(secret)) {
		t.Fatalf("%s: %d %s", tool, resp.StatusCode, raw)
	}
	for _, id := range x.alice.ids {
		if bytes.Contains(raw, []byte(id)) && !bytes.Contains(body, []byte(id)) {
			t.Errorf("%s: bob's answer names alice's memory %s: %s", tool, id, raw)
		}
	}
	var out struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Result.Content) == 0 {
		t.Fatalf("%s: not a tool result: %s", tool, raw)
	}
	return out.Result.Content[0].Text, out.Result.IsError
}

func mcpIsolation(t *testing.T, x *isolation) {
	// same checks that bob's call about alice's thing fails exactly as the
	// call about a thing that does not exist.
	same := func(key, tool string, args func(v string) map[string]any, foreign, missing string) {
		t.Helper()
		f, fErr := x.mcpTool(t, key, tool, args(foreign))
		m, mErr := x.mcpTool(t, key, tool, args(missing))
		// Ids the store made for bob's own new memories differ too.
		f, m = uuidRE.ReplaceAllString(strings.ReplaceAll(f, foreign, "<X>"), "<NEW>"), uuidRE.ReplaceAllString(strings.ReplaceAll(m, missing, "<X>"), "<NEW>")
		if !fErr || !mErr || f != m {
			t.Errorf("%s: foreign %v %q, missing %v %q", tool, fErr, f, mErr, m)
		}
	}
	for _, key := range x.bobKeys {
		for tool, args := range map[string]func(u string) map[string]any{
			"remember": func(u string) map[string]any { return map[string]any{"text": "into " + u, "userId": u} },
			"recall":   func(u string) map[string]any { return map[string]any{"query": "flights", "userId": u} },
			"revoke":   func(u string) map[string]any { return map[string]any{"id": x.alice.ok, "userId": u} },
			"forget":   func(u string) map[string]any { return map[string]any{"id": x.alice.ok, "userId": u} },
			"check_tool_call": func(u string) map[string]any {
				return map[string]any{"taskId": x.alice.task, "tool": "x", "risk": "none", "userId": u}
			},
		} {
			same(key, tool, args, "alice", "nobody-at-all")
		}
		for _, id := range x.alice.ids {
			missing := newMissingID()
			for _, tool := range []string{"revoke", "forget"} {
				same(key, tool, func(v string) map[string]any { return map[string]any{"id": v} }, id, missing)
			}
			same(key, "check_tool_call", func(v string) map[string]any {
				return map[string]any{"taskId": x.alice.task, "tool": "book_flight", "risk": "read_only", "justifiedBy": []string{v}}
			}, id, missing)
			same(key, "remember", func(v string) map[string]any { return map[string]any{"text": "derived", "lineageRefs": []string{v}} }, id, missing)
		}
		for _, text := range x.alice.texts {
			if _, isErr := x.mcpTool(t, key, "recall", map[string]any{"query": text, "k": 1000}); isErr {
				t.Errorf("bob's own recall failed")
			}
		}
	}
}
