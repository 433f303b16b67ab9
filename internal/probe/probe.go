package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// Probe settings.
const (
	// memorySampleKeys is how many keys MEMORY USAGE and OBJECT ENCODING
	// are asked about per run.
	memorySampleKeys = 1000
	// settleTimeout bounds the wait for used_memory to settle before a run.
	settleTimeout = 2 * time.Second
	// censusTimeout bounds the probes after a run (a full SCAN of a
	// million keys takes seconds).
	censusTimeout = 5 * time.Minute
)

// Notes the probes attach to their figures.
const (
	sharedMemoryNote = "used_memory is the whole server's: on a Redis rlbench did not start, other clients' writes move used_memory_delta_bytes and bytes_per_identity, " +
		"and the clients' buffers come from mem_clients_normal, which lags them by up to a second (tens of bytes per identity at 10k identities); a private server gives exact figures"
	sharedStatsNote = "INFO commandstats is the whole server's: on a Redis rlbench did not start, other clients' calls of the same commands (EVALSHA, FCALL, INCR...) are counted too"
	embeddedNote    = "the embedded server has no used_memory, MEMORY USAGE or commandstats: only keys and TTLs are Redis-like figures"
)

// Target is the Redis a run's probes read, and how: its environment, the
// bound on each call, and the prefix of every key of the invocation.
type Target struct {
	Env       *redisenv.Env
	Timeout   time.Duration
	RunPrefix string
}

// Config is the run a Probe measures.
type Config struct {
	// Limiter is the run's limiter; Keys names its keys, and Identities
	// is how many callers the run has.
	Limiter    algorithms.Limiter
	Keys       event.KeyScheme
	Identities int
	// Seed draws the keys MEMORY USAGE is asked about.
	Seed int64
	// Reference says the run measures the reference beside it (see
	// StartReference), for the figures a refused command leaves out.
	Reference bool
	// Fill says the run is there to measure memory per identity (a
	// cardinality run): when its keys expired before they were counted,
	// the probe measures it apart, by a fill of as many fresh identities
	// (fill.go).
	Fill bool
}

// Probe measures one run: rlbench's own memory throughout, and the
// server's memory and command statistics before and after the traffic
// (on a cluster, every master's, added up and kept per master).
type Probe struct {
	t        Target
	c        Config
	limiter  algorithms.Limiter
	keys     event.KeyScheme
	command  string
	self     *selfSampler
	before   []redisenv.MemoryReading
	stats    []redisenv.CommandStats
	memErr   error
	statsErr error
	reset    bool
	notes    []string
	// switches are the times a scheduled fault replaced the server: the
	// command statistics are added up on either side of each, and memory
	// is not compared across them.
	switches []redisenv.Switch
	// nodes is the masters' key counts before the run (a cluster's), and
	// redirects the redirections counted by then.
	nodes     nodeReading
	redirects redisenv.RedirectCounts
	// keyspace is each logical database's keys before the run (a single
	// server's), against which the databases a script SELECTed show.
	keyspace map[int]redisenv.DBKeys
	// expired is INFO stats expired_keys before the run, on a server
	// rlbench started (haveExpired), where every key is rlbench's.
	expired     int64
	haveExpired bool
}

// Report is what a Probe measured of a run: its sections of the result
// (nil where nothing could be read).
type Report struct {
	Memory  *result.Memory
	Server  *result.Server
	Cluster *result.Cluster
	// Unavailable names the run's figures the server refused the user
	// the commands to read.
	Unavailable []result.Unavailable
}

