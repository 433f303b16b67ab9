package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/rlbench/rlbench/internal/schedstat"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// cpuTimes is what the scheduler says of a process, summed over its
// threads.
type cpuTimes = schedstat.Times

// readCPUTimes reads the scheduler's figures for pid; zero values when the
// kernel does not keep them.
func readCPUTimes(pid int) cpuTimes {
	t, _ := schedstat.Read(pid)
	return t
}

// describe says, over a measurement of wall time, how busy the process
// was and how long it waited for a CPU per time it was scheduled in.
func describe(t cpuTimes, wall time.Duration) string {
	perSlice := time.Duration(0)
	if t.Slices > 0 {
		perSlice = t.Wait / time.Duration(t.Slices)
	}
	return fmt.Sprintf("on CPU %3.0f%%, waiting for one %3.0f%% (%s per wake-up)",
		100*t.Run.Seconds()/wall.Seconds(), 100*t.Wait.Seconds()/wall.Seconds(), perSlice.Round(100*time.Nanosecond))
}

// trafficWatch is an Observer that reads the scheduler's figures for pids
// when a run's traffic starts and again span later, when a closed loop of
// that length ends: the traffic alone, without the setup and probes
// around it.
type trafficWatch struct {
	pids        []int
	span        time.Duration
	mu          sync.Mutex
	before      []cpuTimes
	after       []cpuTimes
	start, stop time.Time
}

var _ workload.Observer = (*trafficWatch)(nil)

func (w *trafficWatch) RunStarted(*workload.Progress) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start = time.Now()
	for _, p := range w.pids {
		w.before = append(w.before, readCPUTimes(p))
	}
	time.AfterFunc(w.span, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.stop = time.Now()
		for _, p := range w.pids {
			w.after = append(w.after, readCPUTimes(p))
		}
	})
}

func (w *trafficWatch) RunFinished(*workload.Progress, *result.Run) {}

// result is each pid's figures over the traffic, and its length.
func (w *trafficWatch) result() ([]cpuTimes, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]cpuTimes, len(w.pids))
	for i := range out {
		if i < len(w.after) && i < len(w.before) {
			out[i] = w.after[i].Sub(w.before[i])
		}
	}
	return out, w.stop.Sub(w.start)
}
