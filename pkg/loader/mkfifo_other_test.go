//go:build !unix

package loader

import "errors"

func mkfifo(string) error { return errors.New("no named pipes on this platform") }
