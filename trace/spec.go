package trace

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rlbench/rlbench/internal/suggest"
)

// Format names how a trace's lines are written.
type Format string

// The formats a trace may be in.
const (
	// CSV is comma-separated values whose first record names the columns;
	// lines starting with # are comments.
	CSV Format = "csv"
	// JSONL is one JSON object a line (JSON Lines, NDJSON); fields by name.
	JSONL Format = "jsonl"
	// Common is the web servers' common log format:
	//   host ident user [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 2326
	Common Format = "common"
	// Combined is the common format followed by the quoted referer and
	// user agent (nginx's and Apache's "combined").
	Combined Format = "combined"
	// Regex reads each line with Spec.Regex, whose named groups are the
	// columns.
	Regex Format = "regex"
)

// Formats lists every format, in the order messages name them.
var Formats = []Format{CSV, JSONL, Common, Combined, Regex}

// Defaults for what a Spec leaves out.
const (
	// DefaultTimeColumn and DefaultIdentityColumn name the columns of a
	// CSV or JSON Lines trace when the spec names none.
	DefaultTimeColumn     = "time"
	DefaultIdentityColumn = "identity"
	// DefaultLogIdentity is an access log's identity when the spec names
	// none: the client's address.
	DefaultLogIdentity = "host"
	// DefaultReorderWindow is how far out of time order a line may be and
	// still be put back in place, when the spec says nothing. Access logs
	// are written as requests finish, by several workers, each with a
	// clock cached for up to a second: their lines run out of order by
	// about a request's length, rarely more than a few seconds.
	DefaultReorderWindow = 5 * time.Second
	// DefaultMaxIdentities is the most distinct identities a trace may
	// have when the spec says nothing.
	DefaultMaxIdentities = 1_000_000
	// MaxIdentitiesLimit is the most any spec may allow: the dictionary
	// costs about 24 bytes an identity, and the engine's keys, audit and
	// probes as much again.
	MaxIdentitiesLimit = 10_000_000
	// MaxReorderWindow bounds the reorder window a spec may ask for.
	MaxReorderWindow = time.Hour
	// MaxReorderRecords is the most lines held to be put back in order at
	// once (about 48 bytes each); a trace that needs more within its
	// reorder window is refused.
	MaxReorderRecords = 1 << 20
	// MaxLineBytes is the longest line a trace may have.
	MaxLineBytes = 1 << 20
	// MaxRegexBytes bounds a regular expression's text.
	MaxRegexBytes = 4096
)

// Spec says where a trace is and how its lines are read.
type Spec struct {
	// File is the trace's path.
	File string
	// Format is how its lines are written; empty means by the file's
	// name (ByName).
	Format Format
	// Identity, Time and Cost name the columns (CSV), fields (JSON Lines)
	// or named groups (an access log, a regular expression) that hold a
	// request's caller, its time and how many units it asks for. Empty
	// Identity and Time mean the format's defaults; an empty Cost means
	// every request asks for the run's cost.
	Identity, Time, Cost string
	// TimeFormat is how times are written: TimeAuto (empty), TimeRFC3339,
	// TimeUnixSeconds, TimeUnixMillis, TimeUnixMicros, TimeUnixNanos,
	// TimeCLF, or a Go time layout (one that holds 2006).
	TimeFormat string
	// Regex reads each line of a Regex trace; its named groups are the
	// columns.
	Regex string
	// SkipBadLines is how many lines that cannot be read are skipped (and
	// counted) before the trace is refused; zero refuses the first.
	SkipBadLines int64
	// ReorderWindow is how much earlier than the latest time read so far a
	// line's time may be and still be put back in order; a line earlier
	// still refuses the trace. Zero refuses the first line out of order.
	ReorderWindow time.Duration
	// MaxIdentities is the most distinct identities the trace may have;
	// zero means DefaultMaxIdentities.
	MaxIdentities int
}

// Time formats a Spec may name.
const (
	// TimeAuto decides from the first time read: a number is seconds,
	// milliseconds, microseconds or nanoseconds since the epoch by its
	// size (below 1e11, 1e14, 1e17, or above), anything else RFC 3339, or
	// else the access log's format.
	TimeAuto = "auto"
	// TimeRFC3339 is 2006-01-02T15:04:05.999999999Z07:00.
	TimeRFC3339 = "rfc3339"
	// TimeUnixSeconds and the others are numbers since the epoch, a
	// fraction allowed: 1700000000.25.
	TimeUnixSeconds = "unix_s"
	TimeUnixMillis  = "unix_ms"
	TimeUnixMicros  = "unix_us"
	TimeUnixNanos   = "unix_ns"
	// TimeCLF is the access log's 10/Oct/2000:13:55:36 -0700, brackets
	// allowed.
	TimeCLF = "clf"
)

// TimeFormats lists the named time formats.
var TimeFormats = []string{TimeAuto, TimeRFC3339, TimeUnixSeconds, TimeUnixMillis, TimeUnixMicros, TimeUnixNanos, TimeCLF}

// LogFields are the columns of the common and combined formats, in line
// order; method, path and protocol are the parts of the request.
var LogFields = []string{"host", "ident", "user", "time", "request", "method", "path", "protocol", "status", "bytes", "referer", "user_agent"}

// commonFields are the columns of the common format alone.
var commonFields = LogFields[:10]

// ByName is the format a trace's file name says: .csv, .jsonl (.ndjson,
// .json) or .log (combined), under an optional .gz.
func ByName(file string) (Format, bool) {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(file)), ".gz")
	switch filepath.Ext(name) {
	case ".csv":
		return CSV, true
	case ".jsonl", ".ndjson", ".json":
		return JSONL, true
	case ".log":
		return Combined, true
	}
	return "", false
}

