//go:build integration

package workload_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// The fault suite: every fault kind on a real redis-server that the test
// starts (a private one, as rlbench would), through the whole engine, under
// fail_open and fail_closed. Each run is 20 identities offering twice a
// policy of 20 per second for 3 seconds, the caller bounding each call to
// 50ms and retrying once after 10ms.

// faultProfile is the profile of one test: faults is the scenario's faults
// list, algorithms and policies what it runs.
func faultProfile(algorithms, policies, faults string) string {
	return fmt.Sprintf(`name: faults
policy: {limit: 20, window: 1s}
algorithms: [%s]
concurrency: 16
warmup: 0s
error_budget: 5%%
client:
  timeout: 50ms
  retries: 1
  backoff: 10ms
  on_error: [%s]
scenarios:
  - name: f
    shape: steady
    rate: 2x
    identities: 20
    duration: 3s
    faults:
%s`, algorithms, policies, faults)
}

// runFaults runs yaml on env and checks what every run with faults must
// hold, whatever the kind: it completes, its counts add up with the
// policy's decisions among the errors, fail_closed admits nothing Redis did
// not decide, no request was tried more than the client allows, the server
// saw no more calls than the client made, every fault was seen, and the
// verdict holds no limiter to what the faults did.
func runFaults(t *testing.T, env *redisenv.Env, yaml string) *result.Result {
	t.Helper()
	p := mustProfile(t, yaml)
	runner := &workload.Runner{Plan: p.Plan(1), Env: env}
	res, err := runner.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	verdict.Judge(res, p.Thresholds)
	if !res.Complete {
		t.Errorf("incomplete: %s", res.IncompleteReason)
	}
	for i := range res.Runs {
		checkFaultRun(t, &res.Runs[i])
	}
	if j := verdict.Assess(res); j.Verdict != result.Pass {
		t.Errorf("verdict %s: %s", j.Verdict, strings.Join(j.Reasons(), "; "))
	}
	if n := countKeys(t, env.Client, runner.RunPrefix()+"*"); n != 0 {
		t.Errorf("%d keys of the run left behind", n)
	}
	return res
}

func checkFaultRun(t *testing.T, run *result.Run) {
	t.Helper()
	checkCounts(t, run)
	q, f, key := run.Requests, run.Faults, run.Key()
	if f == nil {
		t.Fatalf("%s: no faults recorded", key)
	}
	if run.Incomplete {
		t.Errorf("%s: incomplete: %s", key, run.Note)
	}
	if q.AllowedOnError+q.DeniedOnError != q.Errors {
		t.Errorf("%s: the policy decided %d + %d of %d errors", key, q.AllowedOnError, q.DeniedOnError, q.Errors)
	}
	if q.FaultErrors != f.Errors || q.FaultErrors > q.Errors {
		t.Errorf("%s: fault errors %d (faults.errors %d) of %d", key, q.FaultErrors, f.Errors, q.Errors)
	}
	switch run.Params.OnError {
	case result.FailClosed:
		// Every admission is Redis's, and the audit saw every one.
		if q.AllowedOnError != 0 || f.PolicyExcess != 0 || (f.AdmittedByFault != nil && *f.AdmittedByFault != 0) {
			t.Errorf("%s: fail_closed admitted %d on error (excess %d)", key, q.AllowedOnError, f.PolicyExcess)
		}
		if a := run.Audit; a == nil || a.Allowed != q.Allowed {
			t.Errorf("%s: %d admitted, the audit saw %+v", key, q.Allowed, a)
		}
	case result.FailOpen:
		if q.DeniedOnError != 0 {
			t.Errorf("%s: fail_open denied %d on error", key, q.DeniedOnError)
		}
	}
	// Retries never exceed the budget: 1 + retries calls a request, and
	// the server never ran more of the limiter's command than the client
	// sent (besides the script reloads after a NOSCRIPT).
	if f.MaxAttempts > 2 || f.Attempts > 2*q.Sent || f.Attempts-f.Retries != q.Sent {
		t.Errorf("%s: %d calls (%d retries) for %d requests, at most %d for one", key, f.Attempts, f.Retries, q.Sent, f.MaxAttempts)
	}
	// Calls in flight at either edge of a fault's readings (one a worker)
	// may fall on either side of them.
	inFlight := 2 * int64(run.Params.Concurrency)
	for _, w := range f.Windows {
		if w.ServerCallsUnavailable == "" && w.ServerCalls > w.ClientCalls+q.NoScriptReloads+inFlight {
			t.Errorf("%s: %s: the server ran %d calls, the client made %d", key, w.Kind, w.ServerCalls, w.ClientCalls)
		}
		if w.Error != "" {
			t.Errorf("%s: %s could not be injected: %s", key, w.Kind, w.Error)
		}
		// Seen when scheduled: injected on time (on a machine busy enough
		// to hold a goroutine back, a little late; never early), and the
		// server's own clock (or the probe) placed it within a tenth of a
		// second of that.
		if d := w.InjectedMs - w.ScheduledStartMs; d < 0 || d > 500 {
			t.Errorf("%s: %s scheduled at %dms, injected at %dms", key, w.Kind, w.ScheduledStartMs, w.InjectedMs)
		}
		if d := w.ObservedStartMs - w.InjectedMs; d < -100 || d > 100 {
			t.Errorf("%s: %s injected at %dms, seen at %dms", key, w.Kind, w.InjectedMs, w.ObservedStartMs)
		}
		if w.ObservedEndMs < w.ScheduledEndMs-100 {
			t.Errorf("%s: %s scheduled to end at %dms, seen over at %dms", key, w.Kind, w.ScheduledEndMs, w.ObservedEndMs)
		}
		if w.Server == "" {
			t.Errorf("%s: %s: nothing from the server", key, w.Kind)
		}
	}
	if a := run.Audit; a != nil && (a.Overshoot != 0 || a.ModelMismatches != 0) {
		t.Errorf("%s: the limiter was blamed for the faults: overshoot %d, mismatches %d", key, a.Overshoot, a.ModelMismatches)
	}
	if e := run.Eviction; e == nil || e.Restarted {
		t.Errorf("%s: eviction %+v: a scheduled restart is not an unexplained one", key, e)
	}
}

