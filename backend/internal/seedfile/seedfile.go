// Package seedfile reads the YAML seed files of `resellerd dev --seed` and `resellerd seed`:
// accounts with fixed keys, the servers already running, their snapshots and a webhook. Every
// mistake is reported as FILE:LINE: FIELD: what is wrong, both those the file shows on its own
// (read here) and those only the service finds when the seed is applied (see File.Explain).
package seedfile

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/seed"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// File is a parsed seed file: its accounts, and where each of their fields stands in the file.
type File struct {
	Name     string
	Accounts []seed.Account
	lines    []accountLines
}

// accountLines are the lines of one account's fields and of its items' fields.
type accountLines struct {
	fields    fieldLines
	servers   []fieldLines
	snapshots []fieldLines
	webhook   fieldLines
}

// fieldLines maps a field name to its line; "" is the line of the item itself.
type fieldLines map[string]int

// Error is a mistake in a seed file.
type Error struct {
	File  string
	Line  int
	Field string // its path, such as accounts[0].servers[1].plan_id
	Msg   string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg) }

// Read reads and parses the seed file at path.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a seed file's content; name is what errors call the file.
func Parse(name string, data []byte) (*File, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := parser{f: &File{Name: name}}
	if len(doc.Content) == 0 {
		return nil, p.fail(&doc, "accounts", "the file is empty; it needs an accounts list")
	}
	root := doc.Content[0]
	fields, err := p.mapping(root, "", []string{"accounts"})
	if err != nil {
		return nil, err
	}
	list, ok := fields["accounts"]
	if !ok || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, p.fail(root, "accounts", "is required: a list of at least one account")
	}
	keys := map[string]string{}
	for i, n := range list.Content {
		if err := p.account(n, fmt.Sprintf("accounts[%d]", i), keys); err != nil {
			return nil, err
		}
	}
	return p.f, nil
}

type parser struct{ f *File }

