package openapicheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Types shaped after schemas of the real document: one that agrees, then one per kind of
// difference.
type (
	health struct {
		Status string `json:"status"`
		API    string `json:"api"`
	}
	healthRenamed struct {
		Status string `json:"state"`
		API    string `json:"api"`
	}
	healthPointer struct {
		Status *string `json:"status"`
		API    string  `json:"api"`
	}
	healthInteger struct {
		Status int    `json:"status"`
		API    string `json:"api"`
	}
	healthOmitted struct {
		Status string `json:"status,omitempty"`
		API    string `json:"api"`
	}
	healthUntagged struct {
		Status string
		API    string `json:"api"`
	}
	healthEmbedded struct {
		healthStatus
		API string `json:"api"`
	}
	healthStatus struct {
		Status string `json:"status"`
	}
	healthHidden struct {
		Status string `json:"status"`
		API    string `json:"api"`
		Local  int    `json:"-"`
	}
	credentials struct {
		Username *string `json:"username"`
		Password *string `json:"password"`
		Port     *int64  `json:"port"`
		IPv4     *string `json:"ipv4"`
		IPv6     *string `json:"ipv6"`
		Pending  bool    `json:"pending"`
	}
	credentialsNoNull struct {
		Username *string `json:"username"`
		Password *string `json:"password"`
		Port     int64   `json:"port"`
		IPv4     *string `json:"ipv4"`
		IPv6     *string `json:"ipv6"`
		Pending  bool    `json:"pending"`
	}
	credentialsMissing struct {
		Username *string `json:"username"`
		Password *string `json:"password"`
		Port     *int64  `json:"port"`
		IPv4     *string `json:"ipv4"`
		Pending  bool    `json:"pending"`
	}
	credentialsExtra struct {
		credentials
		Host string `json:"host"`
	}
	updateInstance struct {
		Name  *string `json:"name,omitempty"`
		Note  *string `json:"note,omitempty"`
		Renew *bool   `json:"renew,omitempty"`
	}
	updateInstanceAlwaysSent struct {
		Name  *string `json:"name"`
		Note  *string `json:"note,omitempty"`
		Renew *bool   `json:"renew,omitempty"`
	}
	webhookNilSendsNull struct {
		URL    *string `json:"url"`
		Secret string  `json:"secret"`
	}
	installApps struct {
		Apps      []string                     `json:"apps"`
		AppInputs map[string]map[string]string `json:"app_inputs,omitempty"`
	}
	installAppsPointerSlice struct {
		Apps      *[]string                    `json:"apps"`
		AppInputs map[string]map[string]string `json:"app_inputs,omitempty"`
	}
	installAppsWrongMap struct {
		Apps      []string                  `json:"apps"`
		AppInputs map[string]map[string]int `json:"app_inputs,omitempty"`
	}
	instanceApps struct {
		ServerID  int64        `json:"server_id"`
		Supported bool         `json:"supported"`
		Installs  []appInstall `json:"installs"`
	}
	appInstall struct {
		AppID      string            `json:"app_id"`
		Name       string            `json:"name"`
		Status     string            `json:"status"`
		Stage      string            `json:"stage"`
		Attempts   float64           `json:"attempts"`
		Result     map[string]string `json:"result"`
		Error      string            `json:"error"`
		LogTail    string            `json:"log_tail"`
		StartedAt  *string           `json:"started_at"`
		FinishedAt *string           `json:"finished_at"`
	}
	order struct {
		OrderID    int64       `json:"order_id"`
		Status     string      `json:"status"`
		Success    bool        `json:"success"`
		CreatedAt  *string     `json:"created_at"`
		FinishedAt *string     `json:"finished_at"`
		Server     *server     `json:"server"`
		Reference  *string     `json:"reference"`
		Extra      *struct{}   `json:"-"`
		Credential credentials `json:"-"`
	}
	// server leaves out every detail property but server_product, to show InstanceDetail's
	// allOf is read whole.
	server struct {
		ID int64 `json:"id"`
	}
	selfEncoded struct {
		Status text   `json:"status"`
		API    string `json:"api"`
	}
	text string
	// boxed is generic like the wire package's money-carrying shapes.
	boxed[M any] struct {
		Status M      `json:"status"`
		API    string `json:"api"`
	}
)

