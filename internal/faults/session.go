package workload

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
)

// faultSession is what one run needs for its faults and its caller's
// policy: the client the limiter uses (through the proxy when network
// faults or a failover need one), a private replica for a failover, a
// control connection to the server for injecting faults and reading it,
// the probe that watches the faults from the server's side, and the
// injector that runs the schedule.
type faultSession struct {
	r        *Runner
	scenario profile.Scenario
	command  string

	// client is the limiter's; proxy sits in front of the server when the
	// scenario needs one.
	client *redial
	// limiterAddr and limiterTimeout make the limiter's clients.
	limiterAddr    string
	limiterTimeout time.Duration
	proxy          *faultProxy
	// primary serves the limiter's calls; standby is a private replica of
	// it, for a failover. A failover swaps them.
	primary, standby *node
	original         *node

	offset clockOffset
	// controlTimeout bounds a call on a control connection: longer than
	// the longest fault, which a DEBUG SLEEP lasts.
	controlTimeout time.Duration
	rec            *faultRecorder
	heart          *heartbeat
	started        time.Time

	mu       sync.Mutex
	obs      []faultObservation
	events   []stateEvent
	switches []serverSwitch

	// active is set while a fault is being injected, and lastEnd holds when
	// the last one was over (unix nanos): a Redis that answers nothing
	// then is no reason to abort the run.
	active  atomic.Bool
	lastEnd atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}
	// failBackErr says why the original server could not be made the
	// primary again after a failover.
	failBackErr error
}

// node is one server a session talks to directly.
type node struct {
	addr string
	// srv is its process, when rlbench started it.
	srv *redisenv.Server
	// rdb is the control connection: injecting faults and reading the
	// server, never through the proxy.
	rdb *redis.Client
}

// faultObservation is what the injector did and saw for one fault.
type faultObservation struct {
	// injected and removed are when the injector began the fault and when
	// it was over from the injector's side.
	injected, removed time.Time
	// serverStartUs and serverEndUs are the server's own clock at the
	// fault's start and end, when the server could say.
	serverStartUs, serverEndUs int64
	// down is when a killed or stopped server was gone, or a stalled one
	// frozen.
	down   time.Time
	server []string
	err    string
	before serverReading
	after  serverReading
	// switches are the server switches the fault made.
	switches []serverSwitch
}

// stateEvent is a fault taking limiter state away, in server
// microseconds: from resumeUs on, decisions are made by a server whose
// state is what the decisions before cutUs left (math.MinInt64: none).
type stateEvent struct {
	fault           int
	cutUs, resumeUs int64
}

// openFaults prepares the faults and caller of one run; nil when the
// scenario schedules no fault and the profile has no client section.
func (r *Runner) openFaults(ctx context.Context, spec profile.RunSpec) (s *faultSession, err error) {
	sc := spec.Scenario
	if !sc.HasFaults() && r.Profile.Client == nil {
		return nil, nil
	}
	if err := r.checkFaultTarget(sc); err != nil {
		return nil, err
	}
	if _, single := r.Env.Client.(*redis.Client); !single {
		return nil, errors.New("faults and the caller's policy run on a single redis-server, not on a Redis Cluster")
	}
	s = &faultSession{r: r, scenario: sc, command: "evalsha", done: make(chan struct{})}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	longest := r.Profile.Timeout
	for _, f := range sc.Faults {
		longest = max(longest, f.For+r.Profile.Timeout)
	}
	s.controlTimeout = longest + time.Second
	addr := r.Env.Addr
	if addr == "" {
		addr = r.singleClient().Options().Addr
	}
	s.primary = &node{addr: addr, srv: r.Env.Server, rdb: r.cloneClient(addr, 2, s.controlTimeout)}
	s.original = s.primary
	if sc.HasFaultKind(profile.FaultFailover) {
		if s.standby, err = r.startStandby(ctx, s.primary, longest); err != nil {
			return s, err
		}
	}
	if err := r.checkFaultRights(ctx, sc, s.primary); err != nil {
		return s, err
	}
	if sc.NeedsProxy() {
		if s.proxy, err = startProxy(s.primary.addr); err != nil {
			return s, err
		}
		addr = s.proxy.Addr()
	}
	timeout := r.Profile.Timeout
	if c := r.Profile.Client; c != nil {
		timeout = max(timeout, c.Timeout)
	}
	s.limiterAddr, s.limiterTimeout = addr, timeout
	s.client = newRedial(s.newLimiterClient())
	octx, cancel := context.WithTimeout(ctx, r.Profile.Timeout+time.Second)
	defer cancel()
	if s.offset, err = estimateClockOffset(octx, s.primary.rdb, r.Clock, 8); err != nil {
		return s, err
	}
	return s, nil
}

