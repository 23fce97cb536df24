package relay_test

import (
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Grafana dashboard of deploy/grafana/relay.json (ADR 0116) against
// the metrics the relay exports: a panel that names a metric the relay
// does not have would stay empty without a word.

const dashboardFile = "../deploy/grafana/relay.json"

type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *datasourceRef `json:"datasource"`
	GridPos    struct {
		X int `json:"x"`
		Y int `json:"y"`
		W int `json:"w"`
		H int `json:"h"`
	} `json:"gridPos"`
	Panels  []panel  `json:"panels"` // a collapsed row's
	Targets []target `json:"targets"`
}

type target struct {
	Expr         string         `json:"expr"`
	LegendFormat string         `json:"legendFormat"`
	RefID        string         `json:"refId"`
	Datasource   *datasourceRef `json:"datasource"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// allPanels is every panel, those inside collapsed rows too.
func allPanels(ps []panel) []panel {
	var out []panel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}

// query is one PromQL expression of the dashboard and where it is.
type query struct {
	where, expr string
	legend      string
}

// queries are the dashboard's PromQL: every panel's targets and the
// template variables' label_values queries, whose label is returned
// apart.
func (d dashboard) queries(t *testing.T) (qs []query, varLabels []string) {
	t.Helper()
	labelValues := regexp.MustCompile(`^label_values\(\s*(.+?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Fatalf("variable %s: query %s: %v", v.Name, v.Query, err)
		}
		m := labelValues.FindStringSubmatch(q.Query)
		if m == nil {
			t.Fatalf("variable %s: %q is not label_values(selector, label)", v.Name, q.Query)
		}
		qs = append(qs, query{where: "variable " + v.Name, expr: m[1]})
		varLabels = append(varLabels, m[2])
	}
	for _, p := range allPanels(d.Panels) {
		for _, tg := range p.Targets {
			qs = append(qs, query{where: "panel " + p.Title, expr: tg.Expr, legend: tg.LegendFormat})
		}
	}
	return qs, varLabels
}