// Resolved is s with its defaults filled in: the format from the file's
// name, the format's identity and time columns, the identity limit. It
// fails when the format cannot be told or a field is wrong; the message
// names the field as a profile writes it (format, time_format, ...).
func (s Spec) Resolved() (Spec, error) {
	if s.Format == "" {
		f, ok := ByName(s.File)
		if !ok {
			return s, &FieldError{Field: "format", Msg: fmt.Sprintf("cannot tell the format of %s from its name: give format (%s)", s.File, formatList())}
		}
		s.Format = f
	}
	if !slices.Contains(Formats, s.Format) {
		hint := ""
		if c := suggest.Closest(string(s.Format), formatStrings(), 3); c != "" {
			hint = fmt.Sprintf("did you mean %q? ", c)
		}
		return s, &FieldError{Field: "format", Msg: fmt.Sprintf("unknown format %q (%sknown: %s)", s.Format, hint, formatList())}
	}
	switch s.Format {
	case Common, Combined:
		if s.Identity == "" {
			s.Identity = DefaultLogIdentity
		}
		if s.TimeFormat == "" {
			s.TimeFormat = TimeCLF
		}
	default:
		if s.Identity == "" {
			s.Identity = DefaultIdentityColumn
		}
	}
	if s.Time == "" {
		s.Time = DefaultTimeColumn
	}
	if s.TimeFormat == "" {
		s.TimeFormat = TimeAuto
	}
	if s.MaxIdentities == 0 {
		s.MaxIdentities = DefaultMaxIdentities
	}
	if err := s.check(); err != nil {
		return s, err
	}
	return s, nil
}

// check says what is wrong with a resolved spec.
func (s Spec) check() error {
	switch {
	case s.Format == Regex && s.Regex == "":
		return &FieldError{Field: "regex", Msg: "missing: a regex trace needs a regular expression with named groups, e.g. (?P<time>\\S+) (?P<identity>\\S+)"}
	case s.Format != Regex && s.Regex != "":
		return &FieldError{Field: "regex", Msg: fmt.Sprintf("has no meaning for format %s: give format: regex", s.Format)}
	case len(s.Regex) > MaxRegexBytes:
		return &FieldError{Field: "regex", Msg: fmt.Sprintf("longer than %d bytes", MaxRegexBytes)}
	case s.SkipBadLines < 0:
		return &FieldError{Field: "skip_bad_lines", Msg: "must be at least 0"}
	case s.ReorderWindow < 0 || s.ReorderWindow > MaxReorderWindow:
		return &FieldError{Field: "reorder_window", Msg: fmt.Sprintf("must be from 0 to %s", MaxReorderWindow)}
	case s.MaxIdentities < 1 || s.MaxIdentities > MaxIdentitiesLimit:
		return &FieldError{Field: "max_identities", Msg: fmt.Sprintf("must be from 1 to %d", MaxIdentitiesLimit)}
	case s.Identity == s.Time:
		return &FieldError{Field: "identity", Msg: fmt.Sprintf("%q is also the time column", s.Identity)}
	case s.Cost != "" && (s.Cost == s.Time || s.Cost == s.Identity):
		return &FieldError{Field: "cost", Msg: fmt.Sprintf("%q is also the time or identity column", s.Cost)}
	}
	if _, err := newTimeParser(s.TimeFormat); err != nil {
		return &FieldError{Field: "time_format", Msg: err.Error()}
	}
	if s.Format == Regex {
		re, err := regexp.Compile(s.Regex)
		if err != nil {
			return &FieldError{Field: "regex", Msg: strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
		}
		if err := checkColumns(s, groupNames(re), "named group", "regex"); err != nil {
			return err
		}
	}
	if s.Format == Common || s.Format == Combined {
		names := LogFields
		if s.Format == Common {
			names = commonFields
		}
		if err := checkColumns(s, names, "field", "format "+string(s.Format)); err != nil {
			return err
		}
		if s.Time != "time" {
			return &FieldError{Field: "time", Msg: fmt.Sprintf("an access log's time is its [time] field, not %q", s.Time)}
		}
	}
	return nil
}

// checkColumns says which of the spec's identity, time and cost columns a
// format with the columns names lacks; what names what they are ("named
// group") and where ("regex").
func checkColumns(s Spec, names []string, what, where string) error {
	for _, c := range []struct{ field, name string }{{"identity", s.Identity}, {"time", s.Time}, {"cost", s.Cost}} {
		if c.name == "" || slices.Contains(names, c.name) {
			continue
		}
		return &FieldError{Field: c.field, Msg: noColumn(c.name, names, what, where)}
	}
	return nil
}

// noColumn says that the column name is not among names.
func noColumn(name string, names []string, what, where string) string {
	// A short name is near every other short name: suggest only what is
	// nearer than half of it.
	hint := ""
	if c := suggest.Closest(name, names, min(3, len(name)/2+1)); c != "" {
		hint = fmt.Sprintf("did you mean %q? ", c)
	}
	if len(names) == 0 {
		return fmt.Sprintf("%s has no %s %q (it has none)", where, what, name)
	}
	return fmt.Sprintf("%s has no %s %q (%shas: %s)", where, what, name, hint, strings.Join(names, ", "))
}

// groupNames lists a regular expression's named groups.
func groupNames(re *regexp.Regexp) []string {
	var out []string
	for _, n := range re.SubexpNames() {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func formatStrings() []string {
	out := make([]string, len(Formats))
	for i, f := range Formats {
		out[i] = string(f)
	}
	return out
}

func formatList() string { return strings.Join(formatStrings(), ", ") }

// FieldError is a spec's field that is wrong, before any line is read.
type FieldError struct {
	// Field names it as a profile writes it: format, identity, regex.
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }
