package html

import (
	"fmt"
	"slices"

	"github.com/rlbench/rlbench/report"
)

// hasCluster reports whether a run of scenario has figures per master of
// a Redis Cluster.
func (v *view) hasCluster(scenario string) bool {
	for _, run := range v.scenarioRuns(scenario) {
		if run.Cluster != nil && len(run.Cluster.Nodes) > 0 {
			return true
		}
	}
	return false
}

// clusterMasters lists the masters scenario's runs were measured on: the
// cluster's, in slot order, then any other a run met (a failover).
func (v *view) clusterMasters(scenario string) []string {
	var out []string
	if c := v.r.Redis.Cluster; c != nil {
		out = append(out, c.Nodes...)
	}
	for _, run := range v.scenarioRuns(scenario) {
		if run.Cluster == nil {
			continue
		}
		for _, n := range run.Cluster.Nodes {
			if !slices.Contains(out, n.Addr) {
				out = append(out, n.Addr)
			}
		}
	}
	return out
}

// decisionsPerMaster draws, for one scenario on a Redis Cluster, one group
// of bars per master and in it one bar per algorithm: how many of the
// run's decisions that master made (its calls of the limiter's command),
// labelled with its share. Identities that spread make bars of one height
// across the masters; a hash tag shared by every identity puts every bar
// on one master.
func decisionsPerMaster(v *view, scenario string) (drawing, error) {
	p := newPlot("Decisions per master", "master (in slot order)", "decisions (the limiter's command, from INFO commandstats)")
	masters := v.clusterMasters(scenario)
	var algs []string
	for _, run := range v.scenarioRuns(scenario) {
		if run.Cluster != nil && len(run.Cluster.Nodes) > 0 {
			algs = append(algs, run.Algorithm)
		}
	}
	layout := newBarLayout(len(masters), len(algs))
	top := 0.0
	for i, alg := range algs {
		c := v.run(alg, scenario).Cluster
		values := make([]float64, len(masters))
		texts := make([]string, len(masters))
		for _, n := range c.Nodes {
			g := slices.Index(masters, n.Addr)
			values[g] = float64(n.Calls)
			texts[g] = report.FormatMasterShare(n.Share)
			top = max(top, values[g])
		}
		if err := layout.labelledBars(p, i, alg, v.colors.color(alg), values, texts); err != nil {
			return nil, err
		}
	}
	names := make([]string, len(masters))
	for i, m := range masters {
		names[i] = fmt.Sprintf("m%d %s", i+1, m)
	}
	nominalGroups(p, names)
	padTop(p, top, 0.35)
	return p, nil
}

// clusterTable is a scenario's figures per master, for the page.
type clusterTable struct {
	Masters []string
	Rows    []clusterRow
	Notes   []string
}

// clusterRow is one run's figures per master.
type clusterRow struct {
	Algorithm, Color, HashTag string
	Cells                     []clusterCell
	Busiest, Redirects        string
	Hot                       bool
}

// clusterCell is one master's figures in one run.
type clusterCell struct {
	Decisions, Keys, UsecPerCall, Memory string
}

// newClusterTable lays out scenario's figures per master, or nil when its
// runs have none.
func newClusterTable(v *view, scenario string) *clusterTable {
	if !v.hasCluster(scenario) {
		return nil
	}
	t := &clusterTable{}
	masters := v.clusterMasters(scenario)
	for i, m := range masters {
		t.Masters = append(t.Masters, fmt.Sprintf("m%d %s", i+1, m))
	}
	for _, run := range v.scenarioRuns(scenario) {
		c := run.Cluster
		if c == nil {
			continue
		}
		row := clusterRow{Algorithm: run.Algorithm, Color: hexColor(v.colors.color(run.Algorithm)), HashTag: c.HashTag,
			Busiest: dash, Redirects: fmt.Sprint(c.Redirections.Total()), Hot: c.Hot()}
		if c.Redirections.Ask > 0 {
			row.Redirects += fmt.Sprintf(" (%d ASK)", c.Redirections.Ask)
		}
		if len(c.Nodes) > 0 {
			row.Busiest = report.FormatMasterShare(c.BusiestNodeShare)
		}
		_, memoryMeans := run.Memory.PerIdentity()
		row.Cells = make([]clusterCell, len(masters))
		for i := range row.Cells {
			row.Cells[i] = clusterCell{dash, dash, dash, dash}
		}
		for _, n := range c.Nodes {
			cell := &row.Cells[slices.Index(masters, n.Addr)]
			cell.Decisions = fmt.Sprintf("%s (%s)", report.FormatCount(n.Calls), report.FormatMasterShare(n.Share))
			cell.Keys = fmt.Sprint(n.KeysDelta)
			if n.Calls > 0 {
				cell.UsecPerCall = fmt.Sprintf("%.1f", n.UsecPerCall)
			}
			if memoryMeans {
				cell.Memory = report.FormatSize(float64(n.UsedMemoryDeltaBytes))
			}
		}
		if c.Note != "" {
			t.Notes = append(t.Notes, run.Algorithm+": "+c.Note)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
