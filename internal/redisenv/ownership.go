package redisenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// How rlbench proves that the server answering on a private server's port
// is the process it started. A "free" port is free only when it is asked
// for: another program (another rlbench, a test's Redis) may take it
// before the server binds it, and then answers there. So the private
// server also listens on a unix socket inside rlbench's own temporary
// directory (mode 0700, a path no other program was told), and the server
// counts as rlbench's only once what answers on the socket says it listens
// on the port, and what answers on the port has the same run_id (a random
// 40-character id each start of a server draws). Until then rlbench sends
// the port nothing but INFO server, and a server it has not proved its own
// it never flushes, cleans, reconfigures, shuts down or runs traffic on.

// socketFile is the private server's unix socket, inside its directory.
const socketFile = "redis.sock"

// maxSocketPath is the longest unix socket path every platform takes
// (sun_path holds 108 bytes on Linux, 104 on the BSDs, the NUL included).
const maxSocketPath = 103

// socketPath is the unix socket of the server working in dir, or an error
// when dir is too deep for one.
func socketPath(dir string) (string, error) {
	p := filepath.Join(dir, socketFile)
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("the temporary directory %s is too deep for the unix socket rlbench proves its private redis-server by "+
			"(%d bytes, at most %d): set TMPDIR to a shorter path", dir, len(p), maxSocketPath)
	}
	return p, nil
}

// owner is what the proof learned of the server: its run_id, and the
// process id it reports with that process's start (see processIdentity),
// which finds it even when it has left the process group rlbench started.
type owner struct {
	runID string
	pid   int
	start string
}

// NotOwnedError is a server that answers on a private server's address
// and is not the process rlbench started there: rlbench leaves it alone.
type NotOwnedError struct {
	// Addr is the address rlbench chose for its server ("" for a
	// connection whose address the check does not know).
	Addr string
	// Reason says what gave it away.
	Reason string
}

func (e *NotOwnedError) Error() string {
	what := "the server this connection reached"
	if e.Addr != "" {
		what = "the redis at " + e.Addr
	}
	return fmt.Sprintf("%s is not the redis-server rlbench started (%s): rlbench leaves it alone", what, e.Reason)
}

// errNotYet is a proof that cannot be made yet: the server does not answer
// on its socket, or not yet on its port.
var errNotYet = errors.New("the server does not answer yet")

// said is what a server says of itself in INFO server.
type said struct {
	runID string
	pid   int
	port  int
}

// ask reads INFO server from the server at addr over network, on one
// connection dialled once: when nothing listens there yet, it says so
// without a client being made. A reply that is an error (a password asked
// for, INFO refused) comes back as a redis.Error.
func ask(ctx context.Context, network, addr string) (said, error) {
	conn, err := (&net.Dialer{Timeout: 250 * time.Millisecond}).DialContext(ctx, network, addr)
	if err != nil {
		return said{}, err
	}
	rdb := redis.NewClient(&redis.Options{
		Network: network, Addr: addr, Protocol: 2, DisableIdentity: true,
		MaxRetries: -1, DialerRetries: 1, PoolSize: 1, ReadTimeout: time.Second, WriteTimeout: time.Second,
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			if conn == nil {
				return nil, errors.New("dialled once already")
			}
			c := conn
			conn = nil
			return c, nil
		},
	})
	defer rdb.Close()
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return said{}, err
	}
	f := ParseInfo(info)
	s := said{runID: f["run_id"]}
	s.pid, _ = strconv.Atoi(f["process_id"])
	s.port, _ = strconv.Atoi(f["tcp_port"])
	return s, nil
}

// prove checks that the server answering on s.Addr is the one working in
// s.dir: errNotYet while it does not answer yet, a *NotOwnedError when
// something else answers on the port (or the server rlbench started does
// not listen on it), and what the server said of itself otherwise.
func (s *Server) prove(ctx context.Context) (owner, error) {
	mine, err := ask(ctx, "unix", s.socket)
	if err != nil {
		return owner{}, fmt.Errorf("%w (its socket: %v)", errNotYet, err)
	}
	if mine.runID == "" {
		return owner{}, &NotOwnedError{Addr: s.Addr, Reason: "the server rlbench started gives no run_id"}
	}
	if mine.port != s.port {
		return owner{}, &NotOwnedError{Addr: s.Addr, Reason: fmt.Sprintf("the server rlbench started listens on port %d instead (its wrapper changed the port?)", mine.port)}
	}
	there, err := ask(ctx, "tcp", s.Addr)
	var reply redis.Error
	switch {
	case errors.As(err, &reply):
		return owner{}, &NotOwnedError{Addr: s.Addr, Reason: "it answered INFO with " + reply.Error()}
	case err != nil:
		return owner{}, fmt.Errorf("%w (its port: %v)", errNotYet, err)
	case there.runID != mine.runID:
		return owner{}, &NotOwnedError{Addr: s.Addr, Reason: fmt.Sprintf("run_id %.8s answers on the port, and the server rlbench started is run_id %.8s", there.runID, mine.runID)}
	}
	return owner{runID: mine.runID, pid: mine.pid, start: processIdentity(mine.pid)}, nil
}

// proved holds the run_ids of the private servers this process started,
// proved its own and has not stopped: the servers its clients of private
// servers may talk to.
var proved = struct {
	sync.Mutex
	ids map[string]struct{}
}{ids: map[string]struct{}{}}

func markProved(runID string) {
	proved.Lock()
	proved.ids[runID] = struct{}{}
	proved.Unlock()
}

func unmarkProved(runID string) {
	proved.Lock()
	delete(proved.ids, runID)
	proved.Unlock()
}

func isProved(runID string) bool {
	proved.Lock()
	defer proved.Unlock()
	_, ok := proved.ids[runID]
	return runID != "" && ok
}

// guardOwned is the OnConnect of every client of a private server or
// cluster: a connection is used only when the server at its other end is
// one this process started and proved its own. A private server killed
// or restarted by a fault frees its port for a while, and whatever takes
// the port then must not get the run's traffic, probes or clean-up; its
// connections fail instead, and count as the failed calls they are.
func guardOwned(ctx context.Context, cn *redis.Conn) error {
	info, err := cn.Info(ctx, "server").Result()
	if err != nil {
		return fmt.Errorf("asking the server whether it is rlbench's own: %w", err)
	}
	if id := ParseInfo(info)["run_id"]; !isProved(id) {
		return &NotOwnedError{Reason: fmt.Sprintf("run_id %.8s is none of the servers rlbench started and proved its own", id)}
	}
	return nil
}
