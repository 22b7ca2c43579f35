package catalog

import (
	"slices"
	"testing"
)

// TestSeedInvariants checks the promises the rest of the service relies on, so a careless edit
// of the seed fails here rather than in an acceptance test.
func TestSeedInvariants(t *testing.T) {
	t.Parallel()
	c := New()

	t.Run("texts in both languages", func(t *testing.T) {
		for _, d := range c.Datacenters() {
			requireText(t, "datacenter name", d.Name)
			requireText(t, "datacenter description", d.Description)
		}
		for _, l := range c.Locations() {
			requireText(t, "location name", l.Name)
			requireText(t, "location country", l.Country)
		}
		for _, tm := range c.Templates() {
			requireText(t, "template name", tm.Name)
		}
		for _, f := range c.Features() {
			requireText(t, "feature name", f.Name)
		}
		for _, a := range c.Apps() {
			requireText(t, "app name", a.Name)
			requireText(t, "app description", a.Description)
			for _, in := range a.Inputs {
				requireText(t, "input label", in.Label)
			}
		}
	})

	t.Run("datacenter variety", func(t *testing.T) {
		var available, maintenance, kyc int
		for _, d := range c.Datacenters() {
			if d.TakesOrders() {
				available++
			}
			if d.Status == "maintenance" {
				maintenance++
			}
			if d.RequireKYC {
				kyc++
			}
		}
		if len(c.Datacenters()) < 4 || available < 2 || maintenance < 1 || kyc < 1 {
			t.Fatalf("got %d datacenters (%d available, %d maintenance, %d kyc), want >=4, >=2, >=1, >=1",
				len(c.Datacenters()), available, maintenance, kyc)
		}
	})

	t.Run("plans reference the catalogue", func(t *testing.T) {
		ids := map[int64]bool{}
		for _, p := range c.Plans(PlanFilter{}) {
			if ids[p.ID] {
				t.Fatalf("plan %d twice", p.ID)
			}
			ids[p.ID] = true
			loc, ok := c.Location(p.LocationID)
			if !ok || loc.DatacenterID != p.DatacenterID {
				t.Fatalf("plan %d: location %d not in datacenter %d", p.ID, p.LocationID, p.DatacenterID)
			}
			requireText(t, "plan name", p.Name)
			if p.Price <= 0 || p.CreationFee < 0 {
				t.Fatalf("plan %d: price %v, fee %v", p.ID, p.Price, p.CreationFee)
			}
			for _, a := range p.Actions {
				if !slices.Contains(AllActions(), a) {
					t.Fatalf("plan %d: unknown action %q", p.ID, a)
				}
			}
			if len(c.PlanTemplates(p)) != len(p.TemplateIDs) || len(c.PlanFeatures(p)) != len(p.FeatureIDs) {
				t.Fatalf("plan %d references an unknown template or feature", p.ID)
			}
			for _, tm := range c.PlanTemplates(p) {
				for _, f := range c.Features() {
					if f.RequiredFor(tm.OSType) && !p.HasFeature(f.ID) {
						t.Fatalf("plan %d offers %s but not its forced feature %d", p.ID, tm.OSType, f.ID)
					}
				}
			}
		}
	})

	t.Run("every datacenter has a resize path", func(t *testing.T) {
		for _, d := range c.Datacenters() {
			found := false
			for _, p := range c.Plans(PlanFilter{DatacenterID: d.ID}) {
				if len(c.ResizeTargets(p)) > 0 {
					found = true
				}
			}
			if !found {
				t.Fatalf("datacenter %d has no plan with a resize target", d.ID)
			}
		}
	})

	t.Run("one arm64 plan, never a resize target of an x86_64 one", func(t *testing.T) {
		var arm []int64
		for _, p := range c.Plans(PlanFilter{}) {
			switch p.Architecture {
			case ArchARM64:
				arm = append(arm, p.ID)
			case ArchX86:
			default:
				t.Fatalf("plan %d: architecture %q", p.ID, p.Architecture)
			}
			for _, q := range c.ResizeTargets(p) {
				if q.Architecture != p.Architecture {
					t.Fatalf("plan %d (%s) resizes to %d (%s)", p.ID, p.Architecture, q.ID, q.Architecture)
				}
			}
		}
		if !slices.Equal(arm, []int64{107}) {
			t.Fatalf("arm64 plans = %v, want [107]", arm)
		}
	})

	t.Run("snapshot settings", func(t *testing.T) {
		for _, d := range c.Datacenters() {
			s := d.Snapshots
			if !s.Offered() || s.PerInstanceCap < 1 {
				t.Fatalf("datacenter %d: snapshot settings %+v", d.ID, s)
			}
			if s.Local == s.CrossLocation {
				t.Fatalf("datacenter %d: local %v with cross_location %v; local restore points cannot move", d.ID, s.Local, s.CrossLocation)
			}
		}
	})

	t.Run("some plan lacks change_ip and console", func(t *testing.T) {
		for _, p := range c.Plans(PlanFilter{}) {
			if !slices.Contains(p.Actions, ActionChangeIP) && !slices.Contains(p.Actions, ActionConsole) {
				return
			}
		}
		t.Fatal("no plan without change_ip and console")
	})

	t.Run("apps are consistent", func(t *testing.T) {
		kinds := []string{KindText, KindPassword, KindEmail, KindNumber, KindBoolean, KindDomain}
		for _, a := range c.Apps() {
			for _, r := range a.Requires {
				dep, ok := c.App(r)
				if !ok {
					t.Fatalf("app %s requires unknown %s", a.ID, r)
				}
				for _, fam := range a.OSFamilies {
					if !slices.Contains(dep.OSFamilies, fam) {
						t.Fatalf("app %s runs on %s but its dependency %s does not", a.ID, fam, r)
					}
				}
			}
			for _, x := range a.Conflicts {
				other, ok := c.App(x)
				if !ok || !slices.Contains(other.Conflicts, a.ID) {
					t.Fatalf("conflict %s/%s is not symmetric", a.ID, x)
				}
			}
			for _, in := range a.Inputs {
				if !slices.Contains(kinds, in.Kind) {
					t.Fatalf("app %s input %s: kind %q", a.ID, in.Key, in.Kind)
				}
			}
		}
	})
}

