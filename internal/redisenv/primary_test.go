package redisenv

import (
	"context"
	"net"
	"testing"
	"time"
)

// listen is a loopback listener that accepts and holds connections.
func listen(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	return l.Addr().String()
}

// TestPrimariesSeeASwitch: a dial to another address than the primary's
// (not a Sentinel's) is a switch: recorded, told to the listener, and
// every connection still held to the old primary (a probe's, cloned from
// the run's client) is closed, so that its next call dials the new one.
func TestPrimariesSeeASwitch(t *testing.T) {
	oldAddr, newAddr, sentinel := listen(t), listen(t), listen(t)
	p := newPrimaries(oldAddr, []string{sentinel}, plainDialer(time.Second))
	told := make(chan PrimarySwitch, 1)
	p.OnSwitch(func(sw PrimarySwitch) { told <- sw })
	ctx := context.Background()
	held, err := p.dialer(ctx, "tcp", oldAddr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.dialer(ctx, "tcp", sentinel); err != nil {
		t.Fatal(err)
	}
	if n := len(p.Switches()); n != 0 {
		t.Fatalf("%d switches before the primary moved (a Sentinel's connection is none)", n)
	}
	before := time.Now()
	if _, err := p.dialer(ctx, "tcp", newAddr); err != nil {
		t.Fatal(err)
	}
	sws := p.Switches()
	if len(sws) != 1 || sws[0].Old != oldAddr || sws[0].New != newAddr || sws[0].At.Before(before) || p.Current() != newAddr {
		t.Fatalf("switches %+v, current %s: want one from %s to %s", sws, p.Current(), oldAddr, newAddr)
	}
	select {
	case sw := <-told:
		if sw != sws[0] {
			t.Errorf("told %+v, want %+v", sw, sws[0])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the listener was not told")
	}
	if _, err := held.Write([]byte("PING\r\n")); err == nil {
		t.Error("the connection to the old primary is still open")
	}
	if _, err := p.dialer(ctx, "tcp", newAddr); err != nil || len(p.Switches()) != 1 {
		t.Errorf("another connection to the new primary: %v, %d switches (want still one)", err, len(p.Switches()))
	}
}

// TestNoPrimariesNoSwitch: a server named by its address has none.
func TestNoPrimariesNoSwitch(t *testing.T) {
	var p *Primaries
	if p.Switches() != nil || p.Current() != "" {
		t.Error("a nil Primaries reports a switch or a primary")
	}
	p.OnSwitch(func(PrimarySwitch) {})()
}
