package verdict

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ruleExpressions are the tests of contract values that decide whether a
// run fails, whether its limiter is broken, or whether it was judged at
// all. They belong in this package; the presentation reads the findings.
var ruleExpressions = []*regexp.Regexp{
	regexp.MustCompile(`\b(Overshoot|Violations|ModelMismatches|KeysWithoutTTL|WithoutTTL|KeysOutsidePrefix)\s*(>|>=|==|!=|<|<=)\s*0\b`),
	regexp.MustCompile(`\bResetState\(\)`),
	regexp.MustCompile(`\bExpectBroken\b`),
	regexp.MustCompile(`\bBudgetedErrors\(\)|\.Budget\(\)`),
	regexp.MustCompile(`\bresult\.Evaluate\(`),
}

// TestRulesLiveHereOnly: no file the summary or the page is built from
// decides what fails a run; they read this package's judgement instead,
// so that the rule is kept in one place.
func TestRulesLiveHereOnly(t *testing.T) {
	for _, dir := range []string{"../report", "../report/html"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s (%v)", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				code, _, _ := strings.Cut(line, "//")
				for _, rule := range ruleExpressions {
					if m := rule.FindString(code); m != "" {
						t.Errorf("%s:%d decides %q itself; read verdict.Assess's findings instead", path, i+1, m)
					}
				}
			}
		}
	}
}