func TestLookups(t *testing.T) {
	t.Parallel()
	c := New()
	tests := []struct {
		name   string
		filter PlanFilter
		want   []int64
	}{
		{"datacenter 2", PlanFilter{DatacenterID: 2}, []int64{201, 202, 203, 211, 212}},
		{"country NL", PlanFilter{CountryCode: "NL"}, []int64{211, 212}},
		{"country and datacenter disagree", PlanFilter{DatacenterID: 1, CountryCode: "DE"}, nil},
		{"unknown datacenter", PlanFilter{DatacenterID: 99}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			for _, p := range c.Plans(tt.filter) {
				got = append(got, p.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("forced features", func(t *testing.T) {
		p, _ := c.Plan(102)
		if got := c.ForcedFeatures(p, OSWindows); len(got) != 1 || got[0].ID != featIPv4 {
			t.Fatalf("windows forced = %v, want IPv4 only", got)
		}
		if got := c.ForcedFeatures(p, OSLinux); len(got) != 0 {
			t.Fatalf("linux forced = %v, want none", got)
		}
	})

	t.Run("apps for plan and template", func(t *testing.T) {
		small, _ := c.Plan(101)
		big, _ := c.Plan(103)
		ubuntu, _ := c.Template(tmplUbuntu2404)
		windows, _ := c.Template(tmplWindows)
		if ids := appIDs(c.AppsFor(small, ubuntu)); slices.Contains(ids, "gitlab") || !slices.Contains(ids, "docker") {
			t.Fatalf("1 GB plan apps = %v, want docker and no gitlab", ids)
		}
		if ids := appIDs(c.AppsFor(big, ubuntu)); !slices.Contains(ids, "gitlab") {
			t.Fatalf("8 GB plan apps = %v, want gitlab", ids)
		}
		if ids := appIDs(c.AppsFor(big, windows)); !slices.Equal(ids, []string{"iis"}) {
			t.Fatalf("windows apps = %v, want [iis]", ids)
		}
		if ids := appIDs(c.AppsFor(small, windows)); len(ids) != 0 {
			t.Fatalf("template not offered by the plan: got %v, want none", ids)
		}
	})

	t.Run("copies cannot change the catalogue", func(t *testing.T) {
		p, _ := c.Plan(101)
		p.Actions[0] = "mutated"
		again, _ := c.Plan(101)
		if again.Actions[0] == "mutated" {
			t.Fatal("a caller changed the catalogue")
		}
	})

	t.Run("language fallback", func(t *testing.T) {
		if got := (Text{FA: "الف", EN: "A"}).In(English); got != "A" {
			t.Fatalf("got %q, want A", got)
		}
		if got := (Text{FA: "الف"}).In(English); got != "الف" {
			t.Fatalf("got %q, want Persian fallback", got)
		}
	})
}

func appIDs(apps []App) []string {
	out := []string{}
	for _, a := range apps {
		out = append(out, a.ID)
	}
	return out
}

func requireText(t *testing.T, what string, txt Text) {
	t.Helper()
	if txt.FA == "" || txt.EN == "" {
		t.Fatalf("%s %+v lacks a language", what, txt)
	}
}
