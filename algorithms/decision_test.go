package algorithms

import (
	"strings"
	"testing"
	"time"
)

func TestParseReply(t *testing.T) {
	for _, tc := range []struct {
		why   string
		reply any
		want  Decision
		err   string
	}{
		{"admitted", []any{int64(1), "4", int64(0), int64(1764000000123456)},
			Decision{Allowed: true, Remaining: "4", ServerNowMicros: 1764000000123456}, ""},
		{"denied with a retry hint", []any{int64(0), "0.250000", int64(37), int64(1764000000123456)},
			Decision{Remaining: "0.250000", RetryAfter: 37 * time.Millisecond, ServerNowMicros: 1764000000123456}, ""},
		{"not an array", "OK", Decision{}, "is string"},
		{"too short", []any{int64(1)}, Decision{}, "has 1 elements"},
		{"allowed out of range", []any{int64(2), "0", int64(0), int64(1)}, Decision{}, "allowed = 2"},
		{"remaining truncated to an integer by Redis", []any{int64(1), int64(4), int64(0), int64(1)}, Decision{}, "want a string"},
		{"negative retry", []any{int64(0), "0", int64(-1), int64(1)}, Decision{}, "retry_after_ms = -1"},
		{"missing server time", []any{int64(1), "0", int64(0), int64(0)}, Decision{}, "server_now_us = 0"},
	} {
		got, err := ParseReply(tc.reply)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.why, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.why, got, err, tc.want)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		why string
		p   Policy
		err string
	}{
		{"ordinary", Policy{Limit: 100, Window: time.Minute}, ""},
		{"burst above limit", Policy{Limit: 10, Window: time.Second, Burst: 50}, ""},
		{"zero limit", Policy{Limit: 0, Window: time.Second}, "limit must be at least 1"},
		{"negative limit", Policy{Limit: -5, Window: time.Second}, "limit must be at least 1"},
		{"sub-millisecond window", Policy{Limit: 1, Window: 500 * time.Microsecond}, "at least 1ms"},
		{"fractional milliseconds", Policy{Limit: 1, Window: 1500 * time.Microsecond}, "whole number of milliseconds"},
		{"negative burst", Policy{Limit: 1, Window: time.Second, Burst: -1}, "burst must not be negative"},
		{"bucket state beyond 2^53", Policy{Limit: 1, Window: 24 * time.Hour, Burst: 1_000_000}, "too large"},
	} {
		err := tc.p.Validate()
		if tc.err == "" && err != nil {
			t.Errorf("%s: unexpected error %v", tc.why, err)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want one containing %q", tc.why, err, tc.err)
		}
	}
}
