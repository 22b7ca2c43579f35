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
	return tfutil.WaitServer(ctx, c, tfutil.ServerWait{ID: id, OrderID: orderID.ValueInt64(),
		What: "to deliver its credentials", Done: (*client.Instance).Settled})
}
