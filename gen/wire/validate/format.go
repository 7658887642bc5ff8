package validate

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Formats lists the output formats of WriteReport.
var Formats = []string{"text", "json", "junit", "github"}

// StreamReport is one input's findings in a report.
type StreamReport struct {
	Name     string    `json:"name"`
	Frames   int       `json:"frames"`
	Capture  bool      `json:"capture,omitempty"`
	Findings []Finding `json:"findings"`
}

// Report is everything one run found, in input order.
type Report struct {
	Streams []StreamReport `json:"streams"`
	Summary Summary        `json:"summary"`
}

// Add appends one stream's result and counts it.
func (r *Report) Add(name string, res Result) {
	fs := res.Findings
	if fs == nil {
		fs = []Finding{}
	}
	r.Streams = append(r.Streams, StreamReport{Name: name, Frames: res.Frames, Capture: res.Capture, Findings: fs})
	r.Summary.Streams++
	r.Summary.Frames += res.Frames
	r.Summary.Add(fs)
}

// WriteReport writes r in format ("text", "json", "junit" or "github").
// The text and github formats end with the summary line; json carries the
// summary as a member; junit has the counts in its attributes.
func WriteReport(w io.Writer, format string, r *Report) error {
	rw, err := NewReportWriter(w, format)
	if err != nil {
		return err
	}
	for _, s := range r.Streams {
		rw.BeginStream(s.Name)
		for i := range s.Findings {
			rw.Finding(s.Findings[i])
		}
		rw.EndStream(s.Frames, s.Capture)
	}
	return rw.Close()
}

// ReportWriter writes a report while the inputs are validated, so that no
// format holds the findings (`dshgen validate` on any input runs in
// bounded memory):
//   - text and github: one line per finding as it comes, then the summary;
//   - json: the document of WriteReport, written as it goes; a stream's
//     "frames" and "capture" follow its "findings" (they are known at
//     its end), the "summary" comes last;
//   - junit: the counts are attributes at the top of the document and of
//     each testsuite, known only at the end, so the testcases go to a
//     temporary file (unlinked at once) and are copied out behind their
//     counts when the input ends; memory holds one testcase.
//
// Order: within a stream, findings in the order they are given (see
// ValidateStream); streams in the order they are begun. Calls after an
// error do nothing; Close returns the first error.
type ReportWriter struct {
	w      *bufio.Writer
	format string
	sum    Summary
	err    error

	// the current stream
	name     string
	nFind    int
	streamFr int
	sumAtBeg Summary

	// junit
	suites   *os.File // finished testsuites, behind the root's counts
	cases    *os.File // the current suite's testcases
	cur      *junitCase
	curLine  int
	suiteT   int
	suiteF   int
	totalT   int
	totalF   int
	junitOut *bufio.Writer
}

