package profile

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/plan"
)

// MaxRetries bounds client.retries.
const MaxRetries = 10

var clientFields = []string{"timeout", "retries", "backoff", "on_error"}

// parseClient reads the client section.
func parseClient(d *decoder, top *yamlMap, profileTimeout time.Duration) *plan.Client {
	f := d.mapping(top.values["client"], "client", clientFields...)
	c := &plan.Client{Timeout: profileTimeout, Line: top.lineOf("client")}
	f.duration("timeout", &c.Timeout, time.Millisecond)
	f.intField("retries", &c.Retries, 0)
	if c.Retries > MaxRetries {
		f.errorf("retries", "%d is more than %d: a caller that retries that often makes an outage worse", c.Retries, MaxRetries)
	}
	f.duration("backoff", &c.Backoff, 0)
	if c.Retries > 0 && c.Retries <= MaxRetries && c.Backoff > 0 {
		// The backoff doubles for each retry: the caller waits up to
		// backoff x (2^retries - 1) besides its timeouts, all of which
		// must stay a duration.
		waits := int64(1)<<c.Retries - 1
		if _, ok := checkedSpan(c.Backoff, waits, time.Duration(c.Retries+1)*min(c.Timeout, MaxDuration)); !ok {
			f.errorf("backoff", "%s doubled for each of %d retries makes a call wait more than %s", c.Backoff, c.Retries, MaxDuration)
		}
	}
	if !f.has("on_error") {
		f.errorf("on_error", "missing: what the caller does when Redis gives no decision: %s, or a list of them to run each", policyNames())
		return c
	}
	n := f.values["on_error"]
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			f.errorf("on_error", "the list is empty")
		}
	}
	for i, item := range items {
		field := "client.on_error"
		if n.Kind == yaml.SequenceNode {
			field = fmt.Sprintf("client.on_error[%d]", i)
		}
		pol := plan.ErrorPolicy(item.Value)
		switch {
		case item.Kind != yaml.ScalarNode:
			d.errorf(item.Line, field, "want one of %s, got %s", policyNames(), describe(item))
		case !slices.Contains(plan.ErrorPolicies, pol):
			d.errorf(item.Line, field, "unknown error policy %q (known: %s)", item.Value, policyNames())
		case slices.Contains(c.OnError, pol):
			d.errorf(item.Line, field, "%q is listed twice", item.Value)
		default:
			c.OnError = append(c.OnError, pol)
		}
	}
	return c
}

func policyNames() string {
	names := make([]string, len(plan.ErrorPolicies))
	for i, p := range plan.ErrorPolicies {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// splitPolicies gives each scenario the client's error policy; when the
// client lists several, each scenario becomes one per policy, named
// <name>-<policy>, so that every run has keys and a line of its own.
func splitPolicies(d *decoder, scenarios []Scenario, c *plan.Client) []Scenario {
	if c == nil || len(c.OnError) == 0 {
		return scenarios
	}
	if len(c.OnError) == 1 {
		for i := range scenarios {
			scenarios[i].OnError = c.OnError[0]
		}
		return scenarios
	}
	names := map[string]bool{}
	for _, s := range scenarios {
		names[s.Name] = true
	}
	out := make([]Scenario, 0, len(scenarios)*len(c.OnError))
	for _, s := range scenarios {
		for _, pol := range c.OnError {
			split := s
			split.OnError = pol
			split.PolicyGroup = s.Name
			split.Name = s.Name + "-" + string(pol)
			switch {
			case !namePattern.MatchString(split.Name):
				d.errorf(s.Line, "name", "%q, the name of its run under %s, is longer than 64 characters: give the scenario a shorter name", split.Name, pol)
				continue
			case names[split.Name]:
				d.errorf(s.Line, "name", "%q, the name of its run under %s, is already the name of another scenario", split.Name, pol)
				continue
			}
			names[split.Name] = true
			out = append(out, split)
		}
	}
	return out
}

// checkUnpipelinedCallers refuses pipelining in a scenario with faults or
// under a client section: the caller's timeout, retries and error policy
// bound and decide one limiter call at a time, and a fault's failed calls
// are counted and audited one by one, where a pipeline sends a connection's
// queued requests together and fails them together. Each scenario is
// reported once, at its own pipeline field when it gave one, else at the
// profile's.
func checkUnpipelinedCallers(d *decoder, top *yamlMap, p *Profile) {
	nodes := top.sequence("scenarios")
	reported := map[int]bool{}
	for _, s := range p.Scenarios {
		pipe := p.RunPipeline(s)
		if pipe.MaxBatch() <= 1 || (!s.Faults.Any() && p.Client == nil) || reported[s.Line] {
			continue
		}
		reported[s.Line] = true
		var needs []string
		if s.Faults.Any() {
			needs = append(needs, fmt.Sprintf("its faults (line %d)", s.Faults[0].Line))
		}
		if p.Client != nil {
			needs = append(needs, fmt.Sprintf("the client section (line %d)", p.Client.Line))
		}
		verb := "needs"
		if len(needs) > 1 {
			verb = "need"
		}
		msg := fmt.Sprintf("pipeline: %s sends a connection's queued requests together, and %s %s each limiter call on its own: "+
			"the caller's timeout, retries and error policy bound and decide one call, and calls failed by a fault are counted and audited one by one; "+
			"run this scenario with pipeline: 1", pipe, strings.Join(needs, " and "), verb)
		for i, n := range nodes {
			if n.Line != s.Line {
				continue
			}
			if s.Pipeline.Given() {
				d.errorf(keyLine(n, "pipeline"), fmt.Sprintf("scenarios[%d].pipeline", i), "%s", msg)
			} else {
				name := s.Name
				if s.PolicyGroup != "" {
					name = s.PolicyGroup
				}
				d.errorf(top.lineOf("pipeline"), "pipeline", "%s (scenario %s takes the profile's pipeline)", msg, name)
			}
		}
	}
}
