package eval

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/memgate/memgate/internal/termsafe"
)

// measureRows are the rate measures shown in the summary tables, in order.
var measureRows = []struct{ name, label string }{
	{MOverAdmission, "over-admission"},
	{MPartialOverAdmission, "  of which as summary only"},
	{MRankDown, "  must-exclude ranked down (enter only if opted in)"},
	{MQuarantine, "  must-exclude quarantined"},
	{MDeny, "  must-exclude denied"},
	{MHardOverAdmission, "hard-boundary over-admission"},
	{MCrossScope, "cross-scope leakage"},
	{MLeakTarget, "leak-target rate"},
	{MLowAuthBinding, "low-authority tool binding"},
	{MUtility, "benign utility retention"},
	{MUsefulSummary, "  of which as summary only"},
	{MRecall, "candidate recall"},
	{MPrecision, "admission precision"},
	{MBeyondK, "admitted but beyond k (kept out of context)"},
	{MRevocation, "revocation effectiveness"},
	{MBindAccuracy, "bind accuracy"},
	{MExplanation, "explanation coverage"},
}

func cell(c Count) string {
	if c.Den == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f (%d/%d)", float64(c.Num)/float64(c.Den), c.Num, c.Den)
}

func ratePtr(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *p)
}

// aurocCell renders the gate's AUROC with the sizes of its two classes.
func aurocCell(m *Metrics) string {
	if m.Counts[MGateAUROC].Den == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f (%d useful × %d exclude)", *m.Counts[MGateAUROC].Rate(),
		m.Counts[MGateScoredUseful].Num, m.Counts[MGateScoredExclude].Num)
}

// scoredCell renders how many useful and exclude memories the gate scored.
func scoredCell(m *Metrics) string {
	u, x := m.Counts[MGateScoredUseful], m.Counts[MGateScoredExclude]
	return fmt.Sprintf("%d/%d · %d/%d", u.Num, u.Den, x.Num, x.Den)
}

// viewLine says which context view the report used.
func viewLine(r *Report) string {
	if r.ContextView == ViewUnbounded {
		return fmt.Sprintf("unbounded context: policy and full inject every memory they admit, similarity its top %d", r.K)
	}
	return fmt.Sprintf("equal context size: every baseline injects at most k=%d memories per case (policy and full: the first %d they admit, in retrieval order)", r.K, r.K)
}

// summaryRows are the rows of the summary table shared by the terminal and
// Markdown reports: a label, then one cell per baseline. The latency row's
// label and separator differ between the two.
func summaryRows(r *Report, latencyLabel, sep string) [][]string {
	var rows [][]string
	per := func(label string, f func(*Metrics) string) {
		row := []string{label}
		for _, b := range r.Baselines {
			row = append(row, f(r.ByBaseline[string(b)]))
		}
		rows = append(rows, row)
	}
	for _, mr := range measureRows {
		per(mr.label, func(m *Metrics) string { return cell(m.Counts[mr.name]) })
	}
	per("gate AUROC, useful vs exclude (gate-scored memories)", aurocCell)
	per("  memories the gate scored: useful · exclude", scoredCell)
	per("gate inputs out of training range (of memories scored)", func(m *Metrics) string { return cell(m.Counts[MGateOutOfRange]) })
	per("threat reduction vs similarity", func(m *Metrics) string { return ratePtr(m.ThreatReduction) })
	per(latencyLabel, func(m *Metrics) string {
		return fmt.Sprintf("%.0f%s%.0f%s%.0f", m.GateLatencyP50Us, sep, m.GateLatencyP95Us, sep, m.GateLatencyP99Us)
	})
	return rows
}

// breakdown is one dimension the reports break the measures down by.
type breakdown struct {
	title string
	get   func(*Metrics) map[string]*Metrics
}

