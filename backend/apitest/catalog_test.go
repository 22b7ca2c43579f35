package apitest

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
)

func planIDs(plans []api.PlanView) []int64 {
	out := []int64{}
	for _, p := range plans {
		out = append(out, p.ID)
	}
	return out
}

func TestPlans(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	open := []int64{101, 102, 103, 104, 105, 106, 107, 201, 202, 203, 211, 212, 301, 302} // no Dubai: KYC
	tests := []struct {
		query  string
		status int
		want   []int64
		field  string
	}{
		{"", http.StatusOK, open, ""},
		{"?datacenter_id=2", http.StatusOK, []int64{201, 202, 203, 211, 212}, ""},
		{"?country_code=NL", http.StatusOK, []int64{211, 212}, ""},
		{"?country_code=tr", http.StatusOK, []int64{301, 302}, ""},
		{"?datacenter_id=1&country_code=DE", http.StatusOK, []int64{}, ""},
		{"?datacenter_id=999", http.StatusOK, []int64{}, ""},
		{"?datacenter_id=4", http.StatusOK, []int64{}, ""}, // closed to this account
		{"?country_code=ZZ", http.StatusOK, []int64{}, ""},
		{"?term=hourly", http.StatusOK, open, ""},
		{"?term=monthly", http.StatusBadRequest, nil, "term"},
		{"?term=", http.StatusBadRequest, nil, "term"},
		{"?datacenter_id=abc", http.StatusBadRequest, nil, "datacenter_id"},
		{"?datacenter_id=0", http.StatusBadRequest, nil, "datacenter_id"},
		{"?country_code=IRN", http.StatusBadRequest, nil, "country_code"},
		{"?limit=2&offset=1", http.StatusOK, []int64{102, 103}, ""},
		{"?limit=0", http.StatusBadRequest, nil, "limit"},
		{"?limit=501", http.StatusBadRequest, nil, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := e.do(t, request{Path: "/catalog/servers" + tt.query, Key: key})
			if tt.status != http.StatusOK {
				r.WantStatus(t, tt.status, "validation_error")
				if !contains([]byte(r.Body.Error.Message), tt.field) {
					t.Fatalf("message %q does not name %s", r.Body.Error.Message, tt.field)
				}
				return
			}
			r.WantStatus(t, http.StatusOK, "")
			var plans []api.PlanView
			r.Data(t, &plans)
			if got := planIDs(plans); !slices.Equal(got, tt.want) {
				t.Fatalf("got plans %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("meta.page only with limit", func(t *testing.T) {
		r := e.do(t, request{Path: "/catalog/servers?limit=2&offset=1", Key: key})
		if r.Body.Meta == nil || r.Body.Meta.Page == nil || r.Body.Meta.Page.Total != len(open) ||
			r.Body.Meta.Page.Limit != 2 || r.Body.Meta.Page.Offset != 1 {
			t.Fatalf("meta = %s, want page total %d limit 2 offset 1", r.Raw, len(open))
		}
		if r := e.do(t, request{Path: "/catalog/servers", Key: key}); r.Body.Meta != nil {
			t.Fatalf("meta without limit: %s", r.Raw)
		}
	})
}

func TestPlanFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	var p api.PlanView
	r := e.do(t, request{Path: "/catalog/servers/104?lang=en", Key: key})
	r.WantStatus(t, http.StatusOK, "")
	r.Data(t, &p)
	if p.ID != 104 || p.Name != "CPU-Optimized 4 - Tehran" || p.Type != "cpu-optimized" || p.CPU != 4 || p.Memory != 4 ||
		p.Disk != 80 || p.TermFilter != "hourly" || dollars(p.CreationFee) != 0.5 {
		t.Fatalf("got %+v", p)
	}
	if len(p.Prices) != 1 || p.Prices[0].Term != "hourly" || dollars(p.Prices[0].Price) != 0.022 || p.Prices[0].Currency != "USD" {
		t.Fatalf("prices = %+v", p.Prices)
	}
	if p.Datacenter == nil || p.Datacenter.ID != 1 || p.Location == nil || p.Location.CountryCode != "IR" || p.Traffic == nil {
		t.Fatalf("datacenter/location/traffic = %+v %+v %+v", p.Datacenter, p.Location, p.Traffic)
	}
	var windows, ipv4Forced bool
	for _, tm := range p.Templates {
		windows = windows || tm.OSType == "windows"
	}
	for _, f := range p.Features {
		ipv4Forced = ipv4Forced || (f.ID == 1 && slices.Equal(f.RequiredForOSTypes, []string{"windows"}))
	}
	if !windows || !ipv4Forced || len(p.Actions) != 9 {
		t.Fatalf("windows template %v, forced IPv4 %v, %d actions; want true, true, 9", windows, ipv4Forced, len(p.Actions))
	}

	r = e.do(t, request{Path: "/catalog/servers/105", Key: key})
	r.Data(t, &p)
	if slices.Contains(p.Actions, "change_ip") || slices.Contains(p.Actions, "console") {
		t.Fatalf("plan 105 actions = %v, want no change_ip or console", p.Actions)
	}
}

func TestPlanLookupErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 0)
	tests := []struct {
		path   string
		status int
		code   string
	}{
		{"/catalog/servers/999", http.StatusNotFound, "not_found"},
		{"/catalog/servers/401", http.StatusForbidden, "forbidden"}, // Dubai requires KYC
		{"/catalog/servers/abc", http.StatusBadRequest, "validation_error"},
		{"/catalog/servers/301", http.StatusOK, ""}, // maintenance is readable
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			e.do(t, request{Path: tt.path, Key: a.APIKey}).WantStatus(t, tt.status, tt.code)
		})
	}
	t.Run("identity check opens the datacenter", func(t *testing.T) {
		if err := e.srv.SetKYCVerified(context.Background(), a.ID, true); err != nil {
			t.Fatal(err)
		}
		e.do(t, request{Path: "/catalog/servers/401", Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
		var plans []api.PlanView
		e.do(t, request{Path: "/catalog/servers?datacenter_id=4", Key: a.APIKey}).Data(t, &plans)
		if got := planIDs(plans); !slices.Equal(got, []int64{401, 402}) {
			t.Fatalf("got %v, want [401 402]", got)
		}
	})
}

func TestLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	tests := []struct {
		name   string
		query  string
		accept string
		want   string
	}{
		{"Persian by default", "", "", "استاندارد ۱ - تهران"},
		{"lang=en", "?lang=en", "", "Standard 1 - Tehran"},
		{"lang=fa", "?lang=fa", "", "استاندارد ۱ - تهران"},
		{"Accept-Language en", "", "en", "Standard 1 - Tehran"},
		{"Accept-Language en-US with weights", "", "en-US,en;q=0.9,fa;q=0.5", "Standard 1 - Tehran"},
		{"Accept-Language fa first", "", "fa,en;q=0.8", "استاندارد ۱ - تهران"},
		{"lang wins over the header", "?lang=fa", "en", "استاندارد ۱ - تهران"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tt.accept != "" {
				hdr["Accept-Language"] = tt.accept
			}
			var p api.PlanView
			e.do(t, request{Path: "/catalog/servers/101" + tt.query, Key: key, Header: hdr}).Data(t, &p)
			if p.Name != tt.want {
				t.Fatalf("name = %q, want %q", p.Name, tt.want)
			}
		})
	}
	t.Run("unknown lang is refused", func(t *testing.T) {
		for _, path := range []string{"/catalog/servers/101?lang=de", "/datacenters?lang=EN", "/locations?lang="} {
			r := e.do(t, request{Path: path, Key: key})
			r.WantStatus(t, http.StatusBadRequest, "validation_error")
			if !strings.Contains(r.Body.Error.Message, "lang") {
				t.Fatalf("%s: message %q does not name lang", path, r.Body.Error.Message)
			}
		}
	})
	t.Run("every list follows lang", func(t *testing.T) {
		var dcs []api.DatacenterView
		e.do(t, request{Path: "/datacenters?lang=en", Key: key}).Data(t, &dcs)
		var locs []api.LocationView
		e.do(t, request{Path: "/locations", Key: key, Header: map[string]string{"Accept-Language": "en"}}).Data(t, &locs)
		var apps []api.AppView
		e.do(t, request{Path: "/catalog/apps?lang=en", Key: key}).Data(t, &apps)
		if dcs[0].Name != "Tehran - Asiatech" || locs[0].Name != "Tehran" || locs[0].Country != "Iran" || apps[0].Name != "Docker" {
			t.Fatalf("got %q, %+v, %q", dcs[0].Name, locs[0], apps[0].Name)
		}
	})
}