func (t text) MarshalJSON() ([]byte, error) { return []byte(`"` + string(t) + `"`), nil }

func TestStruct(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		typ    reflect.Type
		schema string
		dir    Direction
		want   []string // substrings of the error; none when the types agree
	}{
		{reflect.TypeFor[health](), "Health", Response, nil},
		{reflect.TypeFor[healthEmbedded](), "Health", Response, nil},
		{reflect.TypeFor[healthHidden](), "Health", Response, nil},
		{reflect.TypeFor[credentials](), "Credentials", Response, nil},
		{reflect.TypeFor[updateInstance](), "UpdateInstanceRequest", Request, nil},
		{reflect.TypeFor[installApps](), "InstallAppsRequest", Request, nil},
		{reflect.TypeFor[healthRenamed](), "Health", Response, []string{
			`healthRenamed.state: Go field Status has no property "state" in the schema`,
			`healthRenamed.status: schema property has no Go field`}},
		{reflect.TypeFor[healthUntagged](), "Health", Response, []string{`Go field Status has no property "Status"`}},
		{reflect.TypeFor[healthPointer](), "Health", Response, []string{
			"healthPointer.status: the property is required and not nullable, but Go field Status is a pointer"}},
		{reflect.TypeFor[healthInteger](), "Health", Response, []string{
			`healthInteger.status: Go type int is JSON integer, the schema says "string"`}},
		{reflect.TypeFor[healthOmitted](), "Health", Response, []string{"Go field Status is omitempty, but the property is required"}},
		{reflect.TypeFor[selfEncoded](), "Health", Response, []string{"encodes itself"}},
		{reflect.TypeFor[credentialsNoNull](), "Credentials", Response, []string{
			"credentialsNoNull.port: the property is nullable, but Go field Port (int64) cannot hold null"}},
		{reflect.TypeFor[credentialsMissing](), "Credentials", Response, []string{"credentialsMissing.ipv6: schema property has no Go field"}},
		{reflect.TypeFor[credentialsExtra](), "Credentials", Response, []string{`Go field Host has no property "host"`}},
		{reflect.TypeFor[updateInstanceAlwaysSent](), "UpdateInstanceRequest", Request, []string{
			"the property is optional, but Go field Name is always sent (no omitempty)"}},
		{reflect.TypeFor[webhookNilSendsNull](), "WebhookRequest", Request, []string{
			"Go field URL is a pointer sent as null when nil, but the property is not nullable"}},
		{reflect.TypeFor[installAppsPointerSlice](), "InstallAppsRequest", Request, []string{"Go field Apps is a pointer to slice"}},
		{reflect.TypeFor[installAppsWrongMap](), "InstallAppsRequest", Request, []string{
			`installAppsWrongMap.app_inputs{}{}: Go type int is JSON integer, the schema says "string"`}},
		{reflect.TypeFor[instanceApps](), "InstanceApps", Response, []string{
			`instanceApps.installs[].attempts: Go type float64 is JSON number, the schema says "integer"`,
			"instanceApps.installs[].result: Go map of string, but the schema is a free-form object"}},
		{reflect.TypeFor[order](), "Order", Response, []string{
			"order.server.name: schema property has no Go field", "order.server.server_product: schema property has no Go field"}},
		{reflect.TypeFor[credentials](), "NoSuchSchema", Response, []string{`no schema "NoSuchSchema"`}},
	}
	for _, tt := range tests {
		t.Run(tt.typ.Name(), func(t *testing.T) {
			err := c.Struct(tt.typ, tt.schema, tt.dir)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("want agreement, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want a difference, got none")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestCheckedListsNestedTypes(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Struct(reflect.TypeFor[instanceApps](), "InstanceApps", Response)
	got := strings.Join(c.Checked(reflect.TypeFor[health]().PkgPath()), ",")
	if got != "appInstall,instanceApps" {
		t.Fatalf("Checked = %s, want appInstall,instanceApps", got)
	}
}

func TestCovered(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\ntype Body struct {\n\tA int `json:\"a\"`\n}\n\ntype Other struct {\n\tB int `json:\"b\"`\n}\n\n" +
		"type plain struct{ C int }\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	test := "package p\n\ntype inTest struct {\n\tD int `json:\"d\"`\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(test), 0o600); err != nil {
		t.Fatal(err)
	}
	tagged, err := TaggedStructs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tagged, ",") != "Body,Other" {
		t.Fatalf("TaggedStructs = %v, want Body and Other (not the untagged one, not the test file's)", tagged)
	}
	c := &Checker{checked: map[reflect.Type]bool{}}
	if err := c.Covered(dir, "p", map[string]string{"Body": "why"}); err == nil || !strings.Contains(err.Error(), "Other carries JSON but was not checked") {
		t.Errorf("Covered with Other unchecked = %v", err)
	}
	if err := c.Covered(dir, "p", map[string]string{"Body": "why", "Other": "why", "Gone": "why"}); err == nil || !strings.Contains(err.Error(), "exempt Gone is not a struct") {
		t.Errorf("Covered with a stale exemption = %v", err)
	}
	if err := c.Covered(dir, "p", map[string]string{"Body": "why", "Other": "why"}); err != nil {
		t.Errorf("Covered with every struct exempt = %v", err)
	}
	// A type checked and exempt at once: the exemption is stale.
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte("package p\n\ntype health struct {\n\tS string `json:\"status\"`\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = New()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Struct(reflect.TypeFor[health](), "Health", Response); err != nil {
		t.Fatal(err)
	}
	err = c.Covered(dir, reflect.TypeFor[health]().PkgPath(), map[string]string{"health": "why"})
	if err == nil || !strings.Contains(err.Error(), "health is checked and exempt") {
		t.Errorf("Covered with a checked type exempt = %v", err)
	}
}

// TestEncodes: a self-encoding type passes once a test declares its JSON type, and a declared
// type that differs from the schema's is still a difference.
func TestEncodes(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c.Encodes(reflect.TypeFor[text](), "string")
	if err := c.Struct(reflect.TypeFor[selfEncoded](), "Health", Response); err != nil {
		t.Fatalf("declared string against a string schema: %v", err)
	}
	c.Encodes(reflect.TypeFor[text](), "number")
	err = c.Struct(reflect.TypeFor[selfEncoded](), "Health", Response)
	if err == nil || !strings.Contains(err.Error(), `is JSON number, the schema says "string"`) {
		t.Fatalf("declared number against a string schema: want a difference, got %v", err)
	}
}

// TestCheckedNamesGenericTypes: every instance of a generic type counts as the type declared,
// once, so Covered matches it with the name in the source.
func TestCheckedNamesGenericTypes(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c.Encodes(reflect.TypeFor[text](), "string")
	for _, typ := range []reflect.Type{reflect.TypeFor[boxed[string]](), reflect.TypeFor[boxed[text]]()} {
		if err := c.Struct(typ, "Health", Response); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(c.Checked(reflect.TypeFor[health]().PkgPath()), ","); got != "boxed" {
		t.Fatalf("Checked = %s, want boxed", got)
	}
}

// TestLimits: a limit the document states with the Go value passes; one it states otherwise,
// leaves out, or places on a property it lacks is a difference naming it.
func TestLimits(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	secret := func(keyword string, want float64) Limit {
		return Limit{Schema: "WebhookRequest", Property: "secret", Keyword: keyword, Want: want}
	}
	if err := c.Limits([]Limit{secret("minLength", 16), secret("maxLength", 256)}); err != nil {
		t.Fatalf("limits as the document states them: %v", err)
	}
	for _, tt := range []struct {
		name  string
		limit Limit
		want  string
	}{
		{"another value", secret("maxLength", 255), "WebhookRequest.secret maxLength: the document says 256, Go says 255"},
		{"not stated", secret("maxItems", 3), "WebhookRequest.secret maxItems: the document states none, Go says 3"},
		{"no property", Limit{Schema: "WebhookRequest", Property: "token", Keyword: "maxLength", Want: 1}, `has no property "token"`},
		{"no schema", Limit{Schema: "Nothing", Property: "x", Keyword: "maxLength", Want: 1}, `no schema "Nothing"`},
		{"unknown keyword", secret("pattern", 1), `unknown keyword "pattern"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Limits([]Limit{secret("minLength", 16), tt.limit})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
