package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand: how it is called, the flags it declares, and
// what it does with the arguments left once they are parsed.
type command struct {
	// name is what follows "rlbench".
	name string
	// usage is the argument part of its usage line, e.g. "[flags] PROFILE".
	usage string
	// flags declares the command's flags on fs; nil when it has none.
	flags func(fs *flag.FlagSet)
	// run does the work with the positional arguments.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// inFlight says the command has calls in flight to finish when it is
	// interrupted; any other command stops at once.
	inFlight bool
}

// commands lists the subcommands, as `rlbench help` shows them.
func commands() []command {
	return []command{runCommand(), reportCommand(), compareCommand(), mergeCommand(), validateCommand(), initCommand(), traceCommand(), algorithmsCommand(), aclCommand(), versionCommand()}
}

// lookup finds the subcommand called name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// execute parses the command's flags, wherever they stand among its
// arguments (`rlbench run p.yaml --quiet` as well as `rlbench run --quiet
// p.yaml`), and runs it. -h prints the command's help on stdout.
func (c command) execute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	positional, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.printHelp(stdout, fs)
		return nil
	}
	if err != nil {
		return usageErrorf("%v (see 'rlbench %s -h')", err, c.name)
	}
	if err := refuseEmpty(fs); err != nil {
		return err
	}
	return c.run(ctx, positional, stdout, stderr)
}

// refuseEmpty refuses a flag given an empty value (--redis "" or
// --redis=), most often a variable the shell found unset: taken as the
// flag's absence, it would run something else than was asked (a private
// server in place of the one named) and say nothing.
func refuseEmpty(fs *flag.FlagSet) error {
	var empty *flag.Flag
	fs.Visit(func(f *flag.Flag) {
		if empty == nil && f.Value.String() == "" {
			empty = f
		}
	})
	if empty == nil {
		return nil
	}
	name := "--" + empty.Name
	if len(empty.Name) == 1 {
		name = "-" + empty.Name
	}
	return usageErrorf("%s was given an empty value (a variable that is not set?): give it one, or leave the flag out", name)
}

// printHelp writes the usage line and, when the command has flags, each
// flag with its meaning.
func (c command) printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: rlbench %s %s\n", c.name, c.usage)
	if fs == nil {
		fs = flag.NewFlagSet(c.name, flag.ContinueOnError)
		if c.flags != nil {
			c.flags(fs)
		}
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if !hasFlags {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, which it returns in order. Everything after a
// "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// arguments is "1 argument" or "N arguments".
func arguments(n int) string { return counted(n, "argument") }

// counted is "1 thing" or "N things".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// wantArgs checks a command got exactly n positional arguments, named by
// what for the message.
func wantArgs(c string, args []string, n int, what string) error {
	if len(args) != n {
		return usageErrorf("%s needs %s (got %s: %s)", c, what, arguments(len(args)), strings.Join(quoteAll(args), " "))
	}
	return nil
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}
