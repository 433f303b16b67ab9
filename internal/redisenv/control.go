package redisenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Process control of a private server, for the faults a profile schedules:
// a stall freezes it, a kill ends it and a restart starts it again on the
// same port, empty (it keeps no persistence).

// ErrStopped is returned when a server that was stopped for good would be
// started again.
var ErrStopped = errors.New("the private redis-server was stopped")

// Freeze stops every process of the server (SIGSTOP): it neither answers
// nor reads its sockets until Thaw.
func (s *Server) Freeze() error { return s.signal(syscall.SIGSTOP) }

// Thaw lets a frozen server run again (SIGCONT).
func (s *Server) Thaw() error { return s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) error {
	s.mu.Lock()
	p, stopped := s.proc, s.stopped
	s.mu.Unlock()
	if stopped {
		return ErrStopped
	}
	if p.signal(sig, s.escapees(p)) == 0 {
		return fmt.Errorf("%s to redis-server (process group %d): no process of it is left", sig, p.pgid)
	}
	return nil
}

// Kill ends the server at once (SIGKILL), as a crash would, and waits
// until it is gone. Start brings it back.
func (s *Server) Kill() error {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	return s.end(p, 0)
}

// Terminate stops the server as a supervisor would (SIGTERM, SIGKILL
// after StopGrace) and waits until it is gone. Start brings it back.
func (s *Server) Terminate() error {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	return s.end(p, StopGrace)
}

// Start starts the server again on its address and directory after Kill
// or Terminate, and waits until it is proved the server answering there
// (see prove). It refuses once the server was stopped for good. When
// something else took the port meanwhile, the server is not started (it
// could not listen there) or is stopped again, and the error says so:
// rlbench's clients of private servers then talk to nothing on that
// address, and leave what answers there alone.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return ErrStopped
	}
	select {
	case <-s.proc.done:
	default:
		s.mu.Unlock()
		return fmt.Errorf("redis-server on %s is still running", s.Addr)
	}
	log, err := os.OpenFile(filepath.Join(s.dir, logFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	defer log.Close()
	if launchHook != nil {
		launchHook(launchInfo{Port: s.port, Restart: true})
	}
	p, err := s.launch(log)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	s.proc = p
	s.mu.Unlock()
	if err := writeOwner(s.dir, p.pgid, nil); err != nil {
		return err
	}
	if err := s.waitProved(ctx, p); err != nil {
		return errors.Join(fmt.Errorf("starting redis-server again on %s: %w", s.Addr, err), s.end(p, StopGrace))
	}
	return nil
}

// StartSibling starts another private server from the same binary, on a
// port of its own (a replica, for a failover).
func (s *Server) StartSibling(ctx context.Context) (*Server, error) {
	return StartServer(ctx, s.path)
}