// window is the run's only fault.
func window(t *testing.T, run *result.Run) result.FaultWindow {
	t.Helper()
	if len(run.Faults.Windows) != 1 {
		t.Fatalf("%s: %d fault windows", run.Key(), len(run.Faults.Windows))
	}
	return run.Faults.Windows[0]
}

func TestIntegrationFaultPause(t *testing.T) {
	res := runFaults(t, privateEnv(t), faultProfile("fixed_window", "fail_open, fail_closed",
		"      - {at: 1s, for: 500ms, kind: pause}\n"))
	for i := range res.Runs {
		run := &res.Runs[i]
		w := window(t, run)
		if !strings.Contains(w.Server, "CLIENT PAUSE 500 ALL") || w.Window.Errors == 0 {
			t.Errorf("%s: pause %+v", run.Key(), w)
		}
		// The pause lasts as long as it was told, on the server's clock.
		if d := w.ObservedEndMs - w.ObservedStartMs; d < 450 || d > 650 {
			t.Errorf("%s: the server was paused for %dms, want about 500", run.Key(), d)
		}
		if w.ErrorLatencyUs.Max > 200_000 {
			t.Errorf("%s: a caller waited %dus for a decision, more than two calls of 50ms and a backoff", run.Key(), w.ErrorLatencyUs.Max)
		}
		if run.Params.OnError == result.FailOpen && (run.Faults.PolicyExcess == 0 || run.Faults.AdmittedByFault == nil || *run.Faults.AdmittedByFault == 0) {
			t.Errorf("%s: fail_open's excess not reported: %d, admitted by the fault %v", run.Key(), run.Faults.PolicyExcess, run.Faults.AdmittedByFault)
		}
		if run.Params.OnError == result.FailClosed && (run.Faults.DeniedByFault == nil || *run.Faults.DeniedByFault == 0) {
			t.Errorf("%s: fail_closed's lost traffic not reported: %v", run.Key(), run.Faults.DeniedByFault)
		}
	}
}

