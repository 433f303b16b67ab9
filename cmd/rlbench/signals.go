package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopSignals end rlbench in order: Ctrl-C, a kill's SIGTERM, and the
// SIGHUP of a terminal that closed, after which the run's keys and private
// server would otherwise be left behind.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalEcho is how close together stop signals count as one request to
// stop: GNU timeout signals rlbench and then its whole process group, a
// terminal that closes sends SIGHUP to the group, and a supervisor may
// signal both a process and its group, so one request can arrive twice
// within microseconds. A person pressing Ctrl-C again takes longer.
const signalEcho = time.Second

// interrupts is what the stop signals have told a command so far, carried
// by the context interruptContext returns.
type interrupts struct {
	// hurry is closed by the second distinct stop signal.
	hurry chan struct{}
	// first names the first signal (for the result's incomplete reason).
	first os.Signal
}

type interruptsKey struct{}

// hurryOf is the channel the second distinct stop signal closes, for the
// command's ctx; nil (never closed) when ctx has no signal handling.
func hurryOf(ctx context.Context) <-chan struct{} {
	if in, ok := ctx.Value(interruptsKey{}).(*interrupts); ok {
		return in.hurry
	}
	return nil
}

// hurried reports whether the second distinct stop signal has come.
func hurried(ctx context.Context) bool {
	h := hurryOf(ctx)
	if h == nil {
		return false
	}
	select {
	case <-h:
		return true
	default:
		return false
	}
}

// hurryContext is a context the first stop signal does not end and the
// second distinct one does, for what an interrupted command still
// finishes.
func hurryContext(ctx context.Context) (context.Context, context.CancelFunc) {
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if h := hurryOf(ctx); h != nil {
		go func() {
			select {
			case <-h:
				cancel()
			case <-hctx.Done():
			}
		}()
	}
	return hctx, cancel
}

// interruptReason says what interrupted ctx, for a result's
// incomplete_reason: the first stop signal, by name.
func interruptReason(ctx context.Context) string {
	in, ok := ctx.Value(interruptsKey{}).(*interrupts)
	if !ok || ctx.Err() == nil {
		return "interrupted"
	}
	switch in.first {
	case os.Interrupt:
		return "interrupted (Ctrl-C)"
	case syscall.SIGTERM:
		return "interrupted (SIGTERM)"
	case syscall.SIGHUP:
		return "interrupted (SIGHUP: the terminal closed)"
	}
	return "interrupted"
}

// interruptContext is cancelled by the first stop signal (Ctrl-C,
// SIGTERM, SIGHUP). Signals that follow the last one counted within
// signalEcho are the same request again, and count once. `run` stops
// issuing at the first, lets calls in flight finish, reads what the
// traffic left, writes what it measured and removes its keys; the second
// distinct signal hurries it (hurryOf: the readings after the traffic and
// the report are cut short), but it still writes the result, marked
// incomplete, and removes what it can; any later one is only answered. The
// other commands have no calls in flight and stop where they are at the
// first; the second calls quit, which stops any private redis-server,
// removes its directory and exits at once. Output that can no longer be
// written (a pipe whose reader left, a terminal that closed) fails its
// writes instead of killing rlbench with SIGPIPE before it has cleaned up.
func interruptContext(stderr io.Writer, command string, quit func()) (context.Context, func()) {
	signal.Ignore(syscall.SIGPIPE)
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, stopSignals...)
	stamped := make(chan stampedSignal)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sig:
				select {
				case stamped <- stampedSignal{s, time.Now()}:
				case <-done:
					return
				}
			case <-done:
				return
			}
		}
	}()
	ctx, stop := handleInterrupts(stamped, stderr, command, quit)
	return ctx, func() { signal.Stop(sig); close(done); stop() }
}

// stampedSignal is a stop signal and when it arrived.
type stampedSignal struct {
	sig os.Signal
	at  time.Time
}

// handleInterrupts is interruptContext on the signals sig delivers. stop
// ends the handling once every signal received so far has been handled.
func handleInterrupts(sig <-chan stampedSignal, stderr io.Writer, command string, quit func()) (context.Context, func()) {
	in := &interrupts{hurry: make(chan struct{})}
	base, cancel := context.WithCancel(context.Background())
	ctx := context.WithValue(base, interruptsKey{}, in)
	done := make(chan struct{})
	finished := make(chan struct{})
	c, _ := lookup(command)
	go func() {
		defer close(finished)
		var last time.Time
		for counted := 0; ; {
			var got stampedSignal
			select {
			case got = <-sig:
			case <-done:
				return
			}
			if counted > 0 && got.at.Sub(last) < signalEcho {
				continue
			}
			s := got.sig
			counted++
			last = got.at
			switch {
			case counted == 1:
				in.first = s
				if c.inFlight {
					fmt.Fprintf(stderr, "\nrlbench: stopping on %s: finishing calls in flight and writing what was measured (%s again to hurry)\n", signalName(s), signalName(s))
				} else {
					fmt.Fprintf(stderr, "\nrlbench: stopping on %s\n", signalName(s))
				}
				cancel()
			case !c.inFlight:
				fmt.Fprintln(stderr, "rlbench: quitting")
				quit()
				return
			case counted == 2:
				fmt.Fprintln(stderr, "rlbench: hurrying: cutting the readings and the report short; still writing the result (incomplete) and removing the run's keys")
				close(in.hurry)
			default:
				fmt.Fprintln(stderr, "rlbench: already hurrying: writing the result and removing the run's keys (SIGKILL quits without)")
			}
		}
	}()
	// Once quitting has begun, quit decides the exit code: the command,
	// which may finish meanwhile (its server stopped under it), waits
	// here for quit to exit rather than exit with a code of its own.
	return ctx, func() { close(done); <-finished; cancel() }
}

// signalName names a stop signal as a user would type it.
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "Ctrl-C"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
