// Package taptest holds the helpers that the tests and benchmarks of
// gen/wire/tap and `dshgen tap` share: helper servers run by a test binary,
// deterministic hostile byte streams, and a strict capture parser.
//
// A test binary becomes a helper server by calling HelperMain from its
// TestMain when the environment variable HelperEnv is set:
//
//	func TestMain(m *testing.M) {
//		if mode := os.Getenv(taptest.HelperEnv); mode != "" {
//			os.Exit(taptest.HelperMain(mode))
//		}
//		os.Exit(m.Run())
//	}
package taptest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// HelperEnv names the environment variable that selects a helper mode.
const HelperEnv = "TAP_HELPER"

// HelperCmd returns the argv and environment that start the current test
// binary (whose TestMain calls HelperMain) as helper server mode, with the
// extra environment entries env.
func HelperCmd(mode string, env ...string) ([]string, []string) {
	return []string{os.Args[0], "-test.run=^$"}, append(append(os.Environ(), HelperEnv+"="+mode), env...)
}

// HelperMain runs helper server mode and returns its exit status. Modes:
//
//	sha-and-emit  reads stdin to EOF, writes its sha256 and length to
//	              $TAP_SHA_FILE; meanwhile writes RandomStream($TAP_SEED,
//	              $TAP_LINES) to stdout; exits $TAP_EXIT (default 0)
//	flood         writes $TAP_FLOOD_BYTES of short JSON lines to stdout, then exits 0
//	never-read    sleeps $TAP_SLEEP_MS, writes "bye\n", exits 3 (never reads stdin)
//	kill-self     writes "x\n" then kills itself with signal $TAP_SIGNAL
//	wait-signal   writes "ready\n", waits for SIGTERM/SIGINT, exits 7 on it
//	              ($TAP_TRAP=0: default disposition, so the signal kills it)
//	emit-file     writes the file $TAP_FILE to stdout in random-sized
//	              pieces while draining stdin, then exits 0
//	replay-log    replays the server side of the interleaved capture
//	              $TAP_FILE causally: before each S->C line it reads every
//	              C->S line recorded before it from stdin; exits 0
//	echo          copies stdin to stdout line by line, flushing each line
//	respond       answers each request line at once with a valid response
//	              carrying its id (initialize: serverInfo; session/prompt: a
//	              messageId; anything else: {}), one write per response
//	replay        answers one initialize request (if $TAP_WAIT_INIT=1),
//	              then writes the session.* notification lines of the files
//	              in $TAP_REPLAY_FILES (colon-separated) $TAP_REPEAT times,
//	              each repetition under new session ids, and exits 0
func HelperMain(mode string) int {
	envInt := func(k string, def int) int {
		if v := os.Getenv(k); v != "" {
			n, err := strconv.Atoi(v)
			if err == nil {
				return n
			}
		}
		return def
	}
	switch mode {
	case "sha-and-emit":
		done := make(chan struct{})
		go func() {
			defer close(done)
			h := sha256.New()
			n, _ := io.Copy(h, os.Stdin)
			os.WriteFile(os.Getenv("TAP_SHA_FILE"), []byte(fmt.Sprintf("%s %d", hex.EncodeToString(h.Sum(nil)), n)), 0o644)
		}()
		out := RandomStream(uint64(envInt("TAP_SEED", 1)), envInt("TAP_LINES", 20), envInt("TAP_HUGE", 0) == 1)
		if _, err := WriteChunked(os.Stdout, out, uint64(envInt("TAP_SEED", 1))); err != nil {
			return 9
		}
		<-done
		return envInt("TAP_EXIT", 0)
	case "flood":
		total := envInt("TAP_FLOOD_BYTES", 64<<20)
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		line := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}}}` + "\n")
		for n := 0; n < total; n += len(line) {
			if _, err := w.Write(line); err != nil {
				return 9
			}
		}
		if err := w.Flush(); err != nil {
			return 9
		}
		return 0
	case "never-read":
		time.Sleep(time.Duration(envInt("TAP_SLEEP_MS", 100)) * time.Millisecond)
		os.Stdout.WriteString("bye\n")
		return 3
	case "kill-self":
		os.Stdout.WriteString("x\n")
		syscall.Kill(os.Getpid(), syscall.Signal(envInt("TAP_SIGNAL", 9)))
		time.Sleep(10 * time.Second)
		return 99
	case "wait-signal":
		c := make(chan os.Signal, 1)
		if os.Getenv("TAP_TRAP") != "0" {
			signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
		}
		os.Stdout.WriteString("ready\n")
		select {
		case <-c:
			return 7
		case <-time.After(20 * time.Second):
			return 98
		}
	case "emit-file":
		b, err := os.ReadFile(os.Getenv("TAP_FILE"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
		if _, err := WriteChunked(os.Stdout, b, uint64(len(b))); err != nil {
			return 9
		}
		<-done
		return 0
	case "replay-log":
		b, err := os.ReadFile(os.Getenv("TAP_FILE"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		in := bufio.NewReader(os.Stdin)
		for _, rec := range bytes.SplitAfter(b, []byte{'\n'}) {
			f := bytes.SplitN(rec, []byte{'\t'}, 3)
			if len(f) < 3 {
				continue
			}
			switch string(f[0]) {
			case "C->S":
				if _, err := in.ReadBytes('\n'); err != nil {
					return 8
				}
			case "S->C":
				if _, err := os.Stdout.Write(f[2]); err != nil {
					return 9
				}
			}
		}
		io.Copy(io.Discard, in)
		return 0
	case "respond":
		r := bufio.NewReaderSize(os.Stdin, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if _, werr := os.Stdout.Write(Respond(line)); werr != nil {
					return 9
				}
			}
			if err != nil {
				return 0
			}
		}
	case "replay":
		if os.Getenv("TAP_WAIT_INIT") == "1" {
			line, err := bufio.NewReader(os.Stdin).ReadBytes('\n')
			if err != nil {
				return 8
			}
			os.Stdout.Write(Respond(line))
		}
		var notes [][]byte
		for _, f := range strings.Split(os.Getenv("TAP_REPLAY_FILES"), ":") {
			b, err := os.ReadFile(f)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			for _, l := range bytes.SplitAfter(b, []byte{'\n'}) {
				if bytes.Contains(l, []byte(`"method":"session.`)) {
					notes = append(notes, l)
				}
			}
		}
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for k := 0; k < envInt("TAP_REPEAT", 1); k++ {
			pre := []byte(`"sessionId":"r` + strconv.Itoa(k) + `-`)
			for _, l := range notes {
				w.Write(bytes.ReplaceAll(l, []byte(`"sessionId":"`), pre))
			}
		}
		if err := w.Flush(); err != nil {
			return 9
		}
		return 0
	case "echo":
		r := bufio.NewReaderSize(os.Stdin, 64<<10)
		for {
			line, err := r.ReadSlice('\n')
			if len(line) > 0 {
				if _, werr := os.Stdout.Write(line); werr != nil {
					return 9
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return 0
			}
		}
	}
	fmt.Fprintln(os.Stderr, "unknown TAP_HELPER mode", mode)
	return 2
}

