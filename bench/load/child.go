//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is a server running as a process of its own, so that its CPU
// time is its own and not the clients'.
type child struct {
	cmd    *exec.Cmd
	base   string        // http://127.0.0.1:port
	exited chan struct{} // closed once the process has been waited for
	err    error         // Wait's, once exited is closed
	tail   *tail         // the end of its standard error, for a failure's message
}

// address is the line both examples/server and bench/floor print once
// they listen.
var address = regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)

// startChild starts bin with args and returns once it answers GET /healthz.
// The process dies with ctx, and with this one: the kernel kills it when
// its parent goes, so that no exit path (a panic, a kill) leaves a server
// running.
func startChild(ctx context.Context, bin string, args []string) (*child, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, exited: make(chan struct{}), tail: &tail{}}
	// Each request's log line goes to a pipe read here, as it would to a
	// log collector; only the end is kept.
	cmd.Stderr = c.tail
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := address.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	wait := time.NewTimer(time.Minute)
	defer wait.Stop()
	select {
	case c.base = <-found:
	case <-c.exited:
		return nil, fmt.Errorf("%s exited before listening (%v): %s", bin, c.err, c.tail)
	case <-wait.C:
		c.stop()
		return nil, fmt.Errorf("%s printed no address within a minute", bin)
	case <-ctx.Done():
		c.stop()
		return nil, ctx.Err()
	}
	if err := c.ready(ctx); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// ready waits until the server answers GET /healthz with 200.
func (c *child) ready(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/healthz", nil)
		if err != nil {
			return err
		}
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: no 200 from /healthz within a minute (last: %v)", c.base, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.exited:
			return fmt.Errorf("the server exited (%v): %s", c.err, c.tail)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// clockTicks is the unit of /proc's CPU times, USER_HZ: 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// cpu is the CPU time, user and system, that the process has used so far:
// all its threads, from /proc/PID/stat.
func (c *child) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: the fields
	// counted are those after it, from the third (state) on.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// stop asks the server to shut down as an operator would, and kills it
// if it has not within 15 s.
func (c *child) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
		return
	case <-time.After(15 * time.Second):
	}
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 4<<10; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
