package schemadoc

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without blocking: a FIFO swapped
// in after the Stat check opens at once instead of waiting for a writer
// (and is then refused by the fstat check).
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}

// Kernel pseudo-filesystems (statfs f_type, linux/magic.h). Their files
// report a size of 0 or 4096 whatever they hold, and some block on read.
var pseudoFilesystems = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0xcafe4a11: "bpf",
	0x1cd1:     "devpts",
	0x62656570: "configfs",
	0xde5e81e4: "efivarfs",
	0x6165676c: "pstore",
	0x65735543: "fusectl",
	0x42494e4d: "binfmt_misc",
}

// pseudoFS names the kernel pseudo-filesystem f is on ("" for a real one).
func pseudoFS(f *os.File) string {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil {
		return ""
	}
	return pseudoFilesystems[int64(st.Type)]
}
