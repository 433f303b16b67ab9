package algorithms

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// declaredFor is a declaration of one key, the given args and reply, bound
// under a 10-per-second policy in b.
func declaredFor(t *testing.T, semantics Semantics, args []string, reply ReplyLayout, b Binding) *Declared {
	t.Helper()
	d := &Declaration{Name: "mine", Script: "return 1", Semantics: semantics, Reply: reply,
		Keys: []Template{MustParseTemplate("rl:{${identity}}", KeyVariables)}}
	for _, a := range args {
		d.Args = append(d.Args, MustParseTemplate(a, ArgVariables))
	}
	lim, err := d.BindWith(nil, Policy{Limit: 10, Window: time.Second}, b)
	if err != nil {
		t.Fatal(err)
	}
	if x, ok := lim.(*declaredExact); ok {
		return x.Declared
	}
	return lim.(*Declared)
}

// TestDeclaredRequestCarriesCostAndClock: each request draws its cost and
// reads the clock once; the arguments, the Request and the decision agree,
// and one seed draws the same costs again.
func TestDeclaredRequestCarriesCostAndClock(t *testing.T) {
	const nowUs = int64(1_764_000_000_004_321)
	clock := func() time.Time { return time.UnixMicro(nowUs) }
	b := Binding{Scenario: "s", Cost: UniformCost(1, 4), Seed: 7, Now: clock}
	args := []string{"${cost}", "${now_s}", "${now_s_float}", "${now_ms}", "${now_us}", "${limit}"}
	reply := ReplyLayout{Allowed: 1, When: AllowedCost}
	l, again := declaredFor(t, SemanticsGCRA, args, reply, b), declaredFor(t, SemanticsGCRA, args, reply, b)
	seen := map[string]bool{}
	for i := range 200 {
		cmd, req := l.AppendCommand(nil, ptr("ns:42"), 0)
		_, req2 := again.AppendCommand(nil, ptr("ns:42"), 0)
		// evalsha sha numkeys key args...
		got := cmd[4:]
		want := []any{itoa(req.Cost), "1764000000", "1764000000.004321", "1764000000004", "1764000000004321", "10"}
		if strings.Join(strs(got), " ") != strings.Join(strs(want), " ") || req.NowMicros != nowUs || req != req2 {
			t.Fatalf("request %d: args %v, request %+v (again %+v); want args %v", i, got, req, req2, want)
		}
		seen[itoa(req.Cost)] = true
		d, err := l.Decide(req, []any{req.Cost}, nil)
		if err != nil || !d.Allowed || d.Units() != req.Cost || d.ClientNowMicros != nowUs {
			t.Fatalf("request %d: the reply echoing its cost: %+v, %v", i, d, err)
		}
	}
	if len(seen) != 4 {
		t.Errorf("costs drawn: %v, want each of 1-4", seen)
	}
	if l.TimeFrom() != TimeFromArgs {
		t.Errorf("a script given the time in its arguments decides by %q", l.TimeFrom())
	}
	if !strings.Contains(l.decl.Describe(), "takes its time from its arguments") {
		t.Errorf("Describe does not say whose clock: %s", l.decl.Describe())
	}
	// A cost the script is never told is refused.
	d := &Declaration{Name: "mine", Script: "return 1", Semantics: SemanticsGCRA, Reply: ReplyLayout{Allowed: 1},
		Keys: []Template{MustParseTemplate("rl:{${identity}}", KeyVariables)}}
	if _, err := d.BindWith(nil, Policy{Limit: 10, Window: time.Second}, Binding{Cost: FixedCost(2)}); err == nil || !strings.Contains(err.Error(), "no argument passes ${cost}") {
		t.Errorf("a cost without ${cost}: %v", err)
	}
	if d.Clock() != TimeFromRedis || !strings.Contains(d.Describe(), "takes its time from Redis") {
		t.Errorf("a script given no time decides by %q: %s", d.Clock(), d.Describe())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func strs(vs []any) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i], _ = v.(string)
	}
	return out
}