// Start takes the readings a run is measured against. It runs after the
// warm-up and after earlier runs' keys are gone, right before the
// traffic.
func Start(ctx context.Context, t Target, c Config) *Probe {
	lim, identities := c.Limiter, c.Identities
	p := &Probe{t: t, c: c, limiter: lim, keys: c.Keys, command: algorithms.CommandOf(lim), self: startSelfSampler()}
	if t.Env.Mode == redisenv.Embedded {
		return p
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout+settleTimeout+5*time.Second)
	defer cancel()
	p.redirects = t.Env.Redirections()
	if err := t.refused(redisenv.CmdInfo); err != nil {
		// Nothing the server says of itself can be read; what the run
		// lacks is named in its unavailable figures.
		p.memErr, p.statsErr, p.nodes.err = err, err, err
		return p
	}
	srv, err := t.openServers(ctx)
	if err != nil {
		p.memErr, p.statsErr, p.nodes.err = err, err, err
		return p
	}
	defer srv.close()
	mode := t.Env.Mode
	if mode == redisenv.Private {
		if err := srv.each(ctx, func(_ int, c redis.Cmdable) error { return redisenv.StopLatencyTracking(ctx, c, mode) }); err != nil {
			p.notes = append(p.notes, err.Error())
		}
		if err := srv.each(ctx, func(_ int, c redis.Cmdable) error { return redisenv.ResetStats(ctx, c, mode) }); err != nil {
			p.notes = append(p.notes, err.Error())
		} else {
			p.reset = true
		}
	}
	// Below MinIdentitiesForBytes no memory per identity is shown, so
	// nothing is gained by waiting for used_memory to settle.
	settle := settleTimeout
	if identities < result.MinIdentitiesForBytes {
		settle = 0
	}
	p.before = make([]redisenv.MemoryReading, len(srv.addrs))
	settled := make([]bool, len(srv.addrs))
	p.memErr = srv.each(ctx, func(i int, c redis.Cmdable) (err error) {
		p.before[i], settled[i], err = redisenv.SettledMemory(ctx, c, mode, settle)
		return err
	})
	// On a shared server the figure moves with other clients' writes (and
	// the result says so once); on a private one nothing else writes.
	if p.memErr == nil && slices.Contains(settled, false) && settle > 0 && mode == redisenv.Private {
		p.notes = append(p.notes, fmt.Sprintf("used_memory was still moving %s after the previous run's keys were deleted", settleTimeout))
	}
	if mode == redisenv.Private && !srv.cluster {
		err := srv.each(ctx, func(_ int, c redis.Cmdable) (err error) {
			p.expired, err = expiredKeys(ctx, c)
			return err
		})
		p.haveExpired = err == nil
	}
	p.stats = make([]redisenv.CommandStats, len(srv.addrs))
	p.statsErr = srv.each(ctx, func(i int, c redis.Cmdable) (err error) {
		p.stats[i], err = redisenv.ReadDecisionStats(ctx, c, p.command)
		return err
	})
	p.nodes = readNodes(ctx, srv, 0)
	if single, ok := t.Env.Client.(*redis.Client); ok {
		p.keyspace, _ = redisenv.Keyspace(ctx, single)
	}
	return p
}

// Stop ends a run's probe that will not be finished (the run never
// began).
func (p *Probe) Stop() { p.self.stop() }

