package frame

// MaxDepth is the deepest nesting of objects and arrays a frame may have,
// counting the frame object itself as 1: encoding/json's limit, so the Go
// bindings (which decode with encoding/json) read every frame this deep.
// dshgen conformance holds the Go, Python and TypeScript bindings to round
// trips of frames up to this depth; a deeper frame is not valid there.
const MaxDepth = 10000

// Depth returns the deepest nesting of objects and arrays in a JSON text
// (0 for a scalar, 1 for {} or []), scanning the bytes once without
// parsing: brackets inside strings do not count. It is meant for text that
// is valid JSON; for other text it counts the brackets it sees.
func Depth(b []byte) int {
	depth, best := 0, 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > best {
				best = depth
			}
		case '}', ']':
			depth--
		}
	}
	return best
}
