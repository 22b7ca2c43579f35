package service

import (
	"context"
	"log/slog"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
)

// DeployHook runs between the datacenter reporting an order's machine built and the deploy being
// recorded: before the order reads deployed, before its first charge and before any of its app
// installs is queued. It is for tests, which inject a failure at exactly that step (the root
// password changed on the machine, the datacenter made to fail) instead of racing the deploy
// from a goroutine. An error leaves the order pending: the next tick asks again.
type DeployHook func(ctx context.Context, orderID int64, machine datacenter.Machine) error

// SetDeployHook makes h run at every deploy from now on; nil removes it. Safe to call while the
// workers run.
func (s *Service) SetDeployHook(h DeployHook) {
	if h == nil {
		s.deployHook.Store(nil)
		return
	}
	s.deployHook.Store(&h)
}

// runDeployHook runs the deploy hook, if any, for a finished build, and reports whether the
// deploy may be recorded now.
func (s *Service) runDeployHook(ctx context.Context, orderID int64, m datacenter.Machine) bool {
	h := s.deployHook.Load()
	if h == nil {
		return true
	}
	if err := (*h)(ctx, orderID, m); err != nil {
		s.log.InfoContext(ctx, "deploy held by the deploy hook; retrying", slog.Int64("order_id", orderID), slog.Any("error", err))
		return false
	}
	return true
}
