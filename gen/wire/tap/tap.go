// Package tap runs a JSON-RPC server command behind a transparent stdio
// proxy: the client's bytes (the tap's stdin) go to the server's stdin and
// the server's stdout goes to the tap's stdout, byte for byte, each chunk
// written on as soon as it is read. Beside the traffic the tap writes an
// exact interleaved capture (see gen/wire/frame.CaptureWriter) and hands every
// line of both directions to a Sink (the validator) on a goroutine of its
// own, through a bounded queue, so that validation never delays forwarding.
//
// Ordering: each chunk is recorded (timestamp, copy, queued for the capture
// and the validator) just before it is forwarded, under one lock shared by
// both directions, so a request always reaches the capture and the
// validator before the response it causes.
//
// Backpressure policy, per consumer:
//   - Forwarding has none of its own: a slow reader on either side slows its
//     writer exactly as a direct pipe would (the tap holds one chunk per
//     direction).
//   - The capture is exact, so it never drops: if the capture file cannot
//     keep up with Config.CaptureQueueBytes of queued chunks, forwarding
//     waits for it (local files are far faster than any stdio peer).
//   - Validation may fall behind: when Config.QueueBytes of chunks are
//     waiting, the tap stops validating both directions for the rest of the
//     run (pairing and the stateful rules need both directions, so a
//     one-sided continuation would report false findings), keeps forwarding
//     and capturing every byte, counts the bytes it did not validate, and
//     reports one warning, rule tap.validation-overflow. The Sink's Close
//     then gets complete=false. `dshgen validate` on the capture gives the
//     full verdict afterwards.
package tap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// Defaults for the zero values of Config's limits.
const (
	DefaultQueueBytes        = 16 << 20 // 16 MiB of chunks waiting for validation
	DefaultCaptureQueueBytes = 8 << 20  // 8 MiB of chunks waiting for the capture file
	DefaultMaxFrameBytes     = 64 << 20 // 64 MiB: longer lines are not handed to the Sink
	DefaultDrainTimeout      = time.Second
	readBufSize              = 64 << 10
)

// Rule ids of the tap's own notices.
const (
	RuleValidationOverflow  = "tap.validation-overflow"  // warning: validation stopped, see package doc
	RuleFrameTooLarge       = "tap.frame-too-large"      // warning: a line over MaxFrameBytes was not validated
	RuleCaptureError        = "tap.capture-error"        // error: writing the capture failed; it is incomplete
	RuleClientGone          = "tap.client-gone"          // info: writing to the client failed (it closed its end)
	RuleServerStdinClosed   = "tap.server-stdin-closed"  // info: writing to the server's stdin failed
	RuleDrainTimeout        = "tap.drain-timeout"        // warning: server exited, its stdout stayed open
	RuleStdinError          = "tap.stdin-error"          // error: reading the tap's stdin failed
	RuleSignal              = "tap.signal"               // info: a signal was forwarded to the server
	RuleValidationAbandoned = "tap.validation-abandoned" // warning: a signal after the server exited cut validation short
	RuleValidatorPanic      = "tap.validator-panic"      // error: the Sink panicked; validation stopped, forwarding and capture went on
	RuleCapturePanic        = "tap.capture-panic"        // error: the capture writer panicked; the capture is incomplete
)

