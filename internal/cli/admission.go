package cli

import (
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
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/inject"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
	"github.com/memgate/memgate/store/sqlite"
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

func (f *taskFlags) context() (admit.Context, error) {
	if f.user == "" {
		return admit.Context{}, usageError{errors.New("--user is required")}
	}
	c := admit.Context{TaskID: f.task, Principal: admit.Principal{ID: f.principal, Roles: f.roles}, UserID: f.user,
		WorkspaceID: f.workspace, ProjectID: f.project, Domain: f.domain,
		Intent: admit.Intent(f.intent), ToolRisk: admit.ToolRisk(f.risk), RequiredAuthority: memory.Authority(f.required)}
	if err := c.Validate(); err != nil {
		return c, usageError{err}
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if q.Text == "" {
				q.Text = strings.Join(args, " ")
			}
			actx, err := tf.context()
			if err != nil {
				return err
			}
			if q.Text == "" {
				return usageError{errors.New("--query is required")}
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
					fmt.Fprintf(e.out, "\nContext for the model (%d of %d tokens):\n%s", built.Tokens, built.Budget, orNone(built.Text))
				}
				return nil
			})
		},
	}
	tf.bind(cmd)
	cmd.Flags().StringVarP(&q.Text, "query", "q", "", "task or query text (or give it as arguments)")
	cmd.Flags().IntVarP(&q.K, "k", "k", memgate.DefaultK, "number of candidates")
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

func reasonsText(rs []admit.Reason) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
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
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\n", i+1, m.ID, it.Decision, it.Scores.Similarity,
			orDash(string(it.Scores.EffectiveAuthority)), scopeLabel(m), reasonsText(it.Reasons), truncate(m.Text, 50))
	}
	tw.Flush()
	fmt.Fprintf(w, "task %s · search %d · %d admitted of %d candidates\n", adm.Context.TaskID, adm.SearchID, len(adm.Admitted()), len(adm.Items))
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
		Use:   "bind --task T --user U --tool NAME --tool-risk RISK [--args JSON] [--justified-by ID,...]",
		Short: "Decide whether memories may justify a tool call in a task",
		Long: `Decide whether a tool call may go ahead given the memories that justify it,
using the decisions recorded for the task by an earlier search: allow,
require_confirmation or deny, with reasons. Arguments whose values appear only
in memories that may not steer tools are reported as tainted.`,
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
			call := bind.ToolCall{Name: tool, Risk: actx.ToolRisk}
			if argsJSON != "" {
				if err := json.Unmarshal([]byte(argsJSON), &call.Args); err != nil {
					return usageError{fmt.Errorf("--args: want a JSON object: %v", err)}
				}
			}
			return e.withEngine(cmd, func(c context.Context, eng *memgate.Engine) error {
				r, err := eng.Bind(c, actx, call, justified)
				if err != nil {
					return err
				}
				if asJSON {
					return e.printJSON(r)
				}
				fmt.Fprintf(e.out, "%s  (%s)\n", r.Verdict, strings.Join(r.Reasons, ", "))
				for _, t := range r.Tainted {
					fmt.Fprintf(e.out, "  tainted: %s = %q comes from %s, which may not steer tools\n", t.Arg, t.Value, t.MemoryID)
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

func (e *env) auditCmd() *cobra.Command {
	var (
		f      sqlite.EventFilter
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "audit [--task T] [--user U] [--memory ID] [--decision D] [--kind K]",
		Short: "List the audit trail: searches, decisions, injections, bindings, revocations",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch f.Kind {
			case "", "search", "decision", "injection", "binding", "revoke", "forget", "verdict":
			default:
				return usageError{fmt.Errorf("--kind %q: want search, decision, injection, binding, revoke, forget or verdict", f.Kind)}
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
						evs = []sqlite.Event{}
					}
					return e.printJSON(evs)
				}
				tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "SEQ\tAT\tKIND\tTASK\tUSER\tMEMORY\tDECISION\tDETAIL")
				for _, ev := range evs {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ev.Seq, ev.At.Format(time.RFC3339), ev.Kind, orDash(ev.TaskID),
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
	fl.StringVar(&f.Kind, "kind", "", "only this kind: search, decision, injection, binding, revoke, forget, verdict")
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
		Use:   "quarantine",
		Short: "Review quarantined memories; verdicts become labelled examples for the gate",
	}
	var status string
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--status pending|approved|rejected]",
		Short: "List the review queue",
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withEngine(cmd, func(c context.Context, eng *memgate.Engine) error {
				items, err := eng.ReviewQueue(c, status)
				if err != nil {
					return usageError{err}
				}
				if asJSON {
					if items == nil {
						items = []sqlite.QuarantineItem{}
					}
					return e.printJSON(items)
				}
				tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "ITEM\tSTATUS\tMEMORY\tUSER\tTASK\tREASONS\tQUERY")
				for _, it := range items {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", it.Seq, it.Status, it.MemoryID, it.UserID, orDash(it.TaskID), it.Reasons, truncate(it.Query, 40))
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
					fmt.Fprintf(e.out, "item %d (%s): %s\n", it.Seq, it.MemoryID, it.Status)
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
		Use:   "policy",
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
				args[0], len(p.Rules()), b.CrossProject, b.LowAuthorityHighRisk, b.RestrictedOutsideDomain, b.RestrictedExternal)
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
			failed := 0
			for _, r := range p.RunCases(cases) {
				if r.Passed {
					fmt.Fprintf(e.out, "PASS  %s: %s %s\n", r.Name, r.Got.Decision, reasonsText(r.Got.Reasons))
					continue
				}
				failed++
				fmt.Fprintf(e.out, "FAIL  %s: %s\n", r.Name, r.Problem)
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
