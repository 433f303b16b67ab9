package algorithms

import "testing"

// TestDecimalMicros: decimals in every unit read as whole microseconds,
// without the float64 error an epoch in microseconds (sixteen digits)
// would suffer.
func TestDecimalMicros(t *testing.T) {
	for _, tc := range []struct {
		why  string
		in   string
		unit TimeUnit
		want int64
		ok   bool
	}{
		{"PHP's microtime(true) at today's epoch", "1764000000.123456", Seconds, 1_764_000_000_123_456, true},
		{"Lua's tostring of the same (14 digits)", "1764000000.1235", Seconds, 1_764_000_000_123_500, true},
		{"whole seconds", "1764000000", Seconds, 1_764_000_000_000_000, true},
		{"milliseconds", "1764000000123", Milliseconds, 1_764_000_000_123_000, true},
		{"fractional milliseconds", "12.5", Milliseconds, 12_500, true},
		{"microseconds", "1764000000123456", Microseconds, 1_764_000_000_123_456, true},
		{"an exponent, as %.14g writes a large number", "1.764000000123456e+09", Seconds, 1_764_000_000_123_456, true},
		{"a negative exponent", "2.5E-1", Seconds, 250_000, true},
		{"rounded to the nearest microsecond", "0.0000005", Seconds, 1, true},
		{"below half a microsecond", "0.0000004", Seconds, 0, true},
		{"a leading point", ".5", Seconds, 500_000, true},
		{"a trailing point", "3.", Seconds, 3_000_000, true},
		{"leading zeros", "0000.25", Seconds, 250_000, true},
		{"negative", "-1", Seconds, -1_000_000, true},
		{"spaces around", " 7 ", Milliseconds, 7000, true},
		{"more digits than an int64 holds, before the point", "123456789012345678901234", Microseconds, 0, false},
		{"many digits after the point", "1.0000000000000000000000001", Seconds, 1_000_000, true},
		{"not a number", "soon", Seconds, 0, false},
		{"a sign alone", "-", Seconds, 0, false},
		{"two points", "1.2.3", Seconds, 0, false},
		{"an exponent without digits", "1e", Seconds, 0, false},
		{"an absurd exponent", "1e999", Seconds, 0, false},
		{"infinity", "inf", Seconds, 0, false},
		{"beyond an int64 of microseconds", "9223372036855", Seconds, 0, false},
	} {
		got, ok := decimalMicros(tc.in, tc.unit)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: decimalMicros(%q, %s) = %d, %v; want %d, %v", tc.why, tc.in, tc.unit, got, ok, tc.want, tc.ok)
		}
	}
	// Every microsecond of a second at today's epoch survives the trip
	// through seconds with six decimals, where float64 would not.
	for us := int64(1_764_000_000_000_000); us < 1_764_000_000_000_000+2000; us++ {
		text := string(appendSecondsFloat(nil, us))
		if got, ok := decimalMicros(text, Seconds); !ok || got != us {
			t.Fatalf("%d written %q reads %d, %v", us, text, got, ok)
		}
	}
}

func TestParseTimeUnitAndSource(t *testing.T) {
	for _, u := range []string{"s", "ms", "us"} {
		if got, err := ParseTimeUnit(u); err != nil || string(got) != u {
			t.Errorf("ParseTimeUnit(%q) = %q, %v", u, got, err)
		}
	}
	if _, err := ParseTimeUnit("sec"); err == nil {
		t.Error("ParseTimeUnit accepts sec")
	}
	if Seconds.Micros() != 1_000_000 || Milliseconds.Micros() != 1000 || Microseconds.Micros() != 1 {
		t.Error("unit sizes")
	}
	if _, err := ParseTimeSource("client"); err == nil {
		t.Error("ParseTimeSource accepts client")
	}
}
