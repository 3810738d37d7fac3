package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/conform-dev/conform/conformance/readiness"
)

// palette colours targets consistently across charts (colour-blind safe, Okabe–Ito).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

func colour(i int) string { return palette[i%len(palette)] }

const css = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right;font-variant-numeric:tabular-nums}
th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}code{background:#f3f3f3;padding:0 .2em}
.warn{background:#fff3cd;border:1px solid #e0c060;padding:.6em}.bad{color:#b00020}.ok{color:#17732f}
ul.meta{list-style:none;padding:0}ul.meta li{margin:.15em 0}.charts{display:flex;flex-wrap:wrap;gap:1em}
.legend span{display:inline-block;margin-right:1.2em}.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-1px}
svg text{font:11px system-ui,sans-serif;fill:#333}`

// HTML renders report.html: the tables of report.md and inline SVG charts, with no external
// resources. Its title and first heading are the run's outcome (Outcome).
func HTML(r *Results) []byte { return htmlDocument(Outcome(r), "conform run", r, nil) }

// htmlDocument renders a report page: the outcome as its title and first heading, what made
// it (kind, "conform run"), an optional preamble of already escaped HTML (an experiment's
// verdict), then the run's header, tables and charts.
func htmlDocument(outcome, kind string, r *Results, preamble []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><style>", esc(outcome+" — "+kind))
	b.WriteString(css)
	cls := "ok"
	if !strings.HasPrefix(outcome, "PASSED") && !strings.HasPrefix(outcome, "ADOPT") {
		cls = "bad"
	}
	fmt.Fprintf(&b, "</style></head><body>\n<h1 class=\"%s\">%s</h1>\n<p>%s</p>\n", cls, esc(outcome), esc(kind))
	b.Write(preamble)
	if !r.Complete {
		fmt.Fprintf(&b, "<p class=\"warn\"><strong>Incomplete run</strong>: %s. %s</p>\n", esc(r.Incomplete), esc(incompleteNote(r)))
	}
	htmlFindings(&b, r.Findings)
	htmlHeader(&b, r)
	names := targetNames(r)
	legend(&b, names)

	table := func(title string, value func(*Cell) string) {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<p>%s</p>\n<table><tr><th>Operation</th>", esc(title), esc(clientsHeader(r.Settings.Clients)))
		for _, n := range names {
			fmt.Fprintf(&b, "<th>%s</th>", esc(n))
		}
		b.WriteString("</tr>\n")
		for _, op := range r.Settings.Ops {
			fmt.Fprintf(&b, "<tr><td>%s</td>", esc(OpLabel(op)))
			for _, t := range names {
				fmt.Fprintf(&b, "<td>%s</td>", esc(cellText(r, t, op, value)))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	table("Latency p50 (ms), median of trial p50s ("+TrialsPhrase(r)+")", func(c *Cell) string { return LatencyText(c, c.MedianP50Ms) })
	fmt.Fprintf(&b, "<p>%s.</p>\n", esc(upper(LatencyLegend)))
	table("Latency p95 (ms), median of trial p95s", func(c *Cell) string { return LatencyText(c, c.MedianP95Ms) })
	table("Throughput (passed responses/s)", func(c *Cell) string { return fmt.Sprintf("%.0f", c.MedianThroughputRPS) })
	if r.HasClientCPU() {
		table("Measuring cost (µs of CPU per response)", clientCPUText)
		fmt.Fprintf(&b, "<p>%s.</p>\n", esc(upper(ClientCPUNote)))
	}
	table("Failures (never timed; each response once, its classes beside)", failedText)
	table("Trial p50 range (ms)", rangeText)

	b.WriteString("<h2>Trial p50s</h2>\n<p>Each dot is one trial's p50; the bar is the median of the trials, the value a table cell shows. A trial in which no response passed has no p50 and no dot.</p>\n<div class=\"charts\">\n")
	for _, op := range r.Settings.Ops {
		for _, n := range r.Settings.Clients {
			trialChart(&b, r, names, op, n)
		}
	}
	b.WriteString("</div>\n<h2>Latency distributions</h2>\n<p>Passing responses of all trials, log-spaced bins, as a share of each target's responses.</p>\n<div class=\"charts\">\n")
	for _, op := range r.Settings.Ops {
		for _, n := range r.Settings.Clients {
			histogramChart(&b, r, names, op, n)
		}
	}
	b.WriteString("</div>\n")
	htmlFailures(&b, r)
	if len(r.Warnings) > 0 {
		b.WriteString("<h2>Warnings</h2><ul>")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "<li>%s</li>", esc(w))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

func esc(s string) string { return html.EscapeString(s) }

// htmlFindings writes readiness's findings first, as the Markdown report does.
func htmlFindings(b *bytes.Buffer, fs []readiness.Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(b, "<div class=\"warn\"><h2>Readiness findings</h2>\n<p>%s: the run went on, and each fails it.</p>\n<ul>\n", esc(upper(readiness.Plural(len(fs), "finding"))))
	for _, f := range fs {
		fmt.Fprintf(b, "<li><strong>%s</strong> %s: %s", esc(f.Target), esc(f.Kind), esc(f.Summary))
		if len(f.Details) > 0 {
			b.WriteString("<ul>")
			for _, d := range f.Details {
				fmt.Fprintf(b, "<li>%s</li>", esc(d))
			}
			b.WriteString("</ul>")
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul></div>\n")
}

func htmlHeader(b *bytes.Buffer, r *Results) {
	var md bytes.Buffer
	writeHeader(&md, r)
	b.WriteString("<ul class=\"meta\">\n")
	for _, line := range strings.Split(strings.TrimSpace(md.String()), "\n") {
		line = strings.TrimPrefix(line, "- ")
		// Inline code spans become <code>; everything else is escaped.
		parts := strings.Split(line, "`")
		b.WriteString("<li>")
		for i, p := range parts {
			if i%2 == 1 {
				fmt.Fprintf(b, "<code>%s</code>", esc(p))
			} else {
				b.WriteString(esc(p))
			}
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul>\n")
}

func legend(b *bytes.Buffer, names []string) {
	b.WriteString("<p class=\"legend\">")
	for i, n := range names {
		fmt.Fprintf(b, "<span><i style=\"background:%s\"></i>%s</span>", colour(i), esc(n))
	}
	b.WriteString("</p>\n")
}

// niceMax rounds an axis maximum up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trialChart(b *bytes.Buffer, r *Results, names []string, op string, clients int) {
	const w, rowH, left, right, top = 340, 22, 90, 16, 22
	h := top + rowH*len(names) + 28
	hi := 0.0
	for _, t := range names {
		if c := r.Cell(t, op, clients); c != nil {
			for _, tr := range c.Trials {
				if tr.P50Ms != nil {
					hi = math.Max(hi, *tr.P50Ms)
				}
			}
		}
	}
	hi = niceMax(hi * 1.05)
	x := func(v float64) float64 { return left + (w-left-right)*v/hi }
	fmt.Fprintf(b, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"trial p50s, %s, %s\">", w, h, w, h, esc(op), plural(clients, "client", "clients"))
	fmt.Fprintf(b, "<text x=\"4\" y=\"14\" font-weight=\"bold\">%s, %s (ms)</text>", esc(OpLabel(op)), esc(clientsHeader([]int{clients})))
	for i := 0; i <= 4; i++ {
		v := hi * float64(i) / 4
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>", x(v), top, x(v), h-24)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x(v), h-10, trimFloat(v))
	}
	for i, t := range names {
		y := top + rowH*i + rowH/2
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", left-6, y+4, esc(truncate(t, 14)))
		c := r.Cell(t, op, clients)
		switch {
		case c == nil || len(c.Trials) == 0:
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\">not measured</text>", left+4, y+4)
			continue
		case !c.HasLatency():
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" fill=\"#b00020\">no passing response (%d failed)</text>", left+4, y+4, c.Failed)
			continue
		}
		for _, tr := range c.Trials {
			if tr.P50Ms == nil {
				continue
			}
			fmt.Fprintf(b, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\" fill-opacity=\".7\"><title>trial %d: %s ms</title></circle>", x(*tr.P50Ms), y, colour(i), tr.Trial, Ms(*tr.P50Ms))
		}
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"><title>median %s ms</title></line>", x(*c.MedianP50Ms), y-8, x(*c.MedianP50Ms), y+8, colour(i), Ms(*c.MedianP50Ms))
	}
	b.WriteString("</svg>\n")
}

func histogramChart(b *bytes.Buffer, r *Results, names []string, op string, clients int) {
	const w, h, left, right, top, bottom = 340, 170, 40, 12, 22, 30
	lo, hi, peak := math.Inf(1), 0.0, 0.0
	for _, t := range names {
		c := r.Cell(t, op, clients)
		if c == nil || c.Histogram == nil {
			continue
		}
		total := sum(c.Histogram.Counts)
		for i, n := range c.Histogram.Counts {
			if n == 0 {
				continue
			}
			lo = math.Min(lo, c.Histogram.EdgesMs[i])
			hi = math.Max(hi, c.Histogram.EdgesMs[i+1])
			peak = math.Max(peak, float64(n)/float64(total))
		}
	}
	if hi == 0 || math.IsInf(lo, 1) {
		return
	}
	llo, lhi := math.Log10(lo), math.Log10(hi)
	if lhi-llo < 0.3 {
		llo, lhi = llo-0.15, lhi+0.15
	}
	x := func(v float64) float64 { return left + (w-left-right)*(math.Log10(v)-llo)/(lhi-llo) }
	y := func(share float64) float64 { return float64(h-bottom) - float64(h-bottom-top)*share/peak }
	fmt.Fprintf(b, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"latency distribution, %s, %s\">", w, h, w, h, esc(op), plural(clients, "client", "clients"))
	fmt.Fprintf(b, "<text x=\"4\" y=\"14\" font-weight=\"bold\">%s, %s</text>", esc(OpLabel(op)), esc(clientsHeader([]int{clients})))
	for e := math.Floor(llo); e <= math.Ceil(lhi); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if math.Log10(v) < llo || math.Log10(v) > lhi {
				continue
			}
			fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>", x(v), top, x(v), h-bottom)
			fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x(v), h-bottom+14, trimFloat(v))
		}
	}
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">ms (log)</text>", w-2, h-4)
	for i, t := range names {
		c := r.Cell(t, op, clients)
		if c == nil || c.Histogram == nil {
			continue
		}
		total := float64(sum(c.Histogram.Counts))
		var pts []string
		for j, n := range c.Histogram.Counts {
			s := float64(n) / total
			pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(c.Histogram.EdgesMs[j]), y(s), x(c.Histogram.EdgesMs[j+1]), y(s)))
		}
		fmt.Fprintf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"><title>%s</title></polyline>", colour(i), strings.Join(pts, " "), esc(t))
	}
	b.WriteString("</svg>\n")
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if strings.Contains(s, "e") {
		s = fmt.Sprintf("%g", v)
	}
	return s
}

