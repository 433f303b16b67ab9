package report

import (
	"testing"
)

func TestFormatMicros(t *testing.T) {
	for us, want := range map[int64]string{0: "0us", 87: "87us", 999: "999us", 1000: "1.00ms", 1240: "1.24ms", 12400: "12.4ms", 124000: "124ms", 2_000_000: "2.00s"} {
		if got := FormatMicros(us); got != want {
			t.Errorf("FormatMicros(%d) = %q, want %q", us, got, want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{117, "117 B"},                 // a whole per-identity figure
		{87.5, "87.5 B"},               // small and fractional: one decimal
		{138.23, "138 B"},              // three digits are enough
		{1536, "1.50 KiB"},             // past 1 KiB
		{58 * 1024 * 1024, "58.0 MiB"}, // an RSS
		{-3460.8, "-3.38 KiB"},         // a noisy delta can be negative
	} {
		if got := FormatSize(tc.v); got != tc.want {
			t.Errorf("FormatSize(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if FormatBytes(0) != "-" {
		t.Errorf("FormatBytes(0) = %q, want -", FormatBytes(0))
	}
}

func TestFormatMillis(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{
		{0, "0ms"},         // nothing: not "0m", which reads as minutes
		{250, "250ms"},     // below a second
		{1000, "1s"},       // whole seconds
		{1500, "1500ms"},   // not a whole second: exact, in milliseconds
		{60_000, "1m"},     // whole minutes
		{3_600_000, "1h"},  // an hour is 1h, not 60m
		{7_200_000, "2h"},  // whole hours
		{5_400_000, "90m"}, // an hour and a half stays in minutes
	} {
		if got := FormatMillis(tc.ms); got != tc.want {
			t.Errorf("FormatMillis(%d) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}

func TestFormatTick(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.7000000000000001, "0.7"}, // float noise dropped
		{1500, "1500"},              // four digits stay as they are
		{10_000, "10k"},             // axes of identities read 10k, 100k, 1M
		{100_000, "100k"},
		{1_000_000, "1M"},
		{2_500_000, "2.5M"},
		{12_345, "12345"}, // not a round thousand: exact
	} {
		if got := FormatTick(tc.v); got != tc.want {
			t.Errorf("FormatTick(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestFormatShare(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0%"},            // none at all
		{0.00003, "0.0030%"}, // the published figure for real traffic, a few thousandths of a percent
		{0.0042, "0.420%"},   // under one percent
		{0.0125, "1.25%"},    // a few percent
		{0.4, "40%"},         // a large share
		{1, "100%"},          // every decision
	} {
		if got := FormatShare(tc.f); got != tc.want {
			t.Errorf("FormatShare(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
