// Command driver is the Go round-trip driver of dshgen conformance: it reads
// JSON-RPC frames (NDJSON) on stdin, decodes each one's params, result or
// error into the generated Go bindings by method (a response gets the method
// of the request with its id seen earlier on stdin), encodes it back and
// writes the frame on stdout, one line per input line. A frame that cannot be
// decoded is written as a line "!error <message>" and named on stderr; the
// exit status is then 1.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	proto "github.com/dshgen/dshgen/out/go/dshproto"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	methods := map[string]string{} // request id (JSON text) → method
	failed := 0
	for n := 1; ; n++ {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			break
		}
		enc, derr := roundTrip(bytes.TrimRight(line, "\r\n"), methods)
		if derr != nil {
			failed++
			fmt.Fprintf(os.Stderr, "line %d: %v\n", n, derr)
			fmt.Fprintf(out, "!error %v\n", derr)
		} else {
			out.Write(enc)
			out.WriteByte('\n')
		}
		if err != nil {
			break
		}
	}
	out.Flush()
	if failed > 0 {
		os.Exit(1)
	}
}

// roundTrip decodes one frame through the bindings and encodes it again,
// members in a fixed order (envelope members, then the rest sorted).
func roundTrip(line []byte, methods map[string]string) ([]byte, error) {
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
	id, hasID := members["id"]
	switch {
	case method != "":
		if hasID {
			methods[string(id)] = method
		}
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
			m, ok := methods[string(id)]
			if !ok {
				return nil, fmt.Errorf("response to id %s: no request with this id came before it", id)
			}
			v, err := proto.DecodeResult(m, raw)
			if err != nil {
				return nil, fmt.Errorf("result of %s: %v", m, err)
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
