package redisenv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// What the user rlbench connects as may run, learned once when rlbench
// connects to a server it did not start. A least-privileged user (no
// @admin, no @dangerous: no INFO, no CONFIG, no CLIENT PAUSE), a managed
// service that renamed or removed commands, a server whose DEBUG is off:
// each refuses some of what rlbench reads the server with. rlbench then
// runs with what it may, and names each figure it could not measure,
// rather than stop at the first refusal.

// The commands rlbench checks, named as messages and the result name them.
const (
	// CmdInfo reads the server's version, eviction policy, memory,
	// command statistics, evictions and restarts (@dangerous).
	CmdInfo = "INFO"
	// CmdConfigGet reads the eviction policy where INFO is refused
	// (@admin, @dangerous).
	CmdConfigGet = "CONFIG GET"
	// CmdMemoryUsage and CmdObjectEncoding read a sample of the run's
	// keys: their size and encoding.
	CmdMemoryUsage    = "MEMORY USAGE"
	CmdObjectEncoding = "OBJECT ENCODING"
	// CmdScan and CmdPTTL take the census of the run's keys (how many,
	// how many without a TTL) and find them to remove them.
	CmdScan = "SCAN"
	CmdPTTL = "PTTL"
	// CmdUnlink removes the run's keys; its check also writes (nothing)
	// under the run's prefix, so a read-only replica or a key pattern that
	// leaves out rlbench's keys shows before any traffic.
	CmdUnlink = "UNLINK"
	// CmdDel removes the run's keys where UNLINK is refused; checked only
	// there.
	CmdDel = "DEL"
	// CmdEvalShaRO calls the trivial script the reference measures.
	CmdEvalShaRO = "EVALSHA_RO"
	// CmdEvalSha and CmdFCall are the limiters' calls, checked on a key
	// under the run's prefix.
	CmdEvalSha = "EVALSHA"
	CmdFCall   = "FCALL"
	// CmdClientPause and CmdDebug inject the pause and the stall faults
	// on a server rlbench did not start (@admin, @dangerous); checked only
	// when a profile schedules them.
	CmdClientPause = "CLIENT PAUSE"
	CmdDebug       = "DEBUG"
	// CmdClusterSlots is how a cluster client learns which master serves
	// which slot; without it no key can be routed.
	CmdClusterSlots = "CLUSTER SLOTS"
)

// zeroSHA names no script: EVALSHA of it is NOSCRIPT wherever the user may
// call EVALSHA on the key it names, and a refusal wherever not.
const zeroSHA = "0000000000000000000000000000000000000000"

// accessCheck is one command rlbench checks: how ACL DRYRUN names it and
// a call of it that changes nothing, on key (a key under the run's prefix
// that does not exist) and pattern (a SCAN pattern that matches only keys
// under the run's prefix).
type accessCheck struct {
	name string
	call func(key, pattern string) []any
	// ok says whether a reply error still means the user may run the
	// command: EVALSHA of no script is NOSCRIPT, FCALL of no function
	// "Function not found", both past the ACL and the key pattern.
	ok func(err error) bool
}

// accessChecks are the commands every server rlbench did not start is
// checked for, and those checked on request (Options.Check may name any
// of them).
var accessChecks = map[string]accessCheck{
	CmdInfo:           {call: func(string, string) []any { return []any{"INFO", "server"} }},
	CmdConfigGet:      {call: func(string, string) []any { return []any{"CONFIG", "GET", "maxmemory-policy"} }},
	CmdMemoryUsage:    {call: func(k, _ string) []any { return []any{"MEMORY", "USAGE", k} }},
	CmdObjectEncoding: {call: func(k, _ string) []any { return []any{"OBJECT", "ENCODING", k} }},
	CmdScan:           {call: func(_, p string) []any { return []any{"SCAN", "0", "MATCH", p, "COUNT", "1"} }},
	CmdPTTL:           {call: func(k, _ string) []any { return []any{"PTTL", k} }},
	CmdUnlink:         {call: func(k, _ string) []any { return []any{"UNLINK", k} }},
	CmdDel:            {call: func(k, _ string) []any { return []any{"DEL", k} }},
	CmdEvalShaRO: {call: func(string, string) []any { return []any{"EVALSHA_RO", zeroSHA, "0"} },
		ok: func(err error) bool { return redis.HasErrorPrefix(err, "NOSCRIPT") }},
	CmdEvalSha: {call: func(k, _ string) []any { return []any{"EVALSHA", zeroSHA, "1", k} },
		ok: func(err error) bool { return redis.HasErrorPrefix(err, "NOSCRIPT") }},
	CmdFCall: {call: func(k, _ string) []any { return []any{"FCALL", "rlbench_access_check_none", "1", k} },
		ok: func(err error) bool { return strings.Contains(err.Error(), "Function not found") }},
	CmdClientPause:  {call: func(string, string) []any { return []any{"CLIENT", "PAUSE", "0", "WRITE"} }},
	CmdDebug:        {call: func(string, string) []any { return []any{"DEBUG", "SLEEP", "0"} }},
	CmdClusterSlots: {call: func(string, string) []any { return []any{"CLUSTER", "SLOTS"} }},
}

