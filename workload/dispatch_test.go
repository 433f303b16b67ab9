package workload

import (
	"context"
	"testing"
)

// TestBatchQueuesHandOnWhatFellDueTogether: a pipelined schedule's jobs are
// held until the batch is full or the schedule flushes (before it sleeps),
// then go to one connection at once; each instance of a fleet has batches
// of its own; a batch that finds every connection busy says how many jobs
// waited; and a batch a connection is done with is used again.
func TestBatchQueuesHandOnWhatFellDueTogether(t *testing.T) {
	ctx := context.Background()
	b := newBatchQueues(2, 1, 3)
	for _, j := range []job{{identity: 1}, {identity: 2, instance: 1}, {identity: 3}} {
		if sent, waited := b.add(ctx, j); !sent || waited != 0 {
			t.Fatalf("add %v: sent %v, waited %d", j, sent, waited)
		}
	}
	if len(b.of(0)) != 0 || len(b.of(1)) != 0 {
		t.Fatal("a batch went out before it was full or flushed")
	}
	if sent, waited := b.add(ctx, job{identity: 4}); !sent || waited != 0 {
		t.Fatalf("the job that fills a batch: sent %v, waited %d", sent, waited)
	}
	full := <-b.of(0)
	if len(full) != 3 || full[0].identity != 1 || full[1].identity != 3 || full[2].identity != 4 {
		t.Fatalf("the full batch of instance 0 is %v, want identities 1, 3, 4", full)
	}
	if sent, waited := b.flush(ctx); !sent || waited != 0 {
		t.Fatalf("flush: sent %v, waited %d", sent, waited)
	}
	if got := <-b.of(1); len(got) != 1 || got[0].identity != 2 {
		t.Fatalf("instance 1's flushed batch is %v, want identity 2 alone", got)
	}
	if sent, waited := b.flush(ctx); !sent || waited != 0 || len(b.of(0)) != 0 {
		t.Fatal("a flush with nothing held handed something on")
	}

	// Instance 0's queue full (one batch, nobody taking it): the next
	// batch waits for a connection; here the run ends first.
	b.done(full)
	for _, id := range []uint64{5, 6, 7} {
		b.add(ctx, job{identity: id})
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	b.add(ctx, job{identity: 8})
	if sent, waited := b.flush(ended); sent || waited != 1 {
		t.Errorf("flush into a full queue of an ended run: sent %v, waited %d, want not sent, 1 waited", sent, waited)
	}
	if got := <-b.of(0); &got[0] != &full[0] {
		t.Error("the batch a connection was done with was not used again")
	}
}
