package result

// Pipeline is how a run's requests went out: alone, or in batches sent in
// one write on one connection (a pipeline), each request of a batch with
// its own due time and its own completion (the instant its reply was read),
// so latency keeps its meaning.
type Pipeline struct {
	// Depth is the most requests one connection sent in one batch: the
	// profile's depth, the cap of pipeline: auto, or 1 when the requests
	// went out alone (no pipeline asked for, or a limiter that cannot be
	// pipelined: Note says so).
	Depth int `json:"depth"`
	// Auto says each batch was whatever was queued when its connection
	// was free to write.
	Auto bool `json:"auto,omitempty"`
	// Batches counts the writes; MeanBatch is requests sent per batch and
	// LargestBatch the most in one.
	Batches      int64   `json:"batches"`
	MeanBatch    float64 `json:"mean_batch"`
	LargestBatch int64   `json:"largest_batch"`
	// Resent counts requests sent again because the server had lost the
	// script inside their batch (NOSCRIPT cannot be recovered inside a
	// pipeline: the script is loaded again and the calls sent again).
	Resent int64  `json:"resent,omitempty"`
	Note   string `json:"note,omitempty"`
}
