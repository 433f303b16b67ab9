package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/capacity"
	"github.com/rlbench/rlbench/internal/livemetrics"
	"github.com/rlbench/rlbench/internal/redisconf"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/report/html"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
	"github.com/rlbench/rlbench/workload"
)

// runOptions are the flags of `rlbench run`.
type runOptions struct {
	redisAddr  string
	outDir     string
	keepKeys   bool
	quiet      bool
	noEmbedded bool
	noReport   bool
	repeat     int
	segment    string
	startAt    string
	algorithms string

	// redisCluster names nodes of a Redis Cluster (--redis-cluster).
	redisCluster string
	// redisSentinel names the Sentinels, and redisSentinelMaster the
	// primary they manage (--redis-sentinel, --redis-sentinel-master).
	redisSentinel, redisSentinelMaster string
	// metricsListen is where to serve live metrics (--metrics-listen);
	// empty: nowhere.
	metricsListen string
	// junit is the JUnit XML file to write (--junit); empty: none.
	junit string
	// redisUsername and redisPasswordEnv are the ACL user and the
	// environment variable holding its password (--redis-username,
	// --redis-password-env), for whichever Redis the run uses.
	redisUsername    string
	redisPasswordEnv string
}

// startAtEnv names the environment variable that may carry the common
// start of a segmented run, so that every pod of a Job shares one value.
const startAtEnv = "RLBENCH_START_AT"

// runCommand runs a profile.
func runCommand() command {
	var o runOptions
	return command{
		name:     "run",
		usage:    "[flags] PROFILE",
		flags:    o.declare,
		inFlight: true,
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			if err := wantArgs("run", args, 1, "exactly one profile file"); err != nil {
				return err
			}
			return runProfile(ctx, args[0], o, stdout, stderr)
		},
	}
}

// declare declares the flags of `rlbench run`.
func (o *runOptions) declare(fs *flag.FlagSet) {
	fs.StringVar(&o.redisAddr, "redis", "", "use the Redis at `ADDR` (host:port or redis:// URL) instead of the profile's or a private one")
	fs.StringVar(&o.redisCluster, "redis-cluster", "", "use the Redis Cluster whose nodes `ADDRS` name (host:port,host:port,...; one is enough) instead of the profile's or a private one")
	fs.StringVar(&o.redisSentinel, "redis-sentinel", "", "use the primary the Sentinels at `ADDRS` (host:port,host:port,...) manage, named by --redis-sentinel-master, following it across a failover")
	fs.StringVar(&o.redisSentinelMaster, "redis-sentinel-master", "", "the `NAME` the Sentinels of --redis-sentinel monitor the primary under")
	fs.StringVar(&o.redisUsername, "redis-username", "", "connect as the ACL user `NAME` (in place of the profile's redis.username)")
	fs.StringVar(&o.redisPasswordEnv, "redis-password-env", "", "read the password from the environment variable `NAME` (as redis-cli reads REDISCLI_AUTH); it is never printed or written")
	fs.StringVar(&o.outDir, "out", "results", "write results under `DIR` (checked writable before the run starts)")
	fs.BoolVar(&o.keepKeys, "keep-keys", false, "leave the run's keys in Redis for inspection")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar: one line per run")
	fs.BoolVar(&o.noEmbedded, "no-embedded", false, "fail instead of using the embedded server when redis-server is missing")
	fs.BoolVar(&o.noReport, "no-report", false, "write only result.json: no plots, .hgrm files or report.html")
	fs.IntVar(&o.repeat, "repeat", 1, "run each scenario `N` times and report the median of each latency figure with its spread")
	fs.StringVar(&o.segment, "segment", "", "run part `I/N` of the identities (I from 0 to N-1), in step with the processes that run the others; merge their results with rlbench merge")
	fs.StringVar(&o.startAt, "start-at", "", "with --segment (required): start at this RFC 3339 `TIME`, the same for every segment of one load and no other (default $"+startAtEnv+")")
	fs.StringVar(&o.metricsListen, "metrics-listen", "", "serve live metrics (OpenMetrics, for Prometheus) at `ADDR`/metrics while the run goes on: :PORT listens on the loopback interface only, HOST:PORT (0.0.0.0:PORT) where named; :0 picks a free port")
	fs.StringVar(&o.junit, "junit", "", "also write the verdict as JUnit XML to `FILE`, for CI systems: a test case per run and per threshold (under GitHub Actions, annotations and the step summary are written without asking)")
	fs.StringVar(&o.algorithms, "algorithms", "", "run these limiters (comma-separated `LIST` of built-ins and the profile's own; all: every built-in but the negative control) instead of the profile's list")
}

