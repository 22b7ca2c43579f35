package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// schemaSnapshotFile is the committed description of every resource schema as Terraform receives
// it. A state written by one release must be readable by the next, so the file only changes
// together with the schemas, under the rules of evolutionProblems.
const schemaSnapshotFile = "testdata/resource_schemas.json"

// envUpdateSchemas rewrites the snapshot file when set (after a change the rules allow).
const envUpdateSchemas = "UPDATE_SCHEMA_SNAPSHOT"

// schemaDesc describes one resource schema: its version and, by dotted path, each attribute and
// block ("type flags" for an attribute, "block nesting" for a block, "nested nesting" for a
// nested attribute).
type schemaDesc struct {
	Version    int64             `json:"version"`
	Attributes map[string]string `json:"attributes"`
}

// TestSchemaVersions compares every resource schema with the committed description. A change
// other than an added optional or computed attribute must move the schema version and come with
// an UpgradeState step from the committed version; any change (allowed) must be recorded by
// running the test with UPDATE_SCHEMA_SNAPSHOT=1, which refuses to record a disallowed one.
func TestSchemaVersions(t *testing.T) {
	ctx := context.Background()
	current := describeResourceSchemas(t)
	raw, err := os.ReadFile(schemaSnapshotFile)
	if err != nil {
		t.Fatalf("reading %s: %v (run with %s=1 to create it)", schemaSnapshotFile, err, envUpdateSchemas)
	}
	var committed map[string]schemaDesc
	if err := json.Unmarshal(raw, &committed); err != nil {
		t.Fatalf("reading %s: %v", schemaSnapshotFile, err)
	}
	problems, changes := evolutionProblems(committed, current, upgradeSteps(ctx, t))
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		return
	}
	if os.Getenv(envUpdateSchemas) != "" {
		out, err := json.MarshalIndent(current, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(schemaSnapshotFile, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, c := range changes {
		t.Errorf("%s: a compatible change not recorded yet; run `%s=1 go test ./internal/provider -run TestSchemaVersions` "+
			"and commit %s", c, envUpdateSchemas, schemaSnapshotFile)
	}
}

// describeResourceSchemas reads every resource schema from the provider's protocol server, so
// the description is exactly what Terraform stores states against.
func describeResourceSchemas(t *testing.T) map[string]schemaDesc {
	t.Helper()
	srv := providerserver.NewProtocol6(New("test")())()
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("%s: %s", d.Summary, d.Detail)
	}
	out := map[string]schemaDesc{}
	for name, s := range resp.ResourceSchemas {
		d := schemaDesc{Version: s.Version, Attributes: map[string]string{}}
		describeBlock(s.Block, "", d.Attributes)
		out[name] = d
	}
	return out
}

// describeBlock adds the attributes and nested blocks of b under prefix.
func describeBlock(b *tfprotov6.SchemaBlock, prefix string, out map[string]string) {
	for _, a := range b.Attributes {
		describeAttribute(a, prefix, out)
	}
	for _, nb := range b.BlockTypes {
		out[prefix+nb.TypeName] = "block " + strings.ToLower(nb.Nesting.String())
		describeBlock(nb.Block, prefix+nb.TypeName+".", out)
	}
}

func describeAttribute(a *tfprotov6.SchemaAttribute, prefix string, out map[string]string) {
	flags := []string{}
	for _, f := range []struct {
		on   bool
		name string
	}{{a.Required, "required"}, {a.Optional, "optional"}, {a.Computed, "computed"}, {a.Sensitive, "sensitive"}, {a.WriteOnly, "write-only"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	path := prefix + a.Name
	if a.NestedType != nil {
		out[path] = strings.TrimSpace("nested " + strings.ToLower(a.NestedType.Nesting.String()) + " " + strings.Join(flags, " "))
		for _, na := range a.NestedType.Attributes {
			describeAttribute(na, path+".", out)
		}
		return
	}
	out[path] = strings.TrimSpace(a.Type.String() + " " + strings.Join(flags, " "))
}

// upgradeSteps returns, per resource type, the prior versions its UpgradeState upgrades from.
func upgradeSteps(ctx context.Context, t *testing.T) map[string][]int64 {
	t.Helper()
	out := map[string][]int64{}
	for _, newR := range New("test")().(*Provider).Resources(ctx) {
		r := newR()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		if u, ok := r.(resource.ResourceWithUpgradeState); ok {
			for v := range u.UpgradeState(ctx) {
				out[meta.TypeName] = append(out[meta.TypeName], v)
			}
		}
	}
	return out
}

// evolutionProblems compares the committed descriptions with the current ones. problems are
// changes a state written against committed could not survive: a removed resource, a lowered
// version, and, at an unchanged version, a removed or changed attribute or a new required one; a
// moved version needs an UpgradeState step (steps) from the committed version. changes are the
// allowed differences, which the snapshot file must record.
func evolutionProblems(committed, current map[string]schemaDesc, steps map[string][]int64) (problems, changes []string) {
	for _, name := range sortedKeys(committed) {
		old := committed[name]
		was, ok := current[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: resource removed; a removed resource type strands every state that has one", name))
			continue
		}
		switch {
		case was.Version < old.Version:
			problems = append(problems, fmt.Sprintf("%s: schema version went down from %d to %d", name, old.Version, was.Version))
		case was.Version > old.Version && !slices.Contains(steps[name], old.Version):
			problems = append(problems, fmt.Sprintf("%s: schema version moved from %d to %d without an UpgradeState step "+
				"from version %d; add one (with a test from a version-%d state)", name, old.Version, was.Version, old.Version, old.Version))
		case was.Version > old.Version:
			changes = append(changes, fmt.Sprintf("%s: schema version %d -> %d", name, old.Version, was.Version))
		default:
			p, c := attributeChanges(name, old, was)
			problems, changes = append(problems, p...), append(changes, c...)
		}
	}
	for _, name := range sortedKeys(current) {
		if _, ok := committed[name]; !ok {
			changes = append(changes, fmt.Sprintf("%s: new resource", name))
		}
	}
	return problems, changes
}

// attributeChanges compares two descriptions at the same version.
func attributeChanges(name string, old, cur schemaDesc) (problems, changes []string) {
	breaking := func(what string) {
		problems = append(problems, fmt.Sprintf("%s: %s without moving the schema version (%d) and adding an "+
			"UpgradeState step from version %d (see \"Changing a resource schema\" in the README)", name, what, old.Version, old.Version))
	}
	for _, path := range sortedKeys(old.Attributes) {
		was, now := old.Attributes[path], cur.Attributes[path]
		switch {
		case now == "":
			breaking(fmt.Sprintf("%s (%s) removed", path, was))
		case now != was:
			breaking(fmt.Sprintf("%s changed from %q to %q", path, was, now))
		}
	}
	for _, path := range sortedKeys(cur.Attributes) {
		if _, ok := old.Attributes[path]; ok {
			continue
		}
		if strings.Contains(" "+cur.Attributes[path]+" ", " required ") {
			breaking(fmt.Sprintf("%s added as required", path))
			continue
		}
		changes = append(changes, fmt.Sprintf("%s: %s added (%s)", name, path, cur.Attributes[path]))
	}
	return problems, changes
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestEvolutionProblems feeds the comparison modified descriptions: a retyped attribute fails
// at an unchanged version and without an upgrader, passes with both; an added optional
// attribute is only a change; an added required one fails.
func TestEvolutionProblems(t *testing.T) {
	base := map[string]schemaDesc{"reseller_x": {Version: 0, Attributes: map[string]string{
		"id": "tftypes.Number computed", "port": "tftypes.Number optional",
	}}}
	with := func(version int64, edit func(map[string]string)) map[string]schemaDesc {
		attrs := map[string]string{}
		for k, v := range base["reseller_x"].Attributes {
			attrs[k] = v
		}
		edit(attrs)
		return map[string]schemaDesc{"reseller_x": {Version: version, Attributes: attrs}}
	}
	retyped := func(a map[string]string) { a["port"] = "tftypes.String optional" }
	tests := []struct {
		name        string
		current     map[string]schemaDesc
		steps       map[string][]int64
		wantProblem string
		wantChanges int
	}{
		{"unchanged", base, nil, "", 0},
		{"retyped", with(0, retyped), nil, `port changed from "tftypes.Number optional" to "tftypes.String optional" without moving the schema version`, 0},
		{"retyped, version moved, no upgrader", with(1, retyped), nil, "without an UpgradeState step from version 0", 0},
		{"retyped, version moved, upgrader", with(1, retyped), map[string][]int64{"reseller_x": {0}}, "", 1},
		{"removed", with(0, func(a map[string]string) { delete(a, "port") }), nil, "port (tftypes.Number optional) removed", 0},
		{"made sensitive", with(0, func(a map[string]string) { a["port"] += " sensitive" }), nil, "port changed", 0},
		{"added optional", with(0, func(a map[string]string) { a["note"] = "tftypes.String optional" }), nil, "", 1},
		{"added computed", with(0, func(a map[string]string) { a["size"] = "tftypes.Number computed" }), nil, "", 1},
		{"added required", with(0, func(a map[string]string) { a["zone"] = "tftypes.String required" }), nil, "zone added as required", 0},
		{"version down", map[string]schemaDesc{"reseller_x": {Version: -1, Attributes: base["reseller_x"].Attributes}}, nil, "went down", 0},
		{"resource removed", map[string]schemaDesc{}, nil, "resource removed", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			problems, changes := evolutionProblems(base, tc.current, tc.steps)
			switch {
			case tc.wantProblem == "" && len(problems) > 0:
				t.Errorf("got problems %q, want none", problems)
			case tc.wantProblem != "" && (len(problems) != 1 || !strings.Contains(problems[0], tc.wantProblem)):
				t.Errorf("got problems %q, want one containing %q", problems, tc.wantProblem)
			case tc.wantProblem == "" && len(changes) != tc.wantChanges:
				t.Errorf("got changes %q, want %d", changes, tc.wantChanges)
			}
		})
	}
}

// TestDescribeResourceSchemas checks the description holds what the comparison relies on: types,
// flags, nested attributes and blocks.
func TestDescribeResourceSchemas(t *testing.T) {
	d := describeResourceSchemas(t)["reseller_instance"]
	for path, want := range map[string]string{
		"app_inputs":            "tftypes.Map[tftypes.Map[tftypes.String]] optional computed sensitive",
		"app_inputs_wo":         "tftypes.Map[tftypes.Map[tftypes.String]] optional sensitive write-only",
		"plan_id":               "tftypes.Number required",
		"traffic":               "nested single computed",
		"traffic.used":          "tftypes.Number computed",
		"timeouts":              "block single",
		"timeouts.create":       "tftypes.String optional",
		"app_inputs_wo_version": "tftypes.Number optional",
	} {
		if got := d.Attributes[path]; got != want {
			t.Errorf("reseller_instance.%s: got %q, want %q", path, got, want)
		}
	}
}

// nullsWriteOnly lists the resources whose Create and Update defer tfutil.NullWriteOnly, so a
// state they save together with an error holds no write-only value (which Terraform would throw
// away, and OpenTofu would store).
var nullsWriteOnly = []string{"reseller_instance", "reseller_webhook"}

// TestWriteOnlyResources fails when a resource gains a write-only attribute without being in
// nullsWriteOnly: add the defer to its Create and Update first, then the name here.
func TestWriteOnlyResources(t *testing.T) {
	var got []string
	for name, d := range describeResourceSchemas(t) {
		for _, desc := range d.Attributes {
			if strings.HasSuffix(desc, " write-only") {
				got = append(got, name)
				break
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, nullsWriteOnly) {
		t.Errorf("resources with write-only attributes: got %v, want %v (those whose Create and Update defer "+
			"tfutil.NullWriteOnly)", got, nullsWriteOnly)
	}
}
