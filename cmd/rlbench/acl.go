package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/report"
)

// aclOptions are the flags of `rlbench acl`.
type aclOptions struct {
	user    string
	segment bool
}

// aclCommand prints the ACL SETUSER line of a user that may run a profile
// with every figure, on rlbench's keys only.
func aclCommand() command {
	var o aclOptions
	return command{
		name:  "acl",
		usage: "[--user NAME] [--segment] PROFILE",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&o.user, "user", "rlbench", "the ACL user's `NAME`")
			fs.BoolVar(&o.segment, "segment", false, "also grant what runs with --segment need (the segments meet under rlbench:seg-*)")
		},
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			if err := wantArgs("acl", args, 1, "exactly one profile file"); err != nil {
				return err
			}
			if !aclUserName.MatchString(o.user) {
				return usageErrorf("--user %q: an ACL user's name here is letters, digits, '.', '_' or '-'", o.user)
			}
			prof, err := profile.LoadContext(ctx, args[0])
			if ctx.Err() != nil {
				return interrupted(ctx, "reading "+args[0])
			}
			if err != nil {
				return err
			}
			rule, notes, err := aclRule(prof, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "# The ACL user that lets rlbench run %s with every figure, on its own keys (%s) only.\n", report.Printable(args[0]), redisenv.KeyPrefixRoot+"*")
			fmt.Fprintf(stdout, "# Give it a password (ACL SETUSER %s >PASSWORD), put that in an environment variable, and run\n", o.user)
			fmt.Fprintf(stdout, "#   rlbench run --redis HOST:PORT --redis-username %s --redis-password-env VARIABLE %s\n", o.user, report.Printable(args[0]))
			for _, n := range notes {
				fmt.Fprintln(stdout, "# "+n)
			}
			fmt.Fprintln(stdout, rule)
			return nil
		},
	}
}

// aclUserName is what --user may be: a name that needs no quoting.
var aclUserName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// aclRule is the ACL SETUSER line of a user that may run every run of
// prof with every figure, and notes on what it cannot say.
func aclRule(prof *profile.Profile, o aclOptions) (string, []string, error) {
	pl := prof.Plan(1)
	when := map[string]bool{redisenv.WhenAlways: true, redisenv.WhenSegment: o.segment}
	if r := prof.Redis; r != nil {
		when[redisenv.WhenCluster] = r.Cluster != nil
	}
	var grants, notes []string
	grant := func(c string) {
		if !slices.Contains(grants, c) {
			grants = append(grants, c)
		}
	}
	for _, run := range pl.Runs {
		if run.Faults.Has(plan.FaultPause) {
			when[redisenv.WhenPause] = true
		}
		if run.Faults.Has(plan.FaultStall) {
			when[redisenv.WhenStall] = true
		}
	}
	for _, n := range redisenv.Needs {
		if when[n.When] {
			grant(n.ACL)
		}
	}
	lims, err := planLimiters(pl)
	if err != nil {
		return "", nil, err
	}
	for _, lim := range lims {
		cmds, dynamic := algorithms.ACLCommands(lim)
		for _, c := range cmds {
			grant(c)
		}
		if dynamic {
			notes = append(notes, fmt.Sprintf("%s's Lua calls a command it names in a variable: grant that command too", lim.Name()))
		}
	}
	return fmt.Sprintf("ACL SETUSER %s reset on %s +%s", o.user, redisenv.ACLKeys, strings.Join(grants, " +")), notes, nil
}
