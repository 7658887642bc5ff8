package ir

import "testing"

// TestArticle: "an" before a vowel sound, "a" before a consonant sound,
// for the names the doc sentences take.
func TestArticle(t *testing.T) {
	for word, want := range map[string]string{
		"Update": "an", "AssistantStreamRecord": "an", "LLMRetry": "an", "HTTPServer": "an", "SSEEvent": "an",
		"Item": "an", "Error": "an", "Option": "an", "Unknown": "an", "X": "an", "Hour": "an", "hourly": "an",
		"GoalChange": "a", "ScheduleRecord": "a", "URL": "a", "UUID": "a", "User": "a", "UserMessage": "a",
		"Union": "a", "Unicode": "a", "OneOf": "a", "European": "a", "JSONValue": "a", "Host": "a", "b": "a",
		"2Items": "a", "": "a",
	} {
		if got := Article(word); got != want {
			t.Errorf("Article(%q) = %q, want %q", word, got, want)
		}
	}
	if ArticleCap("Update") != "An" || ArticleCap("GoalChange") != "A" {
		t.Errorf("ArticleCap: %q %q", ArticleCap("Update"), ArticleCap("GoalChange"))
	}
}
