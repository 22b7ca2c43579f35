package instance

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// appFailedError is a one-click app whose install failed; LogTail is the only explanation.
type appFailedError struct {
	AppID, Stage, Message, LogTail string
}

func (e *appFailedError) Error() string {
	msg := fmt.Sprintf("the install of app %q failed at stage %q", e.AppID, e.Stage)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.LogTail != "" {
		msg += "\n\nInstall log (tail):\n" + e.LogTail
	}
	return msg
}

// waitForInstance polls the instance until ready says it is, and returns its last reading.
func waitForInstance(ctx context.Context, c *client.Client, id int64, what string, ready func(*client.Instance) bool) (*client.Instance, error) {
	var last *client.Instance
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("instance %d %s", id, what)},
		func(ctx context.Context) (bool, string, error) {
			in, err := c.GetInstance(ctx, id, false)
			if err != nil {
				return false, "", fmt.Errorf("reading instance %d: %w", id, err)
			}
			last = in
			status := in.StatusValue()
			if in.CredentialsPending() {
				status += ", credentials pending"
			}
			return ready(in), status, nil
		})
	return last, err
}

// waitForApps polls the app installs until every one is installed, at least expect of them. A
// failed install is an *appFailedError quoting its log.
func waitForApps(ctx context.Context, c *client.Client, id int64, expect int) error {
	return tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("the apps of instance %d to be installed", id)},
		func(ctx context.Context) (bool, string, error) {
			apps, err := c.ListInstanceApps(ctx, id)
			if err != nil {
				return false, "", fmt.Errorf("reading the apps of instance %d: %w", id, err)
			}
			return appsDone(apps.Installs, expect)
		})
}

// appsDone judges one reading of the installs (newest first): the latest record of each app
// counts.
func appsDone(installs []client.AppInstall, expect int) (bool, string, error) {
	latest := map[string]client.AppInstall{}
	for _, in := range installs {
		if _, seen := latest[in.AppID]; !seen {
			latest[in.AppID] = in
		}
	}
	ids := make([]string, 0, len(latest))
	for id := range latest {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var parts []string
	done := len(latest) >= expect
	for _, id := range ids {
		in := latest[id]
		parts = append(parts, id+": "+in.Status)
		switch in.Status {
		case client.AppFailed:
			return false, "", &appFailedError{AppID: id, Stage: in.Stage, Message: in.Error, LogTail: in.LogTail}
		case client.AppInstalled:
		default:
			done = false
		}
	}
	return done, strings.Join(parts, ", "), nil
}

// waitForCredentials waits until the new instance id is settled with its credentials delivered,
// reading it from its order in the shared GET /orders list (the order carries the instance's
// full detail), so many creates share one poll; without an order id it polls the instance.
func waitForCredentials(ctx context.Context, c *client.Client, orderID types.Int64, id int64) (*client.Instance, error) {
	if !tfutil.IsSet(orderID) {
		return waitForInstance(ctx, c, id, "to deliver its credentials", (*client.Instance).Settled)
	}
	var last *client.Instance
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("instance %d to deliver its credentials", id)},
		func(ctx context.Context) (bool, string, error) {
			o, err := c.OrderShared(ctx, orderID.ValueInt64())
			if err != nil {
				return false, "", fmt.Errorf("reading order %d: %w", orderID.ValueInt64(), err)
			}
			if o.Server == nil {
				return false, o.Status, nil // a list read before the order was deployed
			}
			if o.Server.ID != id {
				return false, "", fmt.Errorf("order %d does not name instance %d", orderID.ValueInt64(), id)
			}
			last = o.Server
			status := last.StatusValue()
			if last.CredentialsPending() {
				status += ", credentials pending"
			}
			return last.Settled(), status, nil
		})
	return last, err
}
