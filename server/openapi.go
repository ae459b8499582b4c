package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/memory"
)

// The OpenAPI 3.1 document of the /v1 API is generated from operations, the
// one table of the API's routes with their parameters, and from the Go types
// the handlers decode and encode, by reflection over their JSON tags. A test
// checks the table against the routes the server registers and the
// parameters and bodies their handlers read (openapi_test.go), another that
// live answers match the schemas; testdata/openapi.json is the document as
// generated with the default options, for review (go test -run
// TestOpenAPIGolden -update rewrites it).

// openAPIPath is where the document is served, without authentication.
const openAPIPath = "/v1/openapi.json"

// operation is one route of the API.
type operation struct {
	Method, Path string
	ID           string // operationId
	Summary      string
	Description  string
	// Role is the least role the route needs; "" for a public route.
	Role   auth.Role
	Params []param
	// Body is a value of the type the handler decodes, nil for none;
	// BodyOptional says an empty body is allowed.
	Body         any
	BodyOptional bool
	// Example is a valid request body, shown in the document and used by
	// the tests as a fuzzing seed.
	Example any
	// Status and Response are the success status and a value of the type
	// written with it.
	Status   int
	Response any
	// Errors are the statuses of the errors the route answers besides 401
	// and 403 (every authenticated route) and 413 (every route with a
	// body).
	Errors []int
}

// param is a path or query parameter.
type param struct {
	Name, In    string // In: "path" or "query"
	Type        string // "string", "integer" or "boolean"
	Description string
	Enum        []string
	Min, Max    int64 // for integers, when Max > 0
}

func pathParam(name, desc string) param {
	return param{Name: name, In: "path", Type: "string", Description: desc}
}

func queryParam(name, desc string) param {
	return param{Name: name, In: "query", Type: "string", Description: desc}
}

func intQuery(name string, min, max int64, desc string) param {
	return param{Name: name, In: "query", Type: "integer", Min: min, Max: max, Description: desc}
}

var userParam = queryParam("userId", "The user to act for; required when the key acts for several users, else the key's only user.")

// searchAnswer, auditAnswer and queueAnswer are the shapes of answers the
// handlers write as maps.
type searchAnswer struct {
	Candidates []memgate.Candidate `json:"candidates"`
}

type auditAnswer struct {
	Events []audit.Event `json:"events"`
}

type queueAnswer struct {
	Items []audit.QuarantineItem `json:"items"`
}

// openAPIDoc stands for the document itself in the table.
type openAPIDoc map[string]any

