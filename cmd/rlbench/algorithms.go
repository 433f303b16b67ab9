package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rlbench/rlbench/algorithms"
)

// algorithmsCmd lists the limiters, their parameters and their semantics.
func algorithmsCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("algorithms", stderr, "rlbench algorithms")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("algorithms takes no arguments")
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
	return tw.Flush()
}
