//go:build !linux

package schemadoc

import "os"

// openNonBlocking opens path for reading (the Stat check before it has
// refused anything but a regular file).
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }

// pseudoFS: only Linux has the /proc and /sys pseudo-filesystems this
// guards against; elsewhere the regular-file and size checks apply.
func pseudoFS(*os.File) string { return "" }