// operations are the routes of the API under /v1, in the order routes.go
// registers them. A route added there must be added here: the tests fail
// until it is, and until the tenant-isolation test has a case for it.
var operations = []operation{
	{
		Method: "POST", Path: "/v1/memories", ID: "addMemory", Role: auth.Agent,
		Summary: "Store one memory",
		Description: "The memory's user defaults to the key's only user and must be one the key acts for. A source authority above the key's cap is refused " +
			"(403), or lowered to it when the server runs with LowerAuthority; a memory without one gets the cap. An explicit id already taken answers 409.",
		Body:    memory.Memory{},
		Example: map[string]any{"text": "Prefers aisle seats on long flights", "kind": "preference", "domain": "travel"},
		Status:  http.StatusCreated, Response: memory.Memory{},
		Errors: []int{400, 409},
	},
	{
		Method: "POST", Path: "/v1/memories/batch", ID: "addMemories", Role: auth.Agent,
		Summary:     "Store several memories, all or none",
		Description: "Every memory is checked first; any problem refuses the whole batch. Ids are assigned by memgate unless the key is an admin's (ids are unique across the store, so choosing one could reveal another tenant's); an admin's batch may name its own ids in lineageRefs and supersedes.",
		Body:        batchBody{},
		Example: map[string]any{"memories": []any{
			map[string]any{"text": "The Lisbon trip is in May", "kind": "event"},
			map[string]any{"text": "Summary of a forum post: Lisbon trams are cheap", "sourceAuthority": "external"},
		}},
		Status: http.StatusCreated, Response: batchBody{},
		Errors: []int{400, 409},
	},
	{
		Method: "GET", Path: "/v1/memories", ID: "listMemories", Role: auth.Agent,
		Summary: "List the user's memories, a page at a time",
		Params: []param{userParam,
			queryParam("workspaceId", "Only memories of this workspace (and unscoped ones)."),
			queryParam("projectId", "Only memories of this project (and unscoped ones)."),
			queryParam("domain", "Only memories of this domain (and unscoped ones)."),
			{Name: "includeRevoked", In: "query", Type: "boolean", Description: "Also list revoked memories."},
			intQuery("after", 0, 1<<62, "The cursor from the previous page's next."),
			intQuery("limit", 1, 1000, "The page size; default 100."),
		},
		Status: http.StatusOK, Response: listBody{},
		Errors: []int{400},
	},
	{
		Method: "GET", Path: "/v1/memories/{id}", ID: "getMemory", Role: auth.Agent,
		Summary:     "Read one memory",
		Description: "An id that is not the user's answers exactly as an id that does not exist.",
		Params:      []param{pathParam("id", "The memory's id."), userParam},
		Status:      http.StatusOK, Response: memory.Memory{},
		Errors: []int{400, 404},
	},
	{
		Method: "POST", Path: "/v1/memories/{id}/revoke", ID: "revokeMemory", Role: auth.Agent,
		Summary:     "Withdraw a memory",
		Description: "The memory stays for audit but is never a candidate again. The body may be omitted.",
		Params:      []param{pathParam("id", "The memory's id.")},
		Body:        changeBody{}, BodyOptional: true,
		Example: map[string]any{"reason": "the user changed their mind"},
		Status:  http.StatusOK, Response: memory.Memory{},
		Errors: []int{400, 404},
	},
	{
		Method: "DELETE", Path: "/v1/memories/{id}", ID: "forgetMemory", Role: auth.Agent,
		Summary:     "Forget a memory for good",
		Description: "Its text and vector are deleted; a tombstone remains.",
		Params:      []param{pathParam("id", "The memory's id."), userParam, queryParam("reason", "Why, for the audit trail.")},
		Status:      http.StatusOK, Response: memory.Tombstone{},
		Errors: []int{400, 404},
	},
	{
		Method: "POST", Path: "/v1/search", ID: "search", Role: auth.Agent,
		Summary:     "Retrieve candidate memories (not yet admitted)",
		Description: "query.scope.userId defaults to the key's only user. Candidates are not admitted: use /v1/admit before giving memories to a model.",
		Body:        searchBody{},
		Example:     map[string]any{"query": map[string]any{"text": "book a flight", "k": 5}},
		Status:      http.StatusOK, Response: searchAnswer{},
		Errors: []int{400},
	},
	{
		Method: "POST", Path: "/v1/admit", ID: "admit", Role: auth.Agent,
		Summary: "Retrieve and admit the memories of a task, and build the model's context",
		Description: "The admission context's principal and roles are the key's, whatever the body says. Every decision is recorded in the audit trail; " +
			"quarantined memories are queued for review.",
		Body: admitBody{},
		Example: map[string]any{
			"context": map[string]any{"taskId": "task-42", "intent": "plan", "toolRisk": "read_only"},
			"query":   map[string]any{"text": "book a flight to Lisbon"},
			"inject":  map[string]any{"budget": 800},
		},
		Status: http.StatusOK, Response: admitAnswer{},
		Errors: []int{400},
	},
	{
		Method: "POST", Path: "/v1/gate/admit", ID: "admitCandidates", Role: auth.Agent,
		Summary: "Admit candidates from the caller's own store",
		Description: "memgate as the gate between any store and any model: the candidates are decided and rendered as given. " +
			"Their decisions justify no tool call in /v1/bind.",
		Body: gateBody{},
		Example: map[string]any{
			"context":    map[string]any{"taskId": "task-43", "intent": "answer"},
			"query":      "what seat does the user prefer?",
			"candidates": []any{map[string]any{"memory": map[string]any{"id": "ext-1", "userId": "alex", "text": "Prefers aisle seats", "sourceAuthority": "user_confirmed"}, "similarity": 0.8}},
		},
		Status: http.StatusOK, Response: admitAnswer{},
		Errors: []int{400},
	},
	{
		Method: "POST", Path: "/v1/bind", ID: "bind", Role: auth.Agent,
		Summary: "Decide whether memories may justify a tool call",
		Description: "Judged by the decisions recorded for the user's task. Ids that name no memory of the user answer 404, " +
			"the same for another user's ids as for ids that do not exist.",
		Body: bindBody{},
		Example: map[string]any{
			"context":     map[string]any{"taskId": "task-42", "intent": "execute", "toolRisk": "external_side_effect"},
			"call":        map[string]any{"name": "book_flight", "risk": "external_side_effect", "args": map[string]any{"seat": "aisle"}},
			"justifiedBy": []string{},
		},
		Status: http.StatusOK, Response: bind.Result{},
		Errors: []int{400, 404},
	},
	{
		Method: "GET", Path: "/v1/audit", ID: "audit", Role: auth.Reviewer,
		Summary: "Read the user's audit trail",
		Params: []param{userParam,
			{Name: "kind", In: "query", Type: "string", Enum: enumOf(audit.Kinds), Description: "Only events of this kind."},
			queryParam("taskId", "Only events of this task."),
			queryParam("memoryId", "Only events about this memory."),
			queryParam("decision", "Only events with this decision, verdict or review status."),
			intQuery("searchId", 0, 1<<62, "Only this admission: its search event and the events linked to it."),
			intQuery("after", 0, 1<<62, "Only events after this sequence number."),
			intQuery("limit", 1, 10000, "At most this many events; default 1000."),
		},
		Status: http.StatusOK, Response: auditAnswer{},
		Errors: []int{400},
	},
	{
		Method: "GET", Path: "/v1/quarantine", ID: "listQuarantine", Role: auth.Reviewer,
		Summary: "List the user's quarantined memories",
		Params: []param{userParam,
			{Name: "status", In: "query", Type: "string", Enum: []string{audit.Pending, audit.Approved, audit.Rejected}, Description: "Only items with this status."},
		},
		Status: http.StatusOK, Response: queueAnswer{},
		Errors: []int{400},
	},
	{
		Method: "POST", Path: "/v1/quarantine/{item}/{verdict}", ID: "reviewQuarantine", Role: auth.Reviewer,
		Summary:     "Approve or reject a quarantined memory",
		Description: "The verdict becomes a labelled example for training the gate. Another user's item answers as a missing one. The body may be omitted.",
		Params: []param{
			{Name: "item", In: "path", Type: "integer", Min: 1, Max: 1<<63 - 1, Description: "The review item's id."},
			{Name: "verdict", In: "path", Type: "string", Enum: []string{"approve", "reject"}, Description: "The verdict."},
		},
		Body: reviewBody{}, BodyOptional: true,
		Example: map[string]any{"note": "a prompt injection from a web page"},
		Status:  http.StatusOK, Response: audit.QuarantineItem{},
		Errors: []int{400, 404, 409},
	},
	{
		Method: "GET", Path: openAPIPath, ID: "openAPI",
		Summary: "This document",
		Status:  http.StatusOK, Response: openAPIDoc{},
	},
}