// Config describes one tap run. Command is required; every other field has
// a usable zero value.
type Config struct {
	// Command is the server's argv; Command[0] is looked up in PATH.
	Command []string
	// Env is the server's environment (nil: the tap's own); Dir its
	// working directory ("" : the tap's).
	Env []string
	Dir string

	// Stdin is the client's side, read and forwarded to the server (nil:
	// no input, the server's stdin is closed at once). A read that blocks
	// after the server has exited is abandoned: Run returns without
	// waiting for it (the goroutine ends at the reader's next EOF/error).
	Stdin io.Reader
	// Stdout receives the server's stdout (nil: discarded). With
	// CloseStdout, the tap closes it (if it is an io.Closer) as soon as the
	// server's stdout ends, so the client sees EOF then and not only when
	// Run returns (after the validator has caught up). When a write
	// fails (the client closed its end) the tap closes the server's stdout
	// pipe, so the server sees EPIPE/SIGPIPE as it would without the tap.
	// A caller passing os.Stdout should signal.Notify SIGPIPE, or the Go
	// runtime kills the process on the first write to a closed pipe.
	Stdout      io.Writer
	CloseStdout bool
	// Stderr is the server's stderr. An *os.File (the default, os.Stderr)
	// is inherited as is: the tap never touches those bytes.
	Stderr io.Writer

	// Capture, when set, receives the interleaved capture
	// (frame.CaptureWriter) from the first byte; CaptureMsDecimals is
	// passed on as CaptureWriter.MsDecimals.
	Capture           io.Writer
	CaptureMsDecimals int
	// CaptureQueueBytes bounds the chunks waiting for the capture writer
	// (0: DefaultCaptureQueueBytes); forwarding waits when it is full.
	CaptureQueueBytes int64

	// Sink, when set, gets every line of both directions (validation).
	Sink Sink
	// QueueBytes bounds the chunks waiting for the Sink (0:
	// DefaultQueueBytes); see the package doc for what happens when full.
	QueueBytes int64
	// MaxFrameBytes is the longest line handed to the Sink (0:
	// DefaultMaxFrameBytes); longer ones are forwarded and captured but
	// reported as oversized (OversizeSink, or rule tap.frame-too-large).
	MaxFrameBytes int64

	// Signals are forwarded to the server while it runs (the caller
	// subscribes with signal.Notify; the tap never exits on a signal
	// itself, it exits when the server does).
	Signals <-chan os.Signal
	// A signal that arrives after the server exited, while Run finishes,
	// is not forwarded: it makes the tap stop validating (notice
	// tap.validation-abandoned; the end-of-stream checks are skipped) so
	// that Run returns at once; so does a signal after the server's stdout
	// ended (which is still forwarded). A client that escalates to SIGTERM when the
	// server is slow to exit thus gets the server's own exit status.
	// DrainTimeout is how long the server's stdout may stay idle after the
	// server exited (a process it started may hold the pipe open) before
	// the tap stops reading it (0: DefaultDrainTimeout).
	DrainTimeout time.Duration

	// Notify, when set, is called with each Notice soon after it happens,
	// in order, from a goroutine of the tap's own (so a slow report writer
	// never holds up the traffic); Run returns after the last call.
	// Notices are also collected in Result.Notices.
	Notify func(Notice)
}

// Notice is one message of the tap itself (not a validation finding).
type Notice struct {
	Severity string  // "error", "warning" or "info"
	Rule     string  // one of the Rule* constants
	Dir      string  // ClientToServer, ServerToClient or "" (both/none)
	AtMs     float64 // milliseconds since the tap started
	Message  string  // one line
}

// DirStats counts one direction's traffic.
type DirStats struct {
	Bytes int64 `json:"bytes"` // bytes read from the sending side (all of them are in the capture)
	// Lines counts the lines among them: each "\n", plus the last line
	// when the stream ended (or the tap stopped) without a "\n" after it
	// (then Unterminated is true).
	Lines int64 `json:"lines"`
	// Unterminated is true when bytes came after the last "\n" (or no "\n"
	// came at all): the final line has no line end.
	Unterminated bool  `json:"unterminated"`
	Forwarded    int64 `json:"forwarded"` // bytes written to the receiving side
	// EOF is true when the sending side ended its stream; false when the
	// tap stopped reading first (server exited while the client held
	// stdin open, client gone, drain timeout).
	EOF bool `json:"eof"`
	// Unvalidated is the number of bytes that were not handed to the Sink
	// because validation overflowed (0 without an overflow or a Sink).
	Unvalidated int64 `json:"unvalidated"`
}