// Finish reads the server after the traffic of a run whose keys lie under
// prefix, with its keys still alive, and reports the figures. After a
// failed run it only stops its sampler: the server may be gone, and half
// a run's keys say little. switches are the times a scheduled fault
// replaced the server.
func (p *Probe) Finish(ctx context.Context, prefix string, runErr error, switches []redisenv.Switch) (rep Report) {
	p.switches = switches
	rep.Unavailable = Unavailable(p.t, Wants{Reference: p.c.Reference, Cluster: p.t.Env.Cluster != nil})
	heap, rss := p.self.stop()
	// Read before the probes' own calls, which a migration could redirect.
	redirects := p.t.Env.Redirections()
	if runErr != nil {
		// The redirections the calls met are the client's own count.
		rep.Cluster = p.clusterFigures(nodeReading{err: errRunStopped}, nil, nil, redirects)
		return rep
	}
	ctx, cancel := context.WithTimeout(ctx, censusTimeout)
	defer cancel()
	rdb := redisenv.NewProbeClient(p.t.Env.Client)
	defer rdb.Close()
	m := &result.Memory{RlbenchPeakHeapBytes: heap, RlbenchPeakRSSBytes: rss, Notes: p.notes}
	rep.Memory = m
	embedded := p.t.Env.Mode == redisenv.Embedded

	var census redisenv.Census
	censusErr := errors.Join(p.t.refused(redisenv.CmdScan), p.t.refused(redisenv.CmdPTTL))
	refusedCensus := censusErr != nil
	if censusErr == nil {
		censusErr = rdb.Do(ctx, func(c redis.Cmdable) (err error) {
			m.Identities = 0
			census, err = redisenv.TakeCensus(ctx, c, prefix, memorySampleKeys, uint64(p.c.Seed),
				identityCounter(p.limiter, p.keys, p.c.Identities, maxIdentityBits, &m.Identities))
			return err
		})
	}
	var sample redisenv.MemorySample
	var sampleErr error
	usage, encoding := p.t.allows(redisenv.CmdMemoryUsage), p.t.allows(redisenv.CmdObjectEncoding)
	if censusErr == nil && !embedded && (usage || encoding) {
		sampleErr = rdb.Do(ctx, func(c redis.Cmdable) (err error) {
			sample, err = redisenv.SampleMemory(ctx, c, prefix, census.Sample, usage, encoding)
			return err
		})
	}
	// The server's memory is read after the census on purpose. When the run
	// made the server double a hash table, the old table is freed only once
	// the incremental rehash has moved every bucket; the census looks up
	// every key, and each lookup moves a bucket, so by now the old table is
	// gone and not counted as the keys' cost.
	haveUsedMemory := false
	switch {
	case embedded:
		m.Notes = append(m.Notes, embeddedNote)
	case !p.t.allows(redisenv.CmdInfo):
		// Named among the run's unavailable figures: nothing to note.
		rep.Cluster = p.clusterFigures(nodeReading{err: p.t.refused(redisenv.CmdInfo)}, nil, nil, redirects)
	default:
		haveUsedMemory = p.readServer(ctx, &rep, redirects)
	}
	m.UsedMemoryUnread = !haveUsedMemory
	if censusErr != nil {
		m.Identities, m.CensusFailed = 0, true
		if !refusedCensus {
			// A census the server refused the user is named among the
			// run's unavailable figures, with what it said, once.
			m.Skipped = append(m.Skipped, "keys without a TTL were not checked: the key census failed: "+censusErr.Error())
		}
		return rep
	}
	m.Keys, m.KeysWithoutTTL = census.Keys, census.WithoutTTL
	p.sweepOutside(ctx, m)
	p.sweepOtherDatabases(ctx, prefix, m)
	if haveUsedMemory && m.Identities > 0 {
		m.BytesPerIdentity = float64(m.UsedMemoryDeltaBytes-m.ClientBuffersDeltaBytes) / float64(m.Identities)
	}
	p.expiredDuring(ctx, rdb, m)
	if m.ExpiredKeys > 0 && p.c.Fill && haveUsedMemory {
		n := min(p.c.Identities, result.MaxFillIdentities)
		switch why := p.whyNoFill(); {
		case why != "":
			m.NoFill = why
		default:
			fill, err := p.fill(ctx, prefix, n)
			if err != nil {
				m.NoFill = err.Error()
				break
			}
			m.Fill, m.BytesPerIdentity = fill, fill.BytesPerIdentity
		}
	}
	switch {
	case sampleErr != nil:
		m.Notes = append(m.Notes, "memory sample failed: "+sampleErr.Error())
	case !embedded && usage:
		m.SampledKeys, m.MemoryUsageSampledBytes = sample.Keys, sample.MeanBytes
	}
	if sampleErr == nil && !embedded && encoding {
		m.Encodings = sample.Encodings
	}
	return rep
}

// expiredDuring counts, on a server rlbench started, the keys that expired
// from the reading before the run to now (the census, which looks up every
// key, has removed those that were due).
func (p *Probe) expiredDuring(ctx context.Context, rdb *redisenv.ProbeClient, m *result.Memory) {
	if !p.haveExpired {
		return
	}
	var now int64
	if err := rdb.Do(ctx, func(c redis.Cmdable) (err error) {
		now, err = expiredKeys(ctx, c)
		return err
	}); err == nil && now > p.expired {
		m.ExpiredKeys = now - p.expired
	}
}

