package tap

import (
	"runtime"
	"syscall"
)

// lowerValidationPriority pins the calling goroutine (the validator) to its
// OS thread and gives that thread the lowest CPU priority (nice 19): when
// the cores are busy, the threads that forward, the client and the server
// get the CPU first, so validation runs beside the traffic and not in its
// way at the OS level too. Measured on 2 cores with one request in flight
// back to back: p99 round trip 110-200 µs instead of 260-290 µs (the
// validator then works all the time). The thread ends with the goroutine
// (a goroutine that exits while locked takes its thread with it), so the
// priority never leaks to other goroutines. It works best with GOMAXPROCS
// above the number of cores (the CLI sets NumCPU+2): the niced thread holds
// its P while the OS keeps it waiting.
func lowerValidationPriority() {
	runtime.LockOSThread()
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), validationNice)
}

// validationNice is the validator thread's nice value: 10 leaves it about
// a tenth of a busy core (live traffic needs a few percent), where 19
// would let a busy machine starve it.
const validationNice = 10

// LowPriority runs f on a thread of its own at the validator's low priority
// and returns when f has returned (the thread ends with it). The CLI
// compiles the schema this way, so that compiling does not slow down the
// server's own start on a machine with few cores.
func LowPriority(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		lowerValidationPriority()
		f()
	}()
	<-done
}
