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
// chunk, counted from push until the consumer releases the batch it took).
// push blocks while the queue is full (used for the capture, which must be
// exact); tryPush refuses instead (used for validation, which may fall
// behind). A chunk larger than the bound still goes into an empty queue, so
// progress is always possible.
//
// Pushing does not wake the consumer: consumers poll (every pollMin while
// chunks keep coming, backing off to pollMax when idle), so the forwarding
// path never pays for waking a goroutine (on a 2-core machine that wake-up
// and the consumer's work right behind it showed up as tens of µs of added
// round-trip latency). Only a queue filling up (urgentBytes) or an end of
// stream wakes the consumer at once.
type queue struct {
	mu       sync.Mutex
	items    []chunk
	bytes    int64
	limit    int64
	closed   bool // no more pushes; the consumer drains and stops
	cut      bool // tryPush refused once; later pushes are refused too
	maxBytes int64

	ready chan struct{} // 1-buffered: there may be something to take
	space chan struct{} // 1-buffered: bytes were released
	done  chan struct{} // closed by close
}

// Poll intervals of a consumer, and the queued bytes that wake it at once.
const (
	pollMin     = time.Millisecond
	pollMax     = 50 * time.Millisecond
	urgentBytes = 1 << 20
)

func newQueue(limit int64) *queue {
	return &queue{limit: limit, ready: make(chan struct{}, 1), space: make(chan struct{}, 1), done: make(chan struct{})}
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (q *queue) cost(c chunk) int64 { return int64(len(c.data)) + chunkOverhead }

// push appends c, waiting while the queue is full. It returns false when the
// queue is closed. Producers must not push concurrently (the tap serializes
// them).
func (q *queue) push(c chunk) bool {
	n := q.cost(c)
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return false
		}
		if q.bytes == 0 || q.bytes+n <= q.limit {
			q.add(c, n)
			q.mu.Unlock()
			return true
		}
		q.mu.Unlock()
		poke(q.ready) // the consumer must be working for space to come
		select {
		case <-q.space:
		case <-q.done:
		}
	}
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
		poke(q.ready)
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
	if q.bytes >= urgentBytes || q.bytes >= q.limit/2 {
		poke(q.ready)
	}
}

// notify wakes the consumer at once (end of a stream).
func (q *queue) notify() { poke(q.ready) }

// close ends the queue: the consumer gets what is queued, then done.
func (q *queue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.done)
	}
	q.mu.Unlock()
	poke(q.ready)
}

// take waits until there are chunks (or the queue is finished) and returns
// all of them (reusing buf's storage) with their cost, plus whether the
// queue is finished: closed or cut, with nothing left after the returned
// chunks. The chunks still count against the bound until the consumer
// calls release(cost), so that the bound covers the batch in work too.
//
// flush, when not nil, is work the consumer has pending (the capture's
// buffered lines): take calls it once when nothing arrives for flushAfter.
func (q *queue) take(buf []chunk, flushAfter time.Duration, flush func()) (items []chunk, cost int64, done, cut bool) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	wait := pollMin
	for {
		q.mu.Lock()
		if len(q.items) > 0 || q.closed || q.cut {
			items = append(buf[:0], q.items...)
			clear(q.items)
			q.items = q.items[:0]
			for _, c := range items {
				cost += q.cost(c)
			}
			done, cut = q.closed || q.cut, q.cut
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		d := wait
		if flush != nil && flushAfter < d {
			d = flushAfter
		}
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-q.ready:
		case <-timer.C:
			if flush != nil {
				flush()
				flush = nil
			} else if wait *= 2; wait > pollMax {
				wait = pollMax
			}
		}
	}
}

// release gives back the cost of a batch returned by take.
func (q *queue) release(cost int64) {
	q.mu.Lock()
	q.bytes -= cost
	q.mu.Unlock()
	poke(q.space)
}

// peak returns the largest number of bytes that were queued at once.
func (q *queue) peak() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.maxBytes
}