// profileOptions reads --algorithms, and tells the profile which Redis
// --redis or --redis-cluster name and whether --segment splits the load,
// so that what its faults need is checked where it is loaded.
func (o runOptions) profileOptions() profile.Options {
	po := profile.Options{Segmented: o.segment != ""}
	switch {
	case o.redisAddr != "":
		po.Target = profile.TargetServer
	case o.redisCluster != "":
		po.Target = profile.TargetCluster
	case o.redisSentinel != "":
		po.Target = profile.TargetSentinel
	}
	switch o.algorithms {
	case "":
	case "all":
		po.Algorithms = algorithms.Comparable()
	default:
		po.Algorithms = strings.Split(o.algorithms, ",")
		for i := range po.Algorithms {
			po.Algorithms[i] = strings.TrimSpace(po.Algorithms[i])
		}
	}
	return po
}

// segments reads --segment and --start-at (or $RLBENCH_START_AT).
func (o runOptions) segments() (workload.Segments, error) {
	var s workload.Segments
	if o.segment == "" {
		if o.startAt != "" {
			return s, usageErrorf("--start-at needs --segment I/N")
		}
		return s, nil
	}
	seg, err := plan.ParseSegment(o.segment)
	if err != nil {
		return s, usageErrorf("--segment: %v", err)
	}
	s.Segment = seg
	at := o.startAt
	if at == "" {
		at = os.Getenv(startAtEnv)
	}
	if at == "" {
		// The start is what every segment of one load shares and no other
		// load has: without it, the segments of two loads of one profile
		// would meet in one place and merge into one result.
		return s, usageErrorf("--segment %s needs --start-at TIME (or $%s): the moment every segment of this load starts at, which names the load, "+
			"e.g. --start-at $(date -u -d '+1 min' +%%Y-%%m-%%dT%%H:%%M:%%SZ), the same for every segment", o.segment, startAtEnv)
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return s, usageErrorf("--start-at %q is not an RFC 3339 time like 2026-11-30T14:00:00Z", at)
	}
	if time.Until(t) > 24*time.Hour {
		return s, usageErrorf("--start-at %s is more than a day away", at)
	}
	s.StartAt = t
	return s, nil
}

