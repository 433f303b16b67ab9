package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
)

// writeFaults prints, for the runs that had faults (scheduled by the
// profile, or seen by the server's watch), one line per fault window (what
// was scheduled, when the server saw it, the window's
// and its recovery's decisions, what the error policy decided, calls per
// decision on the client and on the server, how long a caller waited for
// the policy, the state lost), then the policies side by side when the
// profile ran more than one.
func writeFaults(w io.Writer, r *result.Result) error {
	if !hasFaults(r) {
		return nil
	}
	fmt.Fprintln(w, "\nfaults (ms from the start of the measured traffic; window | recovery: decisions allowed/denied/errors, the policy's share of the errors)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tscenario\tkind\tscheduled\tseen\twindow\trecovery\trecovered in\tcalls/decision client|server\terror wait p99\tstate lost\t")
	var why MissingCells
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Faults == nil {
			continue
		}
		for _, f := range run.Faults.Windows {
			scheduled := fmt.Sprintf("%d-%d", f.ScheduledStartMs, f.ScheduledEndMs)
			if f.Unscheduled {
				scheduled = "unscheduled"
			}
			seen := fmt.Sprintf("%d-%d", f.ObservedStartMs, f.ObservedEndMs)
			if f.Error != "" {
				seen = "NOT INJECTED"
			}
			recovered := FormatMillis(f.RecoveryMs)
			if !f.Recovered {
				recovered = "not by " + FormatMillis(f.Recovery.EndMs)
			}
			server := fmt.Sprintf("%.2f", f.ServerCallsPerDecision)
			if f.ServerCallsUnavailable != "" {
				server = "-"
				why.Add("server calls/decision", run.Key()+" ("+f.Kind+")", f.ServerCallsUnavailable)
			}
			lost := "none"
			if l := f.StateLost; l != nil {
				lost = fmt.Sprintf("%d %s, %d let through", l.Identities, plural.Noun(l.Identities, "id", "ids"), l.Admitted)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f|%s\t%s\t%s\t\n",
				run.Algorithm, run.Scenario, f.Kind, scheduled, seen,
				faultFigures(f.Window), faultFigures(f.Recovery), recovered,
				f.ClientCallsPerDecision, server, FormatMicros(f.ErrorLatencyUs.P99), lost)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range why.Lines("-") {
		fmt.Fprintln(w, "  "+line)
	}
	return writePolicyComparison(w, r)
}

// hasFaults says whether any run had faults, scheduled or seen.
func hasFaults(r *result.Result) bool {
	for i := range r.Runs {
		if r.Runs[i].Faults != nil {
			return true
		}
	}
	return false
}

// faultFigures is one span's decisions: "decisions a/d/e", then what the
// error policy decided among the errors ("+N" admitted, "-N" denied).
func faultFigures(f result.FaultFigures) string {
	s := fmt.Sprintf("%d %d/%d/%d", f.Decisions, f.Allowed, f.Denied, f.Errors)
	if f.AllowedOnError > 0 {
		s += fmt.Sprintf(" +%d", f.AllowedOnError)
	}
	if f.DeniedOnError > 0 {
		s += fmt.Sprintf(" -%d", f.DeniedOnError)
	}
	return s
}

// PolicyComparison is one row of the error policies side by side: an
// algorithm and scenario run under one policy.
type PolicyComparison struct {
	Algorithm, Scenario, OnError string
	Run                          *result.Run
}

// PolicyComparisons returns the runs of every algorithm and scenario that
// ran under more than one error policy, grouped in the order the result
// holds them; the scenario is the profile's, without the policy suffix.
func PolicyComparisons(r *result.Result) []PolicyComparison {
	type group struct{ algorithm, scenario string }
	rows := map[group][]PolicyComparison{}
	var order []group
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Params.OnError == "" {
			continue
		}
		g := group{run.Algorithm, strings.TrimSuffix(run.Scenario, "-"+run.Params.OnError)}
		if _, ok := rows[g]; !ok {
			order = append(order, g)
		}
		rows[g] = append(rows[g], PolicyComparison{Algorithm: g.algorithm, Scenario: g.scenario, OnError: run.Params.OnError, Run: run})
	}
	var out []PolicyComparison
	for _, g := range order {
		if len(rows[g]) > 1 {
			out = append(out, rows[g]...)
		}
	}
	return out
}

// PolicyComparisonColumns name the cells of PolicyComparison.Cells.
var PolicyComparisonColumns = []string{"algorithm", "scenario", "on_error", "allowed", "denied", "errors",
	"allowed on error", "denied on error", "admitted by fault", "denied by fault", "excess over policy",
	"state lost", "longest recovery", "calls/request"}

