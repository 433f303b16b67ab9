package redisenv

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Ending a private server: its process group, and the server itself
// where it left the group. A wrapper script on PATH may run the server
// under setsid, or daemonize it: then neither the group's signal nor the
// death signal of rlbench reaches it, and only the process id it reported
// when it was proved (checked against the start time it had then, so a
// later process that got the same id is left alone), or its working
// directory inside rlbench's own temporary directory, finds it.

// escapee is a process of the server outside its process group.
type escapee struct {
	pid   int
	start string
}

// escapees lists the processes of p's server outside p's group: the
// server that was proved, and any process working in the server's own
// directory (a server started there, which the proof may not have
// reached).
func (s *Server) escapees(p *process) []escapee {
	var out []escapee
	add := func(pid int, start string) {
		if pid <= 0 || start == "" || processGroup(pid) == p.pgid || processIdentity(pid) != start {
			return
		}
		for _, e := range out {
			if e.pid == pid {
				return
			}
		}
		out = append(out, escapee{pid: pid, start: start})
	}
	if o := p.owner.Load(); o != nil {
		add(o.pid, o.start)
	}
	for _, pid := range ProcessesIn(s.realDir) {
		add(pid, processIdentity(pid))
	}
	return out
}

// signal sends sig to p's group and to each escapee, and says how many
// were reached.
func (p *process) signal(sig syscall.Signal, escaped []escapee) int {
	reached := 0
	if p.pgid > 0 && syscall.Kill(-p.pgid, sig) == nil {
		reached++
	}
	for _, e := range escaped {
		if e.signal(sig) {
			reached++
		}
	}
	return reached
}

// signal sends sig to e, when it is still the process it was, and to the
// group it leads (as setsid makes it do); it reports whether e was
// reached.
func (e escapee) signal(sig syscall.Signal) bool {
	if e.pid <= 0 || processIdentity(e.pid) != e.start {
		return false
	}
	if syscall.Kill(e.pid, sig) != nil {
		return false
	}
	if processGroup(e.pid) == e.pid {
		_ = syscall.Kill(-e.pid, sig)
	}
	return true
}

// running lists what of p's group and escapees still runs.
func (p *process) running(escaped []escapee) []string {
	var out []string
	if p.pgid > 0 && GroupRunning(p.pgid) {
		out = append(out, "process group "+strconv.Itoa(p.pgid))
	}
	for _, e := range escaped {
		if processIdentity(e.pid) == e.start {
			out = append(out, "pid "+strconv.Itoa(e.pid))
		}
	}
	return out
}

// end signals the server's process group and escapees and waits, within
// bounds, until none of them runs and the direct child has been reaped.
// A server that a stall froze (SIGSTOP) is woken to take the signal. With
// no grace it is SIGKILL at once, as a crash would end it. A server that
// outlives SIGKILL is an error that names it, so that the user can stop
// it; the run does not leave it behind without a word.
func (s *Server) end(p *process, grace time.Duration) error {
	if o := p.owner.Load(); o != nil {
		defer unmarkProved(o.runID)
	}
	escaped := s.escapees(p)
	if grace > 0 {
		p.signal(syscall.SIGTERM, escaped)
		p.signal(syscall.SIGCONT, escaped)
	}
	if grace <= 0 || !waitGone(p, escaped, grace) {
		p.signal(syscall.SIGKILL, escaped)
		if !waitGone(p, escaped, killWait) {
			left := p.running(escaped)
			return fmt.Errorf("redis-server on %s (%s) still runs after SIGKILL: stop it yourself (kill -9 %s)",
				s.Addr, strings.Join(left, ", "), strings.Join(killArgs(p, escaped), " "))
		}
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("redis-server (pid %d) was not reaped within %s", p.pgid, killWait)
	}
}

// killArgs are the arguments of kill that would end what of p still runs.
func killArgs(p *process, escaped []escapee) []string {
	var out []string
	if p.pgid > 0 && GroupRunning(p.pgid) {
		out = append(out, "-"+strconv.Itoa(p.pgid))
	}
	for _, e := range escaped {
		if processIdentity(e.pid) == e.start {
			out = append(out, strconv.Itoa(e.pid))
		}
	}
	return out
}

// waitGone polls until nothing of p's group and escapees runs, or timeout.
func waitGone(p *process, escaped []escapee, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if len(p.running(escaped)) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGroupGone polls until no process of group pgid runs, or timeout.
func waitGroupGone(pgid int, timeout time.Duration) bool {
	return waitGone(&process{pgid: pgid}, nil, timeout)
}

// live holds the private servers started and not yet stopped, so that a
// process that must quit at once can still stop them.
var live = struct {
	sync.Mutex
	servers map[*Server]struct{}
}{servers: map[*Server]struct{}{}}

func register(s *Server) {
	live.Lock()
	live.servers[s] = struct{}{}
	live.Unlock()
}

func unregister(s *Server) {
	live.Lock()
	delete(live.servers, s)
	live.Unlock()
}

// StopAll stops every private server this process started and has not
// stopped yet, and removes their directories, with a short grace period: it
// is what rlbench calls when asked to quit at once (a second Ctrl-C), so
// that quitting leaves no server running and no directory behind. The
// error names any server that outlived SIGKILL.
func StopAll() error {
	live.Lock()
	servers := make([]*Server, 0, len(live.servers))
	for s := range live.servers {
		servers = append(servers, s)
	}
	live.Unlock()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A Stop already under way may be giving the server its full
			// grace period; quitting does not wait for it.
			s.mu.Lock()
			p := s.proc
			s.mu.Unlock()
			p.signal(syscall.SIGKILL, s.escapees(p))
			errs[i] = s.stop(quitGrace)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
