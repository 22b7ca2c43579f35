package instance

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// existing is the state of a running server.
func existing() Model {
	m := emptyModel()
	m.ID = types.Int64Value(7)
	m.OrderID = types.Int64Value(3)
	m.PlanID = types.Int64Value(101)
	m.TemplateID = types.Int64Value(1)
	m.Password = types.StringValue("pw")
	m.IPv4 = types.StringValue("10.0.0.1")
	m.Status = types.StringValue("online")
	m.PasswordResetTrigger = types.StringNull()
	m.IPChangeTrigger = types.StringValue("a")
	return m
}

func TestPlanUpdateRebuildWarnsAndUnknowns(t *testing.T) {
	state := existing()
	plan := state
	plan.TemplateID = types.Int64Value(3)
	config := plan
	config.Features = types.SetNull(types.StringType)
	var resp resource.ModifyPlanResponse
	(&Resource{}).planUpdate(context.Background(), &plan, state, config, &resp)

	if resp.Diagnostics.WarningsCount() != 1 || !strings.Contains(resp.Diagnostics.Warnings()[0].Detail(), "disk is erased") {
		t.Fatalf("diagnostics: got %v, want one warning that the disk is erased", resp.Diagnostics)
	}
	if len(resp.RequiresReplace) != 0 {
		t.Errorf("RequiresReplace: got %v, want none (rebuild is in place)", resp.RequiresReplace)
	}
	for name, unknown := range map[string]bool{
		"password": plan.Password.IsUnknown(), "status": plan.Status.IsUnknown(), "features": plan.Features.IsUnknown(),
		"active_features": plan.ActiveFeatures.IsUnknown(), "ipv4 kept": !plan.IPv4.IsUnknown(), "id kept": !plan.ID.IsUnknown(),
	} {
		if !unknown {
			t.Errorf("%s: wrong plan value", name)
		}
	}
}

func TestPlanUpdateTriggers(t *testing.T) {
	state := existing()
	plan := state
	plan.PasswordResetTrigger = types.StringValue("1")
	plan.IPChangeTrigger = types.StringNull() // removed: runs nothing
	var resp resource.ModifyPlanResponse
	(&Resource{}).planUpdate(context.Background(), &plan, state, plan, &resp)
	if !plan.Password.IsUnknown() || plan.IPv4.IsUnknown() || resp.Diagnostics.HasError() {
		t.Errorf("got password %v ipv4 %v diags %v, want the password unknown and the address kept", plan.Password, plan.IPv4, resp.Diagnostics)
	}
}

func TestPlanResume(t *testing.T) {
	state := existing()
	state.ID = types.Int64Null()
	state.Status = types.StringValue(statusPending)
	plan := state
	plan.PlanID = types.Int64Value(102)
	config := plan
	var resp resource.ModifyPlanResponse
	(&Resource{}).planResume(&plan, state, config, &resp)
	if len(resp.RequiresReplace) != 1 || !resp.RequiresReplace[0].Equal(path.Root("plan_id")) {
		t.Errorf("RequiresReplace: got %v, want plan_id (no server to resize yet)", resp.RequiresReplace)
	}
	if !plan.ID.IsUnknown() || !plan.Status.IsUnknown() || !plan.Password.IsUnknown() || plan.OrderID.IsUnknown() {
		t.Errorf("got id %v status %v password %v order %v, want all but the order unknown", plan.ID, plan.Status, plan.Password, plan.OrderID)
	}
	if resp.Diagnostics.WarningsCount() != 1 {
		t.Errorf("diagnostics: got %v, want a warning that the create is resumed", resp.Diagnostics)
	}
}

// A resumed create that failed for good (the failed-create marker) is replaced: status, unknown
// in the plan, is the attribute Terraform is asked to replace on, and a warning says why.
func TestPlanFailedReplace(t *testing.T) {
	state := existing()
	plan := state
	var resp resource.ModifyPlanResponse
	planFailedReplace(&plan, state, failedCreate{Reason: `install of app "mysql" failed`}, &resp)
	if len(resp.RequiresReplace) != 1 || !resp.RequiresReplace[0].Equal(path.Root("status")) {
		t.Errorf("RequiresReplace: got %v, want status", resp.RequiresReplace)
	}
	if !plan.Status.IsUnknown() {
		t.Errorf("status: got %v, want unknown (Terraform replaces only on a changed or unknown value)", plan.Status)
	}
	if resp.Diagnostics.WarningsCount() != 1 || !strings.Contains(resp.Diagnostics.Warnings()[0].Detail(), `"mysql" failed`) {
		t.Errorf("diagnostics: got %v, want one warning quoting why the create failed", resp.Diagnostics)
	}
}