// enumOf lists the values of a string enumeration.
func enumOf[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// openAPIRoute registers GET /v1/openapi.json.
func (s *Server) openAPIRoute() {
	doc, err := json.MarshalIndent(s.openAPI(), "", "  ")
	if err != nil {
		panic(fmt.Sprintf("server: the OpenAPI document does not encode: %v", err))
	}
	doc = append(doc, '\n')
	// The pattern is a literal, as in routes.go, so that the tests can
	// read the registered routes from the source.
	s.mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(doc)
		s.m.observe(r.Pattern, http.StatusOK, time.Since(start))
	})
}

// openAPI builds the document for the server's options.
func (s *Server) openAPI() map[string]any {
	g := newSchemaGen(s.o)
	paths := map[string]any{}
	for _, op := range operations {
		item, _ := paths[op.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[op.Path] = item
		}
		item[strings.ToLower(op.Method)] = g.operation(op, s.o)
	}
	errSchema := g.ref(reflect.TypeFor[errorBody](), output)
	responses := map[string]any{}
	for _, st := range errorStatuses {
		responses[errorResponse(st)] = map[string]any{
			"description": errorDescriptions[st],
			"content":     map[string]any{"application/json": map[string]any{"schema": errSchema}},
		}
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "memgate",
			"version": "v1",
			"description": "memgate's read path over HTTP: memories, retrieval, admission, binding, the audit trail and the review queue, " +
				"for callers identified by API keys. Every error is JSON {\"error\": {\"code\", \"message\", \"field\"}}; " +
				"the field names the input that was wrong, when one was. An id of another user's memory gets exactly the answer a missing id gets.",
		},
		"security": []any{map[string]any{"bearerAuth": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas":   g.schemas,
			"responses": responses,
			"securitySchemes": map[string]any{"bearerAuth": map[string]any{
				"type": "http", "scheme": "bearer",
				"description": "An API key made with `memgate keys create`: Authorization: Bearer mgk_…",
			}},
		},
	}
}

