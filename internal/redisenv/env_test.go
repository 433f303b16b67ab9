package redisenv

import (
	"context"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

func TestClientOptions(t *testing.T) {
	for _, tc := range []struct {
		why      string
		o        Options
		wantAddr string
		wantDB   int
		wantUser string
		wantTLS  bool
		err      string
	}{
		{"host:port", Options{Addr: "10.0.0.5:6380", DB: 2, Username: "bench"}, "10.0.0.5:6380", 2, "bench", false, ""},
		{"URL with user and db", Options{Addr: "redis://bench@cache.internal:6379/4"}, "cache.internal:6379", 4, "bench", false, ""},
		{"rediss URL turns TLS on", Options{Addr: "rediss://cache.internal:6380"}, "cache.internal:6380", 0, "", true, ""},
		{"tls flag", Options{Addr: "cache.internal:6380", TLS: true}, "cache.internal:6380", 0, "", true, ""},
		{"password in a URL is refused and not echoed", Options{Addr: "redis://u:hunter2@h:6379"}, "", 0, "", false, "carries a password"},
		{"not an address", Options{Addr: "just-a-host"}, "", 0, "", false, `"just-a-host" names no port`},
	} {
		ro, addr, err := clientOptions(tc.o)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("%s: error %v, want one containing %q and no password", tc.why, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		if addr != tc.wantAddr || ro.DB != tc.wantDB || ro.Username != tc.wantUser || (ro.TLSConfig != nil) != tc.wantTLS {
			t.Errorf("%s: addr %s db %d user %q tls %v", tc.why, addr, ro.DB, ro.Username, ro.TLSConfig != nil)
		}
	}
}

func TestCheckVersion(t *testing.T) {
	for v, ok := range map[string]bool{"7.0.15": true, "7.0.0": true, "6.2.14": false, "10.0.1": true, "4.0.14": false, "": false} {
		if err := CheckVersion(v); (err == nil) != ok {
			t.Errorf("CheckVersion(%q) = %v", v, err)
		}
	}
}

func TestEscapeGlob(t *testing.T) {
	if got := EscapeGlob(`rlbench:a*b?[c]\`); got != `rlbench:a\*b\?\[c\]\\` {
		t.Errorf("EscapeGlob = %q", got)
	}
}

// TestDeletePrefixTouchesOnlyItsPrefix plants keys that look alike and
// checks only the run's own go.
func TestDeletePrefixTouchesOnlyItsPrefix(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	for _, k := range []string{"rlbench:run1:fixed_window:s:1", "rlbench:run1:sliding_log:s:2", "rlbench:run10:fixed_window:s:1", "rlbench:run2:x", "customer:1", "rlbench:run1"} {
		m.Set(k, "v")
	}
	n, err := DeletePrefix(ctx, rdb, "rlbench:run1:")
	if err != nil || n != 2 {
		t.Fatalf("deleted %d, %v; want 2", n, err)
	}
	for _, k := range []string{"rlbench:run10:fixed_window:s:1", "rlbench:run2:x", "customer:1", "rlbench:run1"} {
		if !m.Exists(k) {
			t.Errorf("%s was deleted", k)
		}
	}
	for _, bad := range []string{"", "rlbench:", "customer:", "*"} {
		if _, err := DeletePrefix(ctx, rdb, bad); err == nil {
			t.Errorf("DeletePrefix(%q) did not refuse", bad)
		}
	}
}