// checkFaultTarget refuses faults the server cannot take: those that need
// control of the process on a server rlbench did not start, and
// server-side faults on the embedded stand-in.
func (r *Runner) checkFaultTarget(sc profile.Scenario) error {
	for _, f := range sc.Faults {
		info := f.Kind.Info()
		switch {
		case r.Env.Mode == redisenv.Embedded && !info.Network:
			return fmt.Errorf("scenario %s: a %s fault needs a real redis-server, and this run has the embedded stand-in (install redis-server)", sc.Name, f.Kind)
		case info.PrivateOnly && r.Env.Server == nil:
			return fmt.Errorf("scenario %s: a %s fault runs only on a private redis-server: %s", sc.Name, f.Kind, info.Target)
		}
	}
	return nil
}

// checkFaultRights makes sure, before the run, that a server rlbench did
// not start lets its user inject the scenario's server-side faults, with
// calls that change nothing: a pause of 0ms, a sleep of 0s.
func (r *Runner) checkFaultRights(ctx context.Context, sc profile.Scenario, n *node) error {
	if n.srv != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.Profile.Timeout)
	defer cancel()
	for _, k := range []profile.FaultKind{profile.FaultPause, profile.FaultStall} {
		if !sc.HasFaultKind(k) {
			continue
		}
		args := []any{"CLIENT", "PAUSE", 0, "WRITE"}
		if k == profile.FaultStall {
			args = []any{"DEBUG", "SLEEP", 0}
		}
		if err := n.rdb.Do(ctx, args...).Err(); err != nil {
			return fmt.Errorf("scenario %s schedules a %s, but redis at %s refused %s: %w (%s)", sc.Name, k, r.Env.Addr, args[0], err, k.Info().Target)
		}
	}
	return nil
}

// singleClient is the run's client to its single server; openFaults has
// refused a cluster's.
func (r *Runner) singleClient() *redis.Client { return r.Env.Client.(*redis.Client) }

// cloneClient is a client like the run's, to addr, with pool connections
// and calls bounded by timeout.
func (r *Runner) cloneClient(addr string, pool int, timeout time.Duration) *redis.Client {
	o := *r.singleClient().Options()
	o.Addr = addr
	o.PoolSize, o.MinIdleConns, o.MaxIdleConns = pool, 0, pool
	o.ReadTimeout, o.WriteTimeout = timeout, timeout
	return redis.NewClient(&o)
}

// startStandby starts a private replica of primary and waits until it has
// synchronised.
func (r *Runner) startStandby(ctx context.Context, primary *node, timeout time.Duration) (*node, error) {
	srv, err := primary.srv.StartSibling(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting a replica for the failover: %w", err)
	}
	n := &node{addr: srv.Addr, srv: srv, rdb: r.cloneClient(srv.Addr, 2, timeout)}
	// Both are rlbench's own servers: a replica is fed at once, not after
	// the 5s Redis waits for others to join a diskless transfer.
	for _, m := range []*node{primary, n} {
		if err := m.rdb.ConfigSet(ctx, "repl-diskless-sync-delay", "0").Err(); err != nil {
			err = fmt.Errorf("preparing %s for a failover: %w", m.addr, err)
			return nil, errors.Join(err, n.stop())
		}
	}
	host, port, _ := net.SplitHostPort(primary.addr)
	if err := n.rdb.ReplicaOf(ctx, host, port).Err(); err != nil {
		err = fmt.Errorf("making %s a replica of %s: %w", srv.Addr, primary.addr, err)
		return nil, errors.Join(err, n.stop())
	}
	if err := waitSynced(ctx, primary, n); err != nil {
		return nil, errors.Join(err, n.stop())
	}
	return n, nil
}

