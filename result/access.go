package result

import (
	"fmt"
	"slices"
	"strings"
)

// Access is what the user rlbench connected as may run on a server it did
// not start, checked once as it connected: a least-privileged user, a
// managed service that renamed or removed commands, a server whose DEBUG
// is off each refuse some of what rlbench reads the server with. rlbench
// then runs with what it may; each figure that needs a refused command is
// named in a run's Unavailable (or RedisInfo.Unavailable).
type Access struct {
	// User is the ACL user checked ("default" when none was given).
	User string `json:"user"`
	// CheckedBy says how: "acl_dryrun" (ACL DRYRUN said what the ACL
	// allows, and each command it allowed was then called in a way that
	// changes nothing) or "calls" (ACL DRYRUN is itself refused: each
	// command was called in a way that changes nothing).
	CheckedBy string `json:"checked_by"`
	// Refused lists each command the server refused, with what it said.
	Refused []RefusedCommand `json:"refused,omitempty"`
}

// RefusedCommand is one command the server refused the user: its name
// ("INFO", "MEMORY USAGE") and what Redis said (NOPERM from its ACL,
// "unknown command" where it was renamed away, "DEBUG command not
// allowed").
type RefusedCommand struct {
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

// Unavailable is a figure rlbench did not measure because the server
// refused a command that reads it: the figure (within a run, a field or a
// section as thresholds name it, "memory.used_memory_delta_bytes",
// "server"; of the server, "version" or "maxmemory_policy"), the command,
// and what Redis said. A figure named here reads as absent (FieldValue),
// never as a zero that would pass.
type Unavailable struct {
	Figure  string `json:"figure"`
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

// serverFigures are what RedisInfo.Unavailable may name.
var serverFigures = []string{"version", "maxmemory_policy", "key_removal"}

// Measured reports whether run measured the figure at jsonPath: false
// when it, or the section it lies in, is named in run.Unavailable.
func (run *Run) Measured(jsonPath string) bool {
	for _, u := range run.Unavailable {
		if jsonPath == u.Figure || strings.HasPrefix(jsonPath, u.Figure+".") {
			return false
		}
	}
	return true
}

// validateUnavailable checks that each figure named unavailable is one the
// contract has, with the command and what Redis said.
func (r *Result) validateUnavailable() error {
	check := func(where string, u Unavailable, known func(string) bool) error {
		switch {
		case !known(u.Figure):
			return fmt.Errorf("%s: figure %q is not a figure of the result", where, u.Figure)
		case u.Command == "" || u.Reason == "":
			return fmt.Errorf("%s: figure %q: the command and what Redis said are both needed", where, u.Figure)
		}
		return nil
	}
	for i, u := range r.Redis.Unavailable {
		if err := check(fmt.Sprintf("redis.unavailable[%d]", i), u, func(f string) bool { return slices.Contains(serverFigures, f) }); err != nil {
			return err
		}
	}
	if a := r.Redis.Access; a != nil {
		for i, c := range a.Refused {
			if c.Command == "" || c.Reason == "" {
				return fmt.Errorf("redis.access.refused[%d]: the command and what Redis said are both needed", i)
			}
		}
	}
	for i := range r.Runs {
		for j, u := range r.Runs[i].Unavailable {
			if err := check(fmt.Sprintf("runs[%d] (%s): unavailable[%d]", i, r.Runs[i].Key(), j), u, isRunPath); err != nil {
				return err
			}
		}
	}
	return nil
}

// runPathSet is every path of a run's fields and sections.
var runPathSet = func() map[string]bool {
	numeric, other := runFields()
	out := map[string]bool{}
	for _, p := range append(numeric, other...) {
		for {
			out[p] = true
			i := strings.LastIndex(p, ".")
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return out
}()

// isRunPath reports whether path names a field or a section of a run.
func isRunPath(path string) bool { return runPathSet[path] }
