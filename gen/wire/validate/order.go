package validate

// The order findings are written in while a stream is still being read.
//
// A frame's findings are known when the frame is committed, except those
// of a request that wait for its response (a request's params findings
// become warnings when the peer rejected it) and those only the end of the
// stream tells (request.unanswered). So the findings about the lines from
// the oldest request still waiting for its response on are held, and
// everything before it is written, sorted (SortFindings); a stream whose
// requests are all answered in time holds nothing and comes out exactly
// sorted, as ValidateReader's Result. The hold is bounded: when more than
// maxHeldFindings findings wait, the oldest waiting request stops holding
// the others back, and its own findings are written when they are known,
// after findings about later lines.

// maxHeldFindings bounds the findings held back for ordering (about 3 MB).
const maxHeldFindings = 10000

// orderer writes one stream's findings in order through emit.
type orderer struct {
	s    *Stream
	emit func(Finding)
	held []Finding
	// released: every finding about a line before it has been written.
	released int
}

// add takes the findings of the stream's line (or later), in any order.
func (o *orderer) add(line int, fs []Finding) {
	if len(fs) > 1 {
		SortFindings(fs)
	}
	for _, f := range fs {
		if f.Line < o.released {
			o.emit(f) // late: its request stopped holding the others back
		} else {
			o.held = append(o.held, f)
		}
	}
	o.flush(line)
}

// flush writes what no waiting request can still come before.
func (o *orderer) flush(line int) {
	for {
		w := o.s.oldestWaiting()
		if w == 0 {
			w = line + 1
		}
		if w > o.released {
			o.released = w
		}
		o.release(func(f *Finding) bool { return f.Line < o.released })
		if len(o.held) <= maxHeldFindings || !o.s.stopWaiting() {
			return
		}
	}
}

func (o *orderer) release(ready func(*Finding) bool) {
	if len(o.held) == 0 {
		return
	}
	SortFindings(o.held)
	n := 0
	for n < len(o.held) && ready(&o.held[n]) {
		o.emit(o.held[n])
		n++
	}
	switch {
	case n == len(o.held):
		clear(o.held)
		o.held = o.held[:0]
	case n > 0:
		o.held = append(o.held[:0:0], o.held[n:]...)
	}
}

// close writes the rest: the held findings with the end-of-stream ones
// (fs), sorted, then the end-of-stream findings about lines already
// written.
func (o *orderer) close(fs []Finding) {
	var late []Finding
	for _, f := range fs {
		if f.Line < o.released {
			late = append(late, f)
		} else {
			o.held = append(o.held, f)
		}
	}
	o.release(func(*Finding) bool { return true })
	SortFindings(late)
	for _, f := range late {
		o.emit(f)
	}
}
