//go:build unix

package loader

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
