package bench

import (
	"syscall"
	"time"
	"unsafe"
)

// benchSysProcAttr makes a server bench starts die with bench, even if bench is killed.
func benchSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// serverCPU is the user+system CPU time process pid has used so far, every
// thread counted. It reads the process's CPU-time clock (nanoseconds; what
// /proc/PID/stat rounds to 10 ms ticks, too coarse for a slice of 250 ms on
// a light load), and /proc/PID/stat where that clock cannot be read.
func serverCPU(pid int) (time.Duration, error) {
	if pid <= 0 { // the clock of pid 0 is this process's
		return 0, errNoServerProcess
	}
	clock := int32(^pid<<3 | 2) // MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(clock), uintptr(unsafe.Pointer(&ts)), 0); e == 0 {
		return time.Duration(ts.Nano()), nil
	}
	return procStatCPU(pid)
}
