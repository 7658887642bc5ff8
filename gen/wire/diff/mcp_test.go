package diff

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The diff of the two published MCP revisions against
// testdata/protocols/mcp-diff-by-hand.md, the list of every change that
// was compiled by reading both schemas def by def (not with dshgen). The
// lists of defs and methods are read from that file; the member-level
// entries below quote its sections.

func handList(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "protocols", "mcp-diff-by-hand.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// handNames returns the backquoted names of the paragraph that starts with
// label ("Removed (32): ...") after heading, checking the count it states.
func handNames(t *testing.T, doc, heading, label string) []string {
	t.Helper()
	i := strings.Index(doc, heading)
	if i < 0 {
		t.Fatalf("no %q in the hand list", heading)
	}
	m := regexp.MustCompile(regexp.QuoteMeta(label) + ` \((\d+)\):((?s:.*?))\n\n`).FindStringSubmatch(doc[i:])
	if m == nil {
		t.Fatalf("no %q paragraph under %q", label, heading)
	}
	var out []string
	for _, n := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[2], -1) {
		out = append(out, n[1])
	}
	if want := m[1]; want != itoa(len(out)) {
		t.Fatalf("%s %s says %s, lists %d", heading, label, want, len(out))
	}
	sort.Strings(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func publishedMCP(t *testing.T, rev string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "..", "shared", "protocols", "mcp", rev, "schema.json")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("published schema: %v", err)
	}
	return p
}

