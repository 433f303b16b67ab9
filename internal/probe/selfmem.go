package probe

import (
	"runtime/metrics"
	"sync"
	"time"
)

// selfSampleInterval is how often rlbench samples its own memory during a
// run: often enough to catch the plateau of a run, cheap enough (no
// stop-the-world) to leave the measured path alone.
const selfSampleInterval = 100 * time.Millisecond

// heapObjectsMetric is the Go heap held by objects, live or not yet swept.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// selfSampler follows rlbench's own peak Go heap and resident set over a
// run, so a result shows that the generator's memory does not grow with the
// number of identities.
type selfSampler struct {
	mu       sync.Mutex
	peakHeap uint64
	peakRSS  uint64
	quit     chan struct{}
	done     chan struct{}
}

func startSelfSampler() *selfSampler {
	s := &selfSampler{quit: make(chan struct{}), done: make(chan struct{})}
	s.sample()
	go func() {
		defer close(s.done)
		t := time.NewTicker(selfSampleInterval)
		defer t.Stop()
		for {
			select {
			case <-s.quit:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *selfSampler) sample() {
	heap, rss := readSelf()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peakHeap = max(s.peakHeap, heap)
	s.peakRSS = max(s.peakRSS, rss)
}

// readSelf reads rlbench's Go heap (its objects, live or not yet swept)
// and its resident set, without stopping the world.
func readSelf() (heap, rss uint64) {
	m := []metrics.Sample{{Name: heapObjectsMetric}}
	metrics.Read(m)
	if m[0].Value.Kind() == metrics.KindUint64 {
		heap = m[0].Value.Uint64()
	}
	return heap, residentBytes()
}

// stop ends the sampling, takes a last sample and returns the peaks.
func (s *selfSampler) stop() (peakHeap, peakRSS uint64) {
	close(s.quit)
	<-s.done
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peakHeap, s.peakRSS
}