func (p parser) fail(n *yaml.Node, field, format string, args ...any) error {
	return &Error{File: p.f.Name, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// mapping reads n as a mapping whose keys are all among allowed, and returns the value nodes by
// key; an unknown or repeated key is an error naming it.
func (p parser) mapping(n *yaml.Node, path string, allowed []string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.fail(n, strings.TrimPrefix(path, "."), "must be a mapping with the fields %s", strings.Join(allowed, ", "))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := join(path, k.Value)
		if !slices.Contains(allowed, k.Value) {
			return nil, p.fail(k, field, "unknown field; the fields here are %s", strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.fail(k, field, "is given twice")
		}
		out[k.Value] = v
	}
	return out, nil
}

var accountFields = []string{"api_key", "balance", "server_limit", "order_limit", "language", "servers", "snapshots", "webhook"}

func (p parser) account(n *yaml.Node, path string, keys map[string]string) error {
	fields, err := p.mapping(n, path, accountFields)
	if err != nil {
		return err
	}
	var a seed.Account
	lines := accountLines{fields: linesOf(n, fields)}
	if a.APIKey, err = p.str(n, fields, path, "api_key", true); err != nil {
		return err
	}
	if len(a.APIKey) < service.MinChosenKeyLength {
		return p.fail(fields["api_key"], join(path, "api_key"), "must be at least %d characters", service.MinChosenKeyLength)
	}
	if prev, dup := keys[a.APIKey]; dup {
		return p.fail(fields["api_key"], join(path, "api_key"), "is also the key of %s", prev)
	}
	keys[a.APIKey] = path
	if err := p.accountNumbers(n, fields, path, &a); err != nil {
		return err
	}
	if a.Language, err = p.str(n, fields, path, "language", false); err != nil {
		return err
	}
	if a.Language != "" && a.Language != "fa" && a.Language != "en" {
		return p.fail(fields["language"], join(path, "language"), "must be fa or en")
	}
	if err := p.servers(fields["servers"], path, &a, &lines); err != nil {
		return err
	}
	if err := p.snapshots(fields["snapshots"], path, &a, &lines); err != nil {
		return err
	}
	if err := p.webhook(fields["webhook"], path, &a, &lines); err != nil {
		return err
	}
	p.f.Accounts = append(p.f.Accounts, a)
	p.f.lines = append(p.f.lines, lines)
	return nil
}

// accountNumbers reads balance (USD, exact decimal), server_limit and order_limit.
func (p parser) accountNumbers(n *yaml.Node, fields map[string]*yaml.Node, path string, a *seed.Account) error {
	if v, ok := fields["balance"]; ok {
		m, err := money.Parse(v.Value)
		if err != nil || m < 0 || v.Kind != yaml.ScalarNode {
			return p.fail(v, join(path, "balance"), "must be an amount of USD that is not negative, such as 1000 or 12.50")
		}
		a.Balance = m
	}
	var err error
	if a.ServerLimit, err = p.count(fields, path, "server_limit"); err != nil {
		return err
	}
	a.OrderLimit, err = p.count(fields, path, "order_limit")
	return err
}

var serverFields = []string{"name", "plan_id", "template_id", "power"}

func (p parser) servers(n *yaml.Node, path string, a *seed.Account, lines *accountLines) error {
	items, err := p.sequence(n, join(path, "servers"))
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for i, item := range items {
		at := fmt.Sprintf("%s.servers[%d]", path, i)
		fields, err := p.mapping(item, at, serverFields)
		if err != nil {
			return err
		}
		var s seed.Server
		if s.Name, err = p.str(item, fields, at, "name", true); err != nil {
			return err
		}
		if names[s.Name] {
			return p.fail(fields["name"], join(at, "name"), "%q names another server of this account", s.Name)
		}
		names[s.Name] = true
		if s.PlanID, err = p.id(item, fields, at, "plan_id"); err != nil {
			return err
		}
		if s.TemplateID, err = p.id(item, fields, at, "template_id"); err != nil {
			return err
		}
		power, err := p.str(item, fields, at, "power", false)
		if err != nil {
			return err
		}
		if power != "" && power != "on" && power != "off" {
			return p.fail(fields["power"], join(at, "power"), "must be on or off")
		}
		s.PowerOff = power == "off"
		a.Servers = append(a.Servers, s)
		lines.servers = append(lines.servers, linesOf(item, fields))
	}
	return nil
}

func (p parser) snapshots(n *yaml.Node, path string, a *seed.Account, lines *accountLines) error {
	items, err := p.sequence(n, join(path, "snapshots"))
	if err != nil {
		return err
	}
	for i, item := range items {
		at := fmt.Sprintf("%s.snapshots[%d]", path, i)
		fields, err := p.mapping(item, at, []string{"name", "server"})
		if err != nil {
			return err
		}
		var s seed.Snapshot
		if s.Name, err = p.str(item, fields, at, "name", true); err != nil {
			return err
		}
		if s.Server, err = p.str(item, fields, at, "server", true); err != nil {
			return err
		}
		if !slices.ContainsFunc(a.Servers, func(sv seed.Server) bool { return sv.Name == s.Server }) {
			return p.fail(fields["server"], join(at, "server"), "no server named %q in this account's servers", s.Server)
		}
		a.Snapshots = append(a.Snapshots, s)
		lines.snapshots = append(lines.snapshots, linesOf(item, fields))
	}
	return nil
}

func (p parser) webhook(n *yaml.Node, path string, a *seed.Account, lines *accountLines) error {
	if n == nil {
		return nil
	}
	at := join(path, "webhook")
	fields, err := p.mapping(n, at, []string{"url", "secret"})
	if err != nil {
		return err
	}
	var w seed.Webhook
	if w.URL, err = p.str(n, fields, at, "url", true); err != nil {
		return err
	}
	if w.Secret, err = p.str(n, fields, at, "secret", true); err != nil {
		return err
	}
	a.Webhook = &w
	lines.webhook = linesOf(n, fields)
	return nil
}

// sequence reads an optional list.
func (p parser) sequence(n *yaml.Node, path string) ([]*yaml.Node, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, p.fail(n, path, "must be a list")
	}
	return n.Content, nil
}

// str reads a scalar field; a required one must be present and not empty.
func (p parser) str(item *yaml.Node, fields map[string]*yaml.Node, path, name string, required bool) (string, error) {
	v, ok := fields[name]
	if !ok {
		if required {
			return "", p.fail(item, join(path, name), "is required")
		}
		return "", nil
	}
	if v.Kind != yaml.ScalarNode || (required && strings.TrimSpace(v.Value) == "") {
		return "", p.fail(v, join(path, name), "must be a non-empty text")
	}
	return v.Value, nil
}

// id reads a required positive integer.
func (p parser) id(item *yaml.Node, fields map[string]*yaml.Node, path, name string) (int64, error) {
	v, ok := fields[name]
	if !ok {
		return 0, p.fail(item, join(path, name), "is required")
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil || n < 1 || v.Kind != yaml.ScalarNode {
		return 0, p.fail(v, join(path, name), "must be a positive integer")
	}
	return n, nil
}

// count reads an optional positive integer (0 when absent: the service's default).
func (p parser) count(fields map[string]*yaml.Node, path, name string) (int, error) {
	v, ok := fields[name]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(v.Value)
	if err != nil || n < 1 || v.Kind != yaml.ScalarNode {
		return 0, p.fail(v, join(path, name), "must be a positive integer")
	}
	return n, nil
}

// Explain turns an error of applying the seed (a *seed.Error, as resellerd.Seed returns) into one
// naming the file, the line and the field of the item that failed; other errors come back as
// they are.
func (f *File) Explain(err error) error {
	var se *seed.Error
	if !errors.As(err, &se) || se.Account >= len(f.lines) {
		return err
	}
	l := f.lines[se.Account]
	path := fmt.Sprintf("accounts[%d]", se.Account)
	lines := l.fields
	switch se.Part {
	case "servers":
		path, lines = fmt.Sprintf("%s.servers[%d]", path, se.Index), l.servers[se.Index]
	case "snapshots":
		path, lines = fmt.Sprintf("%s.snapshots[%d]", path, se.Index), l.snapshots[se.Index]
	case "webhook":
		path, lines = path+".webhook", l.webhook
	}
	field := ""
	msg := se.Err.Error()
	if e := (*service.Error)(nil); errors.As(se.Err, &e) {
		field, msg = seedField(e.Field), e.Message
	}
	line, ok := lines[field]
	if !ok {
		line, field = lines[""], ""
	}
	return &Error{File: f.Name, Line: line, Field: join(path, field), Msg: msg}
}

// seedField is the seed file's name of an API field the service names in its errors.
func seedField(apiField string) string {
	if apiField == "server_id" {
		return "plan_id"
	}
	return apiField
}

func linesOf(item *yaml.Node, fields map[string]*yaml.Node) fieldLines {
	out := fieldLines{"": item.Line}
	for k, v := range fields {
		out[k] = v.Line
	}
	return out
}

func join(path, field string) string {
	switch {
	case field == "":
		return path
	case path == "":
		return field
	}
	return path + "." + field
}