// NewReportWriter starts a report in format.
func NewReportWriter(w io.Writer, format string) (*ReportWriter, error) {
	switch format {
	case "":
		format = "text"
	case "text", "json", "junit", "github":
	default:
		return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	rw := &ReportWriter{w: bufio.NewWriterSize(w, 64<<10), format: format}
	switch format {
	case "json":
		rw.str("{\n  \"streams\": [")
	case "junit":
		rw.suites = rw.tempFile()
	}
	return rw, nil
}

func (rw *ReportWriter) str(s string) {
	if rw.err == nil {
		_, rw.err = rw.w.WriteString(s)
	}
}

func (rw *ReportWriter) tempFile() *os.File {
	f, err := os.CreateTemp("", ".dshgen-junit-*")
	if err != nil {
		if rw.err == nil {
			rw.err = fmt.Errorf("junit report: %w", err)
		}
		return nil
	}
	os.Remove(f.Name()) // the open file lives on; nothing is left behind
	return f
}

// BeginStream starts the findings of one input.
func (rw *ReportWriter) BeginStream(name string) {
	rw.name, rw.nFind, rw.sumAtBeg = name, 0, rw.sum
	switch rw.format {
	case "json":
		if rw.sum.Streams > 0 {
			rw.str(",")
		}
		rw.str("\n    {\n      \"name\": " + jsonString(name) + ",\n      \"findings\": [")
	case "junit":
		rw.cases = rw.tempFile()
		if rw.cases != nil {
			rw.junitOut = bufio.NewWriterSize(rw.cases, 64<<10)
		}
		rw.cur, rw.curLine, rw.suiteT, rw.suiteF = nil, -1, 0, 0
	}
}

// Finding writes one finding of the current stream and counts it.
func (rw *ReportWriter) Finding(f Finding) {
	rw.sum.Add([]Finding{f})
	switch rw.format {
	case "text":
		rw.str(TextLine(&f) + "\n")
	case "github":
		cmd := "error"
		switch {
		case f.Baselined, f.Severity == Info:
			cmd = "notice"
		case f.Severity == Warning:
			cmd = "warning"
		}
		rw.str(fmt.Sprintf("::%s file=%s,line=%d,title=%s::%s\n", cmd, ghProperty(f.Stream), f.Line, ghProperty(f.Rule), ghData(f.Detail())))
	case "json":
		b, err := json.Marshal(f)
		if err != nil && rw.err == nil {
			rw.err = err
		}
		if rw.nFind > 0 {
			rw.str(",")
		}
		rw.str("\n        " + string(b))
	case "junit":
		rw.junitFinding(&f)
	}
	rw.nFind++
}

// EndStream ends the current input: frames is its frame count, capture
// whether it was an interleaved capture.
func (rw *ReportWriter) EndStream(frames int, capture bool) {
	rw.sum.Streams++
	rw.sum.Frames += frames
	switch rw.format {
	case "json":
		if rw.nFind > 0 {
			rw.str("\n      ")
		}
		rw.str("],\n      \"frames\": " + strconv.Itoa(frames))
		if capture {
			rw.str(",\n      \"capture\": true")
		}
		rw.str("\n    }")
	case "junit":
		rw.junitEndStream(frames)
	}
}

// SetAgainst names what the run checks against (Summary.Revision and
// Schema); call it before Close.
func (rw *ReportWriter) SetAgainst(revision, schema string) {
	rw.sum.Revision, rw.sum.Schema = revision, schema
}

// Summary returns the counts so far.
func (rw *ReportWriter) Summary() Summary { return rw.sum }

// Close writes the end of the report (the summary) and flushes.
func (rw *ReportWriter) Close() error {
	switch rw.format {
	case "text", "github":
		line := "dshgen validate: " + rw.sum.String()
		if a := rw.sum.Against(); a != "" {
			line += "; checked against " + a
		}
		rw.str(line + "\n")
	case "json":
		b, _ := json.MarshalIndent(rw.sum, "  ", "  ")
		if rw.sum.Streams > 0 {
			rw.str("\n  ")
		}
		rw.str("],\n  \"summary\": " + string(b) + "\n}\n")
	case "junit":
		rw.str(xml.Header)
		rw.str(fmt.Sprintf("<testsuites name=%s tests=\"%d\" failures=\"%d\">\n", xmlAttr("dshgen validate"), rw.totalT, rw.totalF))
		rw.copyFrom(rw.suites)
		rw.str("</testsuites>\n")
	}
	if rw.err == nil {
		rw.err = rw.w.Flush()
	}
	return rw.err
}

func (rw *ReportWriter) copyFrom(f *os.File) {
	if f == nil {
		return
	}
	defer f.Close()
	if rw.err != nil {
		return
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		rw.err = err
		return
	}
	_, rw.err = io.Copy(rw.w, f)
}

// junitFinding adds f to the testcase of its line (one testcase per line
// with findings: a failure when one of them is an error; warnings and
// infos go to system-out).
func (rw *ReportWriter) junitFinding(f *Finding) {
	if f.Line != rw.curLine || rw.cur == nil {
		rw.junitFlushCase()
		rw.curLine = f.Line
		name := fmt.Sprintf("line %d", f.Line)
		if f.Method != "" {
			name += " " + f.Method
		}
		rw.cur = &junitCase{Name: name, Classname: rw.name}
	}
	text := TextLine(f)
	if f.Severity == Error && !f.Baselined {
		if rw.cur.Failure == nil {
			rw.cur.Failure = &junitFailure{Message: f.Rule + ": " + f.Message, Type: f.Rule}
		} else {
			rw.cur.Failure.Text += "\n"
		}
		rw.cur.Failure.Text += text
	} else {
		if rw.cur.SystemOut != "" {
			rw.cur.SystemOut += "\n"
		}
		rw.cur.SystemOut += text
	}
}

func (rw *ReportWriter) junitFlushCase() {
	if rw.cur == nil {
		return
	}
	rw.suiteT++
	if rw.cur.Failure != nil {
		rw.suiteF++
	}
	if rw.junitOut != nil && rw.err == nil {
		b, err := xml.MarshalIndent(rw.cur, "    ", "  ")
		if err != nil {
			rw.err = err
		} else {
			rw.junitOut.Write(b)
			_, rw.err = rw.junitOut.WriteString("\n")
		}
	}
	rw.cur = nil
}

func (rw *ReportWriter) junitEndStream(frames int) {
	rw.junitFlushCase()
	if rw.suiteT == 0 {
		// An input without findings gets one passing testcase.
		rw.cur = &junitCase{Name: Count(frames, "frame"), Classname: rw.name}
		rw.junitFlushCase()
	}
	rw.totalT += rw.suiteT
	rw.totalF += rw.suiteF
	if rw.junitOut != nil && rw.err == nil {
		rw.err = rw.junitOut.Flush()
	}
	if rw.suites == nil || rw.err != nil {
		if rw.cases != nil {
			rw.cases.Close()
		}
		return
	}
	sw := bufio.NewWriter(rw.suites)
	fmt.Fprintf(sw, "  <testsuite name=%s tests=\"%d\" failures=\"%d\">\n", xmlAttr(rw.name), rw.suiteT, rw.suiteF)
	if rw.cases != nil {
		if _, err := rw.cases.Seek(0, io.SeekStart); err != nil {
			rw.err = err
		} else if _, err := io.Copy(sw, rw.cases); err != nil {
			rw.err = err
		}
		rw.cases.Close()
	}
	sw.WriteString("  </testsuite>\n")
	if err := sw.Flush(); err != nil && rw.err == nil {
		rw.err = err
	}
	rw.cases, rw.junitOut = nil, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func xmlAttr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return "\"" + strings.ReplaceAll(b.String(), "\"", "&#34;") + "\""
}

// TextLine is the text format of one finding: file:line: severity rule: message.
func TextLine(f *Finding) string {
	if f.Baselined {
		return fmt.Sprintf("%s:%d: baselined %s %s: %s", f.Stream, f.Line, f.Severity, f.Rule, f.Detail())
	}
	return fmt.Sprintf("%s:%d: %s %s: %s", f.Stream, f.Line, f.Severity, f.Rule, f.Detail())
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}