// readServer takes the after-readings of INFO memory and commandstats
// (every master's, on a cluster) and the cluster's figures per master. It
// reports whether the server gave used_memory both before and after.
func (p *Probe) readServer(ctx context.Context, rep *Report, redirects redisenv.RedirectCounts) (haveUsedMemory bool) {
	m := rep.Memory
	mode := p.t.Env.Mode
	shared := mode != redisenv.Private
	srv, err := p.t.openServers(ctx)
	if err != nil {
		m.Notes = append(m.Notes, "no used_memory or commandstats: "+err.Error())
		if c := p.clusterFigures(nodeReading{err: err}, nil, nil, redirects); c != nil {
			rep.Cluster = c
		}
		return false
	}
	defer srv.close()
	// The command statistics first: the memory reading is a MULTI, which
	// a decision of MULTI and EXEC (fixed_window_nx) would count as its own.
	stats := make([]redisenv.CommandStats, len(srv.addrs))
	statsErr := srv.each(ctx, func(i int, c redis.Cmdable) (err error) {
		stats[i], err = redisenv.ReadDecisionStats(ctx, c, p.command)
		return err
	})
	if statsErr != nil || len(stats) != len(p.stats) {
		stats = nil
	}
	after := make([]redisenv.MemoryReading, len(srv.addrs))
	err = srv.each(ctx, func(i int, c redis.Cmdable) (err error) {
		after[i], err = redisenv.ReadMemory(ctx, c, mode)
		return err
	})
	switch {
	case len(p.switches) > 0:
		after = nil
		m.Notes = append(m.Notes, "no used_memory delta: "+redisenv.SwitchNote(len(p.switches))+", and a new server's memory says nothing of the keys' cost")
	case p.memErr == nil && err == nil && len(after) == len(p.before):
		haveUsedMemory = true
		a, b := sumMemory(after), sumMemory(p.before)
		m.UsedMemoryDeltaBytes = a.UsedMemory - b.UsedMemory
		m.ClientBuffersDeltaBytes = a.ClientBuffers - b.ClientBuffers
		if shared {
			m.Notes = append(m.Notes, sharedMemoryNote)
		}
	default:
		after = nil
		m.Notes = append(m.Notes, "no used_memory: "+firstError(p.memErr, err, errMastersChanged).Error())
	}
	rep.Cluster = p.clusterFigures(readNodes(ctx, srv, 0), after, stats, redirects)
	if p.statsErr != nil || stats == nil {
		m.Notes = append(m.Notes, "no commandstats: "+firstError(p.statsErr, statsErr, errMastersChanged).Error())
		return haveUsedMemory
	}
	// Across a fault that replaced the (single) server, the statistics add
	// up on either side of each switch.
	diff := redisenv.StatsAcross(sumStats(p.stats), sumStats(stats), p.switches)
	if diff.WentBackwards() {
		m.Notes = append(m.Notes, "no commandstats: INFO commandstats went backwards during the run (another client reset the statistics?)")
		return haveUsedMemory
	}
	d := diff.PerDecision()
	rep.Server = &result.Server{Command: p.command, UsecPerCall: d.UsecPerCall(), Calls: d.Calls, Usec: d.Usec, FailedCalls: d.FailedCalls, StatsReset: p.reset}
	if shared {
		rep.Server.Note = sharedStatsNote
	}
	return haveUsedMemory
}

// errRunStopped is why a run that stopped early has no figures per master.
var errRunStopped = errors.New("the run stopped before its end, and the masters were not read")

// errMastersChanged is why figures read before and after a run cannot be
// compared when the cluster's masters changed in between.
var errMastersChanged = errors.New("the cluster's masters changed during the run")

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// allows reports whether the user the run connected as may run command
// (always, on a server rlbench started).
func (t Target) allows(command string) bool { return t.Env.Access.Allows(command) }

// refused is why the server refuses command to the user, as an error; nil
// when it does not.
func (t Target) refused(command string) error {
	if r, ok := t.Env.Access.Refusal(command); ok {
		return fmt.Errorf("%s refused: %s", command, r.Reason)
	}
	return nil
}
