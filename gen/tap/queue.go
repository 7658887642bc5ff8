package tap

import (
	"sync"
	"time"
)

// chunkKind says what a queued chunk stands for.
type chunkKind uint8

const (
	kindData chunkKind = iota // bytes read in one direction
	kindEOF                   // the direction's stream ended (read returned EOF)
	kindStop                  // the tap stopped reading the direction without EOF
)

// chunk is one observation, queued for the capture writer and the validator
// in the order the tap saw it. data is a private copy shared (read-only) by
// both consumers.
type chunk struct {
	dir  int // 0 client-to-server, 1 server-to-client
	kind chunkKind
	at   time.Duration
	data []byte
}

// chunkOverhead is what one queued chunk costs beyond its bytes, for the
// queue's byte bound.
const chunkOverhead = 64

// queue is a FIFO of chunks bounded by bytes (data plus chunkOverhead per
// chunk). push blocks while the queue is full (used for the capture, which
// must be exact); tryPush refuses instead (used for validation, which may
// fall behind). A chunk larger than the bound is still accepted into an
// empty queue, so progress is always possible.
type queue struct {
	mu       sync.Mutex
	cond     sync.Cond
	items    []chunk
	bytes    int64
	limit    int64
	closed   bool // no more pushes; the consumer drains and stops
	cut      bool // tryPush refused once; later pushes are refused too
	maxBytes int64
}

func newQueue(limit int64) *queue {
	q := &queue{limit: limit}
	q.cond.L = &q.mu
	return q
}

func (q *queue) cost(c chunk) int64 { return int64(len(c.data)) + chunkOverhead }

// push appends c, waiting while the queue is full. It returns false when the
// queue is closed.
func (q *queue) push(c chunk) bool {
	n := q.cost(c)
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.bytes > 0 && q.bytes+n > q.limit {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	q.add(c, n)
	return true
}

// tryPush appends c unless the queue is full, closed or was cut before.
// The first refusal marks the queue as cut.
func (q *queue) tryPush(c chunk) bool {
	n := q.cost(c)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.cut {
		return false
	}
	if q.bytes > 0 && q.bytes+n > q.limit {
		q.cut = true
		q.cond.Broadcast()
		return false
	}
	q.add(c, n)
	return true
}

func (q *queue) add(c chunk, n int64) {
	q.items = append(q.items, c)
	q.bytes += n
	if q.bytes > q.maxBytes {
		q.maxBytes = q.bytes
	}
	q.cond.Broadcast()
}

// close ends the queue: the consumer gets what is queued, then done.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// take waits for chunks and returns all of them (reusing buf's storage),
// plus whether the queue is finished: closed or cut, with nothing left after
// the returned chunks. The returned chunks still count against the bound
// until the consumer calls release with the returned cost, so that the
// bound covers the batch being worked on too.
func (q *queue) take(buf []chunk) (items []chunk, cost int64, done, cut bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed && !q.cut {
		q.cond.Wait()
	}
	items = append(buf[:0], q.items...)
	clear(q.items)
	q.items = q.items[:0]
	for _, c := range items {
		cost += q.cost(c)
	}
	return items, cost, q.closed || q.cut, q.cut
}

// release gives back the cost of a batch returned by take.
func (q *queue) release(cost int64) {
	q.mu.Lock()
	q.bytes -= cost
	q.cond.Broadcast()
	q.mu.Unlock()
}

// peak returns the largest number of bytes that were queued at once.
func (q *queue) peak() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.maxBytes
}