// TestIntegrationFaultRestartAndKill: a restart and a kill each take the
// limiter's state away; the figure says for how many identities and what
// it let through, and the counters are read on either side.
func TestIntegrationFaultRestartAndKill(t *testing.T) {
	// Mid-window: a fixed window opened at the start has half its second
	// window left when the server goes.
	for _, kind := range []string{"{at: 1500ms, kind: restart}", "{at: 1500ms, for: 300ms, kind: kill}"} {
		res := runFaults(t, privateEnv(t), faultProfile("fixed_window, token_bucket", "fail_closed", "      - "+kind+"\n"))
		for i := range res.Runs {
			run := &res.Runs[i]
			w := window(t, run)
			l := w.StateLost
			// At 2x, every identity holds a window that was not over.
			if l == nil || l.Identities != int64(run.Identities) || l.Admitted == 0 || l.MaxWindowAdmitted <= run.Params.Limit {
				t.Errorf("%s %s: state lost %+v", run.Key(), kind, l)
			}
			if run.Faults.StateLostIdentities != l.Identities {
				t.Errorf("%s: run total %d", run.Key(), run.Faults.StateLostIdentities)
			}
			if !strings.Contains(w.Server, "run_id") || run.Eviction.ServerSwitches != 1 {
				t.Errorf("%s: server %q, switches %d", run.Key(), w.Server, run.Eviction.ServerSwitches)
			}
			if run.Requests.NoScriptReloads == 0 {
				t.Errorf("%s: the new server had no script, and nothing was reloaded", run.Key())
			}
			// The server's count, added up on either side of the restart,
			// misses at most the calls in flight when it went.
			if s := run.Server; s == nil || s.Calls < run.Requests.Decisions()-int64(run.Params.Concurrency) || s.Calls > run.Faults.Attempts+run.Requests.NoScriptReloads {
				t.Errorf("%s: server calls %+v for %d decisions and %d calls: counters were read across the restart", run.Key(), run.Server, run.Requests.Decisions(), run.Faults.Attempts)
			}
		}
	}
}

func TestIntegrationFaultStall(t *testing.T) {
	res := runFaults(t, privateEnv(t), faultProfile("sliding_log", "fail_open, fail_closed",
		"      - {at: 1s, for: 400ms, kind: stall}\n"))
	for i := range res.Runs {
		run := &res.Runs[i]
		w := window(t, run)
		if !strings.Contains(w.Server, "SIGSTOP") || w.Window.Errors == 0 {
			t.Errorf("%s: stall %+v", run.Key(), w)
		}
		if d := w.ObservedEndMs - w.ObservedStartMs; d < 350 || d > 600 {
			t.Errorf("%s: the server was frozen for %dms, want about 400", run.Key(), d)
		}
	}
}

func TestIntegrationFaultFlushScripts(t *testing.T) {
	res := runFaults(t, privateEnv(t), faultProfile("leaky_bucket", "fail_closed",
		"      - {at: 1s, kind: flush_scripts}\n"))
	run := &res.Runs[0]
	w := window(t, run)
	if run.Requests.NoScriptReloads == 0 || !strings.Contains(w.Server, "SCRIPT FLUSH") {
		t.Errorf("%s: %d reloads after %q", run.Key(), run.Requests.NoScriptReloads, w.Server)
	}
}

// TestIntegrationFaultFailover: a private replica is promoted and the
// clients move to it; what the old primary took after the promotion is
// lost. After the run the original server is the primary again and the
// replica is gone.
func TestIntegrationFaultFailover(t *testing.T) {
	env := privateEnv(t)
	res := runFaults(t, env, faultProfile("fixed_window", "fail_open, fail_closed",
		"      - {at: 1s, for: 200ms, kind: failover}\n"))
	for i := range res.Runs {
		run := &res.Runs[i]
		w := window(t, run)
		if l := w.StateLost; l == nil || l.Identities == 0 {
			t.Errorf("%s: 200ms of writes to the old primary, and no state lost: %+v", run.Key(), l)
		}
		if !strings.Contains(w.Server, "promoted") || run.Eviction.ServerSwitches != 2 {
			t.Errorf("%s: %q, %d switches (the failover and the failing back)", run.Key(), w.Server, run.Eviction.ServerSwitches)
		}
	}
	info, err := env.Client.Info(context.Background(), "replication").Result()
	if err != nil || !strings.Contains(info, "role:master") || !strings.Contains(info, "connected_slaves:0") {
		t.Errorf("after the run: %v\n%s", err, info)
	}
}

