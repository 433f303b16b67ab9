package result

// LimiterInfo describes a user's own limiter as the profile declared it, so
// a result says exactly what ran and a report can describe it without the
// profile.
type LimiterInfo struct {
	Name string `json:"name"`
	// Kind is "script" (EVALSHA) or "function" (FCALL).
	Kind string `json:"kind"`
	// Source is the Lua file as the profile names it, and SourceSHA256 its
	// digest.
	Source       string `json:"source"`
	SourceSHA256 string `json:"source_sha256"`
	// Function is the function a library's FCALL calls.
	Function string   `json:"function,omitempty"`
	Keys     []string `json:"keys"`
	Args     []string `json:"args,omitempty"`
	// Reply holds the declared 1-based reply positions by part
	// ("allowed", "remaining", "retry_after_ms", "server_time_us", and in
	// full "retry_after", "reset_after", "reset_at", "window_end",
	// "server_time"), and ReplyUnits the unit of each time or duration in
	// it (s, ms, us).
	Reply      map[string]int    `json:"reply"`
	ReplyUnits map[string]string `json:"reply_units,omitempty"`
	// TimeFrom says whose clock the limiter decides by: "redis" (TIME in
	// the script) or "args" (the caller's clock in its arguments).
	TimeFrom string `json:"time_from,omitempty"`
	// TimeWhy says why, from the declaration and the script: which
	// argument carries the caller's clock, whether time_from says so,
	// whether the script calls TIME.
	TimeWhy string `json:"time_why,omitempty"`
	// Semantics is the declared family, or "bound" with Bound the promise
	// ("100 per 1s").
	Semantics string `json:"semantics"`
	Bound     string `json:"bound,omitempty"`
	// Description says in one line what the limiter is and how the audit
	// judged it.
	Description string `json:"description"`
}