var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	promMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promMatcher  = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)`)
	promRange    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promKeywords = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan", "Inf", "NaN"}
	legendLabel  = regexp.MustCompile(`\{\{\s*([^}\s]+)\s*\}\}`)
)

// promNames reads a PromQL expression without a full parser: the metric
// names it selects, and the label names its matchers and groupings use.
// Strings, label matchers, ranges and groupings are taken out first; what
// is left that looks like a name is a metric, unless a '(' follows it (a
// function or an aggregation), it is a keyword, or it is part of a number
// (1e3) or of a Grafana variable ($__interval).
func promNames(expr string) (metrics, labels []string) {
	e := promString.ReplaceAllString(expr, `""`)
	for _, m := range promMatchers.FindAllString(e, -1) {
		for _, l := range promMatcher.FindAllStringSubmatch(m, -1) {
			labels = append(labels, l[1])
		}
	}
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRange.ReplaceAllString(e, " ")
	for _, g := range promGrouping.FindAllStringSubmatch(e, -1) {
		for _, l := range strings.Split(g[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
	}
	e = promGrouping.ReplaceAllString(e, " ")
	for _, loc := range promIdent.FindAllStringIndex(e, -1) {
		name := e[loc[0]:loc[1]]
		if loc[0] > 0 && strings.ContainsRune("0123456789.$", rune(e[loc[0]-1])) {
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(e[loc[1]:], " \t\n"), "(") || slices.Contains(promKeywords, name) {
			continue
		}
		metrics = append(metrics, name)
	}
	return metrics, labels
}

// TestPromNames is the control of promNames: each kind of thing it must
// leave out, and the names it must find among them.
func TestPromNames(t *testing.T) {
	for _, c := range []struct {
		expr            string
		metrics, labels []string
	}{
		{`relay_x_total`, []string{"relay_x_total"}, nil},
		{`sum(rate(a_total{instance=~"$instance", class="5xx"}[$__rate_interval]))`, []string{"a_total"}, []string{"instance", "class"}},
		{`histogram_quantile(0.99, sum by (le, route) (rate(h_bucket{x!="}b"}[5m])))`, []string{"h_bucket"}, []string{"x", "le", "route"}},
		{`sum(a) by (reason) / on(instance) group_left b offset 5m > 1e3 and bool c`, []string{"a", "b", "c"}, []string{"reason", "instance"}},
		{`max(q{i=~"$i"} >= 0) * $__interval_ms`, []string{"q"}, []string{"i"}},
		{`sum without (le) (rate(d_sum[1m])) / sum without(le)(rate(d_count[1m]))`, []string{"d_sum", "d_count"}, []string{"le", "le"}},
	} {
		m, l := promNames(c.expr)
		if !slices.Equal(m, c.metrics) || !slices.Equal(l, c.labels) {
			t.Errorf("%s: metrics %q labels %q, want %q and %q", c.expr, m, l, c.metrics, c.labels)
		}
	}
}

// exported reads a scrape: the names of its samples (a histogram's
// _bucket, _sum and _count), its families (# TYPE) and its label names.
func exported(text string) (samples, families, labels map[string]bool) {
	samples, families, labels = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			families[strings.Fields(f)[0]] = true
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		name = strings.Fields(name)[0]
		samples[name] = true
		if set, _, ok := strings.Cut(rest, "}"); ok {
			for _, l := range promMatcher.FindAllStringSubmatch(set, -1) {
				labels[l[1]] = true
			}
		}
	}
	return samples, families, labels
}

// TestDashboardUsesExportedMetrics: every metric that a panel or a
// variable of the dashboard names is one a running relay exports, every
// label it groups or matches by is one the relay's series carry (or
// instance and job, which Prometheus adds), and every relay_ series the
// relay exports has a panel. The relay is exercised first, so that the
// series that exist only once counted (refusals by reason) are there.
func TestDashboardUsesExportedMetrics(t *testing.T) {
	d := readDashboard(t)
	s := newTestServer(t)
	exercise(t, s)
	samples, families, labels := exported(s.scrape(t))
	labels["instance"], labels["job"] = true, true

	qs, varLabels := d.queries(t)
	used := map[string]bool{}
	for _, q := range qs {
		metrics, ls := promNames(q.expr)
		if len(metrics) == 0 {
			t.Errorf("%s: %q names no metric", q.where, q.expr)
		}
		for _, m := range metrics {
			if !samples[m] {
				t.Errorf("%s: %q names %s, which the relay does not export", q.where, q.expr, m)
			}
			used[m] = true
		}
		for _, m := range legendLabel.FindAllStringSubmatch(q.legend, -1) {
			ls = append(ls, m[1])
		}
		for _, l := range append(ls, varLabels...) {
			if !labels[l] {
				t.Errorf("%s: %q (legend %q) uses the label %s, which no series of the relay carries", q.where, q.expr, q.legend, l)
			}
		}
	}
	if len(used) < 30 {
		t.Fatalf("the dashboard names %d metrics: its queries were not read", len(used))
	}
	for _, f := range slices.Sorted(maps.Keys(families)) {
		if !strings.HasPrefix(f, "relay_") {
			continue
		}
		if !used[f] && !used[f+"_bucket"] && !used[f+"_sum"] && !used[f+"_count"] {
			t.Errorf("the relay exports %s, which no panel of %s shows", f, dashboardFile)
		}
	}
}

// TestDashboardShape: what Grafana needs to import the file and what
// ADR 0116 chose: the classic JSON model at schemaVersion 39, every query
// on the Prometheus data source chosen in the $datasource variable, panel
// ids unique, panels within the 24 columns and none over another.
func TestDashboardShape(t *testing.T) {
	d := readDashboard(t)
	if d.UID == "" || d.Title == "" || d.SchemaVersion != 39 {
		t.Fatalf("uid %q, title %q, schemaVersion %d: want both set and 39", d.UID, d.Title, d.SchemaVersion)
	}
	hasVar := false
	for _, v := range d.Templating.List {
		hasVar = hasVar || (v.Name == "datasource" && v.Type == "datasource")
	}
	if !hasVar {
		t.Fatal("no variable datasource of type datasource: the panels' ${datasource} names nothing")
	}
	ids := map[int]string{}
	type cell struct{ x, y int }
	taken := map[cell]string{}
	for _, p := range allPanels(d.Panels) {
		if prev, ok := ids[p.ID]; ok || p.ID == 0 {
			t.Errorf("panel %q: id %d, taken by %q too", p.Title, p.ID, prev)
		}
		ids[p.ID] = p.Title
		g := p.GridPos
		if g.W < 1 || g.H < 1 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v is not within 24 columns", p.Title, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, ok := taken[cell{x, y}]; ok {
					t.Fatalf("panel %q lies over %q at column %d, row %d", p.Title, other, x, y)
				}
				taken[cell{x, y}] = p.Title
			}
		}
		if p.Type == "row" {
			continue
		}
		if !slices.Contains([]string{"timeseries", "stat"}, p.Type) || len(p.Targets) == 0 {
			t.Errorf("panel %q: type %q with %d queries", p.Title, p.Type, len(p.Targets))
		}
		refs := map[string]bool{}
		// The panel's own data source, then each query's.
		for _, tg := range append([]target{{RefID: "the panel", Datasource: p.Datasource, Expr: "-"}}, p.Targets...) {
			if tg.Datasource == nil || *tg.Datasource != (datasourceRef{Type: "prometheus", UID: "${datasource}"}) {
				t.Errorf("panel %q, %s: data source %+v, want the Prometheus of ${datasource}", p.Title, tg.RefID, tg.Datasource)
			}
			if refs[tg.RefID] || tg.Expr == "" {
				t.Errorf("panel %q: refId %q given twice, or no expression", p.Title, tg.RefID)
			}
			refs[tg.RefID] = true
		}
	}
}
