package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Configured is a redis-server a test starts with settings of its own: an
// ACL file, commands renamed away, a replica of another, a Sentinel. It
// is someone else's server as far as rlbench knows (rlbench never proved
// it its own), listening on 127.0.0.1 only, without persistence.
type Configured struct {
	// Addr is 127.0.0.1:port; Port the port.
	Addr string
	Port int
	// Dir is its working directory (its log is redis.log there).
	Dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// portTries is how many fresh ports a start tries: a port free when asked
// for may be taken by another test before the server binds it.
const portTries = 3

// StartConfigured starts redis-server on a free loopback port with the
// extra arguments args (e.g. "--rename-command", "CONFIG", ""), and waits
// until it answers PING (any answer, NOAUTH included); it is killed when
// the test ends.
func StartConfigured(t testing.TB, args ...string) *Configured {
	t.Helper()
	return startConfigured(t, "", args)
}

// startConfigured starts redis-server with a configuration file config
// (when not empty: written to the server's directory first, since
// Sentinel rewrites its own) and args.
func startConfigured(t testing.TB, config string, args []string) *Configured {
	t.Helper()
	path := ServerPath(t)
	var errs []error
	for range portTries {
		c, err := launch(t, path, config, args)
		if err == nil {
			t.Cleanup(c.Kill)
			return c
		}
		errs = append(errs, err)
	}
	t.Fatalf("starting redis-server %v: %v", args, errors.Join(errs...))
	return nil
}

// launch is one try of startConfigured, on a fresh port.
func launch(t testing.TB, path, config string, args []string) (*Configured, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	var argv []string
	if config != "" {
		file := filepath.Join(dir, "redis.conf")
		if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
			return nil, err
		}
		argv = append(argv, file)
	}
	argv = append(argv, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
	argv = append(argv, args...)
	cmd := exec.Command(path, argv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &Configured{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Port: port, Dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.done) }()
	rdb := redis.NewClient(&redis.Options{Addr: c.Addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1, DialTimeout: time.Second})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := rdb.Ping(ctx).Err()
		cancel()
		var reply redis.Error
		if err == nil || errors.As(err, &reply) {
			return c, nil
		}
		select {
		case <-c.done:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return nil, fmt.Errorf("redis-server on port %d exited: %s", port, tail(log))
		default:
		}
		if time.Now().After(deadline) {
			c.Kill()
			return nil, fmt.Errorf("redis-server on port %d did not answer within 10s: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill ends the server at once (SIGKILL to its process group) and waits
// until it has exited. Killing it again does nothing.
func (c *Configured) Kill() {
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// freePort is a loopback port nothing listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the last lines of a log, for a message.
func tail(log []byte) string {
	const most = 800
	if len(log) > most {
		log = log[len(log)-most:]
	}
	return string(log)
}
