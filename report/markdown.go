package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// WriteMarkdown prints the summary as Markdown, for a pull-request comment
// or $GITHUB_STEP_SUMMARY: the verdict, one table of the runs with their
// audit, the thresholds that failed, and what a reader must not miss,
// grouped by kind, the limiter's own failures first.
func WriteMarkdown(w io.Writer, r *result.Result) error {
	r = printableCopy(r)
	j := verdict.Assess(r)
	icon := "✅"
	if j.Verdict != result.Pass {
		icon = "❌"
	}
	fmt.Fprintf(w, "### rlbench %s: %s %s\n\n", mdEscape(r.Profile.Name), icon, j.Verdict)
	for _, f := range j.Failures {
		fmt.Fprintf(w, "- **%s**\n", mdEscape(f.Text))
	}
	for _, caught := range j.Caught {
		fmt.Fprintf(w, "- %s\n", mdEscape(caught))
	}
	if len(j.Failures)+len(j.Caught) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Policy %s · Redis %s %s · rlbench %s\n\n",
		mdEscape(FormatPolicy(r.Profile.Policy)), mdEscape(r.Redis.Mode), mdEscape(r.Redis.Version), mdEscape(r.Tool.Version))
	fmt.Fprintln(w, "| algorithm | scenario | sent | allowed | denied | errors | rate/s | p50 | p99 | max in window / bound | over policy | audit |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for i := range r.Runs {
		run := &r.Runs[i]
		q := run.Requests
		window, over, check := "—", "—", "not audited"
		if a := run.Audit; a != nil {
			window = fmt.Sprintf("%d / %d", a.MaxWindowAdmitted, a.BoundWindow)
			over = fmt.Sprint(a.PolicyExcess)
			check = "ok"
			if c := auditCheck(run, j.Runs[i]); c != "ok" {
				check = "**" + strings.TrimPrefix(c, "<< ") + "**"
			}
		}
		name := mdEscape(run.Algorithm)
		if run.Incomplete {
			name += " (incomplete)"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n",
			name, mdEscape(run.Scenario), q.Sent, q.Allowed, q.Denied, q.Errors, FormatRate(run.Rate.AchievedPerS),
			FormatMicros(run.LatencyUs.P50), FormatMicros(run.LatencyUs.P99), window, over, check)
	}
	writeSkewMarkdown(w, r, j)
	var failed []result.ThresholdResult
	for _, t := range r.Thresholds {
		if !t.OK {
			failed = append(failed, t)
		}
	}
	if len(r.Thresholds) > 0 {
		fmt.Fprintf(w, "\n%d thresholds checked, %d failed\n", len(r.Thresholds), len(failed))
		for _, t := range failed {
			fmt.Fprintf(w, "- **FAIL** %s on %s: %s\n", mdCode(t.Expression), mdEscape(t.Run), mdEscape(thresholdOutcome(t)))
		}
	}
	if groups := groupNotes(r, noteList(r, j)); len(groups) > 0 {
		fmt.Fprintln(w)
		for _, g := range groups {
			line := mdEscape(g.Line)
			if g.Limiter {
				line = "**" + line + "**"
			}
			if g.Explanation != "" {
				line += " — " + mdEscape(g.Explanation)
			}
			fmt.Fprintf(w, "- %s\n", line)
			for _, d := range g.Details {
				fmt.Fprintf(w, "  - %s\n", mdEscape(d))
			}
		}
	}
	return nil
}

// mdText escapes what Markdown (CommonMark with GitHub's extensions) would
// read as markup in a text from a result: a name or a message must not
// become a link, an image, code, emphasis, HTML, a heading, a table cell
// or a bare URL that links itself, nor end its line.
var mdText = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "~", `\~`,
	"[", `\[`, "]", `\]`, "!", `\!`, "#", `\#`, "|", `\|`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"://", `\:\/\/`, "www.", `www\.`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// mdEscape is s as text in Markdown (see mdText).
func mdEscape(s string) string { return mdText.Replace(s) }

// mdCode is s as inline code: fenced by more backticks than any run of
// them in s, on one line, and with its pipes escaped (a pipe would end a
// table's cell even inside code).
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(s)
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
