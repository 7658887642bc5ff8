package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/dshgen/dshgen/gen/wire/tap"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// tapFlags are the flags of `dshgen tap`.
type tapFlags struct {
	capture       string
	captureMsDec  int
	report        string
	format        string
	noValidate    bool
	failOn        string
	queueBytes    int64
	maxFrameBytes int64
	drainTimeout  time.Duration
	src           schemaFlags
	pol           policyFlags
}

var tapOpts tapFlags

// tapForwardedSignals are passed on to the server (the tap exits when the
// server does, not on a signal of its own).
var tapForwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// tapKeepFindings bounds the findings held for a json, junit or github
// report (the live formats hold none).
const tapKeepFindings = 100000

var tapCmd = &cobra.Command{
	Use:   "tap [flags] -- CMD [ARGS...]",
	Short: "Run CMD as the server behind a transparent stdio proxy that validates and captures every frame",
	Long: `tap starts CMD as a JSON-RPC server and sits between it and the client on
its own stdio: the tap's stdin goes to CMD's stdin and CMD's stdout to the
tap's stdout, byte for byte and at once; CMD's stderr is inherited untouched.
Every line of both directions is validated beside the traffic (never in its
way) and, with --capture, written to an interleaved capture that
'dshgen validate' reads back. The tap's own output (findings, notices, the
summary) goes to stderr or --report, never to stdout.

The tap exits with CMD's exit status (128+N when signal N killed it).
SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to CMD;
EOF on stdin closes CMD's stdin; once CMD has exited and its stdout is
drained the tap exits, even if the client still holds stdin open.

When validation falls more than --queue-bytes behind the traffic, the tap
stops validating (both directions) and says so once (tap.validation-overflow);
forwarding and the capture never wait for the validator.

Which schema: --revision NAME (a shipped revision) or --schema FILE. The
shipped revisions:
` + revisionHelp() + `The default is 0.0.1 (the npm runtime's revision, the one existing captures
and CI jobs were checked against); the PyPI runtime speaks 0.2.1 (--revision
0.2.1), and its traffic checked against 0.0.1 gets findings that say so. The
summary says which revision validation used. --baseline, --write-baseline
and --rule work as for validate (gen/wire/validate/RULES.md).`,
	Example: `  dshgen tap --capture run.log -- node server.js
  DSH_SERVER_CMD='dshgen tap --capture /tmp/$DSH_SCENARIO.log --report /tmp/$DSH_SCENARIO.report -- ../shared/real-runtime/start-runtime.sh'`,
	Args:                  cobra.ArbitraryArgs,
	DisableFlagsInUseLine: true,
	RunE:                  runTap,
}

func init() {
	f := tapCmd.Flags()
	// Flags end at the first argument that is not a flag (or at "--"), so
	// CMD's own flags are never parsed as the tap's.
	f.SetInterspersed(false)
	f.StringVar(&tapOpts.capture, "capture", "", "write the interleaved capture (DIR<TAB>ms<TAB>raw line) to `FILE`, from the first byte")
	f.IntVar(&tapOpts.captureMsDec, "capture-ms-decimals", 0, "decimals after the milliseconds in the capture (0: integers, as in the real-capture fixtures)")
	f.StringVar(&tapOpts.report, "report", "", "write findings, notices and the summary to `FILE` instead of stderr")
	choiceFlag(tapCmd, &tapOpts.format, "format", "text", tapFormats, "report format: text or jsonl (live, one line per finding/notice, then the summary), or json, junit, github (the validate report, written when the tap ends)")
	f.BoolVar(&tapOpts.noValidate, "no-validate", false, "only forward (and capture); do not validate")
	choiceFlag(tapCmd, &tapOpts.failOn, "fail-on", "none", tapFailOn, "exit 1 when CMD exited 0 but validation found: error, warning (or worse), none")
	f.Int64Var(&tapOpts.queueBytes, "queue-bytes", tap.DefaultQueueBytes, "bytes of traffic that may wait for validation before validation stops (see the overflow policy)")
	f.Int64Var(&tapOpts.maxFrameBytes, "max-frame-bytes", tap.DefaultMaxFrameBytes, "longest line that is validated; longer ones are forwarded and captured, and reported")
	f.DurationVar(&tapOpts.drainTimeout, "drain-timeout", tap.DefaultDrainTimeout, "after CMD exited, stop reading its stdout after this long without data (a process it started may hold it open)")
	addSchemaFlags(tapCmd, &tapOpts.src, schema.Default, defaultRevisionWhy)
	addPolicyFlags(tapCmd, &tapOpts.pol)
	rootCmd.AddCommand(tapCmd)
}

