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

// mergePipelines combines the segments' pipelines: their batches add up,
// the largest is the largest of any, and the mean follows from the sums.
// The depth is the first segment's (they ran one profile).
func mergePipelines(parts []*Run) *Pipeline {
	var out *Pipeline
	var sent int64
	for _, p := range parts {
		if p.Pipeline == nil {
			continue
		}
		if out == nil {
			c := *p.Pipeline
			out = &c
			out.Batches, out.LargestBatch, out.Resent = 0, 0, 0
		}
		out.Batches += p.Pipeline.Batches
		out.LargestBatch = max(out.LargestBatch, p.Pipeline.LargestBatch)
		out.Resent += p.Pipeline.Resent
		sent += p.Requests.Sent
	}
	if out != nil && out.Batches > 0 {
		out.MeanBatch = float64(sent) / float64(out.Batches)
	}
	return out
}
