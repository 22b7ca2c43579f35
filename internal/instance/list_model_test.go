package instance

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// emptyListConfig is a list block with no filter set.
func emptyListConfig() ListConfigModel {
	return ListConfigModel{
		Status: types.StringNull(), OnlyActive: types.BoolNull(), DatacenterID: types.Int64Null(),
		LocationID: types.Int64Null(), PlanID: types.Int64Null(), NameRegex: types.StringNull(),
	}
}

func TestListFilter(t *testing.T) {
	web := *sampleInstance() // online, plan 101, datacenter 1, location 11, "web" / "web.example"
	gone := web
	gone.Status = new(client.StatusCanceled)
	tests := []struct {
		name string
		set  func(c *ListConfigModel)
		in   client.Instance
		want bool
	}{
		{"no filter", func(*ListConfigModel) {}, web, true},
		{"no filter leaves out a canceled server", func(*ListConfigModel) {}, gone, false},
		{"only_active false keeps a canceled server", func(c *ListConfigModel) { c.OnlyActive = types.BoolValue(false) }, gone, true},
		{"status matches", func(c *ListConfigModel) { c.Status = types.StringValue("online") }, web, true},
		{"status differs", func(c *ListConfigModel) { c.Status = types.StringValue("offline") }, web, false},
		{"datacenter matches", func(c *ListConfigModel) { c.DatacenterID = types.Int64Value(1) }, web, true},
		{"datacenter differs", func(c *ListConfigModel) { c.DatacenterID = types.Int64Value(2) }, web, false},
		{"location differs", func(c *ListConfigModel) { c.LocationID = types.Int64Value(12) }, web, false},
		{"plan matches", func(c *ListConfigModel) { c.PlanID = types.Int64Value(101) }, web, true},
		{"plan differs", func(c *ListConfigModel) { c.PlanID = types.Int64Value(102) }, web, false},
		{"regex matches the hostname", func(c *ListConfigModel) { c.NameRegex = types.StringValue(`\.example$`) }, web, true},
		{"regex matches the name", func(c *ListConfigModel) { c.NameRegex = types.StringValue(`^web$`) }, web, true},
		{"regex matches neither", func(c *ListConfigModel) { c.NameRegex = types.StringValue(`^db`) }, web, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := emptyListConfig()
			tt.set(&config)
			f, err := config.filter()
			if err != nil {
				t.Fatal(err)
			}
			if got := f.matches(tt.in); got != tt.want {
				t.Errorf("matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestListFilter_badRegex(t *testing.T) {
	config := emptyListConfig()
	config.NameRegex = types.StringValue("web-(")
	if _, err := config.filter(); err == nil {
		t.Fatal("want an error for an invalid regex")
	}
}

func TestListDisplayName(t *testing.T) {
	in := *sampleInstance()
	if got := listDisplayName(in); got != "web (web.example)" {
		t.Errorf("display name = %q", got)
	}
	in.Hostname = new("web")
	if got := listDisplayName(in); got != "web" {
		t.Errorf("display name with the hostname as name = %q", got)
	}
}
