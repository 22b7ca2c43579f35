package api_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// TestAnswersEncodeAsEncodingJSON: the API's encoder (write's, a faster library than
// encoding/json) sends exactly the bytes encoding/json would, for every view with every field
// set and empty, and for awkward strings and numbers in the fields a user or an app fills.
// Clients, the golden file and the OpenAPI check were all written against encoding/json's bytes.
func TestAnswersEncodeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := goldenViews(t)
	for _, s := range api.AwkwardText {
		var d api.InstanceDetailView
		d.Name, d.Note, d.Hostname = s, &s, &s
		d.Actions, d.ActiveFeatures = []string{s}, []string{s, s}
		d.Apps = []api.InstanceAppView{{AppID: s, Name: s, Status: s}}
		d.PaidAmount, d.Recurring = new(money.Micros(-1)), money.Micros(1<<62)
		cases = append(cases, struct {
			name string
			v    any
		}{"instance " + s, d})
		install := api.AppInstallView{AppID: s, LogTail: s, Error: s, Result: map[string]any{
			s: s, "n": 1e21, "small": 1e-7, "neg": -0.0, "int": float64(1 << 53), "list": []any{s, true, nil},
			"nested": map[string]any{"z": 1, "a": s},
		}}
		cases = append(cases, struct {
			name string
			v    any
		}{"install " + s, install})
	}
	for _, c := range cases {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(c.v); err != nil {
			t.Fatalf("%s: encoding/json: %v", c.name, err)
		}
		got, err := api.EncodeAnswer(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%q:\n got  %s\n want %s", c.name, got, want.Bytes())
		}
	}
}
