package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// progress shows a bar per run on a terminal, and one line per run
// otherwise (or with --quiet).
type progress struct {
	w    io.Writer
	bar  bool
	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
}

var _ workload.Observer = (*progress)(nil)

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
		p.bar = true
	}
	return p
}

// RunStarted implements workload.Observer.
func (p *progress) RunStarted(pr *workload.Progress) {
	if !p.bar {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	desc := fmt.Sprintf("[%d/%d] %s/%s", pr.Index+1, pr.Total, pr.Run.Algorithm, pr.Run.Scenario)
	byCount := pr.Planned > 0
	total := pr.Planned
	if !byCount {
		total = pr.Duration.Milliseconds()
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionShowCount(),
	)
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				_ = bar.Finish()
				return
			case <-t.C:
				if byCount {
					_ = bar.Set64(min(pr.Done(), total))
				} else {
					_ = bar.Set64(min(time.Since(pr.Started).Milliseconds(), total))
				}
			}
		}
	}(p.stop, p.done)
}

// RunFinished implements workload.Observer.
func (p *progress) RunFinished(pr *workload.Progress, r *result.Run) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	state := ""
	if r.Incomplete {
		state = " (incomplete)"
	}
	q := r.Requests
	fmt.Fprintf(p.w, "[%d/%d] %s/%s%s: sent %d, allowed %d, denied %d, errors %d, %.0f/s, p99 %s\n",
		pr.Index+1, pr.Total, report.Printable(r.Algorithm), report.Printable(r.Scenario), state,
		q.Sent, q.Allowed, q.Denied, q.Errors, r.Rate.AchievedPerS,
		report.FormatMicros(r.LatencyUs.P99))
}
