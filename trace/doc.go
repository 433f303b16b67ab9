// Package trace reads request traces — who sent a request, when, and what
// it asked for — so that rlbench can replay a service's own traffic
// through every limiter of a profile, and writes synthetic ones for users
// who have none.
//
// A trace is a CSV file or JSON Lines with named columns (a time, an
// identity, an optional cost), a web server's access log in the common or
// combined format, or any line format a named regular expression reads;
// plain or gzip (told by its first bytes, not its name). Times are RFC
// 3339, seconds, milliseconds or microseconds since the epoch, or the
// access log's own [10/Oct/2000:13:55:36 -0700].
//
// Everything is read as a stream in bounded memory: a line longer than
// MaxLineBytes is refused, lines slightly out of time order are put back in
// order within a bounded reorder window (a trace more out of order is
// refused, naming the first line out of place), and identities — any text
// (an address, a user, an API key, a path) — are numbered 0, 1, 2, … in the
// order the trace first shows them, by a dictionary of at most
// Spec.MaxIdentities entries that keeps a 64-bit hash of each, never the
// text. Numbering them densely is what lets the engine treat a trace's
// callers as it treats any scenario's (keys, the audit's sample, a
// segment's share: identity i belongs to segment i mod N).
//
// Scan reads a trace once, checks every line and summarizes it; the
// Summary's Replay reads it again and hands out its requests, due at the
// trace's own times (or faster), in order.
package trace