// errorStatuses are the error statuses the document describes.
var errorStatuses = []int{400, 401, 403, 404, 409, 413, 500, 503}

var errorDescriptions = map[int]string{
	400: "Bad input; error.field names the field (code invalid, or batch for one memory of a batch).",
	401: "No API key, or one that is malformed, unknown or revoked (code unauthorized).",
	403: "The key's role may not do this, or it may not act for the user named, or write at that authority (code forbidden).",
	404: "The id names nothing the key's user may see: another user's id answers exactly as a missing one (code not_found).",
	409: "The write conflicts with what is stored: an id already taken, a review item that already has a verdict (code conflict).",
	413: "The request body is over the server's limit; refused before it is read (code too_large).",
	500: "An internal error (code internal): a bug, or the store failing.",
	503: "The store is read-only (code read_only) or the request was cancelled (code cancelled).",
}

func errorResponse(status int) string {
	return map[int]string{400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
		409: "Conflict", 413: "TooLarge", 500: "Internal", 503: "Unavailable"}[status]
}

// operation is the OpenAPI operation object of op.
func (g *schemaGen) operation(op operation, o Options) map[string]any {
	out := map[string]any{"operationId": op.ID, "summary": op.Summary}
	desc := op.Description
	if op.Role != "" {
		out["x-memgate-role"] = string(op.Role)
		desc = strings.TrimSpace(desc + " Needs a key of role " + string(op.Role) + " or above.")
	} else {
		out["security"] = []any{} // public
	}
	if desc != "" {
		out["description"] = desc
	}
	var params []any
	for _, p := range op.Params {
		sch := map[string]any{"type": p.Type}
		if len(p.Enum) > 0 {
			sch["enum"] = p.Enum
		}
		if p.Max > 0 {
			sch["minimum"], sch["maximum"] = p.Min, p.Max
		}
		params = append(params, map[string]any{"name": p.Name, "in": p.In, "required": p.In == "path",
			"description": p.Description, "schema": sch})
	}
	if params != nil {
		out["parameters"] = params
	}
	if op.Body != nil {
		media := map[string]any{"schema": g.ref(reflect.TypeOf(op.Body), input)}
		if op.Example != nil {
			media["example"] = op.Example
		}
		out["requestBody"] = map[string]any{
			"required":    !op.BodyOptional,
			"description": fmt.Sprintf("One JSON object of at most %d bytes; unknown fields are refused.", o.MaxBodyBytes),
			"content":     map[string]any{"application/json": media},
		}
	}
	resp := map[string]any{}
	var answer any = map[string]any{"type": "object", "description": "The OpenAPI 3.1 document."}
	if _, doc := op.Response.(openAPIDoc); !doc {
		answer = g.ref(reflect.TypeOf(op.Response), output)
	}
	resp[fmt.Sprint(op.Status)] = map[string]any{
		"description": http.StatusText(op.Status),
		"content":     map[string]any{"application/json": map[string]any{"schema": answer}},
	}
	errs := slices.Clone(op.Errors)
	if op.Role != "" {
		errs = append(errs, 401, 403, 500, 503)
	}
	if op.Body != nil {
		errs = append(errs, 413)
	}
	slices.Sort(errs)
	for _, st := range slices.Compact(errs) {
		resp[fmt.Sprint(st)] = map[string]any{"$ref": "#/components/responses/" + errorResponse(st)}
	}
	out["responses"] = resp
	return out
}

