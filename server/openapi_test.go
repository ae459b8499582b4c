package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/openapi.json")

// docBytes is the document a server with options o serves.
func docBytes(t testing.TB, o Options) []byte {
	t.Helper()
	w := newWorld(t, o)
	return w.must(t, 200, "", "GET", openAPIPath, nil).raw
}

// TestOpenAPIGolden keeps testdata/openapi.json identical to the document
// a server with the default options serves (-update rewrites it).
func TestOpenAPIGolden(t *testing.T) {
	got := docBytes(t, Options{})
	const golden = "testdata/openapi.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the served document differs from %s; review the change and run go test ./server -run TestOpenAPIGolden -update", golden)
	}
}

// loadDoc decodes an OpenAPI document.
func loadDoc(t testing.TB, raw []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestOpenAPIDocument checks the document's own consistency: every $ref
// resolves, operation ids are unique, path parameters match the path
// templates, and the request examples are valid under their schemas.
func TestOpenAPIDocument(t *testing.T) {
	raw := docBytes(t, Options{MaxBatch: 7, MaxBodyBytes: 12345})
	doc := loadDoc(t, raw)
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi %v", doc["openapi"])
	}
	for _, ref := range regexp.MustCompile(`"\$ref": "([^"]+)"`).FindAllSubmatch(raw, -1) {
		if resolve(doc, string(ref[1])) == nil {
			t.Errorf("$ref %s does not resolve", ref[1])
		}
	}
	v := &validator{doc: doc}
	ids := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		template := map[string]bool{}
		for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
			template[m[1]] = true
		}
		for method, op := range item.(map[string]any) {
			op := op.(map[string]any)
			id := op["operationId"].(string)
			if ids[id] {
				t.Errorf("operationId %s repeats", id)
			}
			ids[id] = true
			inPath := map[string]bool{}
			for _, p := range asList(op["parameters"]) {
				p := p.(map[string]any)
				if p["in"] == "path" {
					inPath[p["name"].(string)] = true
				}
			}
			if !reflect.DeepEqual(inPath, template) {
				t.Errorf("%s %s: path parameters %v, template %v", method, path, inPath, template)
			}
			if rb, ok := op["requestBody"].(map[string]any); ok {
				media := rb["content"].(map[string]any)["application/json"].(map[string]any)
				if ex, ok := media["example"]; ok {
					for _, p := range v.validate(media["schema"], ex, "example") {
						t.Errorf("%s %s: the example is invalid: %s", method, path, p)
					}
				}
			}
		}
	}
	// The options show in the document.
	batch := resolve(doc, "#/components/schemas/MemoryBatchInput").(map[string]any)["properties"].(map[string]any)["memories"].(map[string]any)
	if batch["maxItems"] != 7.0 {
		t.Errorf("memories: maxItems %v, want the server's MaxBatch 7", batch["maxItems"])
	}
	if !bytes.Contains(raw, []byte("at most 12345 bytes")) {
		t.Error("the body limit is not in the document")
	}
}

// sourceRoute is a route as the server's source registers it.
type sourceRoute struct {
	file                   string
	pattern, role, handler string
	query, path            []string
	body                   string // the type the handler decodes
	bodyOptional           bool
}

// sourceRoutes reads, from the package's non-test files, every route
// registered with s.route or s.mux.Handle(Func), and what its handler
// reads: query and path parameters and the body's type.
func sourceRoutes(t *testing.T) []sourceRoute {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{}
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	var out []sourceRoute
	for _, af := range parsed {
		file := filepath.Base(fset.Position(af.Pos()).Filename)
		ast.Inspect(af, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Name.Name == "route" {
				return false // the helper that registers every route with its pattern
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			r := sourceRoute{file: file}
			switch sel.Sel.Name {
			case "route":
				if len(call.Args) != 3 {
					return true
				}
				if role, ok := call.Args[1].(*ast.SelectorExpr); ok {
					r.role = strings.ToLower(role.Sel.Name)
				}
				if h, ok := call.Args[2].(*ast.SelectorExpr); ok {
					r.handler = h.Sel.Name
				}
			case "Handle", "HandleFunc":
				if x, ok := sel.X.(*ast.SelectorExpr); !ok || x.Sel.Name != "mux" {
					return true
				}
			default:
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: a route's pattern is not a string literal; the tests read patterns from the source", fset.Position(call.Pos()))
				return true
			}
			r.pattern, _ = strconv.Unquote(lit.Value)
			if fd := funcs[r.handler]; fd != nil {
				readHandler(fd, &r)
			} else if r.handler != "" {
				t.Errorf("%s: handler %s not found", r.pattern, r.handler)
			}
			out = append(out, r)
			return true
		})
	}
	return out
}

