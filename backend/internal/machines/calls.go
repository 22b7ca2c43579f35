package machines

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
)

// Deadlines of the calls into a machine over its control channel, by kind. Every call has one,
// the caller's when it is shorter: a machine whose agent is stopped, wedged or busy fails the
// call within it, and so delays only the call made of it (see liveness.go for what then
// happens to the machine). Boot and shutdown have theirs in boot.go (Options.BootTimeout, stopTimeout).
const (
	// passwordTimeout bounds handing the agent a new password hash: a line and its answer.
	passwordTimeout = 5 * time.Second
	// pingTimeout bounds the ping of an agent that left a call unanswered (liveness.go).
	pingTimeout = 3 * time.Second
	// defaultRunTimeout bounds a script run without a deadline of its caller's: an app
	// install's caller passes the install's own bound.
	defaultRunTimeout = 10 * time.Minute
)

// withDefault is ctx bounded by d when it has no deadline of its own (a shorter one is kept).
func withDefault(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// call sends msg under a fresh ID and waits for the agent's OpResult of that ID, the
// machine's end, or ctx; on ctx's end the agent is told to cancel what it runs for that ID.
// ctx must have a deadline: the agent may never answer.
func (c *control) call(ctx context.Context, msg agent.Message) (agent.Message, error) {
	c.mu.Lock()
	c.nextID++
	msg.ID = c.nextID
	ch := make(chan agent.Message, 1)
	c.pending[msg.ID] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, msg.ID)
		c.mu.Unlock()
	}
	if err := c.send(msg); err != nil {
		forget()
		return agent.Message{}, fmt.Errorf("%s: %w", msg.Op, err)
	}
	select {
	case res := <-ch:
		return res, nil
	case <-c.closed:
		forget()
		return agent.Message{}, fmt.Errorf("%s: the machine stopped", msg.Op)
	case <-ctx.Done():
		forget()
		select { // the liveness watch pings the agent (a signal pending already will do)
		case c.unanswered <- struct{}{}:
		default:
		}
		if msg.Op == agent.OpRun {
			_ = c.send(agent.Message{Op: agent.OpCancel, ID: msg.ID})
		}
		return agent.Message{}, fmt.Errorf("%s: no answer from the machine's agent: %w", msg.Op, ctx.Err())
	}
}

// run asks the agent to run a script and waits for its result within ctx (defaultRunTimeout
// when ctx has no deadline); at the deadline the script's process group is killed.
func (c *control) run(ctx context.Context, script string, env map[string]string) (string, int, error) {
	ctx, cancel := withDefault(ctx, defaultRunTimeout)
	defer cancel()
	res, err := c.call(ctx, agent.Message{Op: agent.OpRun, Script: script, Env: env})
	if err != nil {
		return "", -1, fmt.Errorf("run: %w", err)
	}
	if res.Error != "" {
		return res.Output, res.Exit, fmt.Errorf("run: %s", res.Error)
	}
	return res.Output, res.Exit, nil
}

// setPassword hands the agent a new password hash and waits, within passwordTimeout, until it
// uses it.
func (c *control) setPassword(ctx context.Context, hash string) error {
	ctx, cancel := context.WithTimeout(ctx, passwordTimeout)
	defer cancel()
	_, err := c.call(ctx, agent.Message{Op: agent.OpPassword, Hash: hash})
	return err
}

// ping checks, within pingTimeout, that the agent reads its control channel and answers.
func (c *control) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	_, err := c.call(ctx, agent.Message{Op: agent.OpPing})
	return err
}