// mode says whether a schema describes a request (input) or an answer
// (output). An answer's schema requires the fields Go always encodes and
// allows null where Go encodes a nil slice or map as null; a request's
// requires only what validation requires and refuses unknown fields, as the
// server's decoder does.
type mode int

const (
	output mode = iota
	input
)

// schemaGen reflects Go types into JSON Schemas, one component per struct
// type and mode.
type schemaGen struct {
	schemas map[string]any
	o       Options
}

func newSchemaGen(o Options) *schemaGen { return &schemaGen{schemas: map[string]any{}, o: o} }

// componentNames name the server's own types; other packages' structs are
// named package.Type.
var componentNames = map[reflect.Type]string{
	reflect.TypeFor[errorBody]():    "Error",
	reflect.TypeFor[batchBody]():    "MemoryBatch",
	reflect.TypeFor[listBody]():     "MemoryPage",
	reflect.TypeFor[changeBody]():   "RevokeRequest",
	reflect.TypeFor[searchBody]():   "SearchRequest",
	reflect.TypeFor[searchAnswer](): "SearchResponse",
	reflect.TypeFor[admitBody]():    "AdmitRequest",
	reflect.TypeFor[admitAnswer]():  "AdmitResponse",
	reflect.TypeFor[gateBody]():     "GateAdmitRequest",
	reflect.TypeFor[bindBody]():     "BindRequest",
	reflect.TypeFor[auditAnswer]():  "AuditResponse",
	reflect.TypeFor[queueAnswer]():  "QuarantineResponse",
	reflect.TypeFor[reviewBody]():   "ReviewRequest",
}

func componentName(t reflect.Type, m mode) string {
	name, ok := componentNames[t]
	if !ok {
		pkg := t.PkgPath()
		name = pkg[strings.LastIndex(pkg, "/")+1:] + "." + t.Name()
	}
	if m == input && !strings.HasSuffix(name, "Request") {
		name += "Input"
	}
	return name
}

// enums are the values of the string enumerations in the types.
var enums = map[reflect.Type][]string{
	reflect.TypeFor[memory.Authority]():      enumOf(memory.Authorities),
	reflect.TypeFor[memory.Kind]():           enumOf(memory.Kinds),
	reflect.TypeFor[memory.Classification](): enumOf(memory.Classifications),
	reflect.TypeFor[admit.Intent]():          enumOf(admit.Intents),
	reflect.TypeFor[admit.ToolRisk]():        enumOf(admit.ToolRisks),
	reflect.TypeFor[admit.Decision]():        enumOf(admit.Decisions),
	reflect.TypeFor[bind.Verdict]():          enumOf([]bind.Verdict{bind.Allow, bind.RequireConfirmation, bind.DenyCall}),
	reflect.TypeFor[audit.Kind]():            enumOf(audit.Kinds),
}

// required lists, per request type, the fields validation requires; the
// server fills the others in or takes their zero value.
var required = map[reflect.Type][]string{
	reflect.TypeFor[memory.Memory]():         {"text"},
	reflect.TypeFor[batchBody]():             {"memories"},
	reflect.TypeFor[searchBody]():            {"query"},
	reflect.TypeFor[admitBody]():             {"query"},
	reflect.TypeFor[bindBody]():              {"call"},
	reflect.TypeFor[bind.ToolCall]():         {"name", "risk"},
	reflect.TypeFor[memgate.GateCandidate](): {"memory"},
}