// TestIntegrationFaultNetwork: latency, a black hole, resets and a
// bandwidth cap through the in-process proxy, one after the other.
func TestIntegrationFaultNetwork(t *testing.T) {
	res := runFaults(t, privateEnv(t), strings.Replace(faultProfile("token_bucket", "fail_open, fail_closed",
		"      - {at: 500ms, for: 400ms, kind: latency, add: 80ms}\n"+
			"      - {at: 1500ms, for: 400ms, kind: timeout}\n"+
			"      - {at: 2500ms, for: 400ms, kind: reset}\n"+
			"      - {at: 3500ms, for: 400ms, kind: bandwidth, rate: 1KB/s}\n"), "duration: 3s", "duration: 4500ms", 1))
	for i := range res.Runs {
		run := &res.Runs[i]
		if len(run.Faults.Windows) != 4 {
			t.Fatalf("%s: %d windows", run.Key(), len(run.Faults.Windows))
		}
		for _, w := range run.Faults.Windows[:3] {
			if w.Window.Errors == 0 || !strings.Contains(w.Server, "toxiproxy") {
				t.Errorf("%s: %s: %d errors, %q", run.Key(), w.Kind, w.Window.Errors, w.Server)
			}
		}
		if reset := run.Faults.Windows[2]; !strings.Contains(reset.Server, "accepted") {
			t.Errorf("%s: the server did not say how many connections the resets made: %q", run.Key(), reset.Server)
		}
	}
}

// TestIntegrationFaultLocalPolicy: the local policy's limiter decides in
// Redis's place, with the algorithm's own model: it admits, and denies.
func TestIntegrationFaultLocalPolicy(t *testing.T) {
	// Under the outage the caller gets through about 145 requests a
	// second (16 workers, 110ms each): 7 an identity, past a limit of 4.
	res := runFaults(t, privateEnv(t), strings.Replace(faultProfile("fixed_window", "local",
		"      - {at: 500ms, for: 1500ms, kind: pause}\n"), "limit: 20", "limit: 4", 1))
	q := res.Runs[0].Requests
	if q.AllowedOnError == 0 || q.DeniedOnError == 0 {
		t.Errorf("local decided %d admitted and %d denied over a 1.5s outage at twice the limit", q.AllowedOnError, q.DeniedOnError)
	}
}

// TestIntegrationFaultsProfile runs profiles/faults.yaml as shipped: every
// limiter through a pause, a restart and a latency spike under fail_open
// and fail_closed. Each run holds what every run with faults must hold
// (the counts, fail_closed's admissions, the retry budget, the faults seen
// when scheduled, no limiter blamed for them), every policy ran, and the
// restart's window reports what it took. How much state the restart took
// depends on how soon the limiter answered again (TestIntegrationFault-
// RestartAndKill pins that down); the verdict's error budget depends on
// how busy the machine was outside the windows, so neither is asserted.
func TestIntegrationFaultsProfile(t *testing.T) {
	p, err := profile.Load("../profiles/faults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runner := &workload.Runner{Plan: p.Plan(1), Env: privateEnv(t)}
	res, err := runner.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !res.Complete {
		t.Errorf("incomplete: %s", res.IncompleteReason)
	}
	if want := len(p.Algorithms) * 2; len(res.Runs) != want {
		t.Fatalf("%d runs, want %d (each algorithm under both policies)", len(res.Runs), want)
	}
	policies := map[string]int{}
	for i := range res.Runs {
		run := &res.Runs[i]
		checkFaultRun(t, run)
		policies[run.Params.OnError]++
		kinds := ""
		for _, w := range run.Faults.Windows {
			kinds += w.Kind + " "
		}
		if kinds != "pause restart latency " {
			t.Fatalf("%s: windows %s", run.Key(), kinds)
		}
		if run.Faults.Windows[1].StateLost == nil {
			t.Errorf("%s: the restart's window says nothing of the state it took", run.Key())
		}
	}
	if policies[result.FailOpen] != len(p.Algorithms) || policies[result.FailClosed] != len(p.Algorithms) {
		t.Errorf("runs per policy %v", policies)
	}
	if rows := report.PolicyComparisons(res); len(rows) != len(res.Runs) {
		t.Errorf("%d rows side by side for %d runs", len(rows), len(res.Runs))
	}
}
