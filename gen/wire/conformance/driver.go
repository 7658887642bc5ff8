package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Handshake is the first line a driver writes once it is ready (driver
// protocol 1, see README.md).
const Handshake = "dshgen-conformance-driver 1"

// Driver runs one language's round-trip driver, a process speaking driver
// protocol 1 on its stdin and stdout.
type Driver struct {
	Lang string
	Cmd  []string
	Dir  string   // working directory
	Env  []string // extra environment
	// Stall is how long the driver may take to answer one frame (the first
	// one including its start-up); a driver that takes longer is killed and
	// the frame blamed. 0 means DefaultStall.
	Stall time.Duration
	// MaxDeaths is how many times the driver may die before the frames
	// left are reported as not checked; 0 means DefaultMaxDeaths.
	MaxDeaths int
}

// DefaultStall is the default time a driver may take over one frame (a
// 250 KB frame 10000 levels deep through a recursive type takes the Go
// bindings about 10 s of CPU to decode and re-encode, README.md).
const DefaultStall = 5 * time.Minute

// DefaultMaxDeaths is the default number of driver deaths tolerated in
// one run.
const DefaultMaxDeaths = 10

// header is what the runner tells a driver about one frame.
type header struct {
	Seq int `json:"seq"`
	// Method is, for a response carrying a result, the method of the
	// request it answers.
	Method string `json:"method,omitempty"`
	// Type is, for a value of one named type instead of a frame, that
	// type's name in the driver's language.
	Type string `json:"type,omitempty"`
}

// check sends frames through d, restarting it after each frame it dies
// on, and returns the frames that did not round-trip. A driver that does
// not start (no handshake) is an error.
func (d Driver) check(ctx context.Context, frames []*InputFrame) ([]Mismatch, error) {
	maxDeaths := d.MaxDeaths
	if maxDeaths == 0 {
		maxDeaths = DefaultMaxDeaths
	}
	var out []Mismatch
	seq := 1 // seq of frames[0]
	for deaths := 0; len(frames) > 0; deaths++ {
		answers, died, err := d.session(ctx, frames, seq)
		if err != nil {
			if deaths == 0 {
				return nil, fmt.Errorf("%s driver: %w", d.Lang, err)
			}
			return append(out, notChecked(d.Lang, frames, "not checked: restarting the driver failed: "+err.Error())...), nil
		}
		for i, a := range answers {
			if m := Compare(d.Lang, frames[i], a); m != nil {
				out = append(out, *m)
			}
		}
		if died == "" {
			break
		}
		f := frames[len(answers)]
		out = append(out, Mismatch{Lang: d.Lang, File: f.File, Line: f.Line, Frames: 1, What: "the driver died on this frame: " + died})
		seq += len(answers) + 1
		frames = frames[len(answers)+1:]
		if deaths+1 >= maxDeaths && len(frames) > 0 {
			return append(out, notChecked(d.Lang, frames, fmt.Sprintf("not checked: the driver died %d times", deaths+1))...), nil
		}
	}
	return out, nil
}

// notChecked reports frames that were never sent, one mismatch per input.
func notChecked(lang string, frames []*InputFrame, why string) []Mismatch {
	var out []Mismatch
	for _, f := range frames {
		if n := len(out); n > 0 && out[n-1].File == f.File {
			out[n-1].Frames++
			continue
		}
		out = append(out, Mismatch{Lang: lang, File: f.File, Line: f.Line, Frames: 1, What: why + " (this frame and the next valid ones of this input)"})
	}
	return out
}

// session runs one driver process over frames (numbered from seq) and
// returns its answers in order: all of them (died ""), or those it gave
// before it died on the next frame (died says how). err is a driver that
// did not start.
func (d Driver) session(ctx context.Context, frames []*InputFrame, seq int) (answers []string, died string, err error) {
	stall := d.Stall
	if stall == 0 {
		stall = DefaultStall
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.Cmd[0], d.Cmd[1:]...)
	cmd.Dir = d.Dir
	cmd.Env = append(os.Environ(), d.Env...)
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}

	// killedFor is why the runner killed the driver ("" while it did not).
	var mu sync.Mutex
	killedFor := ""
	kill := func(why string) {
		mu.Lock()
		if killedFor == "" {
			killedFor = why
		}
		mu.Unlock()
		cancel()
	}
	// The watchdog kills a driver that stays silent for longer than stall.
	timer := time.AfterFunc(stall, func() { kill(fmt.Sprintf("no answer within %v (killed)", stall)) })
	defer timer.Stop()

	// The writer feeds every frame, then closes stdin; it stops when the
	// driver stops reading.
	writeDone := make(chan struct{})
	go func() {
		defer close(writeDone)
		w := bufio.NewWriterSize(stdin, 256<<10)
		for i, f := range frames {
			h, _ := json.Marshal(header{Seq: seq + i, Method: f.Method, Type: f.TypeNames[d.Lang]})
			w.Write(h)
			w.WriteByte('\t')
			w.Write(f.Raw)
			if w.WriteByte('\n') != nil {
				break
			}
		}
		w.Flush()
		stdin.Close()
	}()

	r := bufio.NewReaderSize(stdout, 256<<10)
	// end waits for the process (killing it first when why is set) and
	// says how it ended.
	end := func(why string) string {
		if why != "" {
			kill(why)
		}
		io.Copy(io.Discard, r)
		<-writeDone
		werr := cmd.Wait()
		mu.Lock()
		defer mu.Unlock()
		return deathReason(killedFor, werr, stderr.String())
	}
	hs, err := readLine(r, 4096)
	switch {
	case errors.Is(err, errLineTooLong):
		end("bad handshake")
		return nil, "", fmt.Errorf("did not start: its first line is longer than 4096 bytes, not %q", Handshake)
	case err != nil:
		return nil, "", fmt.Errorf("did not start: %s", end(""))
	case hs != Handshake:
		end("bad handshake")
		return nil, "", fmt.Errorf("did not start: wrote %q instead of %q", clip(hs), Handshake)
	}
	timer.Reset(stall)
	for i, f := range frames {
		limit := 64*len(f.Raw) + 1<<20
		line, err := readLine(r, limit)
		if errors.Is(err, errLineTooLong) {
			return answers, end(fmt.Sprintf("an answer longer than %d bytes (killed)", limit)), nil
		}
		if err != nil {
			return answers, end(""), nil
		}
		timer.Reset(stall)
		n, answer, ok := strings.Cut(line, "\t")
		if !ok || n != strconv.Itoa(seq+i) {
			return answers, end(fmt.Sprintf("protocol error: expected the answer to frame %d, got %q (killed)", seq+i, clip(line))), nil
		}
		answers = append(answers, answer)
	}
	// Every frame answered: how the driver exits does not matter (the
	// watchdog still kills one that does not).
	<-writeDone
	cmd.Wait()
	return answers, "", nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without "\n") of at most max bytes.
