package profile

import (
	"strings"
	"testing"
)

func TestCheckLuaText(t *testing.T) {
	for _, tc := range []struct {
		why, data, err string
	}{
		{"a script", "return 1\n", ""},
		{"tabs, CRLF and non-ASCII text", "-- é\r\n\treturn 'ü'\f\n", ""},
		{"empty", "", "is empty"},
		{"only blanks", " \n\t\n", "is empty"},
		{"a NUL byte", "return 1\n\x00\x01", "a NUL byte at line 2"},
		{"not UTF-8", "return 1\n\n\xff\xfe", "byte 0xff at line 3 is not UTF-8"},
		{"a control character", "return '\x1b[31m'", "control character 0x1b at line 1"},
		{"an ELF binary", "\x7fELF\x02\x01\x01", "control character 0x7f at line 1"},
	} {
		err := CheckLuaText([]byte(tc.data))
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.why, err, tc.err)
		}
	}
}
