package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fixtureRuns reads every run of the committed results.
func fixtureRuns(t *testing.T) (files map[string][]Run, pool []Run) {
	t.Helper()
	files = map[string][]Run{}
	var paths []string
	for _, g := range []string{"../results/baselines/*.json", "../report/testdata/*.json", "testdata/*.json", "../report/html/testdata/*.json"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var r Result
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		files[p] = r.Runs
		pool = append(pool, r.Runs...)
	}
	if len(pool) == 0 {
		t.Fatal("no fixtures")
	}
	return files, pool
}

// copyRun is a deep copy by JSON.
func copyRun(t *testing.T, r Run) Run {
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out Run
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// mix replaces each top-level field of r, with probability p, by another
// pool run's.
func mix(rng *rand.Rand, r Run, pool []Run, p float64) Run {
	v := reflect.ValueOf(&r).Elem()
	for i := 0; i < v.NumField(); i++ {
		if rng.Float64() < p {
			o := pool[rng.Intn(len(pool))]
			v.Field(i).Set(reflect.ValueOf(o).Field(i))
		}
	}
	return r
}

func compareSegments(t *testing.T, what string, a, b []Run, segments int) bool {
	t.Helper()
	before := jsonOf(t, b)
	oldRun, oldErr := mergeRuns(ptrs(a), segments)
	newRun, newErr := mergeRunsByRules(ptrs(b), segments)
	if fmt.Sprint(oldErr) != fmt.Sprint(newErr) {
		t.Errorf("%s: old error %v, new %v", what, oldErr, newErr)
		return false
	}
	if o, n := jsonOf(t, oldRun), jsonOf(t, newRun); o != n {
		t.Errorf("%s: segments merge differently:\n%s", what, firstDiff(o, n))
		return false
	}
	if after := jsonOf(t, b); after != before {
		t.Errorf("%s: merging segments changed them", what)
		return false
	}
	return true
}

func compareRepeats(t *testing.T, what string, a, b []Run) bool {
	t.Helper()
	before := jsonOf(t, b)
	o, n := jsonOf(t, MergeRepeats(a)), jsonOf(t, mergeRepeatsByRules(b))
	if o != n {
		t.Errorf("%s: repetitions merge differently:\n%s", what, firstDiff(o, n))
		return false
	}
	if after := jsonOf(t, b); after != before {
		t.Errorf("%s: merging repetitions changed them", what)
		return false
	}
	return true
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("old ...%s\nnew ...%s", a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

// TestRulesMergeFixturesAsBefore merges the committed results' runs as
// segments and as repetitions, unchanged and mixed field by field with
// other runs, the old way and by the rules.
func TestRulesMergeFixturesAsBefore(t *testing.T) {
	files, pool := fixtureRuns(t)
	rng := rand.New(rand.NewSource(1))
	for path, runs := range files {
		for _, run := range runs {
			for n := 1; n <= 3; n += 2 {
				var a, b []Run
				for i := 0; i < n; i++ {
					a = append(a, copyRun(t, run))
					b = append(b, copyRun(t, run))
				}
				what := fmt.Sprintf("%s %s x%d", path, run.Key(), n)
				compareSegments(t, what, a, b, n)
				compareSegments(t, what+" of more", a, b, n+1)
				compareRepeats(t, what, a, b)
			}
		}
		a, b := make([]Run, len(runs)), make([]Run, len(runs))
		for i := range runs {
			a[i], b[i] = copyRun(t, runs[i]), copyRun(t, runs[i])
		}
		if o, n := jsonOf(t, MergeRepetitions(a)), jsonOf(t, mergeRepetitionsByRules(b)); o != n {
			t.Errorf("%s: MergeRepetitions differs", path)
		}
	}
	for i := 0; i < 1500; i++ {
		n := 1 + rng.Intn(4)
		var a, b []Run
		for j := 0; j < n; j++ {
			r := mix(rng, pool[rng.Intn(len(pool))], pool, 0.3)
			a = append(a, copyRun(t, r))
			b = append(b, copyRun(t, r))
		}
		what := fmt.Sprintf("mixed %d", i)
		if !compareSegments(t, what, a, b, n+rng.Intn(2)) || !compareRepeats(t, what, a, b) {
			return
		}
	}
}

func mergeRepetitionsByRules(runs []Run) []Run {
	var order []string
	groups := map[string][]Run{}
	for _, run := range runs {
		k := run.Key()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], run)
	}
	out := make([]Run, 0, len(order))
	for _, k := range order {
		out = append(out, mergeRepeatsByRules(groups[k]))
	}
	return out
}

// TestRulesMergeRandomRunsAsBefore merges runs filled at random, every
// field, the old way and by the rules.
func TestRulesMergeRandomRunsAsBefore(t *testing.T) {
	_, pool := fixtureRuns(t)
	hdrs := []string{"", "not a histogram"}
	for _, r := range pool[:min(len(pool), 8)] {
		hdrs = append(hdrs, r.LatencyHDR, r.LatencyUncorrectedHDR)
	}
	for seed := int64(0); seed < 4000; seed++ {
		gen := func() []Run {
			rng := rand.New(rand.NewSource(seed))
			runs := make([]Run, 1+rng.Intn(4))
			for i := range runs {
				randomFill(rng, reflect.ValueOf(&runs[i]).Elem(), "", hdrs)
				if rng.Intn(4) > 0 {
					runs[i].LatencyHDR, runs[i].LatencyUncorrectedHDR = hdrs[2], hdrs[3]
				}
			}
			return runs
		}
		a, b := gen(), gen()
		if !bytes.Equal([]byte(jsonOf(t, a)), []byte(jsonOf(t, b))) {
			t.Fatal("the generator is not deterministic")
		}
		what := fmt.Sprintf("seed %d", seed)
		if !compareSegments(t, what, a, b, len(a)+int(seed%2)) {
			return
		}
		a, b = gen(), gen()
		if !compareRepeats(t, what, a, b) {
			return
		}
	}
}