func readLine(r *bufio.Reader, max int) (string, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 {
			return "", errLineTooLong
		}
		buf = append(buf, chunk...)
		if err == nil {
			return string(buf[:len(buf)-1]), nil
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
	}
}

// deathReason says how a driver process ended: why the runner killed it,
// else its exit status or signal; then the last line of its stderr that
// names an error (a Python traceback's last line, node's error line).
func deathReason(killedFor string, werr error, stderr string) string {
	var parts []string
	var ee *exec.ExitError
	switch {
	case killedFor != "":
		parts = append(parts, killedFor)
	case errors.As(werr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			parts = append(parts, "killed by signal "+ws.Signal().String())
		} else {
			parts = append(parts, fmt.Sprintf("exit status %d", ee.ExitCode()))
		}
	case werr != nil:
		parts = append(parts, werr.Error())
	default:
		parts = append(parts, "it exited (status 0) before answering")
	}
	if l := errorLine(stderr); l != "" {
		parts = append(parts, l)
	}
	return strings.Join(parts, ": ")
}

// errorLine picks the line of a crashed process's stderr that says what
// went wrong: the last one that is not indented (stack frames), not a
// caret marker and not node's version banner.
func errorLine(stderr string) string {
	lines := strings.Split(stderr, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\r")
		t := strings.TrimSpace(l)
		if t == "" || l[0] == ' ' || l[0] == '\t' || strings.Trim(t, "^~") == "" || strings.HasPrefix(t, "Node.js v") {
			continue
		}
		return clip(t)
	}
	return ""
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:297] + "..."
	}
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if t.b.Len() > 2*t.max {
		keep := t.b.Bytes()[t.b.Len()-t.max:]
		t.b = *bytes.NewBuffer(append([]byte(nil), keep...))
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.b.String()
	if len(s) > t.max {
		s = s[len(s)-t.max:]
	}
	return s
}
