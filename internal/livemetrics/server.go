package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where a Server serves the metrics.
const Path = "/metrics"

// Server timeouts: a scrape that takes longer than these is a client
// that went away, and must not hold a connection for the rest of a soak.
const (
	readHeaderTimeout = 5 * time.Second
	writeTimeout      = 30 * time.Second
	closeTimeout      = 2 * time.Second
)

// ListenAddr resolves the address a user gave --metrics-listen: HOST:PORT
// as given, or :PORT on the loopback interface only (127.0.0.1:PORT), so
// that the metrics are not served to the network unless a host is named
// (0.0.0.0:PORT for every interface). PORT 0 picks a free port.
func ListenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not HOST:PORT or :PORT (e.g. :9100, 0.0.0.0:9100)", addr)
	}
	if port == "" {
		// net.Listen would take it for port 0 and pick one unasked.
		return "", fmt.Errorf("%q names no port: give one (e.g. :9100), or :0 for any free port", addr)
	}
	if p, err := net.LookupPort("tcp", port); err != nil || p < 0 || p > 65535 {
		return "", fmt.Errorf("%q: %q is not a port", addr, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Server serves a registry's metrics over HTTP, as OpenMetrics to a
// scraper that asks for it (Prometheus does) and in the Prometheus text
// format otherwise.
type Server struct {
	ln   net.Listener
	http *http.Server
	done chan struct{}
}

// Listen starts serving g at addr (see ListenAddr). An address another
// program holds is refused at once, with an error that says so.
func Listen(addr string, g prometheus.Gatherer) (*Server, error) {
	at, err := ListenAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", at)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%s is in use (another rlbench, or another exporter?): name a free port, or :0 for any", at)
	case err != nil:
		return nil, fmt.Errorf("listening on %s: %w", at, err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	s := &Server{ln: ln, done: make(chan struct{}),
		http: &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, WriteTimeout: writeTimeout}}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

// Addr is the address the server listens on (with the port it was given,
// when it asked for port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is where the metrics are served.
func (s *Server) URL() string { return "http://" + s.Addr() + Path }

// Close stops serving: it lets a scrape in progress finish for a moment,
// then closes every connection, and returns once the listener is gone.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = s.http.Close()
	}
	<-s.done
	return err
}
