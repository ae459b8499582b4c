package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/config"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/internal/termsafe"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
)

// taskFlags are the admission context flags shared by search and bind.
type taskFlags struct {
	task, principal, intent, risk, required, project, workspace, domain, user string
	roles                                                                     []string
}

func (f *taskFlags) bind(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.user, "user", "", "user id (required)")
	fl.StringVar(&f.task, "task", "", "task id (groups a search and the tool calls it justifies)")
	fl.StringVar(&f.principal, "principal", "", "who asks (default: the user)")
	fl.StringSliceVar(&f.roles, "role", nil, "roles of the principal, for audience checks")
	fl.StringVar(&f.intent, "intent", "answer", "task intent: answer, plan, write, send, execute, configure")
	fl.StringVar(&f.risk, "tool-risk", "none", "tool risk of the task: none, read_only, writes_local, external_side_effect, privileged")
	fl.StringVar(&f.required, "required-authority", "", "minimum authority a memory needs: system, user_confirmed, tool_verified, model_inferred, external")
	fl.StringVar(&f.workspace, "workspace", "", "the task's workspace")
	fl.StringVar(&f.project, "project", "", "the task's project")
	fl.StringVar(&f.domain, "domain", "", "the task's domain, e.g. work, family, health, finance")
}

// context builds the admission context from the flags. Every problem is a
// usage error naming its flag, found before any store is opened.
func (f *taskFlags) context() (admit.Context, error) {
	if f.user == "" {
		return admit.Context{}, usageError{errors.New("--user is required")}
	}
	var errs []string
	if _, err := admit.ParseIntent(f.intent); err != nil {
		errs = append(errs, "--intent: "+err.Error())
	}
	if _, err := admit.ParseToolRisk(f.risk); err != nil {
		errs = append(errs, "--tool-risk: "+err.Error())
	}
	if _, err := memory.ParseAuthority(f.required); err != nil {
		errs = append(errs, "--required-authority: "+err.Error())
	}
	if len(errs) > 0 {
		return admit.Context{}, usageError{errors.New(strings.Join(errs, "; "))}
	}
	c := admit.Context{TaskID: f.task, Principal: admit.Principal{ID: f.principal, Roles: f.roles}, UserID: f.user,
		WorkspaceID: f.workspace, ProjectID: f.project, Domain: f.domain,
		Intent: admit.Intent(f.intent), ToolRisk: admit.ToolRisk(f.risk), RequiredAuthority: memory.Authority(f.required)}
	if err := c.Validate(); err != nil {
		return c, usageError{contextFlagError(err)}
	}
	if c.TaskID == "" {
		c.TaskID = "cli-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return c, nil
}

func (e *env) admitSearchCmd() *cobra.Command {
	var (
		tf          taskFlags
		q           memgate.Query
		asJSON, ctx bool
		io          inject.Options
		filter      bool
	)
	cmd := &cobra.Command{
		Use:   "search --user U --query TEXT [task flags]",
		Short: "Retrieve a user's candidates for a task and decide what may enter the context",
		Long: `Retrieve the top k candidate memories of one user for a task and decide, for
each, whether it may enter the model's context: admit, admit_summary_only,
rank_down, quarantine or deny, with the reasons and constraints. The task is
described by --intent, --tool-risk and its scope (--workspace, --project,
--domain). With --context, also print the context a model would receive.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if q.Text == "" {
				q.Text = strings.Join(args, " ")
			}
			actx, err := tf.context()
			if err != nil {
				return err
			}
			if strings.TrimSpace(q.Text) == "" {
				return usageError{errors.New("--query is required (or give the query as arguments)")}
			}
			if !termsafe.HasVisible(q.Text) {
				return usageError{fmt.Errorf("--query %s has no visible characters: nothing to search for", safe(strconv.Quote(q.Text)))}
			}
			if q.K < 1 || q.K > memgate.MaxK {
				return usageError{fmt.Errorf("-k %d: want 1 to %d candidates", q.K, memgate.MaxK)}
			}
			if io.Budget < 1 {
				return usageError{fmt.Errorf("--budget %d: want a positive number of tokens", io.Budget)}
			}
			q.Scope = memory.Filter{UserID: actx.UserID}
			if filter {
				q.Scope = memory.Filter{UserID: actx.UserID, WorkspaceID: actx.WorkspaceID, ProjectID: actx.ProjectID, Domain: actx.Domain}
			}
			return e.withEngine(cmd, func(c context.Context, eng *memgate.Engine) error {
				adm, err := eng.Admit(c, actx, q)
				if err != nil {
					return err
				}
				var built *inject.Context
				if ctx {
					b, err := eng.BuildContext(c, adm, io)
					if err != nil {
						return err
					}
					built = &b
				}
				if asJSON {
					return e.printJSON(struct {
						*memgate.Admission
						Context *inject.Context `json:"builtContext,omitempty"`
					}{adm, built})
				}
				printAdmission(e.out, adm)
				if built != nil {
					fmt.Fprintf(e.out, "\nContext for the model (%d of %d tokens):\n%s", built.Tokens, built.Budget, safeBlock(orNone(built.Text)))
				}
				return nil
			})
		},
	}
	tf.bind(cmd)
	cmd.Flags().StringVarP(&q.Text, "query", "q", "", "task or query text (or give it as arguments)")
	cmd.Flags().IntVarP(&q.K, "k", "k", memgate.DefaultK, fmt.Sprintf("number of candidates, 1 to %d", memgate.MaxK))
	cmd.Flags().BoolVar(&filter, "filter-scope", false, "also restrict retrieval to the task's workspace/project/domain (by default only the user bounds retrieval and admission judges scope)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the admission as JSON")
	cmd.Flags().BoolVar(&ctx, "context", false, "also build and print the context for the model")
	cmd.Flags().IntVar(&io.Budget, "budget", inject.DefaultBudget, "token budget of the built context")
	cmd.Flags().BoolVar(&io.IncludeRankDown, "include-rank-down", false, "let rank_down memories into a low-risk answer's context")
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "(nothing admitted)\n"
	}
	return s
}

// reasonsText renders reason codes for the terminal (operator rules name
// their own codes, so they are escaped like any text).
func reasonsText(rs []admit.Reason) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = safe(string(r))
	}
	return strings.Join(s, ",")
}

// printAdmission prints every candidate with its decision and reasons.
func printAdmission(w io.Writer, adm *memgate.Admission) {
	if len(adm.Items) == 0 {
		fmt.Fprintln(w, "no candidates")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tID\tDECISION\tSIM\tAUTHORITY\tSCOPE\tREASONS\tTEXT")
	for i, it := range adm.Items {
		m := &it.Memory
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\n", i+1, safe(m.ID), it.Decision, it.Scores.Similarity,
			orDash(string(it.Scores.EffectiveAuthority)), scopeLabel(m), reasonsText(it.Reasons), truncate(m.Text, 50))
	}
	tw.Flush()
	fmt.Fprintf(w, "task %s · search %d · %d admitted of %d candidates\n", safe(adm.Context.TaskID), adm.SearchID, len(adm.Admitted()), len(adm.Items))
}

func (e *env) bindCmd() *cobra.Command {
	var (
		tf        taskFlags
		tool      string
		argsJSON  string
		justified []string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "bind --user U --task T --tool NAME [--tool-risk RISK] [--args JSON] [--justified-by ID,...]",
		Short: "Decide whether memories may justify a tool call in a task",
		Long: `Decide whether a tool call may go ahead given the memories that justify it,
using the decisions recorded for the task by an earlier search: allow,
require_confirmation or deny, with reasons. Arguments whose values appear only
in memories that may not steer tools are reported as tainted. The exit status
is 0 whatever the verdict: the verdict is the first word of the output (or
"verdict" with --json).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			actx, err := tf.context()
			if err != nil {
				return err
			}
			if tf.task == "" {
				return usageError{errors.New("--task is required: bindings are judged by the task's admission")}
			}
			if tool == "" {
				return usageError{errors.New("--tool is required")}
			}
			if err := givenNonEmpty(cmd, "justified-by"); err != nil {
				return err
			}
			call := bind.ToolCall{Name: tool, Risk: actx.ToolRisk}
			if argsJSON != "" {
				if key, dup := repeatedKey([]byte(argsJSON)); dup {
					// A tool that keeps the first of two values would act on one
					// the taint check never saw.
					return usageError{fmt.Errorf("--args: repeated key %q (each key may appear once)", safe(key))}
				}
				if err := json.Unmarshal([]byte(argsJSON), &call.Args); err != nil || call.Args == nil {
					return usageError{fmt.Errorf("--args: want a JSON object, like '{\"to\":\"a@b.example\"}': %v", errOr(err, "got "+argsJSON))}
				}
			}
			return e.withEngine(cmd, func(c context.Context, eng *memgate.Engine) error {
				r, err := eng.Bind(c, actx, call, justified)
				if err != nil {
					return err
				}
				r.Tainted = uniqueTaints(r.Tainted)
				if asJSON {
					return e.printJSON(r)
				}
				fmt.Fprintf(e.out, "%s  (%s)\n", r.Verdict, safeJoin(r.Reasons))
				for _, t := range r.Tainted {
					fmt.Fprintf(e.out, "  tainted: %s = %s comes from %s, which may not steer tools\n", safe(t.Arg), safe(strconv.Quote(t.Value)), safe(t.MemoryID))
				}
				return nil
			})
		},
	}
	tf.bind(cmd)
	cmd.Flags().StringVar(&tool, "tool", "", "tool name")
	cmd.Flags().StringVar(&argsJSON, "args", "", "tool arguments as a JSON object")
	cmd.Flags().StringSliceVar(&justified, "justified-by", nil, "ids of the memories that justify the call")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// uniqueTaints drops repeated taints: the same value of the same argument
// from the same memory is reported once, however many checks found it.
func uniqueTaints(ts []bind.Taint) []bind.Taint {
	seen := make(map[bind.Taint]bool, len(ts))
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

func (e *env) auditCmd() *cobra.Command {
	var (
		f      audit.Filter
		kind   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "audit [--task T] [--user U] [--memory ID] [--decision D] [--kind K]",
		Short: "List the audit trail: searches, decisions, injections, bindings, revocations",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.Limit < 0 {
				return usageError{fmt.Errorf("--limit %d: want 0 (all) or more", f.Limit)}
			}
			if f.SearchID < 0 {
				return usageError{fmt.Errorf("--search %d: want a search number from the audit trail", f.SearchID)}
			}
			var err error
			if f.Kind, err = audit.ParseKind(kind); err != nil {
				return usageError{fmt.Errorf("--kind: %w", err)}
			}
			if f.Decision != "" {
				if _, err := admit.ParseDecision(f.Decision); err != nil {
					if _, berr := parseVerdict(f.Decision); berr != nil {
						return usageError{fmt.Errorf("--decision: %v (or a binding verdict: allow, require_confirmation, deny)", err)}
					}
				}
			}
			return e.withEngine(cmd, func(c context.Context, eng *memgate.Engine) error {
				evs, err := eng.Audit(c, f)
				if err != nil {
					return err
				}
				if asJSON {
					if evs == nil {
						evs = []audit.Event{}
					}
					return e.printJSON(evs)
				}
				tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "SEQ\tAT\tKIND\tTASK\tUSER\tMEMORY\tDECISION\tDETAIL")
				for _, ev := range evs {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ev.Seq, ev.At.Format(time.RFC3339), safe(string(ev.Kind)), orDash(ev.TaskID),
						orDash(ev.UserID), orDash(ev.MemoryID), orDash(ev.Decision), truncate(string(ev.Payload), 70))
				}
				return tw.Flush()
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.TaskID, "task", "", "only this task")
	fl.StringVar(&f.UserID, "user", "", "only this user")
	fl.StringVar(&f.MemoryID, "memory", "", "only events about this memory")
	fl.StringVar(&f.Decision, "decision", "", "only this decision or binding verdict")
	fl.StringVar(&kind, "kind", "", "only this kind: search, decision, injection, binding, revoke, forget, verdict")
	fl.Int64Var(&f.SearchID, "search", 0, "only this search and its decisions")
	fl.IntVar(&f.Limit, "limit", 0, "at most this many events")
	fl.BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func parseVerdict(s string) (bind.Verdict, error) {
	switch v := bind.Verdict(s); v {
	case bind.Allow, bind.RequireConfirmation, bind.DenyCall:
		return v, nil
	}
	return "", fmt.Errorf("unknown verdict %q", s)
}

func (e *env) quarantineCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "quarantine list|approve|reject",
		Short: "Review quarantined memories; verdicts become labelled examples for the gate",
	}
	var status string
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--status pending|approved|rejected]",
		Short: "List the review queue",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch status {
			case "", "pending", "approved", "rejected":
			default:
				return usageError{fmt.Errorf("--status %q: want pending, approved, rejected, or empty for all", status)}
			}
			return e.withEngine(cmd, func(c context.Context, eng *memgate.Engine) error {
				items, err := eng.ReviewQueue(c, status)
				if err != nil {
					return err
				}
				if asJSON {
					if items == nil {
						items = []audit.QuarantineItem{}
					}
					return e.printJSON(items)
				}
				tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "ITEM\tSTATUS\tMEMORY\tUSER\tTASK\tREASONS\tQUERY")
				for _, it := range items {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", it.Seq, safe(it.Status), safe(it.MemoryID), safe(it.UserID), orDash(it.TaskID), safe(string(it.Reasons)), truncate(it.Query, 40))
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&status, "status", "pending", "pending, approved, rejected, or empty for all")
	list.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	verdict := func(approve bool) *cobra.Command {
		var reviewer, note string
		use, short := "reject ITEM", "Reject a quarantined memory for its task (label: exclude)"
		if approve {
			use, short = "approve ITEM", "Approve a quarantined memory for its task (label: admit)"
		}
		c := &cobra.Command{
			Use:   use,
			Short: short,
			Args:  exactArgs(1, "one review item number"),
			RunE: func(cmd *cobra.Command, args []string) error {
				n, err := strconv.ParseInt(args[0], 10, 64)
				if err != nil || n <= 0 {
					return usageError{fmt.Errorf("review item %q: want a positive number from `memgate quarantine list`", args[0])}
				}
				return e.withEngine(cmd, func(c context.Context, eng *memgate.Engine) error {
					it, err := eng.Review(c, n, approve, reviewer, note)
					if err != nil {
						return err
					}
					fmt.Fprintf(e.out, "item %d (%s): %s\n", it.Seq, safe(it.MemoryID), safe(it.Status))
					return nil
				})
			},
		}
		c.Flags().StringVar(&reviewer, "reviewer", os.Getenv("USER"), "who reviews")
		c.Flags().StringVar(&note, "note", "", "why")
		return c
	}
	cmd.AddCommand(list, verdict(true), verdict(false))
	return cmd
}

func (e *env) policyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy check|test",
		Short: "Check and test policy files offline",
	}
	check := &cobra.Command{
		Use:   "check FILE",
		Short: "Compile a policy file and report every error with the rule and position",
		Args:  exactArgs(1, "one policy file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := policy.LoadFile(args[0])
			if err != nil {
				return err
			}
			b := p.Builtins()
			fmt.Fprintf(e.out, "%s: ok, %d rule(s); built-ins: crossProject=%s lowAuthorityHighRisk=%s restrictedOutsideDomain=%s restrictedExternal=%s\n",
				safe(args[0]), len(p.Rules()), b.CrossProject, b.LowAuthorityHighRisk, b.RestrictedOutsideDomain, b.RestrictedExternal)
			return nil
		},
	}
	test := &cobra.Command{
		Use:   "test FILE CASES",
		Short: "Run table cases (YAML or JSON) against a policy file, offline",
		Args:  exactArgs(2, "a policy file and a cases file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := policy.LoadFile(args[0])
			if err != nil {
				return err
			}
			data, err := os.ReadFile(args[1])
			if err != nil {
				return err
			}
			cases, err := policy.ParseCases(data)
			if err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			failed := 0 // a failed case is a failed operation: exit 1
			for _, r := range p.RunCases(cases) {
				if r.Passed {
					fmt.Fprintf(e.out, "PASS  %s: %s %s\n", safe(r.Name), r.Got.Decision, reasonsText(r.Got.Reasons))
					continue
				}
				failed++
				fmt.Fprintf(e.out, "FAIL  %s: %s\n", safe(r.Name), safe(r.Problem))
			}
			fmt.Fprintf(e.out, "%d passed, %d failed\n", len(cases)-failed, failed)
			if failed > 0 {
				return fmt.Errorf("%d of %d cases failed", failed, len(cases))
			}
			return nil
		},
	}
	cmd.AddCommand(check, test)
	return cmd
}

