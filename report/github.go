package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// WriteGitHubAnnotations writes the verdict as GitHub Actions workflow
// commands, which the runner turns into annotations on the job: an
// ::error for each reason the verdict fails, a ::warning for each reason
// a run could not judge what it set out to (not those its scenario
// accepts). Each is titled with the run it is about.
func WriteGitHubAnnotations(w io.Writer, r *result.Result) error {
	r = printableCopy(r)
	j := verdict.Assess(r)
	for _, f := range j.Failures {
		if err := annotate(w, "error", f); err != nil {
			return err
		}
	}
	for _, f := range j.Inconclusive {
		if err := annotate(w, "warning", f); err != nil {
			return err
		}
	}
	return nil
}

// annotate writes one workflow command for finding f.
func annotate(w io.Writer, level string, f verdict.Finding) error {
	title := "rlbench: " + f.Kind.String()
	if f.Run != "" {
		title += " in " + f.Run
	}
	_, err := fmt.Fprintf(w, "::%s title=%s::%s\n", level, ghProperty.Replace(title), ghData.Replace(f.Text))
	return err
}

// ghData and ghProperty escape a workflow command's message and its
// properties as the runner reads them back: a newline would end the
// command, and in a property a colon or a comma would end the value.
var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)
