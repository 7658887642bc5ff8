// Command driver is the Go round-trip driver of dshgen conformance (driver
// protocol 1, see ../../README.md): it writes the line
// "dshgen-conformance-driver 1", then reads lines "HEADER<TAB>FRAME" on
// stdin, decodes each frame's params, result or error into the generated Go
// bindings (params by the frame's method, a result by the "method" the
// header gives, an error as ResponseError; a header's "type" makes FRAME a
// value of the exported type of that name, decoded by typeCodecs), encodes
// it back and writes
// "SEQ<TAB>FRAME" on stdout, one line per input line, flushed at once. A
// frame that does not decode, or whose decoding panics, is written as
// "SEQ<TAB>!error <message>". The exit status is 0 at end of input.
//
// dshgen conformance copies this file into a scratch module beside the
// bindings under test, rewriting the bindings' import path.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	proto "github.com/dshgen/dshgen/out/go/dshproto"
)

// header is what dshgen conformance says about one frame.
type header struct {
	Seq    int64  `json:"seq"`
	Method string `json:"method,omitempty"` // a response's request method
	Type   string `json:"type,omitempty"`   // the Go name of the type a value is an instance of
}

// typeCodecs decode a value as the exported type of that name; dshgen
// conformance generates them from the bindings' exported API (types.go in
// the scratch module, beside this file).
var typeCodecs map[string]func(json.RawMessage) (any, error)

func main() {
	if _, err := os.Stdout.WriteString("dshgen-conformance-driver 1\n"); err != nil {
		os.Exit(1)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return
		}
		if err != nil && err != io.EOF {
			fmt.Fprintf(os.Stderr, "go driver: reading stdin: %v\n", err)
			os.Exit(1)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		head, frame, ok := bytes.Cut(line, []byte("\t"))
		var h header
		if !ok || json.Unmarshal(head, &h) != nil || h.Seq <= 0 {
			fmt.Fprintf(os.Stderr, "go driver: not a driver protocol line: %.80q\n", line)
			os.Exit(1)
		}
		enc, derr := guarded(frame, h)
		var out []byte
		if derr != nil {
			msg := strings.ReplaceAll(derr.Error(), "\n", " ")
			out = fmt.Appendf(nil, "%d\t!error %s\n", h.Seq, msg)
		} else {
			out = append(fmt.Appendf(nil, "%d\t", h.Seq), enc...)
			out = append(out, '\n')
		}
		if _, err := os.Stdout.Write(out); err != nil {
			os.Exit(1)
		}
	}
}

// guarded runs roundTrip, turning a panic in the bindings into an error.
func guarded(frame []byte, h header) (enc []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in the bindings: %v", r)
		}
	}()
	if h.Type != "" {
		return typeRoundTrip(frame, h.Type)
	}
	return roundTrip(frame, h.Method)
}

// typeRoundTrip decodes one value as the named type and encodes it again.
func typeRoundTrip(value []byte, name string) ([]byte, error) {
	dec := typeCodecs[name]
	if dec == nil {
		return nil, fmt.Errorf("the bindings export no type %s that decodes", name)
	}
	v, err := dec(value)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return json.Marshal(v)
}

// roundTrip decodes one frame through the bindings and encodes it again,
// members in a fixed order (sorted).
func roundTrip(line []byte, responseMethod string) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	method := ""
	if raw, ok := members["method"]; ok {
		if err := json.Unmarshal(raw, &method); err != nil {
			return nil, fmt.Errorf("method is not a string")
		}
	}
	_, hasID := members["id"]
	switch {
	case method != "":
		if raw, ok := members["params"]; ok {
			v, err := proto.DecodeParams(method, raw)
			if err != nil {
				return nil, fmt.Errorf("params of %s: %v", method, err)
			}
			if members["params"], err = json.Marshal(v); err != nil {
				return nil, err
			}
		}
	case hasID:
		if raw, ok := members["error"]; ok {
			var e proto.ResponseError
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, fmt.Errorf("error: %v", err)
			}
			b, err := json.Marshal(e)
			if err != nil {
				return nil, err
			}
			members["error"] = b
		} else if raw, ok := members["result"]; ok {
			if responseMethod == "" {
				return nil, fmt.Errorf("a result without the method of its request")
			}
			v, err := proto.DecodeResult(responseMethod, raw)
			if err != nil {
				return nil, fmt.Errorf("result of %s: %v", responseMethod, err)
			}
			if members["result"], err = json.Marshal(v); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("neither request, response nor notification")
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(members[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
