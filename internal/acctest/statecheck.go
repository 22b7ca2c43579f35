package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// ExpectAbsentFromState returns a state check that fails when value occurs anywhere in the
// state, sensitive values included (the state as `terraform show -json` renders it, which holds
// every value in clear). It proves that a write-only argument never reached the state. desc
// names the value in the failure, so the value itself is never printed.
func ExpectAbsentFromState(desc, value string) statecheck.StateCheck {
	return absentCheck{desc: desc, value: value}
}

type absentCheck struct{ desc, value string }

func (c absentCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil {
		resp.Error = fmt.Errorf("%s: no state to check", c.desc)
		return
	}
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = fmt.Errorf("%s: encoding the state: %w", c.desc, err)
		return
	}
	if strings.Contains(string(raw), c.value) {
		resp.Error = fmt.Errorf("%s: got it in the state, want it absent", c.desc)
	}
}

// ExpectPresentInState is the opposite check, so a test can show that ExpectAbsentFromState
// would have seen the value: it fails unless value occurs somewhere in the state.
func ExpectPresentInState(desc, value string) statecheck.StateCheck {
	return presentCheck{desc: desc, value: value}
}

type presentCheck struct{ desc, value string }

func (c presentCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = fmt.Errorf("%s: encoding the state: %w", c.desc, err)
		return
	}
	if !strings.Contains(string(raw), c.value) {
		resp.Error = fmt.Errorf("%s: got it absent from the state, want it present", c.desc)
	}
}