// readHandler records what a handler reads of its request.
func readHandler(fd *ast.FuncDecl, r *sourceRoute) {
	types := map[string]string{} // local variable → type name
	var stack []ast.Node
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.ValueSpec:
			var typ string
			switch x := n.Type.(type) {
			case *ast.Ident:
				typ = x.Name
			case *ast.SelectorExpr:
				typ = x.Sel.Name
			}
			for _, name := range n.Names {
				types[name.Name] = typ
			}
		case *ast.CallExpr:
			lit := func(i int) string {
				if i < len(n.Args) {
					if l, ok := n.Args[i].(*ast.BasicLit); ok && l.Kind == token.STRING {
						s, _ := strconv.Unquote(l.Value)
						return s
					}
				}
				return ""
			}
			switch fun := n.Fun.(type) {
			case *ast.SelectorExpr:
				switch {
				case fun.Sel.Name == "Get" && len(n.Args) == 1 && lit(0) != "":
					r.query = append(r.query, lit(0))
				case fun.Sel.Name == "PathValue" && lit(0) != "":
					r.path = append(r.path, lit(0))
				}
			case *ast.Ident:
				switch {
				case fun.Name == "intParam" && lit(1) != "":
					r.query = append(r.query, lit(1))
				case fun.Name == "decode" && len(n.Args) == 2:
					if u, ok := n.Args[1].(*ast.UnaryExpr); ok {
						if id, ok := u.X.(*ast.Ident); ok {
							r.body = types[id.Name]
						}
					}
					for _, outer := range stack {
						if ifs, ok := outer.(*ast.IfStmt); ok && strings.Contains(exprString(ifs.Cond), "ContentLength") {
							r.bodyOptional = true
						}
					}
				}
			}
		}
		return true
	})
	slices.Sort(r.query)
	r.query = slices.Compact(r.query)
	slices.Sort(r.path)
	r.path = slices.Compact(r.path)
}

func exprString(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			b.WriteString(id.Name + " ")
		}
		return true
	})
	return b.String()
}

// outsideTheDocument are the files whose routes the OpenAPI document leaves
// out, with why.
var outsideTheDocument = map[string]string{
	"mem0.go": "the Mem0-compatible subset is Mem0's API, for Mem0's clients; its routes have isolation cases of their own",
}

