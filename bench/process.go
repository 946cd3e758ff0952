package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// errNoServerProcess: the server measured is not a process bench started
// (--url), so its CPU time is not this machine's to read.
var errNoServerProcess = errors.New("the server at --url is not a process bench started, so its CPU time is unknown")

// benchProcess is a server bench started as a process of its own (this
// binary re-executed), stopped by its PID.
type benchProcess struct {
	name    string
	pid     int
	base    string // http://127.0.0.1:PORT
	logPath string
	exited  chan struct{} // closed once the process is reaped
	waitErr error
}

// startBenchProcess runs this binary with args, its output to logPath. The
// environment drops PAYSANDBOX_* so that the server runs on its flags alone,
// and adds env.
func startBenchProcess(name, logPath string, env []string, args ...string) (*benchProcess, *exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("bench: finding this binary to start the %s: %w", name, err)
	}
	cmd := exec.Command(self, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAYSANDBOX_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = benchSysProcAttr()
	return &benchProcess{name: name, logPath: logPath, exited: make(chan struct{})}, cmd, nil
}

// wait reaps the process once it has started.
func (p *benchProcess) wait(cmd *exec.Cmd) {
	p.pid = cmd.Process.Pid
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
}

// stop ends the process by its PID: SIGTERM, then SIGKILL after 10 s.
func (p *benchProcess) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(p.pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
		<-p.exited
	}
}

// failure is err with the last lines of the process's log.
func (p *benchProcess) failure(err error) error {
	b, _ := os.ReadFile(p.logPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return fmt.Errorf("bench: the %s (pid %d): %w; its log ends:\n%s", p.name, p.pid, err, strings.Join(lines, "\n"))
}

// startBenchServe starts `paysandbox serve` on dbPath as a process of its own
// (as a user runs it, configured as the server bench measured in process
// before: text log at info level, to a file in dir) and waits for /healthz.
func startBenchServe(dir, dbPath string, opts *Options) (*benchProcess, error) {
	// Port 0: the port the server binds is read from its banner, so that no
	// other process can take a port picked beforehand.
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", dbPath, "--fsync", opts.Fsync, "--log-format", "text", "--log-level", "info",
		"--request-timeout", "90s", "--attempt-ttl", "15m"}
	if opts.AdminKey != "" {
		args = append(args, "--admin-key", opts.AdminKey)
	}
	p, cmd, err := startBenchProcess("server", filepath.Join(dir, "serve.log"), opts.Env, args...)
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting the server: %w", err)
	}
	p.wait(cmd)
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		select {
		case <-p.exited:
			return nil, p.failure(fmt.Errorf("exited during start-up: %v", p.waitErr))
		default:
		}
		if p.base == "" {
			p.base = bannerURL(p.logPath)
			continue
		}
		if res, err := hc.Get(p.base + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
	p.stop()
	return nil, p.failure(errors.New("/healthz did not answer 200 within 30s"))
}

// startBenchCeiling starts `paysandbox bench ceiling-server` answering with
// bodies (per endpoint label) and reads the address it prints.
func startBenchCeiling(dir string, bodies map[string][]byte, env []string) (*benchProcess, error) {
	raw, err := json.Marshal(bodies)
	if err != nil {
		return nil, err
	}
	bodiesPath := filepath.Join(dir, "ceiling-bodies.json")
	if err := os.WriteFile(bodiesPath, raw, 0o600); err != nil {
		return nil, err
	}
	p, cmd, err := startBenchProcess("ceiling", filepath.Join(dir, "ceiling.log"), env, "bench", "ceiling-server", "--addr", "127.0.0.1:0", "--bodies", bodiesPath)
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting the ceiling: %w", err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	p.wait(cmd)
	select {
	case s := <-line:
		if !strings.HasPrefix(s, "http://") {
			p.stop()
			return nil, p.failure(fmt.Errorf("printed %q instead of its address", s))
		}
		p.base = s
		return p, nil
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, p.failure(errors.New("did not print its address within 30s"))
	}
}

// bannerURL is the base URL serve's banner in the log at path names (its
// "try: curl -s URL/healthz" line), "" until the banner is written.
func bannerURL(path string) string {
	b, _ := os.ReadFile(path)
	for line := range strings.Lines(string(b)) {
		if _, rest, ok := strings.Cut(line, "curl -s "); ok {
			if u, ok := strings.CutSuffix(strings.TrimSpace(rest), "/healthz"); ok {
				return u
			}
		}
	}
	return ""
}

// procStatCPU is utime+stime of pid from /proc/PID/stat, in clock ticks of 10 ms.
func procStatCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}
