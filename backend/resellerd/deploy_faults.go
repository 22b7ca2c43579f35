package resellerd

import (
	"context"
	"errors"
	"sync"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
)

// Faults at a deploy, for tests (the provider's acceptance tests above all): each fires at the
// step between the datacenter finishing an order's build and the deploy being recorded
// (service.DeployHook), so before the order reads deployed and before any app install of its
// server is queued. A test that arms one gets the failure at that exact step whatever the load,
// where a goroutine polling for the deployed order would race the installs and the provider.

// deployFaults is what is armed; the zero value arms nothing.
type deployFaults struct {
	mu             sync.Mutex
	hold           bool // builds that finish stay undeployed (HoldDeploys)
	changePassword bool // the next deploy: the root password changed out of band first
	failDatacenter bool // the next deploy: the fail rate set to 1 first
}

// errDeployHeld keeps a finished build undeployed while HoldDeploys is in force.
var errDeployHeld = errors.New("deploys are held (Server.HoldDeploys)")

// HoldDeploys keeps every build that finishes from being deployed until ReleaseDeploys: its
// order stays pending for as long as the test needs it pending (to restart the backend, signal
// Terraform or let a create time out while it is), then deploys at the next tick after the
// release. (An order held past its window times out as any pending order does.)
func (s *Server) HoldDeploys() { s.armDeployFault(func(f *deployFaults) { f.hold = true }) }

// ReleaseDeploys ends HoldDeploys; the builds it held deploy at the next tick.
func (s *Server) ReleaseDeploys() { s.armDeployFault(func(f *deployFaults) { f.hold = false }) }

// ChangeRootPasswordAtDeploy makes the next order deployed have its machine's root password
// changed behind the service's back (as ChangeRootPasswordOutOfBand does) at its deploy, once:
// its app installs then fail at stage auth_failed, every time, and a later server (the
// replacement of a tainted one) installs normally.
func (s *Server) ChangeRootPasswordAtDeploy() {
	s.armDeployFault(func(f *deployFaults) { f.changePassword = true })
}

// FailDatacenterAtDeploy sets the fail rate to 1 (every datacenter operation fails with
// provider_error, as SetFailRate) at the next deploy, once: the deploy itself is recorded, and
// the first operation on the new server fails.
func (s *Server) FailDatacenterAtDeploy() {
	s.armDeployFault(func(f *deployFaults) { f.failDatacenter = true })
}

// armDeployFault changes what is armed and installs the hook on the service.
func (s *Server) armDeployFault(change func(*deployFaults)) {
	s.deployFaults.mu.Lock()
	change(&s.deployFaults)
	s.deployFaults.mu.Unlock()
	s.svc.SetDeployHook(s.atDeploy)
}

// atDeploy is the service's deploy hook: it fires what is armed, in the order a deploy meets
// them.
func (s *Server) atDeploy(ctx context.Context, _ int64, m datacenter.Machine) error {
	f := &s.deployFaults
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hold {
		return errDeployHeld
	}
	if f.changePassword {
		if err := s.outOfBand.SetRootPasswordOutOfBand(ctx, m.Ref); err != nil {
			return err
		}
		f.changePassword = false
	}
	if f.failDatacenter {
		if err := s.SetFailRate(ctx, 1); err != nil {
			return err
		}
		f.failDatacenter = false
	}
	return nil
}
