// Package layering holds the test that keeps rlbench's imports one way, as
// docs/architecture.md draws them.
package layering

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const modulePath = "github.com/rlbench/rlbench/"

// allowed lists, for each package, the only packages of this module its
// non-test files may import. A package not listed may import any (the
// commands and tools at the top). Each row says why it is so narrow.
var allowed = map[string][]string{
	// The domain: limiters, the contract, the plan; each stands alone.
	"algorithms": {},
	"result":     {"internal/input", "internal/suggest"},
	"plan":       {"algorithms", "result", "trace"},
	// Traces are read and written by a package that knows nothing of
	// rlbench's runs: the engine sees only its arrivals.
	"trace": {"internal/suggest"},
	// The verdict is decided from a result alone.
	"verdict": {"result", "internal/numfmt", "internal/plural"},
	// The vocabulary the engine shares with the packages beside it.
	"internal/event": {"algorithms", "plan", "result", "internal/plural"},
	// The audit, the faults and the probes: none imports the engine, the
	// profile language or another of the three.
	"internal/audit":  {"algorithms", "plan", "result", "internal/event"},
	"internal/faults": {"algorithms", "plan", "result", "internal/event", "internal/redisenv"},
	"internal/probe":  {"algorithms", "result", "internal/event", "internal/redisenv", "internal/plural"},
	// The calibration of init's reading probes a declaration on a Redis
	// it is given: the limiters' library, nothing that runs a plan.
	"internal/calibrate": {"algorithms"},
	// When each request is due and whose it is: pure given the plan.
	"arrivals": {"plan", "trace"},
	// The engine runs a resolved plan: it never reads a profile, judges or
	// renders.
	"workload": {"algorithms", "arrivals", "plan", "result", "internal/event", "internal/audit", "internal/faults",
		"internal/probe", "internal/recorder", "internal/redisenv", "internal/schedstat"},
	// What a run's outcomes add up to, kept apart from what sends them.
	"internal/recorder": {"result", "internal/event", "internal/redisenv"},
	// The capacity shape measures through the engine, which never imports
	// it: beside the engine, as the command's other parts are.
	"capacity": {"workload", "plan", "result"},
	// The live metrics watch the engine from outside: a sink of every
	// outcome and a watcher of each run's traffic, both events; they never
	// import the engine, and nothing below them imports them.
	"internal/livemetrics": {"result", "internal/event", "internal/redisenv"},
	// The profile language produces plans; it runs nothing.
	"profile": {"algorithms", "plan", "result", "trace", "internal/input", "internal/redisconf", "internal/suggest"},
	// Presentation reads results and the verdict, nothing that runs.
	"report":      {"result", "verdict", "internal/numfmt", "internal/plural"},
	"report/html": {"report", "result", "verdict", "internal/numfmt", "internal/plural"},
	// Getting a Redis.
	"internal/redisenv": {"internal/redisconf", "internal/input", "internal/plural"},
	// Words: a noun in the number of its count, for every message.
	"internal/plural":    {},
	"internal/redisconf": {"internal/input"},
}

// libraries lists, for each library of a concern of its own, the only
// packages whose non-test files may import it: one package speaks for each
// (docs/architecture.md says which).
var libraries = map[string][]string{
	// The latency histograms: the contract's codec and its one histogram
	// type, which every recorder uses.
	"github.com/HdrHistogram/hdrhistogram-go": {"result"},
	"github.com/prometheus/client_golang":     {"internal/livemetrics"},
	"gonum.org/v1/plot":                       {"report/html"},
	"gopkg.in/yaml.v3":                        {"profile"},
	"github.com/Shopify/toxiproxy/v2":         {"internal/faults"},
	"github.com/alicebob/miniredis/v2":        {"internal/redisenv"},
}

// TestLibrariesStayInTheirPackage holds each library of libraries to the
// packages listed for it.
func TestLibrariesStayInTheirPackage(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for pkg, imps := range packageImportsOf(t, root, false) {
		for _, imp := range imps {
			for lib, ok := range libraries {
				if imp != lib && !strings.HasPrefix(imp, lib+"/") {
					continue
				}
				seen[lib] = true
				if !slices.Contains(ok, pkg) {
					t.Errorf("%s imports %s; only %s may", pkg, imp, strings.Join(ok, ", "))
				}
			}
		}
	}
	for lib := range libraries {
		if !seen[lib] {
			t.Errorf("no package imports %s: the rule for it reads the wrong tree, or the library is gone", lib)
		}
	}
}

// TestImportsRunOneWay reads every package's imports and holds each to its
// row of allowed; a package that imports the command is refused too.
func TestImportsRunOneWay(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := packageImports(t, root)
	for _, pkg := range []string{"workload", "internal/audit", "internal/faults", "internal/probe", "plan", "verdict", "report"} {
		if _, ok := imports[pkg]; !ok {
			t.Fatalf("package %s not found under %s: the test reads the wrong tree", pkg, root)
		}
	}
	for _, v := range violations(imports) {
		t.Error(v)
	}
}

// violations says which of imports break the rules.
func violations(imports map[string][]string) []string {
	var out []string
	for pkg, deps := range imports {
		for _, dep := range deps {
			if strings.HasPrefix(dep, "cmd/") {
				out = append(out, pkg+" imports the command "+dep)
			}
			if ok, listed := allowed[pkg]; listed && !slices.Contains(ok, dep) {
				out = append(out, pkg+" imports "+dep+"; it may import only "+strings.Join(ok, ", "))
			}
		}
	}
	sort.Strings(out)
	return out
}

// packageImports maps each package of the module under root (but the
// tools, modules of their own, and testdata) to the module packages its
// non-test files import.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	return packageImportsOf(t, root, true)
}

// packageImportsOf maps each package of the module under root (as
// packageImports) to what its non-test files import: the module's
// packages (without the module's path) when module is set, every import
// otherwise.
func packageImportsOf(t *testing.T, root string, module bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "tools" || name == "results") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files
		}
		rel, _ := filepath.Rel(root, path)
		var deps []string
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, modulePath); ok {
				deps = append(deps, dep)
			} else if !module {
				deps = append(deps, imp)
			}
		}
		sort.Strings(deps)
		out[filepath.ToSlash(rel)] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestViolationsAreCaught: the engine reading a profile, the audit
// reaching into the faults, and anything importing the command are each
// caught; a tree that keeps the rules has none.
func TestViolationsAreCaught(t *testing.T) {
	bad := map[string][]string{
		"workload":       {"plan", "profile"},
		"internal/audit": {"internal/event", "internal/faults"},
		"report":         {"cmd/rlbench"},
	}
	if got := violations(bad); len(got) != 4 {
		t.Errorf("caught %d of 4 broken rules: %q", len(got), got)
	}
	if got := violations(map[string][]string{"workload": {"plan", "internal/audit"}, "cmd/rlbench": {"workload"}}); len(got) != 0 {
		t.Errorf("rules kept, yet: %q", got)
	}
}
