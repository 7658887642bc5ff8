package ir

import (
	"path/filepath"
	"strings"
	"testing"
)

func sdkNames(ms []*SDKMethod) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// TestSDKShippedSchema: the identifiers and sides of the shipped protocol's
// methods, and its request ids (the published TypeScript transport's
// req_<32 hex>).
func TestSDKShippedSchema(t *testing.T) {
	m, err := Load(filepath.Join("..", "..", "schema", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := m.SDK
	if s.IDs.Prefix != "req_" || s.IDs.Mint != IDUUIDHex || s.IDs.Suffix != "" || s.IDs.Numeric() || s.IDs.Source != "#/x-request-id" {
		t.Errorf("ids: %+v", s.IDs)
	}
	want := map[string][2]Names{
		"initialize":        {{"Initialize", "initialize", "initialize"}, {"OnInitialize", "on_initialize", "onInitialize"}},
		"session/prompt":    {{"SessionPrompt", "session_prompt", "sessionPrompt"}, {"OnSessionPrompt", "on_session_prompt", "onSessionPrompt"}},
		"shutdown":          {{"Shutdown", "shutdown", "shutdown"}, {"OnShutdown", "on_shutdown", "onShutdown"}},
		"session.event":     {{"SessionEvent", "session_event", "sessionEvent"}, {"OnSessionEvent", "on_session_event", "onSessionEvent"}},
		"session.status":    {{"SessionStatus", "session_status", "sessionStatus"}, {"OnSessionStatus", "on_session_status", "onSessionStatus"}},
		"subagent.started":  {{"SubagentStarted", "subagent_started", "subagentStarted"}, {"OnSubagentStarted", "on_subagent_started", "onSubagentStarted"}},
		"subagent.finished": {{"SubagentFinished", "subagent_finished", "subagentFinished"}, {"OnSubagentFinished", "on_subagent_finished", "onSubagentFinished"}},
	}
	if len(s.Methods) != len(want) {
		t.Fatalf("%d SDK methods, want %d", len(s.Methods), len(want))
	}
	for i, sm := range s.Methods {
		if sm.Method != m.Methods[i] {
			t.Errorf("SDK method %d is %s, model method %d is %s", i, sm.Name, i, m.Methods[i].Name)
		}
		w, ok := want[sm.Name]
		if !ok || sm.Call != w[0] || sm.Handler != w[1] {
			t.Errorf("%s: call %v handler %v, want %v", sm.Name, sm.Call, sm.Handler, w)
		}
	}
	sides := []struct {
		side                             *Side
		calls, notifies, serves, handles string
	}{
		{s.Client, "initialize session/prompt shutdown", "", "", "session.event session.status subagent.finished subagent.started"},
		{s.Server, "", "session.event session.status subagent.finished subagent.started", "initialize session/prompt shutdown", ""},
	}
	for _, c := range sides {
		got := [4]string{strings.Join(sdkNames(c.side.Calls), " "), strings.Join(sdkNames(c.side.Notifies), " "),
			strings.Join(sdkNames(c.side.Serves), " "), strings.Join(sdkNames(c.side.Handles), " ")}
		if got != [4]string{c.calls, c.notifies, c.serves, c.handles} {
			t.Errorf("%s: calls/notifies/serves/handles = %q", c.side.Role, got)
		}
	}
}

// TestSDKBothDirections: a method either side may send is a call and a
// handler on both sides.
func TestSDKBothDirections(t *testing.T) {
	ms := []*Method{
		{Name: "ping", Kind: Request, Direction: Both, nameBase: "ping"},
		{Name: "notifications/progress", Kind: Notification, Direction: Both, nameBase: "notifications/progress"},
		{Name: "sampling/createMessage", Kind: Request, Direction: ServerToClient, nameBase: "sampling/createMessage"},
	}
	s := buildSDK(ms, IDStyle{Mint: IDCounter})
	for _, side := range []*Side{s.Client, s.Server} {
		if got := strings.Join(sdkNames(side.Notifies), " ") + "|" + strings.Join(sdkNames(side.Handles), " "); got != "notifications/progress|notifications/progress" {
			t.Errorf("%s notifications: %s", side.Role, got)
		}
	}
	if got := strings.Join(sdkNames(s.Client.Calls), " ") + "|" + strings.Join(sdkNames(s.Client.Serves), " "); got != "ping|ping sampling/createMessage" {
		t.Errorf("client requests: %s", got)
	}
	if got := strings.Join(sdkNames(s.Server.Calls), " ") + "|" + strings.Join(sdkNames(s.Server.Serves), " "); got != "ping sampling/createMessage|ping" {
		t.Errorf("server requests: %s", got)
	}
	if c := s.Methods[2].Call; c != (Names{"SamplingCreateMessage", "sampling_create_message", "samplingCreateMessage"}) {
		t.Errorf("sampling/createMessage: %v", c)
	}
	if h := s.Methods[1].Handler; h != (Names{"OnNotificationsProgress", "on_notifications_progress", "onNotificationsProgress"}) {
		t.Errorf("notifications/progress: %v", h)
	}
}

func TestSDKRequestIDStyle(t *testing.T) {
	for in, want := range map[string]IDStyle{
		"req_{uuid-hex}": {Prefix: "req_", Mint: IDUUIDHex},
		"{counter}":      {Mint: IDCounter},
		"c-{counter}-x":  {Prefix: "c-", Mint: IDCounter, Suffix: "-x"},
		"{uuid}":         {Mint: IDUUID},
	} {
		got, err := parseIDStyle(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("%q: %+v %v", in, got, err)
		}
		if got.Numeric() != (in == "{counter}") {
			t.Errorf("%q: numeric %v", in, got.Numeric())
		}
	}
	for in, want := range map[string]string{
		"req_":         "exactly one",
		"{a}{b}":       "exactly one",
		"req_{random}": "unknown id kind {random}",
		"\"{uuid}":     "without JSON escapes",
	} {
		if _, err := parseIDStyle(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	m, err := loadDoc(t, `{"$defs": {}}`)
	if err != nil || !m.SDK.IDs.Numeric() {
		t.Fatalf("default ids: %+v %v", m, err)
	}
	_, err = loadDoc(t, `{"x-request-id": "req_{random}", "$defs": {}}`)
	if err == nil || !strings.Contains(err.Error(), "/x-request-id") || !strings.Contains(err.Error(), "unknown id kind") {
		t.Errorf("bad x-request-id: %v", err)
	}
}

// TestSDKCollisions: SDK identifiers that clash with each other or with
// the generated runtime's members are reported like type names, and the
// method entry's x-name resolves them.
func TestSDKCollisions(t *testing.T) {
	const defs = `"$defs": {"P": {"type": "object", "properties": {}}, "R": {"type": "object", "properties": {}}}`
	cases := []struct{ methods, want string }{
		// Go Client.Close is the client's own
		{`"close": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/R"}}`,
			"name collision in Go (Close), Python (close), TypeScript (close): the generated client's own members and /x-methods/close"},
		// a call OnFoo and the handler of foo on the client
		{`"on/foo": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/R"}},
		  "foo": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}}`,
			"name collision in Go (OnFoo), Python (on_foo), TypeScript (onFoo): /x-methods/on~1foo and /x-methods/foo"},
	}
	for _, c := range cases {
		_, err := loadDoc(t, `{"x-methods": {`+c.methods+`}, `+defs+`}`)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant it to contain %q", c.methods, err, c.want)
		}
	}
	m, err := loadDoc(t, `{"x-methods": {"close": {"kind": "request", "direction": "client-to-server", "x-name": "closeSession",
		"params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/R"}}}, `+defs+`}`)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.SDK.Methods[0].Call; c != (Names{"CloseSession", "close_session", "closeSession"}) {
		t.Errorf("x-name: %v", c)
	}
	_, err = loadDoc(t, `{"x-methods": {"go": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/Client"}}},
		"$defs": {"Client": {"type": "object", "properties": {}}}}`)
	if err == nil || !strings.Contains(err.Error(), "name collision in Go (Client): the generated SDK's Client and /$defs/Client") {
		t.Errorf("type Client: %v", err)
	}
	if _, err := loadDoc(t, `{"$defs": {"Client": {"type": "object", "properties": {}}}}`); err != nil {
		t.Errorf("a schema without methods has no SDK, so a type Client is fine: %v", err)
	}
	// TypeScript escapes a schema type named like an export of its templates
	// (templates/ts/client.ts.tmpl declares Client), as for every such name.
	m, err = loadDoc(t, `{"$defs": {"Client": {"type": "object", "properties": {}, "x-go-name": "GoClient", "x-python-name": "PyClient"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Types[0].Names[LangTS]; got != "Client_" {
		t.Errorf("TypeScript name of a schema Client: %q", got)
	}
}