// contextFlagError renames the admission context's fields in err to the
// flags that set them.
func contextFlagError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "admission context: ")
	parts := strings.Split(msg, "; ")
	for i, p := range parts {
		for _, f := range [][2]string{{"userId", "--user"}, {"workspaceId", "--workspace"}, {"projectId", "--project"},
			{"domain", "--domain"}, {"principal.id", "--principal"}, {"principal.roles", "--role"}, {"principal", "--principal"},
			{"taskId", "--task"}, {"intent", "--intent"}, {"toolRisk", "--tool-risk"}, {"requiredAuthority", "--required-authority"}} {
			if rest, ok := strings.CutPrefix(p, f[0]); ok && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "[")) {
				parts[i] = f[1] + " (" + f[0] + ")" + rest
				break
			}
		}
	}
	return errors.New(strings.Join(parts, "; "))
}

// memoryFlags names, for each field of a memory, the flag of `add` that sets
// it.
var memoryFlags = map[string]string{
	"id": "--id", "text": "TEXT", "userId": "--user", "workspaceId": "--workspace", "projectId": "--project",
	"domain": "--domain", "sourceAuthority": "--authority", "kind": "--kind", "classification": "--classification",
	"createdAt": "--created", "expiresAt": "--expires", "lineageRefs": "--lineage", "supersedes": "--supersedes",
	"audience": "--audience",
}