func runTap(cmd *cobra.Command, args []string) error {
	o := tapOpts
	if os.Getenv("GOMAXPROCS") == "" && !o.noValidate {
		// Headroom for the validator's low-priority thread (gen/wire/tap
		// prio_linux.go): with a P per core, the forwarding goroutines would
		// wait for the P that the OS-starved validator holds.
		runtime.GOMAXPROCS(runtime.NumCPU() + 2)
	}
	if len(args) == 0 {
		return usageErr(errors.New("tap: no server command (usage: dshgen tap [flags] -- CMD [ARGS...])"))
	}
	vopts, bw, err := o.pol.options(validate.Options{})
	if err != nil {
		return usageErr(fmt.Errorf("tap: %w", err))
	}
	if o.queueBytes <= 0 || o.maxFrameBytes <= 0 || o.drainTimeout <= 0 || o.captureMsDec < 0 || o.captureMsDec > 6 {
		return usageErr(errors.New("tap: --queue-bytes, --max-frame-bytes and --drain-timeout must be positive, --capture-ms-decimals 0..6"))
	}

	var reportW io.Writer = os.Stderr
	if o.report != "" {
		f, err := os.Create(o.report)
		if err != nil {
			return usageErr(fmt.Errorf("tap: --report: %w", err))
		}
		defer f.Close()
		reportW = f
	}
	// Live formats put findings, notices and the summary in the report as
	// they happen; the document formats (json, junit, github) write the
	// validate report at the end, and the tap's own lines go to stderr.
	live := o.format == "text" || o.format == "jsonl"
	repW := reportW
	if !live {
		repW = os.Stderr
	}
	rep := newTapReporter(repW, o.format == "jsonl")

	cfg := tap.Config{
		Command:           args,
		Stdin:             os.Stdin,
		Stdout:            os.Stdout,
		CloseStdout:       true,
		Stderr:            os.Stderr,
		CaptureMsDecimals: o.captureMsDec,
		QueueBytes:        o.queueBytes,
		MaxFrameBytes:     o.maxFrameBytes,
		DrainTimeout:      o.drainTimeout,
		Notify:            rep.notice,
	}
	if o.capture != "" {
		f, err := os.Create(o.capture)
		if err != nil {
			return usageErr(fmt.Errorf("tap: --capture: %w", err))
		}
		defer f.Close()
		cfg.Capture = f
	}
	streamName := "tap"
	if o.capture != "" {
		streamName = o.capture
	}
	var sink *lazySink
	var checkedAgainst string // set by load, read once the sink is ready
	if !o.noValidate {
		// Loading the schema takes ~10 ms of CPU (BENCH.md): the default schema is loaded
		// beside the starting server (frames wait in the validation queue
		// meanwhile); a --schema, --overlay or --allow-ref-dir is loaded
		// first, so that a bad one is
		// a usage error before anything runs.
		vc := tap.ValidatorConfig{Name: streamName, CaptureMsDecimals: o.captureMsDec, MaxFrameBytes: o.maxFrameBytes}
		if live {
			vc.OnFinding = rep.finding
		} else {
			vc.Keep = tapKeepFindings
		}
		load := func() (*tap.ValidatorSink, error) {
			m, err := o.src.loadForValidation(cmd.ErrOrStderr())
			if err != nil {
				return nil, err
			}
			v, err := validate.New(m, vopts)
			if err != nil {
				return nil, err
			}
			checkedAgainst = againstText(m)
			hints := newRevisionHints(m, vopts)
			vc := vc
			vc.Annotate = func(f *validate.Finding) {
				hints.annotate(f)
				if bw != nil {
					bw.Add(*f)
				}
			}
			return tap.NewValidatorSink(v, vc), nil
		}
		sink = &lazySink{ready: make(chan struct{})}
		if err := o.src.check(); err != nil {
			return usageErr(fmt.Errorf("tap: %w", err))
		}
		if o.src.fileGiven() {
			s, err := load()
			if err != nil {
				return usageErr(fmt.Errorf("tap: %w", err))
			}
			sink.sink = s
			close(sink.ready)
		} else {
			go func() {
				var s *tap.ValidatorSink
				var err error
				tap.LowPriority(func() { s, err = load() })
				if err != nil {
					rep.notice(tap.Notice{Severity: "error", Rule: "tap.validator", Message: "validation off: " + err.Error()})
				}
				sink.sink = s
				close(sink.ready)
			}()
		}
		cfg.Sink = sink
	}

	// Signals for the server; SIGPIPE subscribed so that a client that
	// closes its end makes writes to stdout fail instead of killing the tap.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, tapForwardedSignals...)
	defer signal.Stop(sigs)
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	cfg.Signals = sigs

	res, err := tap.Run(context.Background(), cfg)
	// From here on a signal ends the tap the default way.
	signal.Reset(tapForwardedSignals...)
	defer rep.close()
	if err != nil {
		code := 127 // the shell's "command not found"
		if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, os.ErrNotExist) {
			code = 126 // found but could not be run
		}
		return &exitError{Code: code, Err: fmt.Errorf("tap: starting %s: %w", args[0], err)}
	}
	errs, warns := 0, 0
	validated := false
	if sink != nil {
		if vs := sink.get(); vs != nil {
			validated = true
			sum := vs.Summary()
			errs, warns = sum.Errors, sum.Warnings
			if !live {
				if n := vs.NotKept(); n > 0 {
					rep.notice(tap.Notice{Severity: "warning", Rule: "tap.findings-not-kept", AtMs: float64(res.Elapsed) / 1e6,
						Message: fmt.Sprintf("%s after the first %d are counted but not in the %s report", validate.Count(n, "finding"), tapKeepFindings, o.format)})
				}
				var r validate.Report
				r.Add(streamName, vs.Result())
				var doc strings.Builder
				validate.WriteReport(&doc, o.format, &r)
				if o.report != "" {
					io.WriteString(reportW, doc.String())
				} else {
					rep.lineAlways(doc.String())
				}
			}
		}
	}
	if validated && vopts.Baseline != nil {
		for _, f := range vopts.Baseline.Stale() {
			errs++
			if live {
				rep.finding(f)
			} else {
				rep.lineAlways(validate.TextLine(&f) + "\n")
			}
		}
	}
	if err := o.pol.saveBaseline(bw); err != nil {
		rep.notice(tap.Notice{Severity: "error", Rule: "tap.baseline", Message: err.Error()})
	}
	rep.against = checkedAgainst
	rep.summary(res, validated, errs, warns)
	code := res.ExitCode
	if code == 0 {
		switch {
		case o.failOn == "error" && errs > 0, o.failOn == "warning" && errs+warns > 0:
			code = exitFindings
		}
	}
	if code != 0 {
		return &exitError{Code: code}
	}
	return nil
}

