package ir

import (
	"strings"
	"unicode"
)

// Article returns the indefinite article, "a" or "an", that goes before
// word (a type or member name in a generated doc sentence), by the sound
// word starts with:
//
//   - a leading run of two or more capitals is read letter by letter
//     ("an LLMRetry", "an HTTPServer", "a URL", "a UUID"), as is a single
//     capital letter;
//   - otherwise a word starting with a vowel letter takes "an" ("an
//     Update", "an AssistantStreamRecord"), except where the vowel sounds
//     like "y" or "w" ("a User", "a Union", "a Unicode…", "a OneOf", "a
//     European…");
//   - a silent h takes "an" ("an Hour…", "an Honest…"); other consonants
//     and digits take "a".
//
// ArticleCap is the same, capitalized, for the start of a sentence.
func Article(word string) string {
	rs := []rune(word)
	if len(rs) == 0 {
		return "a"
	}
	if unicode.IsUpper(rs[0]) && (len(rs) == 1 || unicode.IsUpper(rs[1])) {
		// Read as letters: A, E, F, H, I, L, M, N, O, R, S, X start with a vowel sound.
		if strings.ContainsRune("AEFHILMNORSX", rs[0]) {
			return "an"
		}
		return "a"
	}
	w := strings.ToLower(word)
	for _, p := range consonantVowelPrefixes {
		if strings.HasPrefix(w, p) {
			return "a"
		}
	}
	for _, p := range silentH {
		if strings.HasPrefix(w, p) {
			return "an"
		}
	}
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

// ArticleCap is Article capitalized: "A" or "An".
func ArticleCap(word string) string {
	if Article(word) == "an" {
		return "An"
	}
	return "A"
}

// consonantVowelPrefixes start with a vowel letter sounding "y" or "w".
var consonantVowelPrefixes = []string{"uni", "use", "usa", "usi", "usu", "uti", "uri", "ure", "ura", "uu", "eu", "ewe", "one", "once"}

// silentH start with an h that is not sounded.
var silentH = []string{"hour", "honest", "honor", "honour", "heir"}