// Result is the outcome of a run that started the server.
type Result struct {
	// ExitCode is the server's exit status, or 128+signal when a signal
	// killed it (the shell convention).
	ExitCode int
	// Signal is the signal that killed the server, 0 if it exited.
	Signal syscall.Signal
	// ClientToServer and ServerToClient count the traffic.
	ClientToServer, ServerToClient DirStats
	// ValidationComplete is true when a Sink saw every frame.
	ValidationComplete bool
	// PeakQueueBytes is the largest amount of chunk data (plus 64 bytes per
	// chunk) that waited for validation at once.
	PeakQueueBytes int64
	// ServerExited is when the server exited, since the tap started.
	ServerExited time.Duration
	// Elapsed is the time from the start of the tap to the end of Run
	// (after the server's stdout was drained and the validator caught up).
	Elapsed time.Duration
	// Notices are the tap's own messages, in order.
	Notices []Notice
}

// Errors returned by Run before the server runs.
var ErrNoCommand = errors.New("tap: no server command")

type tapper struct {
	cfg   Config
	start time.Time

	obsMu    sync.Mutex // orders observations of both directions
	finished bool       // no more observations are recorded
	ended    [2]bool
	stats    [2]DirStats
	capQ     *queue
	valQ     *queue
	valCut   bool

	forwarded  [2]atomic.Int64
	abandon    atomic.Bool // stop validating now (a signal after the server exited)
	exited     atomic.Bool // the server has exited
	consumers  sync.WaitGroup
	s2cEnded   atomic.Bool // the server's stdout ended
	abandoned  bool        // set by validateLoop when it stopped for abandon
	brokenSink atomic.Bool // the Sink panicked (validation incomplete)

	noteMu    sync.Mutex
	notices   []Notice
	noteReady chan struct{} // 1-buffered: a notice was added
	noteDone  chan struct{} // closed when no more notices come
}

func (t *tapper) since() time.Duration { return time.Since(t.start) }

// notice records a notice. Config.Notify gets it from a goroutine of its
// own (deliverNotices): a report writer that blocks (a stderr pipe nobody
// reads) must never hold up forwarding or the capture.
func (t *tapper) notice(sev, rule string, dir int, format string, args ...any) {
	n := Notice{Severity: sev, Rule: rule, AtMs: msOf(t.since()), Message: fmt.Sprintf(format, args...)}
	if dir >= 0 {
		n.Dir = dirNames[dir]
	}
	t.noteMu.Lock()
	t.notices = append(t.notices, n)
	t.noteMu.Unlock()
	poke(t.noteReady)
}

// deliverNotices calls Config.Notify with each notice, in order, until
// noteDone is closed and every notice is delivered.
func (t *tapper) deliverNotices() {
	sent := 0
	for {
		t.noteMu.Lock()
		batch := t.notices[sent:len(t.notices):len(t.notices)]
		t.noteMu.Unlock()
		for _, n := range batch {
			t.cfg.Notify(n)
		}
		sent += len(batch)
		if len(batch) > 0 {
			continue
		}
		select {
		case <-t.noteReady:
		case <-t.noteDone:
			t.noteMu.Lock()
			left := len(t.notices) > sent
			t.noteMu.Unlock()
			if !left {
				return
			}
		}
	}
}

// observe records one chunk of direction dir (data is copied). It returns
// false once the tap has finished recording.
func (t *tapper) observe(dir int, kind chunkKind, data []byte) bool {
	t.obsMu.Lock()
	defer t.obsMu.Unlock()
	if t.finished || t.ended[dir] {
		return false
	}
	c := chunk{dir: dir, kind: kind, at: t.since()}
	if kind == kindData {
		if t.capQ != nil || (t.valQ != nil && !t.valCut) {
			c.data = bytes.Clone(data)
		}
		t.stats[dir].Bytes += int64(len(data))
		t.stats[dir].Lines += int64(bytes.Count(data, []byte{'\n'}))
		if len(data) > 0 {
			t.stats[dir].Unterminated = data[len(data)-1] != '\n'
		}
	} else {
		t.ended[dir] = true
		t.stats[dir].EOF = kind == kindEOF
	}
	if t.capQ != nil {
		t.capQ.push(c)
	}
	if t.valQ != nil {
		if t.valCut {
			t.stats[dir].Unvalidated += int64(len(data))
		} else if !t.valQ.tryPush(c) {
			t.valCut = true
			t.stats[dir].Unvalidated += int64(len(data))
			t.notice("warning", RuleValidationOverflow, dir,
				"validation fell %d bytes behind the traffic (C->S line %d, S->C line %d); validation stopped for both directions, forwarding and capture go on; validate the capture afterwards for the full verdict",
				t.cfg.QueueBytes, t.stats[0].Lines+1, t.stats[1].Lines+1)
		}
	}
	if kind != kindData {
		t.wake()
	}
	return true
}