// TestReplyWindowEnd: where a reply says the window ends, for each way it
// can say so, and when it says nothing.
func TestReplyWindowEnd(t *testing.T) {
	const now = int64(1_764_000_000_123_456)
	const end = int64(1_764_000_001_000_000)
	inSeconds := func(part ReplyPart) ReplyLayout {
		return ReplyLayout{Allowed: 1, ServerTimeUs: 3, Values: map[ReplyPart]ReplyValue{part: {Position: 2, Unit: Seconds, None: []string{"-1"}}}}
	}
	for _, tc := range []struct {
		why        string
		semantics  Semantics
		args       []string
		reply      ReplyLayout
		replied    []any
		client     int64
		want       int64
		ok         bool
		resolution time.Duration
	}{
		{"window_end in milliseconds", SemanticsFixedWindow, nil,
			ReplyLayout{Allowed: 1, Values: map[ReplyPart]ReplyValue{PartWindowEnd: {Position: 2, Unit: Milliseconds}}},
			[]any{int64(1), end / 1000}, 0, end, true, time.Millisecond},
		{"window_end of any family", SemanticsSlidingLog, nil,
			ReplyLayout{Allowed: 1, Values: map[ReplyPart]ReplyValue{PartWindowEnd: {Position: 2, Unit: Seconds}}},
			[]any{int64(1), end / 1_000_000}, 0, end, true, time.Second},
		{"a fixed window's reset_at", SemanticsFixedWindow, nil, inSeconds(PartResetAt),
			[]any{int64(1), end / 1_000_000, now}, 0, end, true, time.Second},
		{"a token bucket's reset_at is when it is full, not a window's end", SemanticsTokenBucket, nil, inSeconds(PartResetAt),
			[]any{int64(1), end / 1_000_000, now}, 0, 0, false, 0},
		{"a fixed window's reset_after, from the server time", SemanticsFixedWindow, nil, inSeconds(PartResetAfter),
			[]any{int64(1), "0.876544", now}, 0, end, true, time.Second},
		{"reset_after from the caller's clock, when the time came in the arguments", SemanticsFixedWindow, []string{"${now_ms}"},
			ReplyLayout{Allowed: 1, Values: map[ReplyPart]ReplyValue{PartResetAfter: {Position: 2, Unit: Milliseconds}}},
			[]any{int64(1), int64(500)}, now, now + 500_000, true, time.Millisecond},
		{"reset_after without a time to count from", SemanticsFixedWindow, nil,
			ReplyLayout{Allowed: 1, Values: map[ReplyPart]ReplyValue{PartResetAfter: {Position: 2, Unit: Milliseconds}}},
			[]any{int64(1), int64(500)}, 0, 0, false, time.Millisecond},
		{"the reply's none", SemanticsFixedWindow, nil, inSeconds(PartResetAt),
			[]any{int64(1), int64(-1), now}, 0, 0, false, time.Second},
		{"no such part declared", SemanticsFixedWindow, nil, ReplyLayout{Allowed: 1},
			[]any{int64(1)}, 0, 0, false, 0},
	} {
		l := declaredFor(t, tc.semantics, tc.args, tc.reply, Binding{})
		d, err := l.Decide(Request{NowMicros: tc.client}, tc.replied, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		got, ok := l.ReplyWindowEnd(d)
		if got != tc.want || ok != tc.ok || l.ReplyWindowResolution() != tc.resolution || l.ReplyFields().WindowEnd != (tc.resolution > 0) {
			t.Errorf("%s: ReplyWindowEnd = %d, %v (resolution %s, fields %+v); want %d, %v (%s)",
				tc.why, got, ok, l.ReplyWindowResolution(), l.ReplyFields(), tc.want, tc.ok, tc.resolution)
		}
	}
}

// TestMalformedRepliesCounted: an optional part that cannot be read is
// counted with its first example, and the decisions stand.
func TestMalformedRepliesCounted(t *testing.T) {
	reply := ReplyLayout{Allowed: 1, Remaining: 2, Values: map[ReplyPart]ReplyValue{PartRetryAfter: {Position: 3, Unit: Seconds, None: []string{"-1"}}}}
	l := declaredFor(t, SemanticsFixedWindow, nil, reply, Binding{})
	replies := [][]any{
		{int64(1), int64(4), int64(-1)},
		{int64(1), "n/a", int64(-1)},
		{int64(0), int64(0), "later"},
		{int64(0), "n/a", "0.5"},
		{int64(0), "n/a", "-2"},
	}
	allowed := 0
	for _, r := range replies {
		d, err := l.Decide(Request{}, r, nil)
		if err != nil {
			t.Fatalf("%v: the decision was lost: %v", r, err)
		}
		if d.Allowed {
			allowed++
		}
	}
	got := l.MalformedReplies()
	if allowed != 2 || len(got) != 2 ||
		got[0] != (MalformedPart{Part: "remaining", Position: 2, Count: 3, Example: `reply position 2 (remaining): got the string "n/a", want a number`}) ||
		got[1].Part != "retry_after" || got[1].Count != 2 || !strings.Contains(got[1].Example, `got the string "later", want seconds from 0 to a year, or ["-1"] for none`) {
		t.Errorf("allowed %d; malformed %+v", allowed, got)
	}
}

// TestDeclaredOnClock: an instance's view of a declared limiter fills the
// time templates from its own clock, skewed, and says by how much; the
// views share the limiter's request ids; a limiter none of whose arguments
// carries the time is the same from every instance.
func TestDeclaredOnClock(t *testing.T) {
	const nowUs = int64(1_764_000_000_004_321)
	clock := func() time.Time { return time.UnixMicro(nowUs) }
	l := declaredFor(t, SemanticsFixedWindow, []string{"${now_ms}", "${request_id}"}, ReplyLayout{Allowed: 1}, Binding{Now: clock})
	ahead := l.OnClock(CallerClock{Skew: func(time.Time) time.Duration { return 250 * time.Millisecond }}).(Pipelined)
	behind := l.OnClock(CallerClock{Skew: func(time.Time) time.Duration { return -1500 * time.Microsecond }}).(Pipelined)
	for i, tc := range []struct {
		lim      Pipelined
		wantMs   string
		wantID   string
		wantNow  int64
		wantSkew int64
	}{
		{ahead, "1764000000254", "1", 1_764_000_000_254_000, 250_000},
		{behind, "1764000000002", "2", 1_764_000_000_002_000, -1500},
		{l, "1764000000004", "3", 1_764_000_000_004_000, 0},
	} {
		cmd, req := tc.lim.AppendCommand(nil, ptr("ns:7"), 0)
		if got := strs(cmd[4:]); got[0] != tc.wantMs || got[1] != tc.wantID {
			t.Errorf("view %d: args %v, want [%s %s]", i, got, tc.wantMs, tc.wantID)
		}
		if req.NowMicros != tc.wantNow || req.SkewMicros != tc.wantSkew {
			t.Errorf("view %d: request %+v, want the time %d skewed by %d", i, req, tc.wantNow, tc.wantSkew)
		}
		d, err := tc.lim.Decide(req, int64(1), nil)
		if err != nil || d.ClientNowMicros != tc.wantNow || d.ClientSkewMicros != tc.wantSkew {
			t.Errorf("view %d: decision %+v, %v", i, d, err)
		}
	}
	if !TakesCallerTime(l) {
		t.Error("a limiter given ${now_ms} is said to take no time from its caller")
	}
	timeless := declaredFor(t, SemanticsFixedWindow, []string{"${limit}"}, ReplyLayout{Allowed: 1}, Binding{Now: clock})
	if timeless.OnClock(CallerClock{Skew: func(time.Time) time.Duration { return time.Second }}) != Limiter(timeless) || TakesCallerTime(timeless) {
		t.Error("a limiter given no time has views of its own, or is said to take the caller's time")
	}
}

// TestDeclaredPolicyArguments: the policy's values reach the script as the
// templates name them: the rate per second and per millisecond, the
// window in each unit, and an argument sent empty.
func TestDeclaredPolicyArguments(t *testing.T) {
	l := declaredFor(t, SemanticsTokenBucket, []string{"${limit}", "${rate_per_s}", "${rate_per_ms}", "${window_s}", "${window_ms}", "${window_us}", ""},
		ReplyLayout{Allowed: 1}, Binding{})
	cmd, _ := l.AppendCommand(nil, ptr("ns:7"), 0)
	var got []string
	for _, a := range cmd[4:] {
		got = append(got, a.(string))
	}
	if want := "10|10|0.01|1|1000|1000000|"; strings.Join(got, "|") != want {
		t.Errorf("arguments %q, want %q", strings.Join(got, "|"), want)
	}
}

// ptr is a pointer to s, as a pipelined command takes its key.
func ptr(s string) *string { return &s }