func breakdowns(r *Report) []breakdown {
	out := []breakdown{
		{"category", func(m *Metrics) map[string]*Metrics { return m.ByCategory }},
		{"intent × tool risk", func(m *Metrics) map[string]*Metrics { return m.ByBucket }},
	}
	if len(r.ByBaseline[string(r.Primary)].ByOrigin) > 0 {
		out = append(out, breakdown{"origin", func(m *Metrics) map[string]*Metrics { return m.ByOrigin }})
	}
	return out
}

// noOrigin counts the cases of the report without an origin.
func noOrigin(r *Report) int {
	n := r.Cases
	for _, m := range r.ByBaseline[string(r.Primary)].ByOrigin {
		n -= m.Cases
	}
	return n
}

func casesText(n int) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}

// hasFull reports whether the full baseline ran: the gate's AUROC is only
// defined for it.
func hasFull(r *Report) bool { return r.ByBaseline[string(Full)] != nil }

// WriteTable writes the terminal summary: every measure per baseline with
// its counts, then over-admission, utility and candidate recall per
// category and per origin.
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "memgate eval: %d cases (%d skipped), mode %s, k=%d\n%s\n\n", r.Cases, r.Skipped, r.Mode, r.K, viewLine(r))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "measure")
	for _, b := range r.Baselines {
		fmt.Fprintf(tw, "\t%s", b)
	}
	fmt.Fprintln(tw)
	for _, row := range summaryRows(r, "decision latency p50/p95/p99 µs", "/") {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, dim := range breakdowns(r) {
		if dim.title == "intent × tool risk" {
			continue // in the Markdown report
		}
		fmt.Fprintf(w, "\nover-admission / benign utility retention / candidate recall by %s:\n", dim.title)
		if dim.title == "origin" {
			if n := noOrigin(r); n > 0 {
				fmt.Fprintf(w, "(%s without an origin in no row)\n", casesText(n))
			}
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tcases", dim.title)
		for _, b := range r.Baselines {
			fmt.Fprintf(tw, "\t%s", b)
		}
		if hasFull(r) {
			fmt.Fprint(tw, "\tgate AUROC (full)")
		}
		fmt.Fprintln(tw)
		primary := dim.get(r.ByBaseline[string(r.Primary)])
		for _, k := range sortedKeys(primary) {
			fmt.Fprintf(tw, "%s\t%d", termsafe.Escape(k), primary[k].Cases) // labels come from the cases file
			for _, b := range r.Baselines {
				m := dim.get(r.ByBaseline[string(b)])[k]
				fmt.Fprintf(tw, "\t%s / %s / %s", shortCell(m.Counts[MOverAdmission]), shortCell(m.Counts[MUtility]), shortCell(m.Counts[MRecall]))
			}
			if hasFull(r) {
				fmt.Fprintf(tw, "\t%s", ratePtr(dim.get(r.ByBaseline[string(Full)])[k].GateAUROC))
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// mdText makes a label from the cases file safe in a Markdown table cell.
func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(termsafe.Escape(s))
}

func shortCell(c Count) string {
	if c.Den == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d", c.Num, c.Den)
}

// WriteMarkdown writes report.md.
func WriteMarkdown(w io.Writer, r *Report, command string) error {
	fmt.Fprintf(w, "# memgate evaluation report\n\n%d cases (%d skipped), mode `%s`, k=%d; %s.", r.Cases, r.Skipped, r.Mode, r.K, viewLine(r))
	if command != "" {
		fmt.Fprintf(w, " Regenerate with:\n\n```sh\n%s\n```\n", command)
	}
	fmt.Fprintf(w, "\nRates with their counts (numerator/denominator); — means no case measured it. "+
		"The gate's AUROC counts a tie as ½ and covers only the memories the gate scored (the envelope denies some before the gate runs); "+
		"only the full baseline has a gate. Definitions: docs/eval.md.\n\n")
	mdHeader(w, []string{"measure"}, r.Baselines)
	for _, row := range summaryRows(r, "decision latency p50 / p95 / p99 (µs)", " / ") {
		row[0] = strings.TrimSpace(row[0])
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	for _, dim := range breakdowns(r) {
		fmt.Fprintf(w, "\n## Over-admission / benign utility retention / candidate recall by %s\n\n", dim.title)
		if dim.title == "origin" {
			if n := noOrigin(r); n > 0 {
				fmt.Fprintf(w, "%s without an origin in no row.\n\n", casesText(n))
			}
		}
		var trail []string
		if hasFull(r) {
			trail = append(trail, "gate AUROC (full)")
		}
		mdHeader(w, []string{dim.title, "cases"}, r.Baselines, trail...)
		primary := dim.get(r.ByBaseline[string(r.Primary)])
		for _, k := range sortedKeys(primary) {
			fmt.Fprintf(w, "| %s | %d |", mdText(k), primary[k].Cases)
			for _, b := range r.Baselines {
				m := dim.get(r.ByBaseline[string(b)])[k]
				fmt.Fprintf(w, " %s / %s / %s |", cell(m.Counts[MOverAdmission]), cell(m.Counts[MUtility]), cell(m.Counts[MRecall]))
			}
			if hasFull(r) {
				fmt.Fprintf(w, " %s |", aurocCell(dim.get(r.ByBaseline[string(Full)])[k]))
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "\n## Skipped cases\n\n")
		for _, wn := range r.Warnings {
			fmt.Fprintf(w, "- %s\n", wn)
		}
	}
	return nil
}

// mdHeader writes a Markdown table header: the leading columns, one column
// per baseline, then the trailing columns.
func mdHeader(w io.Writer, lead []string, baselines []Baseline, trail ...string) {
	cols := append([]string(nil), lead...)
	for _, b := range baselines {
		cols = append(cols, string(b))
	}
	cols = append(cols, trail...)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteDir writes report.json, report.md and report.html into dir.
func WriteDir(dir string, r *Report, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"report.json", func(w io.Writer) error { return WriteJSON(w, r) }},
		{"report.md", func(w io.Writer) error { return WriteMarkdown(w, r, command) }},
		{"report.html", func(w io.Writer) error { return WriteHTML(w, r, command) }},
	} {
		out, err := os.Create(filepath.Join(dir, f.name))
		if err != nil {
			return err
		}
		if err := f.write(out); err != nil {
			out.Close()
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return nil
}

var baselineColor = map[Baseline]string{Similarity: "#c0504d", PolicyOnly: "#4f81bd", Full: "#2e8b57"}

// bars draws a grouped horizontal bar chart of rates in [0,1] as inline SVG.
// noCounts leaves out the numerator and denominator (for the gate's AUROC,
// whose counts are pairs).
func bars(title string, groups []string, series []Baseline, noCounts bool, value func(group string, b Baseline) (Count, bool)) string {
	const rowH, barH, left, width = 16, 13, 230, 420
	var b strings.Builder
	h := 40 + len(groups)*(len(series)*rowH+10) + 24
	fmt.Fprintf(&b, `<figure><figcaption>%s</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">`,
		html.EscapeString(title), left+width+120, h, html.EscapeString(title))
	y := 30
	for i, s := range series {
		fmt.Fprintf(&b, `<rect x="%d" y="6" width="10" height="10" fill="%s"/><text x="%d" y="15" font-size="11">%s</text>`, left+i*110, baselineColor[s], left+14+i*110, s)
	}
	for _, g := range groups {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>`, left-8, y+rowH*len(series)/2+4, html.EscapeString(g))
		for _, s := range series {
			c, ok := value(g, s)
			if ok && c.Den > 0 {
				v := float64(c.Num) / float64(c.Den)
				counts := fmt.Sprintf(" (%d/%d)", c.Num, c.Den)
				if noCounts {
					counts = ""
				}
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %.3f%s</title></rect>`,
					left, y, v*width, barH, baselineColor[s], html.EscapeString(g), s, v, counts)
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10">%.2f%s</text>`, float64(left)+v*width+4, y+10, v, counts)
			} else {
				fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10" fill="#888">not measured</text>`, left+4, y+10)
			}
			y += rowH
		}
		y += 10
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="24" x2="%d" y2="%d" stroke="#999"/><line x1="%d" y1="24" x2="%d" y2="%d" stroke="#ddd"/>`, left, left, y, left+width, left+width, y)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10">0</text><text x="%d" y="%d" font-size="10">1</text></svg></figure>`, left-3, y+12, left+width-3, y+12)
	return b.String()
}

// WriteHTML writes a self-contained report page with inline SVG charts.
func WriteHTML(w io.Writer, r *Report, command string) error {
	var md strings.Builder
	if err := WriteMarkdown(&md, r, command); err != nil {
		return err
	}
	by := func(b Baseline) *Metrics { return r.ByBaseline[string(b)] }
	primary := by(r.Primary)
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>memgate evaluation report</title>
<style>body{font:14px/1.45 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
figure{margin:1.5em 0}figcaption{font-weight:600;margin-bottom:.3em}code,pre{background:#f4f4f4;padding:2px 4px}</style></head><body>
<h1>memgate evaluation report</h1><p>%d cases (%d skipped), mode <code>%s</code>, k=%d; %s.</p>`, r.Cases, r.Skipped, r.Mode, r.K, html.EscapeString(viewLine(r)))
	if command != "" {
		fmt.Fprintf(w, "<p>Regenerate with <code>%s</code></p>", html.EscapeString(command))
	}
	fmt.Fprint(w, "<p>Threat (lower is better) must be read together with utility (higher is better): a gate that blocks everything is useless.</p>")
	summary := []struct{ label, name string }{
		{"over-admission (threat)", MOverAdmission}, {"must-exclude ranked down", MRankDown}, {"hard-boundary over-admission", MHardOverAdmission},
		{"leak-target rate", MLeakTarget}, {"low-authority tool binding", MLowAuthBinding}, {"benign utility retention", MUtility},
		{"candidate recall", MRecall}, {"admission precision", MPrecision},
	}
	var labels []string
	names := map[string]string{}
	for _, m := range summary {
		labels = append(labels, m.label)
		names[m.label] = m.name
	}
	fmt.Fprint(w, bars("Threat against utility, per baseline", labels, r.Baselines, false,
		func(g string, b Baseline) (Count, bool) { return by(b).Counts[names[g]], true }))
	for _, dim := range breakdowns(r) {
		groups := sortedKeys(dim.get(primary))
		for _, chart := range []struct{ title, name string }{
			{"Over-admission", MOverAdmission}, {"Benign utility retention", MUtility}, {"Candidate recall", MRecall},
		} {
			if dim.title == "intent × tool risk" && chart.name != MOverAdmission {
				continue
			}
			fmt.Fprint(w, bars(chart.title+" by "+dim.title, groups, r.Baselines, false, func(g string, b Baseline) (Count, bool) {
				m, ok := dim.get(by(b))[g]
				if !ok {
					return Count{}, false
				}
				return m.Counts[chart.name], true
			}))
		}
		if hasFull(r) && dim.title != "intent × tool risk" {
			fmt.Fprint(w, bars("Gate AUROC (full baseline), useful vs exclude, overall and by "+dim.title, append([]string{"all cases"}, groups...), []Baseline{Full}, true,
				func(g string, b Baseline) (Count, bool) {
					if g == "all cases" {
						return by(b).Counts[MGateAUROC], true
					}
					m, ok := dim.get(by(b))[g]
					if !ok {
						return Count{}, false
					}
					return m.Counts[MGateAUROC], true
				}))
		}
	}
	fmt.Fprint(w, latencyChart(r))
	fmt.Fprintf(w, "<h2>All measures</h2><pre>%s</pre></body></html>\n", html.EscapeString(md.String()))
	return nil
}

// latencyChart draws each baseline's decision latency percentiles.
func latencyChart(r *Report) string {
	var max float64
	for _, b := range r.Baselines {
		max = maxf(max, r.ByBaseline[string(b)].GateLatencyP99Us)
	}
	if max == 0 {
		max = 1
	}
	var b strings.Builder
	const left, width = 230, 420
	y := 10
	fmt.Fprintf(&b, `<figure><figcaption>Decision latency per case (µs): p50, p95, p99</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">`, left+width+120, 20+len(r.Baselines)*3*16+len(r.Baselines)*10)
	for _, bl := range r.Baselines {
		m := r.ByBaseline[string(bl)]
		for _, p := range []struct {
			name string
			v    float64
		}{{"p50", m.GateLatencyP50Us}, {"p95", m.GateLatencyP95Us}, {"p99", m.GateLatencyP99Us}} {
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end">%s %s</text><rect x="%d" y="%d" width="%.1f" height="13" fill="%s"/><text x="%.1f" y="%d" font-size="10">%.1f</text>`,
				left-8, y+10, bl, p.name, left, y, p.v/max*width, baselineColor[bl], float64(left)+p.v/max*width+4, y+10, p.v)
			y += 16
		}
		y += 10
	}
	b.WriteString("</svg></figure>")
	return b.String()
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// StaleCounts lists where a committed report's counts differ from a fresh
// run's over the same cases ("full benignUtilityRetention: committed
// 161/161, fresh 160/161"): the numbers of cases and skipped lines, and
// every count of every baseline, overall, by category and by intent × tool
// risk, whichever report holds it; nil when they agree. A figure quoted
// from a committed report is only true while this is empty, so tests call
// it to keep committed reports current. Latencies are not compared: they
// are measurements, not counts.
func StaleCounts(committed, fresh *Report) []string {
	var out []string
	if committed.Cases != fresh.Cases || committed.Skipped != fresh.Skipped {
		out = append(out, fmt.Sprintf("cases (skipped): committed %d (%d), fresh %d (%d)",
			committed.Cases, committed.Skipped, fresh.Cases, fresh.Skipped))
	}
	return staleGroups(out, "", committed.ByBaseline, fresh.ByBaseline, func(out []string, b string, c, f *Metrics) []string {
		out = staleMetrics(out, b, c, f)
		out = staleGroups(out, b+" ", c.ByCategory, f.ByCategory, staleMetrics)
		return staleGroups(out, b+" ", c.ByBucket, f.ByBucket, staleMetrics)
	})
}

// staleGroups compares two reports' groups (baselines, categories,
// buckets) key by key, over the keys of both: a group only one report
// holds compares as empty.
func staleGroups(out []string, prefix string, committed, fresh map[string]*Metrics,
	compare func(out []string, what string, c, f *Metrics) []string) []string {
	for _, k := range unionKeys(committed, fresh) {
		c, f := committed[k], fresh[k]
		if c == nil {
			c = &Metrics{}
		}
		if f == nil {
			f = &Metrics{}
		}
		out = compare(out, prefix+k, c, f)
	}
	return out
}

// staleMetrics appends the counts and case numbers in which one group of
// the two reports differs.
func staleMetrics(out []string, what string, committed, fresh *Metrics) []string {
	if committed.Cases != fresh.Cases {
		out = append(out, fmt.Sprintf("%s cases: committed %d, fresh %d", what, committed.Cases, fresh.Cases))
	}
	for _, name := range unionKeys(committed.Counts, fresh.Counts) {
		if got, want := committed.Counts[name], fresh.Counts[name]; got != want {
			out = append(out, fmt.Sprintf("%s %s: committed %d/%d, fresh %d/%d", what, name, got.Num, got.Den, want.Num, want.Den))
		}
	}
	return out
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
