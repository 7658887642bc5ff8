//go:build !unix

package validate

// cpuSeconds is unknown here (0): the benchmarks then report no MB/cpu-s.
func cpuSeconds() float64 { return 0 }