// tapReporter writes the tap's report lines from a goroutine of its own,
// through a buffer of at most tapReportBuffer bytes: a report writer that
// blocks (a stderr pipe nobody reads) never holds up the validator, and the
// tap still exits (close gives up after tapReportFlush). Lines that do not
// fit are counted and dropped. Safe for concurrent use.
type tapReporter struct {
	w    io.Writer
	json bool
	// against names the revision or schema validation checked against.
	against string

	mu      sync.Mutex
	pending [][]byte
	size    int
	dropped int
	closed  bool
	wake    chan struct{}
	done    chan struct{}
}

const (
	tapReportBuffer = 8 << 20
	tapReportFlush  = 5 * time.Second
)

func newTapReporter(w io.Writer, json bool) *tapReporter {
	r := &tapReporter{w: w, json: json, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go r.run()
	return r
}

func (r *tapReporter) run() {
	defer close(r.done)
	for {
		r.mu.Lock()
		batch, closed := r.pending, r.closed
		r.pending, r.size = nil, 0
		r.mu.Unlock()
		for _, b := range batch {
			r.w.Write(b)
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-r.wake
	}
}

// line queues one report line as is.
func (r *tapReporter) line(s string) { r.queue(s, false) }

// lineAlways queues s even when the buffer is full (the summary and the
// final report document).
func (r *tapReporter) lineAlways(s string) { r.queue(s, true) }

func (r *tapReporter) queue(s string, always bool) {
	r.mu.Lock()
	if r.closed || (!always && r.size+len(s) > tapReportBuffer) {
		r.dropped++
		r.mu.Unlock()
		return
	}
	r.pending = append(r.pending, []byte(s))
	r.size += len(s)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// close writes what is queued, waiting at most tapReportFlush, and returns
// false if that was not enough.
func (r *tapReporter) close() bool {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	select {
	case <-r.done:
		return true
	case <-time.After(tapReportFlush):
		return false
	}
}

// droppedLines returns how many lines did not fit into the buffer.
func (r *tapReporter) droppedLines() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// finding writes one validation finding as it is found.
func (r *tapReporter) finding(f validate.Finding) {
	if r.json {
		b, _ := json.Marshal(f)
		r.line(`{"kind":"finding",` + string(b[1:]) + "\n")
		return
	}
	r.line(validate.TextLine(&f) + "\n")
}

func (r *tapReporter) notice(n tap.Notice) {
	if r.json {
		b, _ := json.Marshal(struct {
			Kind     string  `json:"kind"`
			Rule     string  `json:"rule"`
			Severity string  `json:"severity"`
			Dir      string  `json:"direction,omitempty"`
			AtMs     float64 `json:"atMs"`
			Message  string  `json:"message"`
		}{"tap", n.Rule, n.Severity, n.Dir, n.AtMs, n.Message})
		r.line(string(b) + "\n")
		return
	}
	where := ""
	if n.Dir != "" {
		where = " " + n.Dir
	}
	r.line(fmt.Sprintf("dshgen tap: %s %s [%.1f ms%s]: %s\n", n.Severity, n.Rule, n.AtMs, where, n.Message))
}

func (r *tapReporter) summary(res *tap.Result, validated bool, errs, warns int) {
	exit := fmt.Sprintf("exit %d", res.ExitCode)
	if res.Signal != 0 {
		exit = fmt.Sprintf("killed by signal %d, %v (exit %d)", int(res.Signal), res.Signal, res.ExitCode)
	}
	val := "validation off"
	switch {
	case validated && res.ValidationComplete:
		val = fmt.Sprintf("validation against %s: %s, %s", r.against, validate.Count(errs, "error"), validate.Count(warns, "warning"))
	case validated && res.ClientToServer.Unvalidated+res.ServerToClient.Unvalidated == 0:
		val = fmt.Sprintf("validation INCOMPLETE (stopped early, see the tap notices): %s, %s", validate.Count(errs, "error"), validate.Count(warns, "warning"))
	case validated:
		val = fmt.Sprintf("validation INCOMPLETE (overflow, %s not validated: C->S %d, S->C %d): %s, %s",
			validate.Count(int(res.ClientToServer.Unvalidated+res.ServerToClient.Unvalidated), "byte"),
			res.ClientToServer.Unvalidated, res.ServerToClient.Unvalidated, validate.Count(errs, "error"), validate.Count(warns, "warning"))
	}
	dropped := r.droppedLines()
	if r.json {
		b, _ := json.Marshal(struct {
			Kind               string       `json:"kind"`
			ExitCode           int          `json:"exitCode"`
			Signal             int          `json:"signal,omitempty"`
			ServerExitedMs     float64      `json:"serverExitedMs"`
			ElapsedMs          float64      `json:"elapsedMs"`
			ClientToServer     tap.DirStats `json:"clientToServer"`
			ServerToClient     tap.DirStats `json:"serverToClient"`
			Validated          bool         `json:"validated"`
			ValidationComplete bool         `json:"validationComplete"`
			Errors             int          `json:"errors"`
			Warnings           int          `json:"warnings"`
			ReportLinesDropped int          `json:"reportLinesDropped,omitempty"`
			MaxRSSKiB          int64        `json:"tapMaxRssKiB"`
			Against            string       `json:"checkedAgainst,omitempty"`
		}{"summary", res.ExitCode, int(res.Signal), float64(res.ServerExited) / 1e6, float64(res.Elapsed) / 1e6, res.ClientToServer, res.ServerToClient,
			validated, res.ValidationComplete, errs, warns, dropped, selfMaxRSS(), r.against})
		r.lineAlways(string(b) + "\n")
		return
	}
	drop := ""
	if dropped > 0 {
		drop = fmt.Sprintf("; %s dropped (the report writer could not keep up)", validate.Count(dropped, "report line"))
	}
	r.lineAlways(fmt.Sprintf("dshgen tap: C->S %s, S->C %s; %s; server %s after %s%s\n",
		dirSummary(res.ClientToServer), dirSummary(res.ServerToClient), val, exit, res.ServerExited.Round(time.Millisecond), drop))
}

// dirSummary is one direction's counts in the text summary: "6 lines
// (612 bytes)", "7 lines (640 bytes, the last unterminated)".
func dirSummary(d tap.DirStats) string {
	last := ""
	if d.Unterminated {
		last = ", the last unterminated"
	}
	return fmt.Sprintf("%s (%s%s)", validate.Count(int(d.Lines), "line"), validate.Count(int(d.Bytes), "byte"), last)
}

// lazySink is the tap's Sink while the validator is being built: calls wait
// until it is ready (they come from the tap's validation goroutine, never
// from the forwarding path) and are dropped if building it failed.
type lazySink struct {
	ready chan struct{}
	sink  *tap.ValidatorSink
}

func (l *lazySink) get() *tap.ValidatorSink {
	<-l.ready
	return l.sink
}

func (l *lazySink) Frame(dir string, line []byte, terminated bool, at time.Duration) {
	if s := l.get(); s != nil {
		s.Frame(dir, line, terminated, at)
	}
}

func (l *lazySink) Oversize(dir string, size int64, terminated bool, at time.Duration) {
	if s := l.get(); s != nil {
		s.Oversize(dir, size, terminated, at)
	}
}

func (l *lazySink) End(dir string, eof bool, at time.Duration) {
	if s := l.get(); s != nil {
		s.End(dir, eof, at)
	}
}

func (l *lazySink) Close(complete bool) {
	if s := l.get(); s != nil {
		s.Close(complete)
	}
}

// selfMaxRSS returns the tap's own peak resident set size in KiB: VmHWM of
// /proc/self/status (getrusage's ru_maxrss is no good here: on Linux it
// also covers the image the process had before exec, i.e. whatever
// spawned the tap), 0 if unknown.
func selfMaxRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