func TestDatacenters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 0)
	ids := func(dcs []api.DatacenterView) []int64 {
		out := []int64{}
		for _, d := range dcs {
			out = append(out, d.ID)
		}
		return out
	}
	var got []api.DatacenterView
	var present []map[string]any // which properties each datacenter sends
	r := e.do(t, request{Path: "/datacenters", Key: a.APIKey})
	r.Data(t, &got)
	r.Data(t, &present)
	if !slices.Equal(ids(got), []int64{1, 2, 3}) {
		t.Fatalf("got %v, want [1 2 3]: the KYC datacenter hidden", ids(got))
	}
	if *got[2].Status != "maintenance" || len(got[0].Terms) != 1 || got[0].Terms[0].Term != "hourly" {
		t.Fatalf("got %+v", got)
	}
	// The local_snapshots extension: datacenters 2 and 3 keep snapshots on the server's disk.
	for i, want := range []bool{false, true, true} {
		if _, sent := present[i]["local_snapshots"]; !sent || got[i].LocalSnapshots == nil || *got[i].LocalSnapshots != want {
			t.Errorf("datacenter %d: local_snapshots %v (sent: %v), want %v", got[i].ID, present[i]["local_snapshots"], sent, want)
		}
	}
	if err := e.srv.SetKYCVerified(context.Background(), a.ID, true); err != nil {
		t.Fatal(err)
	}
	e.do(t, request{Path: "/datacenters", Key: a.APIKey}).Data(t, &got)
	if !slices.Equal(ids(got), []int64{1, 2, 3, 4}) || !got[3].RequireKYC {
		t.Fatalf("verified account: got %+v, want [1 2 3 4] with 4 requiring KYC", got)
	}
}