// runProfile runs a profile: it gets a Redis, drives every run of the plan,
// writes result.json (also when interrupted or aborted, marked incomplete)
// and prints the summary.
func runProfile(ctx context.Context, profilePath string, o runOptions, stdout, stderr io.Writer) error {
	if o.repeat < 1 || o.repeat > 100 {
		return usageErrorf("-repeat %d: want 1 to 100", o.repeat)
	}
	segs, err := o.segments()
	if err != nil {
		return err
	}
	prof, err := profile.LoadWith(ctx, profilePath, o.profileOptions())
	if ctx.Err() != nil {
		return interrupted(ctx, "reading "+profilePath)
	}
	if err != nil {
		return err
	}
	for _, w := range prof.Warnings() {
		fmt.Fprintln(stderr, "rlbench: warning: "+report.PrintableLines(w))
	}
	ropts, err := redisOptions(prof, o)
	if err != nil {
		return err
	}
	pl := prof.Plan(o.repeat)
	if ropts.Check, err = accessChecks(pl); err != nil {
		return err
	}
	if err := checkOutDir(o.outDir); err != nil {
		return err
	}
	if err := checkJUnitPath(o.junit, profilePath); err != nil {
		return err
	}
	runID := workload.NewRunID()
	var live *liveMetrics
	if o.metricsListen != "" {
		id := livemetrics.Identity{Profile: prof.Name, RunID: runID}
		if !segs.Segment.Whole() {
			id.Segment = segs.Segment.String()
		}
		if live, err = startLiveMetrics(o.metricsListen, id, stderr); err != nil {
			return err
		}
		defer live.close()
	}

	switch {
	case o.quiet || ropts.Addr != "" || len(ropts.ClusterAddrs) > 0 || ropts.Sentinel != nil:
	case ropts.Cluster != nil:
		fmt.Fprintf(stderr, "rlbench: starting a private Redis Cluster of %d masters and %d replicas on loopback ports\n", ropts.Cluster.Masters, ropts.Cluster.Masters*ropts.Cluster.Replicas)
	default:
		fmt.Fprintln(stderr, "rlbench: starting a private redis-server on a loopback port")
	}
	ropts.RunPrefix = redisenv.KeyPrefixRoot + runID + ":"
	env, err := redisenv.Open(ctx, ropts)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, startingWhat(ropts))
		}
		return err
	}
	defer closeEnv(env, stderr)
	if env.Note != "" {
		fmt.Fprintln(stderr, "rlbench: "+env.Note)
	}
	if err := refusedByServer(prof, pl, env); err != nil {
		return err
	}
	if err := unknownToServer(ctx, pl, env); err != nil {
		return err
	}

	runner := &workload.Runner{
		Plan:      pl,
		Env:       env,
		RunID:     runID,
		KeepKeys:  o.keepKeys,
		Observer:  newObservers(newProgress(stderr, o.quiet), testObserver(ctx, live)),
		Sinks:     live.sinks(),
		Segments:  segs,
		ShareCPUs: true,
		Hurry:     hurryOf(ctx),
		Shapes:    capacity.Shapes(),
	}
	runner.NewLimiter = hooksOf(ctx).newLimiter
	res, runErr := runner.Run(ctx)
	if ctx.Err() != nil {
		// However far the runs got, an interrupted invocation is never
		// complete.
		if runErr == nil {
			runErr = workload.ErrInterrupted
		}
		res.Complete = false
	}
	if errors.Is(runErr, workload.ErrInterrupted) {
		res.IncompleteReason = interruptReason(ctx)
	}
	res.Tool = result.Tool{Name: "rlbench", Version: version(), GoVersion: runtime.Version()}
	verdict.Judge(res, prof.Thresholds)

	name := fmt.Sprintf("%s-%s", prof.Name, res.StartedAt.Format("20060102T150405Z"))
	if s := res.Segment; s != nil {
		name += fmt.Sprintf("-segment%dof%d", s.Index, s.Count)
	}
	dir, writeErr := newResultDir(o.outDir, name)
	path := filepath.Join(dir, "result.json")
	if writeErr == nil {
		writeErr = result.WriteFile(path, res)
	} else {
		path = filepath.Join(o.outDir, name, "result.json")
	}
	var cleanupErr error
	if !o.keepKeys {
		// Every key of the invocation, after Ctrl-C too.
		cleanupErr = env.RemoveKeys(runner.RunPrefix())
		var left *redisenv.KeysLeftError
		if errors.As(cleanupErr, &left) {
			// The user may not run what removal needs: known as the run
			// connected, named in the result, and no failure of this run.
			fmt.Fprintf(stderr, "rlbench: warning: %v\n", left)
			cleanupErr = nil
		}
	}

	// Output that cannot be written (its reader gone) does not keep the
	// report from being rendered.
	summaryErr := report.WriteSummary(stdout, res)
	if writeErr != nil {
		return fmt.Errorf("writing %s: %w", path, writeErr)
	}
	fmt.Fprintf(stdout, "result: %s\n", report.Printable(path))
	var reportErr error
	switch {
	case o.noReport:
	case hurried(ctx):
		fmt.Fprintf(stdout, "report: not rendered (interrupted twice); rlbench report %s renders it\n", report.Printable(path))
	default:
		// The first interrupt leaves the report to be rendered (a partial
		// result is worth seeing); the second cuts it short.
		rctx, cancel := hurryContext(ctx)
		written, err := renderReport(rctx, dir, res, html.DefaultMaxScenarios)
		cancel()
		if err != nil {
			reportErr = fmt.Errorf("rendering the report: %w", err)
		} else {
			fmt.Fprintf(stdout, "report: %s\n", report.Printable(written[len(written)-1]))
			printLeftOut(stdout, res, html.DefaultMaxScenarios)
		}
	}
	if o.keepKeys {
		fmt.Fprintf(stdout, "keys kept under %s*\n", runner.RunPrefix())
	}
	if err := writeCIOutputs(res, o.junit, stdout, stderr); err != nil && reportErr == nil {
		reportErr = fmt.Errorf("writing for CI: %w", err)
	}
	if runErr != nil {
		if errors.Is(runErr, workload.ErrInterrupted) {
			return fmt.Errorf("run interrupted (partial result written to %s)", path)
		}
		return fmt.Errorf("run failed: %w (partial result written to %s)", runErr, path)
	}
	if cleanupErr != nil {
		return cleanupErr
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted after the result was written to %s", report.Printable(path))
	}
	if reportErr != nil {
		return reportErr
	}
	if summaryErr != nil {
		return fmt.Errorf("writing the summary: %w (result written to %s)", summaryErr, path)
	}
	if err := verdictError(res.Verdict); err != nil {
		return err
	}
	return nil
}

