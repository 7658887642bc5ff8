package output

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// PauseEnv names the test hook of the crash tests: when it is set, every
// step that changes the disk after planning is announced on stderr as
// "dshgen-test: step N: WHAT" before it runs, and at step N (its value)
// the process says "dshgen-test: paused at step N" and sleeps until killed,
// so a test can SIGKILL a real run between any two steps. 0 only announces.
const PauseEnv = "DSHGEN_TEST_PAUSE_STEP"

var (
	pauseAt, pauseSet = os.LookupEnv(PauseEnv)
	stepN             int
)

func step(what string) {
	if !pauseSet {
		return
	}
	stepN++
	fmt.Fprintf(os.Stderr, "dshgen-test: step %d: %s\n", stepN, what)
	if pauseAt == strconv.Itoa(stepN) {
		fmt.Fprintf(os.Stderr, "dshgen-test: paused at step %d\n", stepN)
		for {
			time.Sleep(time.Hour)
		}
	}
}
