package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/result"
)

// DescribeRedis says which Redis the runs used: its mode and version, and
// for a cluster how many masters and replicas it had.
func DescribeRedis(r *result.Result) string {
	if c := r.Redis.Cluster; c != nil {
		return fmt.Sprintf("%s Redis Cluster %s: %d masters, %d replicas", r.Redis.Mode, r.Redis.Version, c.Masters, c.Replicas)
	}
	return r.Redis.Mode + " " + r.Redis.Version
}

// HotNodeNotes says, scenario by scenario, where one master of a cluster
// made most of the decisions (result.Cluster.Hot), which algorithms it
// happened to, and the likely reason: the cluster then does no more than
// its busiest master can.
func HotNodeNotes(r *result.Result) []string {
	type hot struct {
		scenario string
		algs     []string
		worst    *result.Run
	}
	var order []*hot
	byScenario := map[string]*hot{}
	for i := range r.Runs {
		run := &r.Runs[i]
		if !run.Cluster.Hot() {
			continue
		}
		h := byScenario[run.Scenario]
		if h == nil {
			h = &hot{scenario: run.Scenario}
			byScenario[run.Scenario] = h
			order = append(order, h)
		}
		h.algs = append(h.algs, run.Algorithm)
		if h.worst == nil || run.Cluster.BusiestNodeShare > h.worst.Cluster.BusiestNodeShare {
			h.worst = run
		}
	}
	var out []string
	for _, h := range order {
		c := h.worst.Cluster
		out = append(out, fmt.Sprintf("%s: hot node: %s of decisions on one master (%s, of %d) for %s: %s",
			h.scenario, FormatMasterShare(c.BusiestNodeShare), c.BusiestNode, len(c.Nodes), strings.Join(h.algs, ", "), hotReason(h.worst)))
	}
	return out
}

// hotReason says why one master took most of a run's decisions.
func hotReason(run *result.Run) string {
	masters := len(run.Cluster.Nodes)
	switch {
	case run.Cluster.HashTag == "fixed":
		return "hash_tag: fixed puts every identity under one hash tag, so one slot on one master holds them all and the cluster does no more than that master can"
	case run.Identities < masters:
		return fmt.Sprintf("%d identities cannot spread over %d masters", run.Identities, masters)
	case run.Cluster.HashTag == "declared":
		return "the limiter's key templates share a hash tag across identities, or few identities took most of the requests"
	}
	return "the identities' hash slots, or the requests among them, fell unevenly on the masters"
}

// FormatMasterShare renders a master's share of a run's decisions as a
// whole percentage, never rounding a part up to all or a little down to
// nothing: 1 is 100%, 0.996 is 99%.
func FormatMasterShare(f float64) string {
	p := math.Round(100 * f)
	switch {
	case f < 1 && p >= 100:
		p = 99
	case f > 0 && p <= 0:
		p = 1
	}
	return fmt.Sprintf("%.0f%%", p)
}

// writeCluster prints, for a result from a Redis Cluster, how each run's
// decisions fell on the masters (m1, m2, ... in slot order, named above
// the table), the busiest master's share, each master's keys added, server
// time per call and memory, and the redirections the run's calls met.
func writeCluster(w io.Writer, r *result.Result) error {
	c := r.Redis.Cluster
	var runs []*result.Run
	for i := range r.Runs {
		if r.Runs[i].Cluster != nil {
			runs = append(runs, &r.Runs[i])
		}
	}
	if c == nil || len(runs) == 0 {
		return nil
	}
	masters := c.Nodes
	for _, run := range runs {
		for _, n := range run.Cluster.Nodes {
			if !slices.Contains(masters, n.Addr) {
				masters = append(slices.Clone(masters), n.Addr)
			}
		}
	}
	fmt.Fprintf(w, "\ncluster: decisions per master, and what else each master took (%s)\n", masterNames(masters))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"algorithm", "scenario", "hash tag"}
	for i := range masters {
		head = append(head, fmt.Sprintf("m%d", i+1))
	}
	head = append(head, "busiest", "keys/master", "us/call/master", "memory/master", "redirects")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, run := range runs {
		rc := run.Cluster
		cells := []string{run.Algorithm, run.Scenario, rc.HashTag}
		byAddr := map[string]result.NodeFigures{}
		for _, n := range rc.Nodes {
			byAddr[n.Addr] = n
		}
		var keys, usec, mem []string
		// Memory per master is as noisy as memory per identity below
		// result.MinIdentitiesForBytes identities.
		_, memoryMeans := run.Memory.PerIdentity()
		for _, m := range masters {
			n, ok := byAddr[m]
			if !ok {
				cells = append(cells, "-")
				keys, usec, mem = append(keys, "-"), append(usec, "-"), append(mem, "-")
				continue
			}
			cells = append(cells, FormatMasterShare(n.Share))
			keys = append(keys, fmt.Sprint(n.KeysDelta))
			u := "-"
			if n.Calls > 0 {
				u = fmt.Sprintf("%.1f", n.UsecPerCall)
			}
			usec = append(usec, u)
			if memoryMeans {
				mem = append(mem, FormatSize(float64(n.UsedMemoryDeltaBytes)))
			} else {
				mem = append(mem, "-")
			}
		}
		busiest := FormatMasterShare(rc.BusiestNodeShare)
		if rc.Hot() {
			busiest += " HOT"
		}
		if len(rc.Nodes) == 0 {
			busiest = "-"
		}
		redirects := fmt.Sprint(rc.Redirections.Total())
		if rc.Redirections.Ask > 0 {
			redirects += fmt.Sprintf(" (%d ASK)", rc.Redirections.Ask)
		}
		cells = append(cells, busiest, strings.Join(keys, "/"), strings.Join(usec, "/"), strings.Join(mem, "/"), redirects)
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, run := range runs {
		if run.Cluster.Note != "" {
			fmt.Fprintf(w, "  %s: %s\n", run.Key(), run.Cluster.Note)
		}
	}
	return nil
}

// masterNames names the masters m1, m2, ... for the table's columns.
func masterNames(addrs []string) string {
	parts := make([]string, len(addrs))
	for i, a := range addrs {
		parts[i] = fmt.Sprintf("m%d %s", i+1, a)
	}
	return strings.Join(parts, ", ")
}