// startingWhat says what getting the Redis of ropts is, for a message:
// starting a private server or cluster, or connecting to someone else's.
func startingWhat(ropts redisenv.Options) string {
	switch {
	case len(ropts.ClusterAddrs) > 0:
		addrs := make([]string, len(ropts.ClusterAddrs))
		for i, a := range ropts.ClusterAddrs {
			addrs[i] = redisconf.Redact(a)
		}
		return "connecting to the Redis Cluster at " + strings.Join(addrs, ",")
	case ropts.Sentinel != nil:
		return fmt.Sprintf("asking the Sentinels at %s for the primary %q", strings.Join(ropts.Sentinel.Addrs, ","), ropts.Sentinel.MasterName)
	case ropts.Cluster != nil:
		return "starting the private Redis Cluster"
	case ropts.Addr != "":
		return "connecting to redis at " + redisconf.Redact(ropts.Addr)
	}
	return "starting the private redis-server"
}

// closeEnv closes the Redis of a run and says, on stderr, what it could
// not do: a private server that outlived every signal runs on until the
// user stops it, and must not be left without a word.
func closeEnv(env *redisenv.Env, stderr io.Writer) {
	if err := env.Close(); err != nil {
		fmt.Fprintln(stderr, "rlbench: warning: "+report.PrintableLines(err.Error()))
	}
}

