package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/algorithms"
)

// algorithmsCommand lists the limiters.
func algorithmsCommand() command {
	return command{name: "algorithms", run: listAlgorithms}
}

// listAlgorithms lists the limiters, their parameters and their semantics.
func listAlgorithms(_ context.Context, args []string, stdout, _ io.Writer) error {
	if err := wantArgs("algorithms", args, 0, "no arguments"); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPARAMS\tSTATE\tSEMANTICS")
	for _, a := range algorithms.List() {
		name := a.Name
		if !a.Default {
			name += " (opt-in)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, a.Params, a.State, a.Semantics)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(stdout, "\nYour own limiter (a Lua script or a Redis Function) is declared in a profile's algorithms list,\n"+
		"with semantics %s: `rlbench init LIMITER.lua` writes one.\n", strings.Join(algorithms.SemanticsNames(), ", "))
	return err
}
