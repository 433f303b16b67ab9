package result

// Eviction is what INFO said about evictions and expiries right before and
// right after a run's traffic. Redis evicts keys only under memory
// pressure with a maxmemory-policy other than noeviction; an evicted
// limiter key is a reset limiter, so a run with evictions cannot be judged
// by its audit.
type Eviction struct {
	// PolicyBefore and PolicyAfter are maxmemory_policy before and after
	// the traffic: the policy can change while a run is going on.
	PolicyBefore string `json:"policy_before"`
	PolicyAfter  string `json:"policy_after"`
	// EvictedKeys and ExpiredKeys are the change in INFO stats
	// evicted_keys and expired_keys over the run (the whole server's: on
	// a server rlbench did not start, other clients' keys count too).
	EvictedKeys int64 `json:"evicted_keys"`
	ExpiredKeys int64 `json:"expired_keys"`
	// Restarted says the server's run_id changed: it restarted during the
	// run and every limiter's state was lost with it.
	Restarted bool `json:"restarted,omitempty"`
	// ServerSwitches counts the times a fault the profile scheduled
	// replaced the server under the run (a kill, a restart, a failover and
	// the failing back after it). Its counters were read right before and
	// right after each, never across one, and they do not set Restarted.
	ServerSwitches int `json:"server_switches,omitempty"`
	// Audited says the run's evictions and restarts were watched as they
	// happened, placed on the run's timeline and handed to the audit,
	// which judged the limiter from the state they left: they then do not
	// keep the run from being judged.
	Audited bool `json:"audited,omitempty"`
}

// ResetState reports whether the server dropped limiter state behind the
// limiter's back during the run (it evicted keys or restarted) without
// the audit knowing when.
func (e *Eviction) ResetState() bool {
	return e != nil && (e.EvictedKeys > 0 || e.Restarted) && !e.Audited
}