// memoryFlagError renders a memory's validation errors on one line, each
// named by the flag that set the field: "--lineage (entry 2): …".
func memoryFlagError(err error) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	msgs := make([]string, 0, len(errs))
	for _, err := range errs {
		var fe *memory.FieldError
		if !errors.As(err, &fe) {
			msgs = append(msgs, err.Error())
			continue
		}
		field, index, _ := strings.Cut(fe.Field, "[")
		name, ok := memoryFlags[field]
		if !ok {
			msgs = append(msgs, fe.Error())
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(index, "]")); err == nil {
			name = fmt.Sprintf("%s (entry %d)", name, n+1)
		}
		msgs = append(msgs, name+": "+fe.Problem)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// noArgs refuses positional arguments, for commands that take flags only.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q: %s takes flags only (see %s --help)", args[0], cmd.CommandPath(), cmd.CommandPath())}
	}
	return nil
}

// groupRun makes a command that only groups subcommands refuse to run on its
// own, and refuses unknown subcommands, as usage errors.
func groupRun(cmd *cobra.Command, args []string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if len(args) == 0 {
		return usageError{fmt.Errorf("want a subcommand of %s: %s", cmd.CommandPath(), strings.Join(names, ", "))}
	}
	hint := ""
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
	}
	return usageError{fmt.Errorf("unknown command %q for %q%s (commands: %s)", args[0], cmd.CommandPath(), hint, strings.Join(names, ", "))}
}

