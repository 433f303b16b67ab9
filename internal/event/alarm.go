package event

import (
	"container/heap"
	"sync"
	"time"
)

// alarm ends the runtime poller's wait when a timer of the process is due.
// Go's timers fire as the scheduler switches goroutines, so while rlbench
// is busy they are on time for nothing; but an idle process waits for its
// next timer in epoll_wait, whose timeout is in whole milliseconds, and a
// timer due in 100us fired up to a millisecond late (measured here: a
// median of 0.6 ms, 15% of sleeps past 1 ms). The alarm is one timer of
// the kernel's (a timerfd) that the poller watches beside the connections'
// sockets: set to the earliest instant a timer of the process expects, it
// wakes the poller then, which fires the timers due. Nothing reads it:
// waking the poller is all it does, and a sleep costs a system call only
// when it moves the alarm.
//
// Instants are rounded up to alarmQuantum, and each rounded instant counts
// the sleeps that expect it: the alarm moves once per instant, not per
// sleep, and stays where it is while a sleep of its instant is pending.
type alarm struct {
	mu sync.Mutex
	// waiting counts the sleeps pending per instant (nanoseconds of
	// the monotonic clock, rounded up), and instants orders them.
	waiting  map[int64]int
	instants instantHeap
	// armed is the instant the kernel's timer is set for (zero: none).
	armed int64
	// kernel sets the kernel's timer for an instant; nil where there is
	// none (the alarm does nothing).
	kernel func(at int64)
}

// alarmQuantum is how finely the alarm's instants are kept: a sleep ends
// at most this much after its instant when the process is idle, and the
// alarm moves at most once per quantum.
const alarmQuantum = 20 * time.Microsecond

// processAlarm is the process's alarm; every realTimer sleeps with it.
var processAlarm = newAlarm(kernelAlarm())

// monoBase anchors the alarm's instants: nanoseconds since it, read from
// the monotonic clock as time.Since does.
var monoBase = time.Now()

func newAlarm(kernel func(at int64)) *alarm {
	return &alarm{waiting: map[int64]int{}, kernel: kernel}
}

// expect says a sleep ends at aim: the alarm goes off by then (rounded
// up). It returns the instant to pass to done once the sleep has ended.
func (a *alarm) expect(aim time.Time) int64 {
	if a.kernel == nil {
		return 0
	}
	q := int64(alarmQuantum)
	at := (int64(aim.Sub(monoBase)) + q - 1) / q * q
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiting[at]++; a.waiting[at] == 1 {
		heap.Push(&a.instants, at)
	}
	if a.armed == 0 || at < a.armed {
		a.arm(at)
	}
	return at
}

// done says a sleep that expected instant at has ended: when it was the
// last of the earliest instant, the alarm moves to the next one.
func (a *alarm) done(at int64) {
	if a.kernel == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiting[at]--; a.waiting[at] > 0 {
		return
	}
	delete(a.waiting, at)
	for len(a.instants) > 0 && a.waiting[a.instants[0]] == 0 {
		heap.Pop(&a.instants)
	}
	next := int64(0)
	if len(a.instants) > 0 {
		next = a.instants[0]
	}
	if next != a.armed {
		a.arm(next)
	}
}

// arm sets the kernel's timer for at (zero: disarmed).
func (a *alarm) arm(at int64) {
	a.armed = at
	a.kernel(at)
}

// instantHeap is a min-heap of instants.
type instantHeap []int64

func (h instantHeap) Len() int           { return len(h) }
func (h instantHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h instantHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *instantHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *instantHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
