package main

import (
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// observers tells each of its observers of every run, in order; nil ones
// are left out.
type observers []workload.Observer

var _ workload.Observer = observers(nil)

// newObservers gathers the observers that are not nil.
func newObservers(os ...workload.Observer) observers {
	var out observers
	for _, o := range os {
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

// RunStarted implements workload.Observer.
func (os observers) RunStarted(p *workload.Progress) {
	for _, o := range os {
		o.RunStarted(p)
	}
}

// RunFinished implements workload.Observer.
func (os observers) RunFinished(p *workload.Progress, r *result.Run) {
	for _, o := range os {
		o.RunFinished(p, r)
	}
}