// TestMCPRevisionsDiffByHand: dshgen diff MCP 2025-11-25 → 2026-07-28
// reports exactly the hand-checked defs removed and added (section 11),
// methods removed, added and changed (section 7), and the member-level
// entries of sections 1-6 and 10 quoted below.
func TestMCPRevisionsDiffByHand(t *testing.T) {
	doc := handList(t)
	old := load(t, publishedMCP(t, "2025-11-25"))
	new := load(t, publishedMCP(t, "2026-07-28"))
	rep := Compare(old, new, "2025-11-25", "2026-07-28")

	defOf := func(ptr string) string {
		rest := strings.TrimPrefix(ptr, "#/$defs/")
		if rest == ptr || strings.Contains(rest, "/") {
			return ""
		}
		return rest
	}
	set := func(rule string, ptr func(Finding) string) []string {
		seen := map[string]bool{}
		for _, f := range rep.Findings {
			if f.Rule == rule {
				if n := ptr(f); n != "" {
					seen[n] = true
				}
			}
		}
		var out []string
		for n := range seen {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	method := func(f Finding) string { return strings.TrimPrefix(f.Subject, "method ") }
	same := func(what string, got, want []string) {
		t.Helper()
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n got  %d %v\n want %d %v", what, len(got), got, len(want), want)
		}
	}

	// Section 11: defs removed and added (inline types the IR names are
	// not defs).
	same("defs removed", set("type-removed", func(f Finding) string { return defOf(f.Old) }),
		handNames(t, doc, "## 11. Defs", "Removed"))
	same("defs added", set("type-added", func(f Finding) string { return defOf(f.New) }),
		handNames(t, doc, "## 11. Defs", "Added"))

	// Section 7: methods removed, added and changed.
	removed := append(set("request-removed", method), set("notification-removed", method)...)
	sort.Strings(removed)
	same("methods removed", removed, handNames(t, doc, "## 7. Methods", "Removed"))
	added := append(set("request-added", method), set("notification-added", method)...)
	sort.Strings(added)
	same("methods added", added, handNames(t, doc, "## 7. Methods", "Added"))
	changed := map[string]bool{}
	for _, r := range []string{"method-kind-changed", "method-direction-changed", "params-made-required", "params-made-optional", "method-params-type-changed", "method-result-type-changed"} {
		for _, m := range set(r, method) {
			changed[m] = true
		}
	}
	var ch []string
	for m := range changed {
		ch = append(ch, m)
	}
	sort.Strings(ch)
	same("methods changed", ch, []string{"notifications/progress", "prompts/get", "prompts/list", "resources/list", "resources/read", "resources/templates/list", "tools/call", "tools/list"})

	// Section 7's table, row by row.
	find := func(rule, subject string) []Finding {
		var out []Finding
		for _, f := range rep.Findings {
			if f.Rule == rule && f.Subject == subject {
				out = append(out, f)
			}
		}
		return out
	}
	want := func(rule, subject, msgPart string, categories ...Category) {
		t.Helper()
		fs := find(rule, subject)
		var got []string
		for _, f := range fs {
			if !strings.Contains(f.Message, msgPart) {
				t.Errorf("%s %s: message %q lacks %q", rule, subject, f.Message, msgPart)
			}
			got = append(got, string(f.Category))
		}
		var cs []string
		for _, c := range categories {
			cs = append(cs, string(c))
		}
		sort.Strings(got)
		sort.Strings(cs)
		if strings.Join(got, " ") != strings.Join(cs, " ") {
			t.Errorf("%s %s: categories %v, want %v", rule, subject, got, cs)
		}
	}
	// notifications/progress: sender both → server.
	want("method-direction-changed", "method notifications/progress", "was sent both-ways and is now sent server-to-client", WireBreakingC2S, WireBreakingS2C)
	for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list", "tools/list"} {
		want("params-made-required", "method "+m, "are now required", WireBreakingC2S)
	}
	for m, r := range map[string]string{"tools/call": "CallToolResult", "prompts/get": "GetPromptResult", "resources/read": "ReadResourceResult"} {
		want("method-result-type-changed", "method "+m, "(InputRequiredResult | "+r+")", CodeBreaking)
	}
	// A method both sides sent is removed for both directions (section 4:
	// tasks/* "all sent by both sides"; section 1: ping "both sides").
	for _, m := range []string{"ping", "tasks/get", "tasks/result", "tasks/cancel", "tasks/list"} {
		want("request-removed", "method "+m, "both-ways request "+m+" was removed", WireBreakingC2S, WireBreakingS2C)
	}
	want("notification-removed", "method notifications/tasks/status", "both-ways", WireBreakingC2S, WireBreakingS2C)

	// Sections 1, 2, 4: member-level entries.
	want("member-made-required", "CancelledNotificationParams.requestId", `"requestId" was optional and is now required`, WireBreakingC2S, WireBreakingS2C)
	want("constraint-tightened", "CompleteResultCompletion.values", "maxItems (none) → 100", WireBreakingS2C)
	for _, d := range []string{"CallToolResult", "CompleteResult", "GetPromptResult", "ListPromptsResult", "ListResourcesResult", "ListResourceTemplatesResult", "ListToolsResult", "ReadResourceResult"} {
		if len(find("required-member-added", d+".resultType")) == 0 {
			t.Errorf("%s.resultType: no required-member-added (section 2)", d)
		}
	}
	for _, d := range []string{"ListPromptsResult", "ListResourcesResult", "ListResourceTemplatesResult", "ListToolsResult", "ReadResourceResult"} {
		for _, m := range []string{"cacheScope", "ttlMs"} {
			if len(find("required-member-added", d+"."+m)) == 0 {
				t.Errorf("%s.%s: no required-member-added (section 2)", d, m)
			}
		}
	}
	// Section 10: the 17 pure _meta renames are "inline schema →
	// MetaObject", and nothing about their accepted values.
	renames := regexp.MustCompile("(?s)The pure renames.*?: (.*?) \\(17\\)").FindStringSubmatch(doc)
	if renames == nil {
		t.Fatal("no section 10 list")
	}
	names := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(renames[1], -1)
	if len(names) != 17 {
		t.Fatalf("section 10 lists %d defs", len(names))
	}
	for _, n := range names {
		subj := n[1] + "._meta"
		want("value-ref-changed", subj, "from an inline schema to MetaObject", CodeBreaking)
		for _, f := range rep.Findings {
			if f.Subject == subj && f.Rule != "value-ref-changed" {
				t.Errorf("%s: %s %s (a pure rename changes no accepted value)", subj, f.Rule, f.Message)
			}
		}
	}
}