// firstWord returns the first argument of args that is neither a flag of
// root nor a flag's value: the command the user meant, or "".
func firstWord(root *cobra.Command, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := root.PersistentFlags().Lookup(name); f != nil && !hasValue && f.Value.Type() != "bool" {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			return a
		}
	}
	return ""
}

// isCommand reports whether word names a subcommand of cmd.
func isCommand(cmd *cobra.Command, word string) bool {
	for _, c := range cmd.Commands() {
		if c.Name() == word || c.HasAlias(word) {
			return true
		}
	}
	return false
}

// conventions applies the command-line conventions to every command under
// root: a command without positional arguments refuses them, and a command
// that groups subcommands refuses to run alone or with an unknown
// subcommand, each as a usage error (exit status 2).
func conventions(root *cobra.Command) {
	for _, c := range root.Commands() {
		conventions(c)
	}
	if root.HasSubCommands() {
		if root.RunE == nil && root.Run == nil {
			root.Args = cobra.ArbitraryArgs
			root.RunE = groupRun
		}
		return
	}
	if root.Args == nil {
		root.Args = noArgs
	}
}

// loadGate loads a gate model file from `memgate train` for a store embedded
// by emb. A model trained on the builtin embedder works with any store (it
// embeds the texts itself); a model trained on another embedder needs a store
// of that embedder.
func loadGate(path string, emb embed.Identity) (*gate.Gate, error) {
	g, err := config.LoadGate(path, emb)
	if err != nil {
		return nil, fmt.Errorf("--gate: %w", err)
	}
	return g, nil
}

// repeatedKey reports the first key that occurs twice in one JSON object of
// data, at any depth. Malformed JSON reports nothing: decoding reports it.
func repeatedKey(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func() (string, bool)
	walk = func() (string, bool) {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return "", false
				}
				key, _ := k.(string)
				if seen[key] {
					return key, true
				}
				seen[key] = true
				if key, dup := walk(); dup {
					return key, true
				}
			}
			dec.Token() // }
		case json.Delim('['):
			for dec.More() {
				if key, dup := walk(); dup {
					return key, true
				}
			}
			dec.Token() // ]
		}
		return "", false
	}
	return walk()
}
