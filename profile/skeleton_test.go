package profile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/algorithms"
)

// TestSkeletonReadsTheLua: what a skeleton guesses from the Lua of the
// shipped examples and of the built-ins, which people copy.
func TestSkeletonReadsTheLua(t *testing.T) {
	for _, tc := range []struct {
		file      string
		semantics algorithms.Semantics
		args      string
		reply     algorithms.ReplyLayout
		function  string
	}{
		// INCR, EXPIRE in seconds, no server time.
		{"../profiles/examples/textbook_fixed_window.lua", algorithms.SemanticsFixedWindow, "${limit} ${window_s}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3}, ""},
		// A Functions library: the function, and args read as args[n].
		{"../profiles/examples/token_bucket_function.lua", algorithms.SemanticsTokenBucket, "${limit} ${window_us} ${burst}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4}, "token_bucket_allow"},
		{"../algorithms/fixed_window.lua", algorithms.SemanticsFixedWindow, "${limit} ${window_ms}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4}, ""},
		{"../algorithms/sliding_log.lua", algorithms.SemanticsSlidingLog, "${limit} ${window_us}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4}, ""},
		{"../algorithms/token_bucket.lua", algorithms.SemanticsTokenBucket, "${limit} ${window_us} ${burst}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4}, ""},
		{"../algorithms/leaky_bucket.lua", algorithms.SemanticsLeakyBucket, "${limit} ${window_us} ${burst}",
			algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4}, ""},
	} {
		src, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		l, err := inspectLua(string(src), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var args []string
		for i := 1; i <= l.args; i++ {
			args = append(args, argTemplate(i, l.argNames[i], l).Value)
		}
		if l.semantics != tc.semantics || strings.Join(args, " ") != tc.args || l.reply.Fields() != tc.reply.Fields() ||
			l.reply.Remaining != tc.reply.Remaining || l.reply.RetryAfterMs != tc.reply.RetryAfterMs || l.function != tc.function || l.keys != 1 {
			t.Errorf("%s: semantics %s, args %q, reply %+v, function %q, keys %d", tc.file, l.semantics, args, l.reply, l.function, l.keys)
		}
	}
}

// TestSkeletonIsARunnableProfile: the skeleton of each shipped example
// parses as it is, and one of Lua rlbench cannot place needs exactly one
// edit, the semantics.
func TestSkeletonIsARunnableProfile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"textbook_fixed_window", "token_bucket_function"} {
		src, err := os.ReadFile(filepath.Join("../profiles/examples", name+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		text, checks, err := Skeleton(SkeletonOptions{Name: name, ScriptPath: "../profiles/examples/" + name + ".lua", Source: string(src)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(name+".yaml", text)
		if err != nil {
			t.Errorf("%s: the skeleton does not parse:\n%v\n%s", name, err, text)
			continue
		}
		if len(p.Declared) != 1 || p.Declared[0].Name != name || len(p.Scenarios) != 3 || len(p.Algorithms) != 2 {
			t.Errorf("%s: declared %d, scenarios %d, algorithms %v", name, len(p.Declared), len(p.Scenarios), p.Algorithms)
		}
		if len(checks) != 1 || !strings.HasPrefix(checks[0], "semantics: ") {
			t.Errorf("%s: checks %q, want only the guessed semantics", name, checks)
		}
	}
	// A lock, not a limiter of any family rlbench knows.
	lock := "local ok = redis.call('SET', KEYS[1], 1, 'NX', 'PX', ARGV[1])\nreturn ok and 1 or 0\n"
	if err := os.WriteFile(filepath.Join(dir, "lock.lua"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _, err := Skeleton(SkeletonOptions{Name: "lock", ScriptPath: "lock.lua", Source: lock})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(filepath.Join(dir, "lock.yaml"), text)
	var perrs Errors
	if !errors.As(err, &perrs) || len(perrs) != 1 || perrs[0].Field != "algorithms[0].semantics" || !strings.Contains(perrs[0].Msg, `"EDIT_ME"`) {
		t.Errorf("a skeleton of an unknown family: %v, want one error, on its semantics", err)
	}
}

func TestSkeletonRefuses(t *testing.T) {
	lib := "#!lua name=l\nredis.register_function('a', function(keys, args) return 1 end)\n"
	for _, tc := range []struct {
		why string
		o   SkeletonOptions
		err string
	}{
		{"a function the library does not register", SkeletonOptions{Name: "x", Source: lib, Function: "b"}, `registers no function "b" (it registers: a)`},
		{"a function of a script", SkeletonOptions{Name: "x", Source: "return 1", Function: "a"}, "not a Functions library"},
		{"a built-in's name", SkeletonOptions{Name: "sliding_log", Source: "return 1"}, "not a built-in's name"},
	} {
		if _, _, err := Skeleton(tc.o); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.why, err, tc.err)
		}
	}
}
