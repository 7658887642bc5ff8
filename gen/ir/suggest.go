package ir

// EditDistance returns the Levenshtein distance between a and b: the
// fewest single-character insertions, deletions and substitutions (by
// rune) that turn one into the other.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Nearest returns the candidate closest to name by EditDistance, when it
// is at most maxDistance away and not name itself ("" otherwise); the
// first of equally close candidates wins.
func Nearest(name string, candidates []string, maxDistance int) string {
	best, bestD := "", maxDistance+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := EditDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