// wake tells the consumers at once that chunks are queued (they poll
// otherwise, see queue).
func (t *tapper) wake() {
	if t.capQ != nil {
		t.capQ.notify()
	}
	if t.valQ != nil {
		t.valQ.notify()
	}
}

// Run starts cfg.Command and proxies until the server has exited and its
// stdout is drained. It returns an error only when the server could not be
// started (the error from os/exec, e.g. exec.ErrNotFound) or Config is
// invalid; everything after that is in Result (exit status, notices).
// Canceling ctx kills the server (SIGKILL).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Command) == 0 {
		return nil, ErrNoCommand
	}
	if cfg.QueueBytes <= 0 {
		cfg.QueueBytes = DefaultQueueBytes
	}
	if cfg.CaptureQueueBytes <= 0 {
		cfg.CaptureQueueBytes = DefaultCaptureQueueBytes
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	t := &tapper{cfg: cfg, noteReady: make(chan struct{}, 1), noteDone: make(chan struct{})}
	notified := make(chan struct{})
	if cfg.Notify != nil {
		go func() { defer close(notified); t.deliverNotices() }()
	} else {
		close(notified)
	}
	defer func() { close(t.noteDone); <-notified }()

	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = cfg.Env
	cmd.Dir = cfg.Dir
	cmd.Stderr = cfg.Stderr
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin = inR
	cmd.Stdout = outW

	if cfg.Capture != nil {
		t.capQ = newQueue(cfg.CaptureQueueBytes)
	}
	if cfg.Sink != nil {
		t.valQ = newQueue(cfg.QueueBytes)
	}
	t.start = time.Now()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}

	// Consumers.
	if t.capQ != nil {
		t.consumers.Add(1)
		go func() { defer t.consumers.Done(); t.captureLoop() }()
	}
	if t.valQ != nil {
		t.consumers.Add(1)
		go func() { defer t.consumers.Done(); t.validateLoop() }()
	}

	// The server's exit.
	exited := &t.exited
	exitedCh := make(chan struct{})
	var exitAt time.Duration
	go func() {
		cmd.Wait()
		exitAt = t.since()
		exited.Store(true)
		// Its stdout may be held open by a process it started: stop reading
		// after DrainTimeout without data (re-armed by every read below).
		outR.SetReadDeadline(time.Now().Add(cfg.DrainTimeout))
		close(exitedCh)
	}()

	// Signals and cancellation.
	stopSignals := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopSignals:
				return
			case <-ctx.Done():
				if !exited.Load() {
					cmd.Process.Kill()
				}
				return
			case sig, ok := <-cfg.Signals:
				if !ok {
					cfg.Signals = nil
					continue
				}
				if exited.Load() {
					t.abandon.Store(true)
					if t.valQ != nil {
						t.valQ.notify()
					}
					continue
				}
				t.notice("info", RuleSignal, -1, "%v forwarded to the server", sig)
				cmd.Process.Signal(sig)
				if t.s2cEnded.Load() {
					// The server's output is over: whoever signals wants
					// out, so stop validating as after its exit.
					t.abandon.Store(true)
					if t.valQ != nil {
						t.valQ.notify()
					}
				}
			}
		}
	}()
	defer close(stopSignals)

	// Client -> server.
	go t.pumpClient(inW)
	// Server -> client.
	s2cDone := make(chan struct{})
	go func() { defer close(s2cDone); t.pumpServer(outR, exited) }()

	<-exitedCh
	<-s2cDone

	// Finish: the client's stream ends here if it has not ended by itself.
	t.obsMu.Lock()
	if !t.ended[0] {
		c := chunk{dir: 0, kind: kindStop, at: t.since()}
		t.ended[0] = true
		if t.capQ != nil {
			t.capQ.push(c)
		}
		if t.valQ != nil && !t.valCut && !t.valQ.tryPush(c) {
			t.valCut = true // an overflow at the very end: only the end marker is lost
		}
	}
	t.finished = true
	t.obsMu.Unlock()
	inW.Close()
	outR.Close()
	if t.capQ != nil {
		t.capQ.close()
	}
	if t.valQ != nil {
		t.valQ.close()
	}
	t.consumers.Wait()

	res := &Result{ValidationComplete: t.valQ != nil && !t.valCut && !t.abandoned && !t.brokenSink.Load()}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		res.Signal = ws.Signal()
		res.ExitCode = 128 + int(ws.Signal())
	default:
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	t.obsMu.Lock()
	res.ClientToServer, res.ServerToClient = t.stats[0], t.stats[1]
	t.obsMu.Unlock()
	// t.stats count "\n" bytes (line numbers for the notices); the result
	// counts an unterminated last line too.
	for _, d := range []*DirStats{&res.ClientToServer, &res.ServerToClient} {
		if d.Unterminated {
			d.Lines++
		}
	}
	res.ClientToServer.Forwarded = t.forwarded[0].Load()
	res.ServerToClient.Forwarded = t.forwarded[1].Load()
	if t.valQ != nil {
		res.PeakQueueBytes = t.valQ.peak()
	}
	t.noteMu.Lock()
	res.Notices = append([]Notice(nil), t.notices...)
	t.noteMu.Unlock()
	res.ServerExited = exitAt
	res.Elapsed = t.since()
	return res, nil
}