// alwaysChecked are the commands checked on every server rlbench did not
// start, in the order they are checked: the figures' first (CONFIG GET
// only where INFO is refused), then the write under the run's prefix (DEL
// only where UNLINK is refused).
var alwaysChecked = []string{CmdInfo, CmdConfigGet, CmdMemoryUsage, CmdObjectEncoding, CmdScan, CmdPTTL, CmdEvalShaRO, CmdUnlink, CmdDel}

// Access is what the user rlbench connected as may run on a server it did
// not start. A nil Access (a server rlbench started, the embedded one)
// allows everything.
type Access struct {
	// User is the ACL user checked ("default" when none was given).
	User string
	// CheckedBy says how: AccessByDryRun (ACL DRYRUN, which runs nothing
	// and leaves no trace in the ACL log), or AccessByCalls (each command
	// called in a way that changes nothing), where ACL DRYRUN is itself
	// refused.
	CheckedBy string
	// Refused lists each refused command with what Redis said, in the
	// order they were checked.
	Refused []Refusal
}

// How an Access was learned.
const (
	AccessByDryRun = "acl_dryrun"
	AccessByCalls  = "calls"
)

// Refusal is one command the server refused the user, and what it said:
// NOPERM from its ACL, "unknown command" where it was renamed away or
// removed, "DEBUG command not allowed" where it is turned off.
type Refusal struct {
	Command string
	Reason  string
}

// Allows reports whether the user may run command (one of the Cmd
// names). A nil Access allows everything.
func (a *Access) Allows(command string) bool {
	_, refused := a.Refusal(command)
	return !refused
}

// Refusal is what the server said refusing command, and whether it did.
func (a *Access) Refusal(command string) (Refusal, bool) {
	if a == nil {
		return Refusal{}, false
	}
	for _, r := range a.Refused {
		if r.Command == command {
			return r, true
		}
	}
	return Refusal{}, false
}

// RefusedError is a server that refuses what every run needs: writes
// under rlbench's prefix (a read-only replica, a key pattern that leaves
// out rlbench's keys), or the limiter's own call.
type RefusedError struct {
	Addr    string
	Command string
	What    string
	Reason  string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("redis at %s refused %s, which %s: %s", e.Addr, e.Command, e.What, e.Reason)
}

