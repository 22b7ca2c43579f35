package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// refreshNote is how a refresh reads an instance; it is part of the resource's documentation.
const refreshNote = "On refresh the provider reads every instance of the operation from one shared, paginated " +
	"`GET /instances` list (one request per 500 servers) rather than one `GET /instances/{id}` each. The list " +
	"refreshes `name`, `note`, `renew`, `status`, `power`, `plan_id`, `template_id`, `hostname`, `ipv4`, `ipv6`, " +
	"`datacenter_id`, `location_id`, `renewal_due`, `created_at`, `locked`, `lock_reason` and `actions`, so a " +
	"server deleted, canceled, expired, locked, powered off, resized or renamed outside Terraform shows as drift " +
	"at once. The detail-only attributes (`username`, `password`, `port`, `traffic`, `ip_change_cost`, " +
	"`active_features`, `order_id`) keep their last read value unless a detail read happens, which it does " +
	"when the state has no status yet (right after an import), when the credentials were still pending at the " +
	"last read, when the plan differs from the state's `plan_id` (resized outside Terraform), or for every " +
	"instance when the provider sets `detailed_refresh = true`."

// readInstance reads instance id for a refresh: its summary from the shared list, then its
// detail when state needs a field the summary does not carry (needsDetail). found is false when
// the account does not have the instance.
func readInstance(ctx context.Context, c *client.Client, state Model, id int64) (in *client.Instance, detailed, found bool, err error) {
	sum, found, err := c.InstanceSummary(ctx, id)
	if err != nil || !found {
		return nil, false, found, err
	}
	reason := needsDetail(c.DetailedRefresh(), state, sum)
	if reason == "" || sum.Gone() {
		return sum, false, true, nil
	}
	tflog.Debug(ctx, "reading the instance detail", map[string]any{"instance_id": id, "reason": reason})
	in, err = c.GetInstance(ctx, id, false)
	if tfutil.IsNotFound(err) {
		return nil, false, false, nil
	}
	if err != nil {
		return nil, false, false, fmt.Errorf("reading the instance detail: %w", err)
	}
	return in, true, true, nil
}

// needsDetail says why a refresh must read the instance's detail (see refreshNote), or "" when
// the summary is enough.
func needsDetail(always bool, state Model, sum *client.Instance) string {
	switch {
	case always:
		return "detailed_refresh is set"
	case state.Status.IsNull() || state.Status.IsUnknown():
		return "first read"
	case (state.Password.IsNull() && state.keepsPassword()) || state.Username.IsNull():
		return "credentials were pending"
	case state.PlanID.ValueInt64() != sum.ServerProductID:
		return "the plan changed"
	}
	return ""
}
