package validate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// Finding is one thing the validator reports about one frame (or about the
// stream, at its end).
type Finding struct {
	// Stream names the input (a file name, "-" for stdin, or what the
	// caller chose).
	Stream string `json:"stream"`
	// Line is the 1-based physical line of the input; Offset the byte
	// offset of the frame's first byte (of the line for .jsonl input, of
	// the frame after DIR<TAB>MS<TAB> for a capture).
	Line   int   `json:"line"`
	Offset int64 `json:"offset"`
	// Frame is the 1-based index of the frame among the stream's non-blank
	// lines (0 for findings about the stream).
	Frame int `json:"frame"`
	// Direction is the side that sent the frame ("" when unknown).
	Direction ir.Direction `json:"direction,omitempty"`
	// Method is the frame's method, or for a response the method of the
	// request it answers.
	Method string `json:"method,omitempty"`
	// ID is the frame's id as JSON text (`"req_…"`, `7`).
	ID string `json:"id,omitempty"`
	// Pointer is the JSON pointer of the offending value inside the frame
	// ("" for the whole frame).
	Pointer string `json:"pointer"`
	// Schema is the schema location of the failed keyword, e.g.
	// "#/$defs/TurnEndEvent/properties/data/properties/turn/type".
	Schema string `json:"schema,omitempty"`
	// Branch names the union branches chosen on the way, by tag, e.g.
	// "type=turn/end, kind=aborted".
	Branch   string   `json:"branch,omitempty"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Message is one line of text.
	Message string `json:"message"`
	// Baselined: an entry of the --baseline file accepts this finding; it
	// is reported but does not count as an error or warning.
	Baselined bool `json:"baselined,omitempty"`
}

// Detail is the message with the pointer, branch and schema location, as
// printed by the text formats.
func (f *Finding) Detail() string {
	var b strings.Builder
	if f.Pointer != "" {
		b.WriteString(f.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(f.Message)
	var extra []string
	if f.Method != "" {
		extra = append(extra, f.Method)
	}
	if f.Branch != "" {
		extra = append(extra, f.Branch)
	}
	if f.Schema != "" {
		extra = append(extra, f.Schema)
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(extra, "; "))
	}
	return b.String()
}

// SortFindings sorts the findings of one stream into the order they are
// reported in: by line, offset, rule (check order), pointer and message.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if a.Stream != b.Stream {
			return a.Stream < b.Stream
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		ra, rb := ruleOrder(a.Rule), ruleOrder(b.Rule)
		if ra != rb {
			return ra < rb
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Message < b.Message
	})
}

func ruleOrder(id string) int {
	if i, ok := ruleIndex[id]; ok {
		return i
	}
	return len(Rules)
}

// Summary counts what one run saw.
type Summary struct {
	Streams  int `json:"streams"`
	Frames   int `json:"frames"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Baselined counts the findings a baseline entry accepted (not
	// counted above).
	Baselined int `json:"baselined,omitempty"`
	// Revision is the shipped revision the run checked against ("" for
	// another schema); Schema the schema file.
	Revision string `json:"revision,omitempty"`
	Schema   string `json:"schema,omitempty"`
}

// Add counts fs into s.
func (s *Summary) Add(fs []Finding) {
	for _, f := range fs {
		if f.Baselined {
			s.Baselined++
			continue
		}
		switch f.Severity {
		case Error:
			s.Errors++
		case Warning:
			s.Warnings++
		default:
			s.Infos++
		}
	}
}

func (s Summary) String() string {
	out := fmt.Sprintf("%s, %s: %s, %s, %s", Count(s.Streams, "stream"), Count(s.Frames, "frame"),
		Count(s.Errors, "error"), Count(s.Warnings, "warning"), Count(s.Infos, "info"))
	if s.Baselined > 0 {
		out += fmt.Sprintf(" (+%d baselined)", s.Baselined)
	}
	return out
}

// Against says what the run checked against: "revision 0.0.1
// (schema/0.0.1/dsh-sdk-protocol.schema.json)" or the schema file.
func (s Summary) Against() string {
	switch {
	case s.Revision != "" && s.Schema != "":
		return "revision " + s.Revision + " (" + s.Schema + ")"
	case s.Revision != "":
		return "revision " + s.Revision
	}
	return s.Schema
}

// plurals holds the nouns whose plural is not noun+"s" ("info" stays
// "info", as in "0 info").
var plurals = map[string]string{"info": "info", "child": "children", "entry": "entries"}

// Count is "1 frame", "2 frames", "0 errors": the one place that puts a
// number and a noun together in the validator's and the tap's messages.
func Count(n int, noun string) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	if p, ok := plurals[noun]; ok {
		return fmt.Sprintf("%d %s", n, p)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