// waitSynced waits, at most syncWait, until replica's link to primary is
// up and it has everything primary wrote.
func waitSynced(ctx context.Context, primary, replica *node) error {
	deadline := time.Now().Add(syncWait)
	for {
		want, err1 := replOffset(ctx, primary.rdb, "master_repl_offset")
		got, err2 := replOffset(ctx, replica.rdb, "slave_repl_offset")
		link, err3 := replField(ctx, replica.rdb, "master_link_status")
		if err := errors.Join(err1, err2, err3); err == nil && link == "up" && got >= want {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("the replica %s did not catch up with %s within %s (link %s, offset %d of %d; %v)", replica.addr, primary.addr, syncWait, link, got, want, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// syncWait bounds the wait for a replica to catch up.
const syncWait = 10 * time.Second

func replField(ctx context.Context, rdb *redis.Client, name string) (string, error) {
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return "", err
	}
	return redisenv.ParseInfo(info)[name], nil
}

func replOffset(ctx context.Context, rdb *redis.Client, name string) (int64, error) {
	v, err := replField(ctx, rdb, name)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// stop closes n's connection and stops its server.
func (n *node) stop() error {
	n.close()
	return n.srv.Stop()
}

func (n *node) close() {
	if n == nil {
		return
	}
	if n.rdb != nil {
		_ = n.rdb.Close()
	}
}

// begin starts the session with the run's traffic, which started at
// rec.start and lasts about length: the fault recorder, the probe and the
// injector. It returns the limiter as the run's caller uses it.
func (s *faultSession) begin(ctx context.Context, rec *recorder, lim algorithms.Limiter, prefix string, length time.Duration) algorithms.Limiter {
	if s == nil {
		return lim
	}
	sc := s.scenario
	s.started = rec.start
	s.rec = newFaultRecorder(rec.start, length, sc.Faults, rec.audit, s.offset)
	rec.faults = s.rec
	s.rec.quiet = s.quietSince
	rec.audit.watchFaults(sc.Faults, rec.start, s.offset)
	caller := newCaller(lim, s.r.Profile.Client, sc.OnError, s.r.Clock, prefix, s.rec)
	if !sc.HasFaults() {
		close(s.done)
		return caller
	}
	s.obs = make([]faultObservation, len(sc.Faults))
	s.heart = startHeartbeat(func() *redis.Client { return s.r.cloneClient(s.limiterAddr, 1, s.controlTimeout) }, s.r.Clock)
	ictx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go func() {
		defer close(s.done)
		s.inject(ictx)
	}()
	return caller
}

// quietSince is, for the run's abort watch, when the stretch of calls
// without an answer that no fault explains began: now while a fault is
// being injected, else when the last one was over.
func (s *faultSession) quietSince() int64 {
	if s == nil {
		return 0
	}
	if s.active.Load() {
		return s.r.Clock.Now().UnixNano()
	}
	return s.lastEnd.Load()
}

// end waits for the injector (stopping it when the traffic was
// interrupted: every fault is then undone at once), stops the probe, fails
// back to the original server after a failover, and clears the dead
// connections a replaced server left in the run's client.
func (s *faultSession) end(ctx context.Context, interrupted bool) {
	if s == nil {
		return
	}
	if interrupted && s.cancel != nil {
		s.cancel()
	}
	select {
	case <-s.done:
	case <-time.After(endWait):
		if s.cancel != nil {
			s.cancel()
		}
		<-s.done
	}
	if s.heart != nil {
		s.heart.halt()
	}
	if s.primary != s.original {
		s.failBack(context.WithoutCancel(ctx))
	}
	if len(s.switches) > 0 {
		purgePool(context.WithoutCancel(ctx), s.r.singleClient(), s.r.Profile.Timeout)
	}
}

// endWait bounds how long after the traffic the injector may take to
// finish its last fault.
const endWait = 30 * time.Second

// close releases what the session holds: its clients, the proxy and the
// replica.
func (s *faultSession) close() {
	if s == nil {
		return
	}
	if s.cancel != nil {
		s.cancel()
	}
	if s.client != nil {
		s.client.close()
	}
	if s.proxy != nil {
		s.proxy.Close()
	}
	for _, n := range []*node{s.primary, s.standby} {
		if n == nil {
			continue
		}
		if n != s.original && n.srv != nil {
			_ = n.stop()
		} else {
			n.close()
		}
	}
}

// purgePool makes one call on every connection of rdb's pool at once, so
// that those a replaced server left dead fail now and are dropped, rather
// than failing the probes' first calls.
func purgePool(ctx context.Context, rdb *redis.Client, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	n := int(rdb.PoolStats().TotalConns) + 1
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); _ = rdb.Ping(ctx).Err() }()
	}
	wg.Wait()
}

// watchedSpan is, for the report, the later of a fault's scheduled and
// observed end.
func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// fill records the session in run: the caller's parameters, the counts
// by who decided, the faults' timeline and their figures (with the
// audit's, faults, when the run was audited).
func (s *faultSession) fill(run *result.Run, elapsed time.Duration, audited *auditFaultFigures) {
	if s == nil {
		return
	}
	if c := s.r.Profile.Client; c != nil {
		run.Params.OnError = string(s.scenario.OnError)
		run.Params.Client = &result.ClientParams{
			TimeoutMs: float64(c.Timeout.Microseconds()) / 1000, Retries: c.Retries, BackoffMs: float64(c.Backoff.Microseconds()) / 1000,
		}
	}
	run.PolicyGroup = s.scenario.PolicyGroup
	aoe, doe, attempts, retries := s.rec.totals()
	run.Requests.AllowedOnError, run.Requests.DeniedOnError = aoe, doe
	f := &result.Faults{
		Windows: []result.FaultWindow{}, AllowedOnError: aoe, DeniedOnError: doe,
		Attempts: attempts, Retries: retries, MaxAttempts: s.rec.maxAttempts.Load(), CallsMaybeRun: s.rec.unseenCalls.Load(),
		Timeline: s.rec.timeline(elapsed),
	}
	var beats []beat
	if s.heart != nil {
		beats = s.heart.samples()
	}
	end := s.started.Add(elapsed)
	for i, flt := range s.scenario.Faults {
		limit := end
		if i+1 < len(s.scenario.Faults) {
			limit = s.started.Add(s.scenario.Faults[i+1].At)
		}
		w := s.window(i, flt, beats, limit)
		f.Windows = append(f.Windows, w)
		f.Errors += w.Window.Errors + w.Recovery.Errors
		f.MaxRecoveryMs = max(f.MaxRecoveryMs, w.RecoveryMs)
	}
	run.Requests.FaultErrors = f.Errors
	if audited != nil {
		audited.apply(f)
	}
	if len(s.switches) > 0 {
		f.Notes = append(f.Notes, switchNote(len(s.switches)))
	}
	if s.failBackErr != nil {
		f.Notes = append(f.Notes, "after the failover the original server could not be made the primary again: "+s.failBackErr.Error())
	}
	run.Faults = f
}

// window builds fault i's entry: when it was scheduled, when it was seen
// (from the server's own clock where the server said, else from the
// probe), what the server reported, and the figures of its window and of
// the recovery up to limit.
func (s *faultSession) window(i int, flt profile.Fault, beats []beat, limit time.Time) result.FaultWindow {
	o := s.obs[i]
	ms := func(t time.Time) int64 { return t.Sub(s.started).Milliseconds() }
	w := result.FaultWindow{
		Kind: string(flt.Kind), ScheduledStartMs: flt.At.Milliseconds(), ScheduledEndMs: flt.End().Milliseconds(),
		AddMs: float64(flt.Add.Microseconds()) / 1000, JitterMs: float64(flt.Jitter.Microseconds()) / 1000, RateKBps: flt.RateKBps,
		Error: o.err,
	}
	start, end := s.observed(flt, o, beats)
	w.ObservedStartMs, w.ObservedEndMs, w.InjectedMs = ms(start), ms(end), ms(o.injected)
	w.Server = strings.Join(o.server, "; ")
	winStart := s.started.Add(flt.At)
	winEnd := latest(s.started.Add(flt.End()), end)
	if winEnd.After(limit) {
		winEnd = limit
	}
	w.Window = s.rec.span(winStart, winEnd)
	recEnd, ok := s.rec.recovered(winEnd, limit)
	w.Recovered = ok
	w.RecoveryMs = max(recEnd.Sub(winEnd).Milliseconds(), 0)
	w.Recovery = s.rec.span(winEnd, recEnd)
	w.ErrorLatencyUs = s.rec.errorLatency(i)
	if !o.before.at.IsZero() && !o.after.at.IsZero() {
		calls := s.rec.span(o.before.at, o.after.at)
		w.ClientCalls = calls.Attempts
		if n, ok := acrossSwitches(o.before, o.after, o.switches, func(r serverReading) int64 { return r.stat.PerDecision().Calls }); ok {
			w.ServerCalls = n
		} else {
			w.ServerCallsUnavailable = "INFO commandstats could not be read around the fault: " + firstError(o.before.err, o.after.err, errors.New("a server nobody scheduled took over")).Error()
		}
		if calls.Decisions > 0 {
			w.ServerCallsPerDecision = float64(w.ServerCalls) / float64(calls.Decisions)
			w.ClientCallsPerDecision = float64(w.ClientCalls) / float64(calls.Decisions)
		}
	}
	return w
}

// observed is when fault flt was seen to start and end: the server's own
// clock where it said (the TIME read with the command that paused, slept
// or flushed; the first answer of a server that came back, woke up, or
// took over), the probe's samples for the network faults, and the
// injector's own times where nothing better was seen.
func (s *faultSession) observed(flt profile.Fault, o faultObservation, beats []beat) (start, end time.Time) {
	start, end = o.injected, o.removed
	if o.serverStartUs > 0 {
		start = s.offset.localTime(o.serverStartUs)
	}
	if o.serverEndUs > 0 {
		end = s.offset.localTime(o.serverEndUs)
	}
	switch flt.Kind {
	case profile.FaultPause:
		// A probe sent once the pause has surely begun is held until it
		// ends, and answered with the server's time then.
		if b, ok := firstAnsweredAfter(beats, start.Add(time.Millisecond)); ok {
			end = s.offset.localTime(b.serverUs)
		}
	case profile.FaultStall, profile.FaultKill, profile.FaultRestart:
		// The server's TIME right before the signal or with the SHUTDOWN
		// is its start; without it, the probe's last answer before. A
		// probe sent once the server was frozen or gone is answered by the
		// server back.
		if b, ok := lastAnsweredBefore(beats, o.injected); ok && o.serverStartUs == 0 {
			start = s.offset.localTime(b.serverUs)
		}
		from := o.injected
		if !o.down.IsZero() {
			from = o.down
		}
		if b, ok := firstAnsweredAfter(beats, from); ok && o.serverEndUs == 0 {
			end = s.offset.localTime(b.serverUs)
		}
	case profile.FaultFailover:
		if b, ok := firstAnsweredAfter(beats, o.removed); ok {
			end = s.offset.localTime(b.serverUs)
		}
	default:
		if flt.Kind.Network() {
			normal := normalRTT(beats, s.started.Add(s.scenario.Faults[0].At))
			if a, b, ok := affected(beats, o.injected, o.removed, normal); ok {
				start, end = a, b
			}
		}
	}
	if end.Before(start) {
		end = start
	}
	return start, end
}

// faultsGrace is how much longer than its duration a run's fault bins
// reach: calls in flight at the end, and a schedule that ran late.
const faultsGrace = 10 * time.Second

// redis is the client the run's limiter uses: the session's, or nil for
// the runner's without a session.
func (s *faultSession) redis() algorithms.Redis {
	if s == nil {
		return nil
	}
	return s.client
}

// newLimiterClient is a fresh client for the limiter's calls.
func (s *faultSession) newLimiterClient() *redis.Client {
	return s.r.cloneClient(s.limiterAddr, s.r.Profile.RunConcurrency(s.scenario)+2, s.limiterTimeout)
}

// useLimiter tells the session which command the limiter's decisions are
// counted under in INFO commandstats.
func (s *faultSession) useLimiter(lim algorithms.Limiter) {
	if s != nil {
		s.command = serverCommand(lim)
	}
}

// warm opens the limiter's connections before the run is timed.
func (s *faultSession) warm(ctx context.Context, n int) {
	if s != nil {
		s.r.warmPool(ctx, s.client.client(), n)
	}
}

// stateEvents are the losses of state the faults caused.
func (s *faultSession) stateEvents() []stateEvent {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// serverSwitches are the times the faults replaced the server.
func (s *faultSession) serverSwitches() []serverSwitch {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.switches)
}