// Respond returns the response line of helper mode "respond" for request
// line req: a JSON-RPC result with req's id.
func Respond(req []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(req, &m) != nil || m.ID == nil {
		return nil
	}
	result := `{}`
	switch m.Method {
	case "initialize":
		result = `{"serverInfo":{"name":"taptest-respond","version":"0.0.1"}}`
	case "session/prompt":
		result = `{"messageId":"5f0c8a52-3c1e-4c59-9d5e-0e6c1b7f9a10"}`
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + "}\n")
}

// WriteChunked writes b in random-sized pieces, to exercise chunk
// boundaries anywhere in a line.
func WriteChunked(w io.Writer, b []byte, seed uint64) (int, error) {
	rng := rand.New(rand.NewPCG(seed, 99))
	n := 0
	for len(b) > 0 {
		k := 1 + rng.IntN(100000)
		if k > len(b) {
			k = len(b)
		}
		m, err := w.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// RandomStream returns a deterministic hostile byte stream: invalid UTF-8,
// binary garbage with NULs, CR and CRLF, empty lines, JSON-looking lines,
// long lines (up to 2 MiB, and one of 16 MiB + 3 bytes when huge), and
// maybe no final newline.
func RandomStream(seed uint64, lines int, huge bool) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	hugeAt := -1
	if huge {
		hugeAt = rng.IntN(lines)
	}
	for i := 0; i < lines; i++ {
		if i == hugeAt {
			b.WriteString(`{"jsonrpc":"2.0","method":"x","params":"`)
			b.Write(bytes.Repeat([]byte("€😀x"), (16<<20)/8+1))
			b.WriteString("\"}\n")
			continue
		}
		switch rng.IntN(8) {
		case 0:
			// empty line
		case 1:
			b.WriteString("\r")
		case 2:
			b.WriteString("  \t ")
		case 3:
			n := rng.IntN(2 << 20)
			for j := 0; j < n; j++ {
				b.WriteByte(byte('A' + j%26))
			}
		case 4:
			b.WriteString("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r")
		case 5:
			b.WriteString(`{"jsonrpc":"2.0","id":"req_` + strconv.Itoa(i) + `","method":"initialize","params":{"cwd":"/tmp"}}`)
		default:
			n := rng.IntN(5000)
			for j := 0; j < n; j++ {
				c := byte(rng.IntN(256))
				if c == '\n' {
					c = 0xc3 // a lone lead byte: invalid UTF-8
				}
				b.WriteByte(c)
			}
		}
		b.WriteByte('\n')
	}
	if rng.IntN(2) == 0 {
		b.WriteString("final fragment \xff\x00 without newline")
	}
	return b.Bytes()
}

// SHA256 returns the lowercase hex sha256 of b.
func SHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ParseCapture splits an interleaved capture back into the two byte
// streams (index 0 C->S, 1 S->C) and returns the records' tags in order. It
// is strict: any record not in the format, or a time stamp that goes back,
// is an error.
func ParseCapture(capture []byte) (streams [2][]byte, tags []string, err error) {
	r := bufio.NewReader(bytes.NewReader(capture))
	var last float64
	for n := 1; ; n++ {
		rec, err := r.ReadBytes('\n')
		if err == io.EOF && len(rec) == 0 {
			return streams, tags, nil
		}
		if err != nil {
			return streams, tags, fmt.Errorf("record %d: no newline at the end: %.80q", n, rec)
		}
		tag, rest, ok := bytes.Cut(rec, []byte{'\t'})
		ms, body, ok2 := bytes.Cut(rest, []byte{'\t'})
		if !ok || !ok2 {
			return streams, tags, fmt.Errorf("record %d: not DIR<TAB>MS<TAB>line: %.80q", n, rec)
		}
		v, err := strconv.ParseFloat(string(ms), 64)
		if err != nil || strings.ContainsAny(string(ms), "eE+-") {
			return streams, tags, fmt.Errorf("record %d: bad time %q", n, ms)
		}
		if v < last {
			return streams, tags, fmt.Errorf("record %d: time goes back: %v after %v", n, v, last)
		}
		last = v
		tags = append(tags, string(tag))
		base, suffix, _ := strings.Cut(string(tag), "(")
		d := 0
		switch base {
		case "C->S":
		case "S->C":
			d = 1
		default:
			return streams, tags, fmt.Errorf("record %d: bad tag %q", n, tag)
		}
		switch suffix {
		case "":
			streams[d] = append(streams[d], body...)
		case "no-newline)":
			streams[d] = append(streams[d], body[:len(body)-1]...)
		case "EOF)":
			if len(body) != 1 {
				return streams, tags, fmt.Errorf("record %d: EOF record with body %.80q", n, body)
			}
		default:
			return streams, tags, fmt.Errorf("record %d: bad tag %q", n, tag)
		}
	}
}
