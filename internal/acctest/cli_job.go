//go:build unix

package acctest

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
)

// Job is a CLI command running in a process group of its own (see Start), the way a CI runner
// or `timeout` runs a job: a signal to the group reaches Terraform and its providers at once.
type Job struct {
	c      *CLI
	args   []string
	cmd    *exec.Cmd
	out    bytes.Buffer
	done   chan struct{}
	code   int
	cancel context.CancelFunc
}

// Start starts the CLI command args[0] with -no-color and the rest of args in a process group of
// its own and returns at once. The group is killed if the job outlives cliTimeout or the test.
func (c *CLI) Start(args []string) *Job {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	j := &Job{c: c, args: args, done: make(chan struct{}), cancel: cancel}
	j.cmd = exec.CommandContext(ctx, c.bin, append([]string{args[0], "-no-color"}, args[1:]...)...)
	j.cmd.Dir, j.cmd.Env = c.dir, c.env
	j.cmd.Stdout, j.cmd.Stderr = &j.out, &j.out
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	j.cmd.Cancel = func() error { return syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL) }
	if err := j.cmd.Start(); err != nil {
		cancel()
		c.t.Fatalf("starting %s %s: %v", c.bin, strings.Join(args, " "), err)
	}
	go j.wait()
	c.t.Cleanup(func() {
		cancel()
		<-j.done
		_ = syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL) // whatever the group left behind
	})
	return j
}

func (j *Job) wait() {
	defer close(j.done)
	err := j.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		j.code = exit.ExitCode()
	case err != nil:
		j.code = -1
	}
}

// SignalGroup sends sig to every process of the job's group (Terraform and its providers), as
// `timeout` or a CI runner cancelling the job does.
func (j *Job) SignalGroup(sig syscall.Signal) {
	j.c.t.Helper()
	if err := syscall.Kill(-j.cmd.Process.Pid, sig); err != nil {
		j.c.t.Fatalf("sending %v to the process group of %s: %v", sig, j.c.bin, err)
	}
}

// KillLeader kills the job's first process (Terraform) at once, and nothing else of its group,
// as `kill -9` of Terraform's pid would.
func (j *Job) KillLeader() {
	j.c.t.Helper()
	if err := j.cmd.Process.Kill(); err != nil {
		j.c.t.Fatalf("killing %s: %v", j.c.bin, err)
	}
}

// Pid is the process id of the job's first process (Terraform), which is also its group's id.
func (j *Job) Pid() int { return j.cmd.Process.Pid }

// Done is closed when the job has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Wait waits until the job ends (it is killed after cliTimeout) and returns its output and exit
// code (-1 when a signal ended it).
func (j *Job) Wait() (string, int) {
	<-j.done
	j.cancel()
	return j.out.String(), j.code
}