// checkAccess learns what the user o names may run on rdb: every command
// of alwaysChecked and of o.Check. With ACL DRYRUN allowed, the ACL's
// answer comes first and only what it allows is called; without it each
// command is called in a way that changes nothing. A call that fails
// because the connection broke is an error, not a refusal. key is a key
// under the run's prefix that no run uses.
func checkAccess(ctx context.Context, rdb redis.UniversalClient, o Options) (*Access, error) {
	user := o.Username
	if user == "" {
		user = "default"
	}
	key := o.accessKey()
	pattern := EscapeGlob(strings.TrimSuffix(key, "access")) + "*"
	names := append(slices.Clone(alwaysChecked), o.Check...)
	a := &Access{User: user, CheckedBy: AccessByCalls}
	dry := true
	for _, name := range names {
		if name == CmdConfigGet && a.Allows(CmdInfo) {
			// Only where INFO is refused is the eviction policy read
			// with CONFIG GET.
			continue
		}
		if name == CmdDel && a.Allows(CmdUnlink) {
			// DEL removes the run's keys only where UNLINK may not.
			continue
		}
		c, ok := accessChecks[name]
		if !ok {
			return nil, fmt.Errorf("no check for the command %q", name)
		}
		args := c.call(key, pattern)
		if dry {
			said, err := dryRun(ctx, rdb, user, args)
			switch {
			case err == nil && said == "OK":
				// The ACL allows it; the call below finds what the ACL
				// cannot say (a replica refusing writes, DEBUG turned off).
				a.CheckedBy = AccessByDryRun
			case err == nil:
				// ACL DRYRUN says why in a plain reply; the refusal is
				// what a call would have got, NOPERM.
				a.CheckedBy = AccessByDryRun
				a.Refused = append(a.Refused, Refusal{Command: name, Reason: "NOPERM (ACL DRYRUN) " + strings.TrimSpace(said)})
				continue
			case isReply(err) && unknownToDryRun(err):
				// ACL DRYRUN works, and knows no such command: renamed
				// away, or removed.
				a.CheckedBy = AccessByDryRun
				a.Refused = append(a.Refused, Refusal{Command: name, Reason: strings.TrimSpace(err.Error())})
				continue
			case isReply(err):
				// ACL DRYRUN is refused, renamed or unknown: each command
				// is called instead.
				dry = false
			default:
				return nil, fmt.Errorf("ACL DRYRUN: %w", err)
			}
		}
		err := rdb.Do(ctx, args...).Err()
		if err == nil || errors.Is(err, redis.Nil) || (c.ok != nil && c.ok(err)) {
			continue
		}
		if !isReply(err) {
			return nil, fmt.Errorf("checking what the user may run, %s: %w", name, err)
		}
		a.Refused = append(a.Refused, Refusal{Command: name, Reason: strings.TrimSpace(err.Error())})
	}
	return a, nil
}

// dryRun asks ACL DRYRUN whether user may run args: "OK", or the ACL's
// reason; an error reply when ACL DRYRUN is refused or the command is
// unknown.
func dryRun(ctx context.Context, rdb redis.UniversalClient, user string, args []any) (string, error) {
	return rdb.Do(ctx, append([]any{"ACL", "DRYRUN", user}, args...)...).Text()
}

// unknownToDryRun reports whether err is ACL DRYRUN saying it knows no
// such command ("ERR Command 'config' not found"), rather than refusing
// to run itself.
func unknownToDryRun(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "ERR Command '") && strings.HasSuffix(msg, "not found")
}

// isReply reports whether err is an error Redis answered (not a broken
// connection or a timeout).
func isReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply)
}

// accessKey is the key the checks name: under the run's prefix, used by
// no run.
func (o Options) accessKey() string {
	prefix := o.RunPrefix
	if prefix == "" {
		prefix = KeyPrefixRoot + "access-check:"
	}
	return prefix + "access"
}

// missingRemoval names the run's keys' removal as missing when the user
// may run neither UNLINK nor DEL: they are left to expire.
func (a *Access) missingRemoval() []Missing {
	if why := a.removalRefused(); why != "" {
		return []Missing{{What: "key_removal", Command: CmdUnlink + " and " + CmdDel, Reason: why}}
	}
	return nil
}

// removalRefused is, when the user may run neither UNLINK nor DEL, what
// the server said to each; "" when it may remove keys.
func (a *Access) removalRefused() string {
	u, refused := a.Refusal(CmdUnlink)
	if !refused {
		return ""
	}
	d, refused := a.Refusal(CmdDel)
	if !refused {
		return ""
	}
	return u.Reason + "; " + d.Reason
}

// writeRefusal is, when the check of UNLINK under the run's prefix was
// refused in a way that refuses every limiter's writes too (a read-only
// replica, a key pattern that leaves out rlbench's keys), the error that
// says so; nil otherwise. A user who may not run UNLINK itself only
// cannot remove the run's keys, which expire.
func (a *Access) writeRefusal(addr string) error {
	r, refused := a.Refusal(CmdUnlink)
	if !refused {
		return nil
	}
	code := replyCode(r.Reason)
	keyLevel := code == "NOPERM" && strings.Contains(r.Reason, "key")
	if code == "READONLY" || code == "MASTERDOWN" || keyLevel {
		return &RefusedError{Addr: addr, Command: "a write under " + KeyPrefixRoot + "* (UNLINK of a key no run uses)", What: "every limiter's call needs", Reason: r.Reason}
	}
	return nil
}