// redisOptions resolves which Redis to use: --redis, else the profile's
// redis section, else a private server. The password comes only from an
// environment variable: the one --redis-password-env names, else the one
// the profile names. The profile's user and password go only to the
// addresses its own redis section names: --redis or --redis-cluster naming
// another server gets none of them.
func redisOptions(p *profile.Profile, o runOptions) (redisenv.Options, error) {
	ropts := redisenv.Options{
		PoolSize:   p.MaxConcurrency() + 4,
		Timeout:    p.Timeout,
		NoEmbedded: o.noEmbedded,
	}
	var profileAddrs []string
	passwordEnv, passwordFrom, sentinelPasswordEnv := "", "", ""
	var sentinelUsername string
	if r := p.Redis; r != nil {
		ropts.Addr = r.Addr
		ropts.Username = r.Username
		ropts.DB = r.DB
		ropts.TLS = r.TLS
		ropts.TLSCAFile = r.TLSCAFile
		ropts.TLSInsecure = r.TLSInsecure
		passwordEnv, passwordFrom = r.PasswordEnv, p.Path+": redis.password_env"
		if c := r.Cluster; c != nil && c.Private() {
			ropts.Cluster = &redisenv.ClusterSpec{Masters: c.Masters, Replicas: c.Replicas}
		} else if c != nil {
			ropts.ClusterAddrs = c.Addrs
			profileAddrs = c.Addrs
		}
		if r.Addr != "" {
			profileAddrs = []string{r.Addr}
		}
		if sn := r.Sentinel; sn != nil {
			ropts.Sentinel = &redisenv.SentinelSpec{MasterName: sn.MasterName, Addrs: sn.Addrs, Username: sn.Username}
			profileAddrs = sn.Addrs
			sentinelPasswordEnv = sn.PasswordEnv
		}
	}
	var named []string
	given := 0
	for _, f := range []string{o.redisAddr, o.redisCluster, o.redisSentinel} {
		if f != "" {
			given++
		}
	}
	switch {
	case given > 1:
		return ropts, usageErrorf("give one of --redis (one server), --redis-cluster or --redis-sentinel, not several")
	case o.redisSentinelMaster != "" && o.redisSentinel == "":
		return ropts, usageErrorf("--redis-sentinel-master names the primary of the Sentinels --redis-sentinel names: give both")
	case o.redisSentinel != "":
		addrs, err := redisconf.SplitSentinelAddrs(o.redisSentinel)
		if err != nil {
			return ropts, usageErrorf("--redis-sentinel: %v", err)
		}
		if o.redisSentinelMaster == "" {
			return ropts, usageErrorf("--redis-sentinel needs --redis-sentinel-master NAME: the name the Sentinels monitor the primary under")
		}
		if err := redisconf.CheckSentinelMaster(o.redisSentinelMaster); err != nil {
			return ropts, usageErrorf("--redis-sentinel-master: %v", err)
		}
		if ropts.TLS {
			return ropts, usageErrorf("--redis-sentinel: %s: redis.tls is set, and TLS through Sentinel is not supported", p.Path)
		}
		ropts.Addr, ropts.ClusterAddrs, ropts.Cluster = "", nil, nil
		if ropts.Sentinel != nil {
			sentinelUsername = ropts.Sentinel.Username
		}
		ropts.Sentinel = &redisenv.SentinelSpec{MasterName: o.redisSentinelMaster, Addrs: addrs, Username: sentinelUsername}
		named = addrs
	case o.redisAddr != "":
		if err := redisconf.CheckAddr(o.redisAddr); err != nil {
			return ropts, usageErrorf("--redis: %v", err)
		}
		ropts.Addr, ropts.ClusterAddrs, ropts.Cluster, ropts.Sentinel = o.redisAddr, nil, nil, nil
		named = []string{o.redisAddr}
	case o.redisCluster != "":
		addrs, err := redisconf.SplitClusterAddrs(o.redisCluster)
		if err != nil {
			return ropts, usageErrorf("--redis-cluster: %v", err)
		}
		if ropts.DB != 0 {
			return ropts, usageErrorf("--redis-cluster: %s: redis.db is %d, and a Redis Cluster has database 0 only", p.Path, ropts.DB)
		}
		ropts.Addr, ropts.ClusterAddrs, ropts.Cluster, ropts.Sentinel = "", addrs, nil, nil
		named = addrs
	}
	if named != nil && !redisconf.Among(named, profileAddrs) {
		// The profile's credentials were written for its own servers
		// (and Sentinels).
		ropts.Username, passwordEnv, sentinelPasswordEnv = "", "", ""
		if ropts.Sentinel != nil {
			ropts.Sentinel.Username = ""
		}
	}
	if ropts.Sentinel == nil {
		sentinelPasswordEnv = ""
	}
	if sentinelPasswordEnv != "" {
		pw, ok := os.LookupEnv(sentinelPasswordEnv)
		if !ok {
			return ropts, usageErrorf("%s: redis.sentinel.password_env names %s, which is not set in the environment", p.Path, sentinelPasswordEnv)
		}
		ropts.Sentinel.Password = pw
	}
	if o.redisUsername != "" {
		ropts.Username = o.redisUsername
	}
	if o.redisPasswordEnv != "" {
		passwordEnv, passwordFrom = o.redisPasswordEnv, "--redis-password-env"
		if !envVarName.MatchString(passwordEnv) {
			// It may be the password itself, given by mistake: it is not
			// repeated.
			return ropts, usageErrorf("--redis-password-env takes the name of an environment variable that holds the password (letters, digits and _), and what it was given is not one (not printed: it may be the password)")
		}
	}
	if passwordEnv != "" {
		pw, ok := os.LookupEnv(passwordEnv)
		if !ok {
			name := passwordEnv
			if passwordEnv == o.redisPasswordEnv && !conventionalEnvVar.MatchString(name) {
				name = "a variable (its name not printed: it may be the password)"
			}
			return ropts, usageErrorf("%s names %s, which is not set in the environment", passwordFrom, name)
		}
		ropts.Password = pw
	}
	return ropts, nil
}

// envVarName is what an environment variable's name may be;
// conventionalEnvVar is how one is usually written (REDISCLI_AUTH), which
// a message may repeat without repeating a password given by mistake.
var (
	envVarName         = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	conventionalEnvVar = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
)
