package validate

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
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
	switch format {
	case "", "text":
		return writeText(w, r)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "junit":
		return writeJUnit(w, r)
	case "github":
		return writeGitHub(w, r)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// TextLine is the text format of one finding: file:line: severity rule: message.
func TextLine(f *Finding) string {
	return fmt.Sprintf("%s:%d: %s %s: %s", f.Stream, f.Line, f.Severity, f.Rule, f.Detail())
}

func writeText(w io.Writer, r *Report) error {
	for _, s := range r.Streams {
		for i := range s.Findings {
			if _, err := fmt.Fprintln(w, TextLine(&s.Findings[i])); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w, "dshgen validate: "+r.Summary.String())
	return err
}

// writeGitHub writes workflow commands: ::error file=F,line=L,title=RULE::message.
func writeGitHub(w io.Writer, r *Report) error {
	for _, s := range r.Streams {
		for i := range s.Findings {
			f := &s.Findings[i]
			cmd := "error"
			switch f.Severity {
			case Warning:
				cmd = "warning"
			case Info:
				cmd = "notice"
			}
			if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n", cmd,
				ghProperty(f.Stream), f.Line, ghProperty(f.Rule), ghData(f.Detail())); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w, "dshgen validate: "+r.Summary.String())
	return err
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
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

// writeJUnit writes one testsuite per input and one testcase per line with
// findings (a failure when any of them is an error; warnings and infos go
// to system-out); an input without findings gets one passing testcase.
func writeJUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: "dshgen validate"}
	for _, s := range r.Streams {
		suite := junitSuite{Name: s.Name}
		var cur *junitCase
		curLine := -1
		flush := func() {
			if cur != nil {
				suite.Cases = append(suite.Cases, *cur)
				suite.Tests++
				if cur.Failure != nil {
					suite.Failures++
				}
			}
			cur = nil
		}
		for i := range s.Findings {
			f := &s.Findings[i]
			if f.Line != curLine || cur == nil {
				flush()
				curLine = f.Line
				name := fmt.Sprintf("line %d", f.Line)
				if f.Method != "" {
					name += " " + f.Method
				}
				cur = &junitCase{Name: name, Classname: s.Name}
			}
			text := TextLine(f)
			if f.Severity == Error {
				if cur.Failure == nil {
					cur.Failure = &junitFailure{Message: f.Rule + ": " + f.Message, Type: f.Rule}
				} else {
					cur.Failure.Text += "\n"
				}
				cur.Failure.Text += text
			} else {
				if cur.SystemOut != "" {
					cur.SystemOut += "\n"
				}
				cur.SystemOut += text
			}
		}
		flush()
		if len(suite.Cases) == 0 {
			suite.Cases = append(suite.Cases, junitCase{Name: Count(s.Frames, "frame"), Classname: s.Name})
			suite.Tests++
		}
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Suites = append(out.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