// pumpClient forwards the client's bytes to the server's stdin (w) until
// the client's EOF, then closes w. After a failed write (the server closed
// its stdin or exited) it keeps reading and capturing the client's bytes,
// so the client never blocks on a dead server.
func (t *tapper) pumpClient(w *os.File) {
	defer w.Close()
	if t.cfg.Stdin == nil {
		t.observe(0, kindEOF, nil)
		return
	}
	buf := make([]byte, readBufSize)
	ok := true
	for {
		n, err := t.cfg.Stdin.Read(buf)
		if n > 0 {
			if !t.observe(0, kindData, buf[:n]) {
				return
			}
			if ok {
				m, werr := w.Write(buf[:n])
				t.forwarded[0].Add(int64(m))
				if werr != nil {
					ok = false
					t.noticeIfRunning("info", RuleServerStdinClosed, 0, "writing to the server's stdin failed (%v); the client's further bytes are captured and dropped", werr)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				t.observe(0, kindEOF, nil)
			} else {
				t.observe(0, kindStop, nil)
				t.notice("error", RuleStdinError, 0, "reading stdin: %v", err)
			}
			return
		}
	}
}

// noticeIfRunning reports a notice unless the tap is already finishing.
func (t *tapper) noticeIfRunning(sev, rule string, dir int, format string, args ...any) {
	t.obsMu.Lock()
	fin := t.finished
	t.obsMu.Unlock()
	if !fin {
		t.notice(sev, rule, dir, format, args...)
	}
}

// pumpServer forwards the server's stdout (r) to the client until EOF, a
// failed write to the client, or DrainTimeout of silence after the server
// exited.
func (t *tapper) pumpServer(r *os.File, exited *atomic.Bool) {
	buf := make([]byte, readBufSize)
	ok := true
	for {
		n, err := r.Read(buf)
		if n > 0 {
			t.observe(1, kindData, buf[:n])
			if ok {
				m, werr := t.cfg.Stdout.Write(buf[:n])
				t.forwarded[1].Add(int64(m))
				if werr != nil {
					ok = false
					t.notice("info", RuleClientGone, 1, "writing to the client failed (%v); closed the server's stdout so that it sees the broken pipe itself", werr)
					r.Close()
				}
			}
			if exited.Load() {
				r.SetReadDeadline(time.Now().Add(t.cfg.DrainTimeout))
			}
		}
		if err != nil {
			t.s2cEnded.Store(true)
			if c, isCloser := t.cfg.Stdout.(io.Closer); t.cfg.CloseStdout && isCloser {
				c.Close()
			}
			switch {
			case errors.Is(err, io.EOF):
				t.observe(1, kindEOF, nil)
			case errors.Is(err, os.ErrDeadlineExceeded):
				t.observe(1, kindStop, nil)
				t.notice("warning", RuleDrainTimeout, 1, "the server exited but its stdout stayed open (held by a process it started?); stopped reading after %v without data", t.cfg.DrainTimeout)
			default:
				t.observe(1, kindStop, nil)
			}
			return
		}
	}
}

// captureLoop writes queued chunks to the capture. Lines are flushed to
// the file when 64 KiB are buffered, when the oldest buffered line is
// captureFlushAge old, or after captureFlushAge without new chunks, so the
// file lags the traffic by a few milliseconds at most without a write per
// frame. After a write error it keeps draining (forwarding never waits on a
// dead capture) and reports once.
func (t *tapper) captureLoop() {
	defer func() {
		if r := recover(); r != nil {
			// Forwarding waits for the capture queue: keep draining it.
			t.notice("error", RuleCapturePanic, -1, "the capture writer failed (panic: %s); the capture is incomplete, forwarding goes on", panicText(r))
			for {
				items, cost, done, _ := t.capQ.take(nil, 0, nil)
				clear(items)
				t.capQ.release(cost)
				if done {
					return
				}
			}
		}
	}()
	cw := frame.NewCaptureWriter(t.cfg.Capture)
	cw.MsDecimals = t.cfg.CaptureMsDecimals
	if f, ok := t.cfg.Capture.(*os.File); ok && f.Name() != "" {
		// A line held while it is long (frame.CaptureSpillBytes) waits
		// beside the capture, on the file system that will take it.
		cw.SpillDir = filepath.Dir(f.Name())
	}
	var buf []chunk
	failed := false
	var dirtySince time.Time
	fail := func(err error) {
		if err != nil && !failed {
			failed = true
			t.notice("error", RuleCaptureError, -1, "writing the capture: %v; the capture is incomplete", err)
		}
	}
	flush := func() {
		if !failed && cw.Buffered() > 0 {
			fail(cw.Flush())
		}
		dirtySince = time.Time{}
	}
	for {
		var pending func()
		if !failed && cw.Buffered() > 0 {
			pending = flush
		}
		items, cost, done, _ := t.capQ.take(buf, captureFlushAge, pending)
		if !failed {
			var err error
			for _, c := range items {
				switch c.kind {
				case kindData:
					err = cw.Write(dirNames[c.dir], c.at, c.data)
				case kindEOF:
					err = cw.EOF(dirNames[c.dir], c.at)
				case kindStop:
					err = cw.Fragment(dirNames[c.dir], c.at)
				}
				if err != nil {
					break
				}
			}
			fail(err)
			if n := cw.Buffered(); n == 0 {
				dirtySince = time.Time{}
			} else if dirtySince.IsZero() {
				dirtySince = time.Now()
			}
			if !failed && (done || cw.Buffered() >= 64<<10 || time.Since(dirtySince) >= captureFlushAge) {
				fail(cw.Flush())
				dirtySince = time.Time{}
			}
		}
		clear(items)
		buf = items
		t.capQ.release(cost)
		if done {
			return
		}
	}
}

// panicText is a recovered panic value on one line.
func panicText(r any) string {
	s := strings.Join(strings.Fields(fmt.Sprint(r)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// captureFlushAge bounds how long captured lines wait in memory.
const captureFlushAge = 5 * time.Millisecond

// validateLoop splits queued chunks into lines and hands them to the Sink.
// It runs on a low-priority thread (lowerValidationPriority) while the
// server runs; once the server has exited, what is left is moved to a
// goroutine of normal priority, since the validator is then the only thing
// between the tap and its exit.
func (t *tapper) validateLoop() {
	sink := t.cfg.Sink
	over, _ := sink.(OversizeSink)
	// A panic in the Sink must not end the process (and so cut the
	// traffic): it is reported once, the Sink gets nothing more, and the
	// queue is drained as before, so forwarding and the capture go on.
	broken := false
	safe := func(f func()) {
		if broken {
			return
		}
		defer func() {
			if r := recover(); r != nil {
				broken = true
				t.brokenSink.Store(true)
				t.notice("error", RuleValidatorPanic, -1, "the validator failed (panic: %s); validation stopped, forwarding and the capture go on; validate the capture afterwards", panicText(r))
			}
		}()
		f()
	}
	var sp [2]lineSplitter
	var frameFn [2]func([]byte, bool)
	var overFn [2]func(int64, bool)
	var at time.Duration
	for d := range sp {
		sp[d] = lineSplitter{dir: dirNames[d], max: t.cfg.MaxFrameBytes}
		frameFn[d] = func(line []byte, terminated bool) {
			if !t.abandon.Load() {
				safe(func() { sink.Frame(dirNames[d], line, terminated, at) })
				// Let a forwarding goroutine that became runnable have
				// this P now rather than at the next preemption (10 ms).
				runtime.Gosched()
			}
		}
		overFn[d] = func(size int64, terminated bool) {
			if over != nil {
				safe(func() { over.Oversize(dirNames[d], size, terminated, at) })
				return
			}
			t.notice("warning", RuleFrameTooLarge, d, "a line of %s exceeds the %d-byte frame limit; forwarded and captured, not validated", validate.Count(int(size), "byte"), t.cfg.MaxFrameBytes)
		}
	}
	var buf []chunk
	// A batch the low-priority goroutine had taken when it handed over.
	var carry struct {
		items     []chunk
		cost      int64
		done, cut bool
		ok        bool
	}
	loop := func(lowPriority bool) (handOver bool) {
		for {
			var items []chunk
			var cost int64
			var done, cut bool
			if carry.ok {
				items, cost, done, cut = carry.items, carry.cost, carry.done, carry.cut
				carry.ok = false
			} else {
				items, cost, done, cut = t.valQ.take(buf, 0, nil)
			}
			for i, c := range items {
				if lowPriority && t.exited.Load() {
					carry.items, carry.cost, carry.done, carry.cut, carry.ok = items[i:], cost, done, cut, true
					return true
				}
				if t.abandon.Load() {
					t.abandoned = true
					t.notice("warning", RuleValidationAbandoned, -1, "validation stopped before it caught up with the traffic (a signal after the server exited); the capture has everything")
					t.valQ.release(cost)
					safe(func() { sink.Close(false) })
					return false
				}
				at = c.at
				switch c.kind {
				case kindData:
					sp[c.dir].feed(c.data, frameFn[c.dir], overFn[c.dir])
				default:
					sp[c.dir].end(frameFn[c.dir], overFn[c.dir])
					safe(func() { sink.End(dirNames[c.dir], c.kind == kindEOF, c.at) })
				}
				// Drop the chunk now, not at the end of the batch: a slow
				// validator would otherwise keep the whole batch (up to the
				// queue's bound) reachable after it is done with it, and the
				// collector, which sizes its next goal from what it found
				// reachable, lets the heap grow by that much again.
				items[i] = chunk{}
			}
			clear(items)
			buf = items[:0]
			t.valQ.release(cost)
			if done {
				safe(func() { sink.Close(!cut) })
				return false
			}
		}
	}
	lowerValidationPriority() // this goroutine's thread ends with it
	if loop(true) {
		t.consumers.Add(1)
		go func() {
			defer t.consumers.Done()
			loop(false)
		}()
	}
}