// fieldNotes annotate fields, by "package.Type.field" (the Go type's
// component name without a mode suffix) and mode.
func (g *schemaGen) fieldNotes(owner, field string, m mode) map[string]any {
	key := owner + "." + field
	notes := map[string]any{}
	switch {
	case key == "admit.Context.principal" && m == input:
		notes["description"] = "Ignored: the principal and roles are the API key's."
	case key == "admit.Context.userId" && m == input:
		notes["description"] = "The user the task is for; default the key's only user."
	case key == "memory.Memory.userId" && m == input:
		notes["description"] = "The owner; default the key's only user."
	case key == "memory.Memory.supersededBy":
		notes["readOnly"] = true
		notes["description"] = "Derived by the store from other memories' supersedes; ignored on input."
	case key == "memory.Memory.sourceAuthority" && m == input:
		notes["description"] = "Where the memory came from; default (and at most) the key's authority cap."
	case key == "memgate.Query.text":
		notes["description"] = "The task or query text; text or vector is required."
	case key == "MemoryBatch.memories" && m == input:
		notes["minItems"], notes["maxItems"] = 1, g.o.MaxBatch
	case key == "GateAdmitRequest.candidates":
		notes["maxItems"] = g.o.MaxBatch
	case key == "audit.Event.payload":
		notes["description"] = "The kind's details; see docs/admission.md."
	}
	if owner == "memory.Memory" && m == input {
		switch field {
		case "createdAt", "expiresAt", "revokedAt":
			notes["type"] = "string"
			notes["description"] = "An RFC 3339 date-time, or a date (YYYY-MM-DD)."
		}
	}
	return notes
}

// ref returns the schema of t: a $ref to its component for a struct, the
// schema itself otherwise.
func (g *schemaGen) ref(t reflect.Type, m mode) map[string]any {
	return g.schema(t, m, true)
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// schema is t's schema; omittable says a nil slice or map is left out (an
// answer never holds it as null).
func (g *schemaGen) schema(t reflect.Type, m mode, omittable bool) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	nullable := func(typ string) any {
		if m == output && !omittable {
			return []any{typ, "null"}
		}
		return typ
	}
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawType:
		return map[string]any{"description": "Any JSON value."}
	}
	if vs, ok := enums[t]; ok {
		return map[string]any{"type": "string", "enum": vs}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return map[string]any{"type": "integer"}
	case reflect.Int64, reflect.Uint, reflect.Uint64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Float32:
		return map[string]any{"type": "number", "format": "float"}
	case reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": nullable("array"), "items": g.schema(t.Elem(), m, true)}
	case reflect.Map:
		return map[string]any{"type": nullable("object"), "additionalProperties": g.schema(t.Elem(), m, true)}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t, m) // an anonymous struct is inlined
		}
		name := componentName(t, m)
		if _, done := g.schemas[name]; !done {
			g.schemas[name] = nil // placeholder against recursion
			g.schemas[name] = g.object(t, m)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	panic(fmt.Sprintf("server: no JSON Schema for %s", t))
}

// object is a struct's schema: one property per field encoding/json
// encodes, embedded structs flattened.
func (g *schemaGen) object(t reflect.Type, m mode) map[string]any {
	owner := strings.TrimSuffix(componentName(t, m), "Input")
	props := map[string]any{}
	var req []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			omitzero := strings.Contains(","+opts+",", ",omitzero,")
			omitempty := strings.Contains(","+opts+",", ",omitempty,") && f.Type.Kind() != reflect.Struct
			sch := g.schema(f.Type, m, omitzero || omitempty)
			if notes := g.fieldNotes(owner, name, m); len(notes) > 0 {
				if _, isRef := sch["$ref"]; isRef {
					sch = map[string]any{"allOf": []any{sch}}
				} else {
					sch = maps.Clone(sch)
				}
				for k, v := range notes {
					sch[k] = v
				}
				if notes["type"] != nil {
					delete(sch, "format")
				}
			}
			props[name] = sch
			if m == output && !omitzero && !omitempty {
				req = append(req, name)
			}
		}
	}
	walk(t)
	if m == input {
		req = required[t]
	}
	out := map[string]any{"type": "object", "properties": props}
	if m == input {
		out["additionalProperties"] = false
	}
	if len(req) > 0 {
		slices.Sort(req)
		out["required"] = req
	}
	return out
}