// Cells formats the row's figures, in the order of PolicyComparisonColumns:
// what the run admitted and denied, what the policy decided on error, what
// the fault let through (admissions the limiter would have denied, and
// fail_open's excess over the policy) or cost (requests denied only
// because of the fault), the state lost, the longest recovery and the
// calls per request; "-" where the run has no figure.
func (c PolicyComparison) Cells() []string {
	q, f := c.Run.Requests, c.Run.Faults
	byFault, deniedByFault, excess, lost, recovery, calls := "-", "-", "-", "-", "-", "-"
	if f != nil {
		byFault, deniedByFault = optionalCount(f.AdmittedByFault), optionalCount(f.DeniedByFault)
		excess = fmt.Sprint(f.PolicyExcess)
		lost = fmt.Sprintf("%d %s, %d let through", f.StateLostIdentities, plural.Noun(f.StateLostIdentities, "id", "ids"), f.StateLostAdmitted)
		recovery = FormatMillis(f.MaxRecoveryMs)
		if q.Sent > 0 {
			calls = fmt.Sprintf("%.2f", float64(f.Attempts)/float64(q.Sent))
		}
	}
	return []string{c.Algorithm, c.Scenario, c.OnError, fmt.Sprint(q.Allowed), fmt.Sprint(q.Denied), fmt.Sprint(q.Errors),
		fmt.Sprint(q.AllowedOnError), fmt.Sprint(q.DeniedOnError), byFault, deniedByFault, excess, lost, recovery, calls}
}

// writePolicyComparison prints the error policies side by side.
func writePolicyComparison(w io.Writer, r *result.Result) error {
	rows := PolicyComparisons(r)
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nerror policies side by side")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(PolicyComparisonColumns, "\t")+"\t")
	for _, c := range rows {
		fmt.Fprintln(tw, strings.Join(c.Cells(), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range PolicyComparisonDashes(rows, "-") {
		fmt.Fprintln(w, "  "+line)
	}
	return nil
}

// PolicyComparisonDashes says why the rows' cells that have no figure are
// dashes, a line per cause, after the dash as the table shows it.
func PolicyComparisonDashes(rows []PolicyComparison, dash string) []string {
	var why MissingCells
	for _, c := range rows {
		for i, cell := range c.Cells() {
			if cell == "-" {
				why.Add(PolicyComparisonColumns[i], c.Algorithm+"/"+c.Scenario+" under "+c.OnError, c.WhyNoFigure(PolicyComparisonColumns[i]))
			}
		}
	}
	return why.Lines(dash)
}

// WhyNoFigure says why the row has no figure in the column of
// PolicyComparisonColumns named; empty when it has one.
func (c PolicyComparison) WhyNoFigure(column string) string {
	f := c.Run.Faults
	switch {
	case f == nil:
		return "no fault was scheduled or seen in its run under " + c.OnError
	case (column == "admitted by fault" || column == "denied by fault") && (f.AdmittedByFault == nil || f.DeniedByFault == nil):
		return "its audit had no reference model to say what the limiter would have decided had Redis answered (judged by its bound only)"
	case column == "calls/request" && c.Run.Requests.Sent == 0:
		return "its run sent no request"
	}
	return ""
}

// optionalCount prints a count the result may not have ("-" when absent).
func optionalCount(n *int64) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

// unscheduledNotes says, for each fault nobody scheduled but the server's
// watch saw, what it was, when, and that the limiter is not blamed for it:
// its connection errors are out of the error budget, and a reset of
// limiter state is one the audit judged the decisions after it from.
func unscheduledNotes(r *result.Result) []note {
	var out []note
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Faults == nil {
			continue
		}
		for _, w := range run.Faults.Windows {
			if !w.Unscheduled || w.Kind == "evicted" {
				continue // evictions have their note, with the policy
			}
			what := unscheduledConsequence(w.Kind)
			out = append(out, note{kind: kindUnscheduled, where: run.Key(), text: fmt.Sprintf("%s: unscheduled %s seen between %s and %s (%s): %s", run.Key(), w.Kind,
				FormatMillis(w.ObservedStartMs), FormatMillis(w.ObservedEndMs), w.Server, what)})
		}
	}
	return out
}

// unscheduledConsequence says what an unscheduled fault of kind did to the
// run, and how rlbench took it.
func unscheduledConsequence(kind string) string {
	switch kind {
	case "restart", "flushall":
		return "limiter state was reset by the server, not by the limiter; the audit judged the decisions after it from an empty state"
	case "flushdb", "deleted", "evicted":
		return "limiter state may have been reset by the server or another client, not by the limiter; the audit judged each decision in every state it may have left"
	case "script_flush":
		return "the limiter's cached scripts were flushed; a call that found its script missing failed, not for the limiter's doing"
	case "failover":
		return "Sentinel promoted a replica, whose copy of the limiter's state may lack what the old primary wrote last (replication is asynchronous); the calls that failed are left out of the error budget, and the audit held each identity's decisions after it to the bound until its state was known again (a window's first admission, a bucket's exact level, a log window past the switch)"
	default:
		return "the connection's errors in its window are not the limiter's and are left out of the error budget"
	}
}
