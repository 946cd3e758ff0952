//go:build !linux

package bench

import (
	"syscall"
	"time"
)

func benchSysProcAttr() *syscall.SysProcAttr { return nil }

// serverCPU reads /proc/PID/stat, which only Linux has: elsewhere it fails
// and bench prints "-" for the server's CPU.
func serverCPU(pid int) (time.Duration, error) {
	if pid <= 0 {
		return 0, errNoServerProcess
	}
	return procStatCPU(pid)
}