func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func htmlFailures(b *bytes.Buffer, r *Results) {
	b.WriteString("<h2>Failures kept</h2>\n")
	if len(r.Failures) == 0 {
		b.WriteString("<p class=\"ok\">None: every response passed the strict check.</p>\n")
		return
	}
	for _, f := range r.Failures {
		phase := fmt.Sprintf("trial %d", f.Trial)
		if f.Phase == PhaseReadiness {
			phase = "readiness"
		} else if f.Phase == PhaseWarmup {
			phase = fmt.Sprintf("warmup of trial %d", f.Trial)
		}
		fmt.Fprintf(b, "<h3 class=\"bad\">%s on %s (%s, %s, %s): %s</h3>\n", esc(f.Case), esc(f.Target), esc(f.Op), plural(f.Clients, "client", "clients"), phase, esc(f.Class))
		fmt.Fprintf(b, "<p><code>%s %s</code> → status %d %s</p>\n", esc(f.Method), esc(f.Path), f.Status, esc(f.Error))
		if len(f.Diffs) > 0 {
			b.WriteString("<table><tr><th>class</th><th>path</th><th>want</th><th>got</th></tr>")
			for i, d := range f.Diffs {
				if i == 20 {
					fmt.Fprintf(b, "<tr><td colspan=\"4\">… %d more</td></tr>", len(f.Diffs)-20)
					break
				}
				fmt.Fprintf(b, "<tr><td>%s</td><td><code>%s</code></td><td><code>%s</code></td><td><code>%s</code></td></tr>", esc(d.Class), esc(d.Path), esc(truncate(d.Want, 120)), esc(truncate(d.Got, 120)))
			}
			b.WriteString("</table>\n")
		}
	}
}