// TestOpenAPIMatchesTheRoutes checks the table of operations against the
// source: every route under /v1 is in it (but those of the files in
// outsideTheDocument) and every operation is registered, with the same
// role, the query and path parameters its handler reads, and the type it
// decodes.
func TestOpenAPIMatchesTheRoutes(t *testing.T) {
	byPattern := map[string]operation{}
	for _, op := range operations {
		byPattern[op.Method+" "+op.Path] = op
	}
	registered := map[string]bool{}
	for _, r := range sourceRoutes(t) {
		_, urlPath, _ := strings.Cut(r.pattern, " ")
		if !strings.HasPrefix(urlPath, "/v1/") || outsideTheDocument[r.file] != "" {
			continue
		}
		registered[r.pattern] = true
		op, ok := byPattern[r.pattern]
		if !ok {
			t.Errorf("route %s is not in the OpenAPI document: add it to operations in openapi.go (and a case to isolationCases)", r.pattern)
			continue
		}
		if r.role != string(op.Role) {
			t.Errorf("%s: the route needs role %q, the document says %q", r.pattern, r.role, op.Role)
		}
		if r.handler == "" {
			continue // a public route registered on the mux
		}
		var query, path []string
		for _, p := range op.Params {
			if p.In == "query" {
				query = append(query, p.Name)
			} else {
				path = append(path, p.Name)
			}
		}
		slices.Sort(query)
		slices.Sort(path)
		if !slices.Equal(query, r.query) {
			t.Errorf("%s: %s reads query parameters %v, the document has %v", r.pattern, r.handler, r.query, query)
		}
		if !slices.Equal(path, r.path) {
			t.Errorf("%s: %s reads path parameters %v, the document has %v", r.pattern, r.handler, r.path, path)
		}
		body := ""
		if op.Body != nil {
			body = reflect.TypeOf(op.Body).Name()
		}
		if body != r.body || op.BodyOptional != r.bodyOptional {
			t.Errorf("%s: %s decodes %q (optional %v), the document has %q (optional %v)", r.pattern, r.handler, r.body, r.bodyOptional, body, op.BodyOptional)
		}
	}
	for p := range byPattern {
		if !registered[p] {
			t.Errorf("operation %s is not registered by the server", p)
		}
	}
}

// TestOpenAPIRoutesAnswer checks the live server: each documented
// operation is routed (an authenticated one answers 401 without a key, not
// the catch-all's no_route), and a method the document does not list for
// a path serves nothing without a key.
func TestOpenAPIRoutesAnswer(t *testing.T) {
	w := newWorld(t, Options{})
	doc := loadDoc(t, w.must(t, 200, "", "GET", openAPIPath, nil).raw)
	for path, item := range doc["paths"].(map[string]any) {
		concrete := strings.NewReplacer("{id}", "some-id", "{item}", "1", "{verdict}", "approve").Replace(path)
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			op, documented := item.(map[string]any)[strings.ToLower(method)].(map[string]any)
			a := w.do(t, "", method, concrete, nil)
			switch {
			case !documented:
				// Another route may serve it (the Mem0 subset's, or
				// a redirect to one), but without a key nothing is
				// served.
				if a.status < 300 {
					t.Errorf("%s %s is not documented but answers %v", method, path, a)
				}
			case op["security"] != nil:
				if a.status != 200 {
					t.Errorf("public %s %s: %v", method, path, a)
				}
			default:
				if a.status != 401 || a.errPart("code") != "unauthorized" {
					t.Errorf("%s %s without a key: %v, want 401", method, path, a)
				}
			}
		}
	}
}

