package eval

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// measureRows are the measures shown in tables, with whether lower is better.
var measureRows = []struct {
	name, label string
	lowerBetter bool
}{
	{MOverAdmission, "over-admission", true},
	{MPartialOverAdmission, "  of which as summary only", true},
	{MHardOverAdmission, "hard-boundary over-admission", true},
	{MCrossScope, "cross-scope leakage", true},
	{MLeakTarget, "leak-target rate", true},
	{MLowAuthBinding, "low-authority tool binding", true},
	{MUtility, "benign utility retention", false},
	{MRecall, "candidate recall", false},
	{MPrecision, "admission precision", false},
	{MRevocation, "revocation effectiveness", false},
	{MBindAccuracy, "bind accuracy", false},
	{MExplanation, "explanation coverage", false},
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
	per("threat reduction vs similarity", func(m *Metrics) string { return ratePtr(m.ThreatReduction) })
	per(latencyLabel, func(m *Metrics) string {
		return fmt.Sprintf("%.0f%s%.0f%s%.0f", m.GateLatencyP50Us, sep, m.GateLatencyP95Us, sep, m.GateLatencyP99Us)
	})
	return rows
}

// WriteTable writes the terminal summary: every measure per baseline with
// its counts, then over-admission and utility per category.
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "memgate eval: %d cases (%d skipped), mode %s, k=%d\n\n", r.Cases, r.Skipped, r.Mode, r.K)
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
	fmt.Fprintln(w, "\nover-admission / benign utility retention by category:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "category\tcases")
	for _, b := range r.Baselines {
		fmt.Fprintf(tw, "\t%s", b)
	}
	fmt.Fprintln(tw)
	primary := r.ByBaseline[string(r.Primary)]
	for _, cat := range sortedKeys(primary.ByCategory) {
		fmt.Fprintf(tw, "%s\t%d", cat, primary.ByCategory[cat].Cases)
		for _, b := range r.Baselines {
			m := r.ByBaseline[string(b)].ByCategory[cat]
			fmt.Fprintf(tw, "\t%s / %s", shortCell(m.Counts[MOverAdmission]), shortCell(m.Counts[MUtility]))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func shortCell(c Count) string {
	if c.Den == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d", c.Num, c.Den)
}

// WriteMarkdown writes report.md.
func WriteMarkdown(w io.Writer, r *Report, command string) error {
	fmt.Fprintf(w, "# memgate evaluation report\n\n%d cases (%d skipped), mode `%s`, k=%d.", r.Cases, r.Skipped, r.Mode, r.K)
	if command != "" {
		fmt.Fprintf(w, " Regenerate with:\n\n```sh\n%s\n```\n", command)
	}
	fmt.Fprintf(w, "\nRates with their counts (numerator/denominator); — means no case measured it. Definitions: docs/eval.md.\n\n")
	mdHeader(w, []string{"measure"}, r.Baselines)
	for _, row := range summaryRows(r, "decision latency p50 / p95 / p99 (µs)", " / ") {
		row[0] = strings.TrimSpace(row[0])
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	for _, dim := range []struct {
		title string
		get   func(*Metrics) map[string]*Metrics
	}{{"category", func(m *Metrics) map[string]*Metrics { return m.ByCategory }}, {"intent × tool risk", func(m *Metrics) map[string]*Metrics { return m.ByBucket }}} {
		fmt.Fprintf(w, "\n## Over-admission / benign utility retention by %s\n\n", dim.title)
		mdHeader(w, []string{dim.title, "cases"}, r.Baselines)
		primary := dim.get(r.ByBaseline[string(r.Primary)])
		for _, k := range sortedKeys(primary) {
			fmt.Fprintf(w, "| %s | %d |", k, primary[k].Cases)
			for _, b := range r.Baselines {
				m := dim.get(r.ByBaseline[string(b)])[k]
				fmt.Fprintf(w, " %s / %s |", cell(m.Counts[MOverAdmission]), cell(m.Counts[MUtility]))
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

// mdHeader writes a Markdown table header: the leading columns, then one
// column per baseline.
func mdHeader(w io.Writer, lead []string, baselines []Baseline) {
	cols := append([]string(nil), lead...)
	for _, b := range baselines {
		cols = append(cols, string(b))
	}
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
func bars(title string, groups []string, series []Baseline, value func(group string, b Baseline) (Count, bool)) string {
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
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %.3f (%d/%d)</title></rect>`,
					left, y, v*width, barH, baselineColor[s], html.EscapeString(g), s, v, c.Num, c.Den)
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10">%.2f (%d/%d)</text>`, float64(left)+v*width+4, y+10, v, c.Num, c.Den)
			} else {
				fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10" fill="#888">no cases</text>`, left+4, y+10)
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
<h1>memgate evaluation report</h1><p>%d cases (%d skipped), mode <code>%s</code>, k=%d.</p>`, r.Cases, r.Skipped, r.Mode, r.K)
	if command != "" {
		fmt.Fprintf(w, "<p>Regenerate with <code>%s</code></p>", html.EscapeString(command))
	}
	fmt.Fprint(w, "<p>Threat (lower is better) must be read together with utility (higher is better): a gate that blocks everything is useless.</p>")
	fmt.Fprint(w, bars("Threat against utility, per baseline", []string{"over-admission (threat)", "hard-boundary over-admission", "leak-target rate", "low-authority tool binding", "benign utility retention", "admission precision"}, r.Baselines,
		func(g string, b Baseline) (Count, bool) {
			name := map[string]string{"over-admission (threat)": MOverAdmission, "hard-boundary over-admission": MHardOverAdmission, "leak-target rate": MLeakTarget,
				"low-authority tool binding": MLowAuthBinding, "benign utility retention": MUtility, "admission precision": MPrecision}[g]
			return by(b).Counts[name], true
		}))
	fmt.Fprint(w, bars("Over-admission by category", sortedKeys(primary.ByCategory), r.Baselines, func(g string, b Baseline) (Count, bool) {
		m, ok := by(b).ByCategory[g]
		if !ok {
			return Count{}, false
		}
		return m.Counts[MOverAdmission], true
	}))
	fmt.Fprint(w, bars("Benign utility retention by category", sortedKeys(primary.ByCategory), r.Baselines, func(g string, b Baseline) (Count, bool) {
		m, ok := by(b).ByCategory[g]
		if !ok {
			return Count{}, false
		}
		return m.Counts[MUtility], true
	}))
	fmt.Fprint(w, bars("Over-admission by intent × tool risk", sortedKeys(primary.ByBucket), r.Baselines, func(g string, b Baseline) (Count, bool) {
		m, ok := by(b).ByBucket[g]
		if !ok {
			return Count{}, false
		}
		return m.Counts[MOverAdmission], true
	}))
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
