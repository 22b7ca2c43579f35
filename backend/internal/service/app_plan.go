package service

import (
	"slices"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// resolveApps turns requested app ids into the list to install: each app's dependencies come
// before it, every app once. Each must run on the template's OS family and fit the plan, and no
// two may conflict; those are input errors naming `apps`. Apps closed to the account are 403.
func (s *Service) resolveApps(acct store.Account, plan catalog.Plan, tmpl catalog.Template, ids []string) ([]catalog.App, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if !acct.AppsEnabled {
		return nil, Forbidden("one-click apps are not open to this account")
	}
	var out []catalog.App
	seen := map[string]bool{}
	var add func(id string, path []string) error
	add = func(id string, path []string) error {
		if seen[id] {
			return nil
		}
		if slices.Contains(path, id) {
			return Validation("apps", "%s depends on itself", id)
		}
		app, ok := s.catalog.App(id)
		if !ok {
			return Validation("apps", "unknown app %q", id)
		}
		for _, dep := range app.Requires {
			if err := add(dep, append(path, id)); err != nil {
				return err
			}
		}
		seen[id] = true
		out = append(out, app)
		return nil
	}
	for _, id := range ids {
		if err := add(id, nil); err != nil {
			return nil, err
		}
	}
	for _, a := range out {
		if err := fits(a, plan, tmpl); err != nil {
			return nil, err
		}
	}
	if a, b, ok := firstConflict(out, out); ok {
		return nil, Validation("apps", "%s conflicts with %s; choose one", a, b)
	}
	return out, nil
}

// fits checks that an app runs on the template's OS family and that the plan has room for it.
func fits(a catalog.App, plan catalog.Plan, tmpl catalog.Template) error {
	if !slices.Contains(a.OSFamilies, tmpl.Family) {
		return Validation("apps", "%s does not run on %s (it needs %s)", a.ID, tmpl.Family, strings.Join(a.OSFamilies, ", "))
	}
	if !a.FitsPlan(plan) {
		return Validation("apps", "%s needs %d MB of memory and %d GB of disk; server %d has %d GB and %d GB",
			a.ID, a.MinMemoryMB, a.MinDiskGB, plan.ID, plan.MemoryGB, plan.DiskGB)
	}
	return nil
}

// firstConflict finds an app of xs that conflicts with an app of ys (in either direction).
func firstConflict(xs, ys []catalog.App) (string, string, bool) {
	for _, x := range xs {
		for _, y := range ys {
			if x.ID != y.ID && (slices.Contains(x.Conflicts, y.ID) || slices.Contains(y.Conflicts, x.ID)) {
				return x.ID, y.ID, true
			}
		}
	}
	return "", "", false
}

// appIDs lists the ids of apps.
func appIDs(apps []catalog.App) []string {
	out := make([]string, 0, len(apps))
	for _, a := range apps {
		out = append(out, a.ID)
	}
	return out
}