// IdentityLine summarises an engine's identity: the answer to GET / ("version.number"...) or
// a probe's summary of it (a flat "version"): "elasticsearch 8.15.0 (conform-embedded) node
// n1", "opensearch 3.9.0 node os1".
func IdentityLine(raw json.RawMessage) string {
	if len(raw) == 0 || !gjson.ValidBytes(raw) {
		return ""
	}
	v := gjson.ParseBytes(raw)
	number := v.Get("version.number").String()
	dist := v.Get("version.distribution").String()
	flavor := v.Get("version.build_flavor").String()
	if ver := v.Get("version"); ver.Type == gjson.String {
		number, dist, flavor = ver.String(), v.Get("distribution").String(), v.Get("build_flavor").String()
	}
	name := v.Get("name").String()
	var parts []string
	switch {
	case dist != "":
		parts = append(parts, dist+" "+number)
	case number != "":
		parts = append(parts, "version "+number)
	}
	if flavor != "" && flavor != "default" {
		parts = append(parts, "("+flavor+")")
	}
	if name != "" {
		parts = append(parts, "node "+name)
	}
	if e := v.Get("error").String(); e != "" && len(parts) == 0 {
		parts = append(parts, "no identity: "+e)
	}
	return strings.Join(parts, " ")
}

// sortedClasses lists a failures-by-class map's classes in a stable order.
func sortedClasses(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
