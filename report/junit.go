package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// JUnit test cases are named after what they check: each run by its key
// (algorithm/scenario), each threshold by its expression and run, and the
// result as a whole, whose findings belong to no one run (an incomplete
// result, a negative control nothing caught).
const (
	junitResultCase     = "result"
	junitThresholdClass = "thresholds"
)

// WriteJUnit writes the result as JUnit XML, as CI systems read it (the
// common JUnit schema: testsuites, testsuite, testcase, failure, skipped,
// properties). One test suite holds a test case per run, per threshold
// and for the result as a whole. A run the verdict fails on fails with one
// failure per finding (its kind as the type, its text as the message); a
// run that could not judge what it set out to (inconclusive, also when its
// scenario accepts that) is skipped, with the reason as the message; a
// threshold that failed fails with what it measured against what it had to
// meet. Strings from the result are made printable first, as in every
// report.
func WriteJUnit(w io.Writer, r *result.Result) error {
	r = printableCopy(r)
	j := verdict.Assess(r)
	suite := junitSuite{
		Name:      "rlbench " + r.Profile.Name,
		Timestamp: r.StartedAt.UTC().Format(time.RFC3339),
		Hostname:  r.Host.Name,
		Time:      junitSeconds(r.FinishedAt.Sub(r.StartedAt).Seconds()),
		Properties: []junitProperty{
			{"verdict", j.Verdict},
			{"profile", r.Profile.Name},
			{"profile_sha256", r.Profile.SHA256},
			{"run_id", r.RunID},
			{"redis", strings.TrimSpace(r.Redis.Mode + " " + r.Redis.Version)},
			{"rlbench", r.Tool.Version},
		},
	}
	class := "rlbench." + r.Profile.Name
	for i := range r.Runs {
		suite.add(runCase(class, &r.Runs[i], j.Runs[i], j.Failures))
	}
	for _, t := range r.Thresholds {
		c := junitCase{Name: t.Expression + " [" + t.Run + "]", Class: class + "." + junitThresholdClass}
		if !t.OK {
			c.Failures = append(c.Failures, newJUnitMessage(verdict.ThresholdFailed.String(), thresholdOutcome(t)))
		} else {
			c.Out = thresholdOutcome(t)
		}
		suite.add(c)
	}
	whole := junitCase{Name: junitResultCase, Class: class, Out: strings.Join(j.Caught, "\n")}
	for _, f := range j.Failures {
		if f.Run == "" {
			whole.Failures = append(whole.Failures, newJUnitMessage(f.Kind.String(), f.Text))
		}
	}
	suite.add(whole)
	doc := junitSuites{Name: "rlbench", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// runCase is run's test case: its failures from the verdict's (those of
// its own, not a threshold's), or skipped when it could not judge.
func runCase(class string, run *result.Run, v verdict.Run, failures []verdict.Finding) junitCase {
	c := junitCase{Name: run.Key(), Class: class, Time: junitSeconds(run.ElapsedS)}
	for _, f := range failures {
		if f.Run == run.Key() && f.Kind != verdict.ThresholdFailed {
			c.Failures = append(c.Failures, newJUnitMessage(f.Kind.String(), f.Text))
		}
	}
	var lines []string
	q := run.Requests
	lines = append(lines, fmt.Sprintf("sent %d, allowed %d, denied %d, errors %d; p99 %s from the due time",
		q.Sent, q.Allowed, q.Denied, q.Errors, FormatMicros(run.LatencyUs.P99)))
	if a := run.Audit; a != nil {
		lines = append(lines, fmt.Sprintf("audit: most admitted in one window %d against a bound of %s; overshoot %d, mismatches %d, past the policy %d",
			a.MaxWindowAdmitted, AuditBound(a), a.Overshoot, a.ModelMismatches, a.PolicyExcess))
	}
	if v.NegativeControl && len(c.Failures) == 0 && len(v.Findings) > 0 {
		lines = append(lines, "a negative control (expect_broken): caught, as expected")
	}
	if len(v.Inconclusive) > 0 {
		reasons := make([]string, len(v.Inconclusive))
		for i, f := range v.Inconclusive {
			reasons[i] = f.Text
		}
		why := strings.Join(reasons, "; ")
		if v.Accepted {
			why = "accepted (accept_inconclusive): " + why
		}
		if len(c.Failures) == 0 {
			c.Skipped = ptr(newJUnitMessage("INCONCLUSIVE", why))
		} else {
			lines = append(lines, "inconclusive: "+why)
		}
	}
	c.Out = strings.Join(lines, "\n")
	return c
}

// junitSeconds is a time as the schema writes it: seconds, with a dot.
func junitSeconds(s float64) string { return fmt.Sprintf("%.3f", max(s, 0)) }

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Hostname   string          `xml:"hostname,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

// add appends a test case and counts it.
func (s *junitSuite) add(c junitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	switch {
	case len(c.Failures) > 0:
		s.Failures++
	case c.Skipped != nil:
		s.Skipped++
	}
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name     string         `xml:"name,attr"`
	Class    string         `xml:"classname,attr"`
	Time     string         `xml:"time,attr,omitempty"`
	Skipped  *junitMessage  `xml:"skipped"`
	Failures []junitMessage `xml:"failure"`
	Out      string         `xml:"system-out,omitempty"`
}

// junitMessage is a failure or a skip: its kind, its one-line message, and
// the same text as its body for the systems that show only that.
type junitMessage struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func newJUnitMessage(kind, text string) junitMessage {
	return junitMessage{Type: kind, Message: text, Body: text}
}

func ptr[T any](v T) *T { return &v }