// TestOpenAPIAnswersMatchTheSchemas runs every operation with valid
// requests and with bad ones, and checks each answer against the schema
// the document gives for its status, which must be one it lists.
func TestOpenAPIAnswersMatchTheSchemas(t *testing.T) {
	w := newWorld(t, Options{})
	doc := loadDoc(t, w.must(t, 200, "", "GET", openAPIPath, nil).raw)
	v := &validator{doc: doc}
	d := w.seed(t, "alice", w.keys["alice"], w.keys["alice-reviewer"], "A")
	covered := map[string]map[int]bool{}
	check := func(a *answer, template string) {
		t.Helper()
		op := resolveOp(doc, a.method, template)
		if op == nil {
			t.Fatalf("%s %s is not in the document", a.method, template)
		}
		id := op["operationId"].(string)
		if covered[id] == nil {
			covered[id] = map[int]bool{}
		}
		covered[id][a.status] = true
		for _, p := range v.answer(op, a) {
			t.Errorf("%v: %s", a, p)
		}
	}
	agent, rev := w.keys["alice"], w.keys["alice-reviewer"]
	// Each operation with its example, then with a bad request.
	for _, op := range operations {
		path := strings.NewReplacer("{id}", d.other, "{item}", fmt.Sprint(d.item), "{verdict}", "approve").Replace(op.Path)
		key := agent
		if op.Role == "reviewer" {
			key = rev
		}
		if op.Method == "DELETE" {
			path += "?reason=example"
		}
		check(w.do(t, key, op.Method, path, op.Example), op.Path)
	}
	for _, c := range []struct {
		key, method, path, template string
		body                        any
	}{
		{agent, "GET", "/v1/memories/" + d.ok, "/v1/memories/{id}", nil},
		{agent, "GET", "/v1/memories/" + d.forgotten, "/v1/memories/{id}", nil},
		{agent, "GET", "/v1/memories?limit=0", "/v1/memories", nil},
		{agent, "GET", "/v1/memories?limit=1&includeRevoked=true", "/v1/memories", nil},
		{agent, "GET", "/v1/memories?userId=bob", "/v1/memories", nil},
		{agent, "POST", "/v1/memories", "/v1/memories", map[string]any{"text": "x", "sourceAuthority": "system"}},
		{agent, "POST", "/v1/memories", "/v1/memories", map[string]any{"text": "", "kind": "nope"}},
		{agent, "POST", "/v1/memories", "/v1/memories", map[string]any{"text": "x", "id": d.ok}},
		{agent, "POST", "/v1/memories", "/v1/memories", strings.Repeat(" ", 5<<20)},
		{agent, "POST", "/v1/memories/batch", "/v1/memories/batch", map[string]any{"memories": []any{}}},
		{agent, "POST", "/v1/memories/" + d.revoked + "/revoke", "/v1/memories/{id}/revoke", nil},
		{agent, "POST", "/v1/memories/nope/revoke", "/v1/memories/{id}/revoke", nil},
		{agent, "DELETE", "/v1/memories/nope", "/v1/memories/{id}", nil},
		{agent, "POST", "/v1/search", "/v1/search", map[string]any{"query": map[string]any{"text": "flights", "k": 5000}}},
		{agent, "POST", "/v1/search", "/v1/search", map[string]any{"query": map[string]any{"text": "card", "scope": map[string]any{"domain": "travel"}}}},
		{agent, "POST", "/v1/admit", "/v1/admit", map[string]any{"context": map[string]any{"intent": "dance"}, "query": map[string]any{"text": "x"}}},
		{agent, "POST", "/v1/admit", "/v1/admit", map[string]any{"context": map[string]any{"taskId": "t9", "intent": "send", "toolRisk": "external_side_effect"},
			"query": map[string]any{"text": "email the files"}, "inject": map[string]any{"budget": 10}}},
		{agent, "POST", "/v1/gate/admit", "/v1/gate/admit", map[string]any{"query": "q", "candidates": []any{map[string]any{"memory": map[string]any{"text": "x"}}}}},
		{agent, "POST", "/v1/bind", "/v1/bind", map[string]any{"context": map[string]any{"taskId": d.task}, "call": map[string]any{"name": "book", "risk": "read_only"},
			"justifiedBy": []string{d.ok, d.revoked, d.injection}}},
		{agent, "POST", "/v1/bind", "/v1/bind", map[string]any{"context": map[string]any{"taskId": d.task}, "call": map[string]any{"name": "x", "risk": "read_only"},
			"justifiedBy": []string{"nope"}}},
		{agent, "POST", "/v1/bind", "/v1/bind", map[string]any{"call": map[string]any{"name": "x"}}},
		{agent, "GET", "/v1/audit", "/v1/audit", nil},
		{rev, "GET", "/v1/audit?kind=nope", "/v1/audit", nil},
		{rev, "GET", "/v1/audit?kind=decision&limit=3", "/v1/audit", nil},
		{rev, "GET", "/v1/quarantine?status=nope", "/v1/quarantine", nil},
		{rev, "GET", "/v1/quarantine?status=rejected", "/v1/quarantine", nil},
		{rev, "POST", "/v1/quarantine/0/approve", "/v1/quarantine/{item}/{verdict}", nil},
		{rev, "POST", "/v1/quarantine/1/maybe", "/v1/quarantine/{item}/{verdict}", nil},
		{rev, "POST", "/v1/quarantine/999/reject", "/v1/quarantine/{item}/{verdict}", nil},
		{"mgk_nonsense", "GET", "/v1/quarantine", "/v1/quarantine", nil},
	} {
		a := w.do(t, c.key, c.method, c.path, c.body)
		if a.status >= 500 {
			checkNoServerError(t, a)
			continue
		}
		check(a, c.template)
	}
	for _, op := range operations {
		if !covered[op.ID][op.Status] {
			t.Errorf("%s: its success answer (%d) was not checked", op.ID, op.Status)
		}
	}
}