func TestLocations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.account(t, 0).APIKey
	tests := []struct {
		query  string
		status int
		want   []int64
	}{
		{"", http.StatusOK, []int64{11, 12, 21, 22, 31}},
		{"?datacenter_id=2", http.StatusOK, []int64{21, 22}},
		{"?datacenter_id=4", http.StatusOK, []int64{}},
		{"?datacenter_id=77", http.StatusOK, []int64{}},
		{"?datacenter_id=x", http.StatusBadRequest, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := e.do(t, request{Path: "/locations" + tt.query, Key: key})
			if tt.status != http.StatusOK {
				r.WantStatus(t, tt.status, "validation_error")
				return
			}
			var locs []api.LocationView
			r.Data(t, &locs)
			got := []int64{}
			for _, l := range locs {
				got = append(got, l.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestApps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 0)
	all := []string{"docker", "gitlab", "iis", "mysql", "nextcloud", "openvpn", "wireguard", "wordpress"}
	tests := []struct {
		query  string
		status int
		code   string
		want   []string
	}{
		{"", http.StatusOK, "", all},
		{"?server_id=101&template_id=1", http.StatusOK, "", []string{"docker", "mysql", "openvpn", "wireguard", "wordpress"}},
		{"?server_id=103&template_id=1", http.StatusOK, "", []string{"docker", "gitlab", "mysql", "nextcloud", "openvpn", "wireguard", "wordpress"}},
		{"?server_id=103&template_id=5", http.StatusOK, "", []string{"iis"}},
		{"?server_id=101&template_id=5", http.StatusOK, "", []string{}}, // plan 101 has no Windows
		{"?server_id=101&template_id=4", http.StatusOK, "", []string{"docker", "mysql", "openvpn", "wireguard"}},
		{"?template_id=5", http.StatusOK, "", []string{"iis"}},
		{"?server_id=101", http.StatusOK, "", []string{"docker", "mysql", "openvpn", "wireguard", "wordpress"}},
		{"?server_id=999", http.StatusNotFound, "not_found", nil},
		{"?template_id=999", http.StatusNotFound, "not_found", nil},
		{"?server_id=101&template_id=999", http.StatusNotFound, "not_found", nil},
		{"?server_id=401", http.StatusForbidden, "forbidden", nil},
		{"?server_id=x", http.StatusBadRequest, "validation_error", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := e.do(t, request{Path: "/catalog/apps" + tt.query, Key: a.APIKey})
			r.WantStatus(t, tt.status, tt.code)
			if tt.code != "" {
				return
			}
			var apps []api.AppView
			r.Data(t, &apps)
			got := []string{}
			for _, app := range apps {
				got = append(got, app.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("apps closed to the account", func(t *testing.T) {
		if err := e.srv.SetAppsEnabled(context.Background(), a.ID, false); err != nil {
			t.Fatal(err)
		}
		r := e.do(t, request{Path: "/catalog/apps?server_id=103&template_id=1", Key: a.APIKey})
		r.WantStatus(t, http.StatusOK, "")
		if string(r.Body.Data) != "[]" {
			t.Fatalf("data = %s, want []", r.Body.Data)
		}
		e.do(t, request{Path: "/catalog/apps?server_id=999", Key: a.APIKey}).WantStatus(t, http.StatusNotFound, "not_found")
	})
}
