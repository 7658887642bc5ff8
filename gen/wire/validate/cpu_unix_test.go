//go:build unix

package validate

import "syscall"

// cpuSeconds is the CPU time (user and system) the process has used so
// far, in seconds; 0 when unknown.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
