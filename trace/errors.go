package trace

import (
	"errors"
	"fmt"
)

// LineError is a problem with one line of a trace (or with the trace as a
// whole, when Line is 0), located by file and line.
type LineError struct {
	File string
	// Line counts from 1; 0 when the problem is the file's, not a line's.
	Line int64
	Msg  string
	// Bad says the line could not be read and may be skipped
	// (Spec.SkipBadLines); any other LineError ends the reading.
	Bad bool
}

func (e *LineError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// badLine is a line that cannot be read, before the file is named.
func badLine(line int64, format string, args ...any) *LineError {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, args...), Bad: true}
}

// fatal is a problem that ends the reading, before the file is named.
func fatal(line int64, format string, args ...any) *LineError {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// named is err with the trace's file named, when it is a LineError.
func named(file string, err error) error {
	var le *LineError
	if errors.As(err, &le) && le.File == "" {
		c := *le
		c.File = file
		return &c
	}
	return err
}