// resolveOp finds the operation of a method and path template.
func resolveOp(doc map[string]any, method, template string) map[string]any {
	item, _ := doc["paths"].(map[string]any)[template].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	return op
}

// resolve follows a local $ref.
func resolve(doc map[string]any, ref string) any {
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// validator checks JSON values against the subset of JSON Schema the
// generator writes.
type validator struct{ doc map[string]any }

// answer checks a response against the operation: its status must be
// documented and its body valid under the status's schema.
func (v *validator) answer(op map[string]any, a *answer) []string {
	resp, ok := op["responses"].(map[string]any)[strconv.Itoa(a.status)].(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("status %d is not documented for %s", a.status, op["operationId"])}
	}
	if ref, ok := resp["$ref"].(string); ok {
		resp = resolve(v.doc, ref).(map[string]any)
	}
	schema := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	var body any
	if err := json.Unmarshal(a.raw, &body); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	return v.validate(schema, body, "body")
}

// validate returns the problems of val under schema s, each with its path.
func (v *validator) validate(s any, val any, at string) []string {
	sch, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	if ref, ok := sch["$ref"].(string); ok {
		return v.validate(resolve(v.doc, ref), val, at)
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, at+": "+fmt.Sprintf(format, args...)) }
	for _, sub := range asList(sch["allOf"]) {
		out = append(out, v.validate(sub, val, at)...)
	}
	if typ, ok := sch["type"]; ok {
		types := asList(typ)
		if types == nil {
			types = []any{typ}
		}
		if !slices.ContainsFunc(types, func(t any) bool { return hasType(val, t.(string)) }) {
			bad("%s is not of type %v", short(val), typ)
			return out
		}
	}
	if enum := asList(sch["enum"]); enum != nil && !slices.Contains(enum, val) {
		bad("%s is not one of %v", short(val), enum)
	}
	switch val := val.(type) {
	case map[string]any:
		props, _ := sch["properties"].(map[string]any)
		for _, r := range asList(sch["required"]) {
			if _, ok := val[r.(string)]; !ok {
				bad("%s is required", r)
			}
		}
		for k, x := range val {
			if ps, ok := props[k]; ok {
				out = append(out, v.validate(ps, x, at+"."+k)...)
			} else if ap, ok := sch["additionalProperties"]; ok {
				if ap == false {
					bad("%s is not a property", k)
				} else {
					out = append(out, v.validate(ap, x, at+"."+k)...)
				}
			}
		}
	case []any:
		if n, ok := sch["maxItems"].(float64); ok && float64(len(val)) > n {
			bad("has %d items, more than %v", len(val), n)
		}
		if n, ok := sch["minItems"].(float64); ok && float64(len(val)) < n {
			bad("has %d items, fewer than %v", len(val), n)
		}
		for i, x := range val {
			out = append(out, v.validate(sch["items"], x, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case float64:
		if n, ok := sch["minimum"].(float64); ok && val < n {
			bad("%v is below %v", val, n)
		}
		if n, ok := sch["maximum"].(float64); ok && val > n {
			bad("%v is above %v", val, n)
		}
	}
	return out
}

func hasType(val any, typ string) bool {
	switch val := val.(type) {
	case nil:
		return typ == "null"
	case bool:
		return typ == "boolean"
	case string:
		return typ == "string"
	case float64:
		return typ == "number" || typ == "integer" && val == math.Trunc(val)
	case []any:
		return typ == "array"
	case map[string]any:
		return typ == "object"
	}
	return false
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		b = append(b[:77], "..."...)
	}
	return string(b)
}
