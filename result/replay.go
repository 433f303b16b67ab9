package result

// ReplayParams describe a replay: the trace it read, how, which part of
// it, and at what pace.
type ReplayParams struct {
	// Trace is the trace's file, Format how it was read, and Identity the
	// column (or field, or group) the callers came from.
	Trace    string `json:"trace"`
	SHA256   string `json:"sha256"`
	Format   string `json:"format"`
	Identity string `json:"identity"`
	// Speed multiplies the trace's pace; Loop says the part was sent
	// again each time it ended.
	Speed float64 `json:"speed"`
	Loop  bool    `json:"loop,omitempty"`
	// StartS is where the part starts, seconds after the trace's first
	// request, and PartS how long one pass over it lasts, both in the
	// trace's own time.
	StartS float64 `json:"start_s"`
	PartS  float64 `json:"part_s"`
	// Requests is how many requests one pass holds, and HeaviestShare the
	// share of them the busiest identity sent.
	Requests      int64   `json:"requests"`
	HeaviestShare float64 `json:"heaviest_share"`
	// SkippedLines is how many lines could not be read and were skipped
	// (skip_bad_lines), and ReorderedLines how many were put back in time
	// order.
	SkippedLines   int64 `json:"skipped_lines,omitempty"`
	ReorderedLines int64 `json:"reordered_lines,omitempty"`
}
