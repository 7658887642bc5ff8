//go:build !linux

package tap

// lowerValidationPriority does nothing where threads have no priority of
// their own (see prio_linux.go).
func lowerValidationPriority() {}

// LowPriority runs f (see prio_linux.go).
func LowPriority(f func()) { f() }
