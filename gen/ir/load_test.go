package ir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func casePath(name, file string) string {
	return filepath.Join("..", "..", "testdata", "cases", name, file)
}

func problems(t *testing.T, err error) []Problem {
	t.Helper()
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("want a *LoadError, got %v", err)
	}
	return le.Problems
}

// Case 04: untitled, untagged union branches are named from the required
// members no other branch declares (never numbered).
func TestCase04UnnamedBranches(t *testing.T) {
	m, err := Load(casePath("04-no-numbered-variant-names", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if u := m.TypeByName("SearchResult"); u == nil || u.Kind != KindUnion || len(u.Union.Variants) != 2 ||
		u.Union.Variants[0].Type.Name != "SearchResultWithHits" || u.Union.Variants[1].Type.Name != "SearchResultWithMessage" {
		t.Fatalf("SearchResult: %+v", u)
	}
	m, err = Load(casePath("04-no-numbered-variant-names", "schema-titled.json"))
	if err != nil {
		t.Fatal(err)
	}
	u := m.TypeByName("SearchResult")
	if u == nil || u.Kind != KindUnion || len(u.Union.Variants) != 2 || u.Union.Variants[0].Type.Name != "SearchHits" || u.Union.Variants[1].Type.Name != "SearchFailure" {
		t.Fatalf("SearchResult: %+v", u)
	}
}

// Case 04: swapping the branches changes no type name.
func TestCase04SwapKeepsNames(t *testing.T) {
	raw, err := os.ReadFile(casePath("04-no-numbered-variant-names", "schema-titled.json"))
	if err != nil {
		t.Fatal(err)
	}
	m1, err := LoadBytes("a.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	oneOf := doc["$defs"].(map[string]any)["SearchResult"].(map[string]any)["oneOf"].([]any)
	oneOf[0], oneOf[1] = oneOf[1], oneOf[0]
	swapped, _ := json.Marshal(doc)
	m2, err := LoadBytes("a.json", swapped)
	if err != nil {
		t.Fatal(err)
	}
	var a, b []string
	for _, x := range m1.Types {
		a = append(a, x.Name)
	}
	for _, x := range m2.Types {
		b = append(b, x.Name)
	}
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("names changed: %v vs %v", a, b)
	}
}

// Case 05: four collisions, all reported at once, each with both pointers
// and the languages; removing one pair drops the count by one.
func TestCase05Collisions(t *testing.T) {
	path := casePath("05-name-collision-folding", "schema.json")
	_, err := Load(path)
	ps := problems(t, err)
	want := [][2]string{
		{"/$defs/HostInfo/properties/host-fqdn", "/$defs/HostInfo/properties/host_fqdn"},
		{"/$defs/Sample/properties/fieldName", "/$defs/Sample/properties/field_name"},
		{"/$defs/FrequencyUnit/enum/2", "/$defs/FrequencyUnit/enum/3"},
		{"/$defs/tool-call", "/$defs/ToolCall"},
	}
	if len(ps) != 4 {
		t.Fatalf("want 4 problems, got %d:\n%v", len(ps), err)
	}
	// A load for bindings only drops the text before the IR is built: the
	// same problems, lines and all.
	_, berr := LoadSource(Source{Path: path, BindingsOnly: true})
	if bps := problems(t, berr); len(bps) != len(ps) || berr.Error() != err.Error() {
		t.Errorf("BindingsOnly load:\n%v\nwant:\n%v", berr, err)
	}
	for _, p := range ps {
		if p.Line == 0 {
			t.Errorf("problem without a line: %v", p)
		}
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w[0]) || !strings.Contains(msg, w[1]) {
			t.Errorf("no report names both %s and %s", w[0], w[1])
		}
	}
	for _, l := range []string{"Go (HostFqdn)", "Python (host_fqdn)", "Go (FrequencyUnitMHz)", "TypeScript (ToolCall)"} {
		if !strings.Contains(msg, l) {
			t.Errorf("report lacks %q", l)
		}
	}
	for _, w := range []string{"Hostfqdn2", "HostFqdn2", "FieldName0", "ToolCall1"} {
		if strings.Contains(msg, w) {
			t.Errorf("a numbered name %q appears", w)
		}
	}
	// x-name overrides on one member of each pair, in an overlay, resolve
	// every collision without editing the schema.
	overlay := filepath.Join(t.TempDir(), "names.overlay.json")
	if err := os.WriteFile(overlay, []byte(`{"overlay": {
		"/$defs/HostInfo/properties/host_fqdn": {"x-name": "hostFqdnUnderscore"},
		"/$defs/Sample/properties/field_name": {"x-name": "fieldNameSnake"},
		"/$defs/tool-call": {"x-name": "ToolCallKebab"},
		"/$defs/FrequencyUnit": {"x-enum-names": ["Hz", "kHz", "mHz", "megahertz", "GHz"]}
	}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSource(Source{Path: path, Overlays: []string{overlay}}); err != nil {
		t.Errorf("with overrides: %v", err)
	}
}

// Case 13: a $ref cycle with nothing in between is refused, naming the cycle,
// fast; the recursive schema without it loads.
func TestCase13Cycles(t *testing.T) {
	start := time.Now()
	_, err := Load(casePath("13-recursive-ref", "schema.json"))
	ps := problems(t, err)
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "#/$defs/Loop → #/$defs/LoopAgain → #/$defs/Loop") {
		t.Fatalf("%v", err)
	}
	// A guard against following the cycle (an exponential walk never
	// ends), not a speed check.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	m, err := Load(casePath("13-recursive-ref", "schema-ok.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"TreeNode", "LinkedItem", "Folder", "Entry"} {
		if !m.TypeByName(name).Recursive {
			t.Errorf("%s should be recursive", name)
		}
	}
	if jv := m.TypeByName("JsonValue"); jv.Kind != KindAlias || jv.Alias.Kind != RefJSON {
		t.Errorf("JsonValue: %+v", jv)
	}
}

// The shipped schema loads and has the whole vocabulary.
func TestShippedSchema(t *testing.T) {
	m, err := Load(filepath.Join("..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Methods) != 7 {
		t.Errorf("methods: %d", len(m.Methods))
	}
	se := m.TypeByName("SessionEvent")
	if se == nil || se.Kind != KindUnion || se.Union.Tag != "type" || len(se.Union.Variants) != 48 || !se.Union.Open {
		t.Fatalf("SessionEvent: %+v", se)
	}
	for _, name := range []string{"ContentBlock", "MessageSource", "FinishReason", "TurnEndReason"} {
		if u := m.TypeByName(name); u == nil || u.Kind != KindUnion || !u.Union.Open {
			t.Errorf("%s should be an open union", name)
		}
	}
	if u := m.TypeByName("StreamChunk"); u == nil || u.Union.Open {
		t.Errorf("StreamChunk should be a closed union")
	}
	for _, me := range m.Methods {
		if me.Params == nil || (me.Kind == Request) != (me.Result != nil) {
			t.Errorf("method %s: %+v", me.Name, me)
		}
	}
}

// Naming rules.
func TestNaming(t *testing.T) {
	for in, want := range map[string]string{"avatarUrl": "AvatarURL", "sessionId": "SessionID", "turn/start": "TurnStart", "HTTPServer": "HTTPServer", "line-segment": "LineSegment", "v2": "V2", "__proto__": "Proto", "maxTokens": "MaxTokens"} {
		if got := goPascal(in); got != want {
			t.Errorf("goPascal(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"avatarUrl": "avatar_url", "HTTPServer": "http_server", "contentBlocks": "content_blocks", "class": "class"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
	n := fieldNames("class", overrides{})
	if n.Of(LangPython) != "class_" || n.Of(LangGo) != "Class" || n.Of(LangTS) != "class" {
		t.Errorf("class: %v", n)
	}
	if n := fieldNames("marshalJSON", overrides{}); n.Of(LangGo) != "MarshalJSON_" {
		t.Errorf("marshalJSON: %v", n)
	}
}
