package profile

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// CheckLuaText reports why data cannot be a limiter's Lua: empty (or only
// blanks), or binary: a NUL byte, bytes that are not UTF-8, or a control
// character no source text holds. The error names the line.
func CheckLuaText(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("is empty: a limiter's Lua script or library is wanted")
	}
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Errorf("is not text: byte 0x%02x at line %d is not UTF-8; a binary file, not Lua", data[i], line)
		case r == 0:
			return fmt.Errorf("is not text: a NUL byte at line %d; a binary file, not Lua", line)
		case r == '\n':
			line++
		case r < 0x20 && r != '\t' && r != '\r' && r != '\f' && r != '\v', r == 0x7f:
			return fmt.Errorf("is not text: control character 0x%02x at line %d; a binary file, not Lua", r, line)
		}
		i += size
	}
	return nil
}
