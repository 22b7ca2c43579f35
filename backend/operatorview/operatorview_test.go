package operatorview

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

var (
	at       = time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	rich     = resellerd.AccountInfo{ID: 7, BalanceMicros: 12_500_000, DebtMicros: 0, Servers: 2, ServerLimit: 10, OrderLimit: 5, Blocked: true, Verified: false, AppsEnabled: true, Language: "fa", KeyHint: "rk_abcd"}
	longName = resellerd.AccountInfo{ID: 1234, BalanceMicros: 1_000_000_000, DebtMicros: 3_250_000, Servers: 12, ServerLimit: 100, OrderLimit: 50, Verified: true, Language: "en", KeyHint: "rk_wxyz"}
)

// accountFields are the JSON field names of an account (DESIGN.md, "Operating it for customers").
var accountFields = []string{"api_key_hint", "api_order_limit", "apps_enabled", "balance", "blocked", "debt", "id",
	"language", "server_limit", "servers", "verified"}

// keys is the sorted field names of a JSON object.
func keys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s: %v", raw, err)
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// columnsAligned fails unless every field of every line after the header starts where the
// header's column of the same index starts (the table is aligned), for the first n columns.
func columnsAligned(t *testing.T, table string, n int) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	starts := fieldStarts(lines[0])
	if len(starts) < n {
		t.Fatalf("header %q has %d columns, want %d", lines[0], len(starts), n)
	}
	for _, line := range lines[1:] {
		got := fieldStarts(line)
		if len(got) < n || !slices.Equal(got[:n], starts[:n]) {
			t.Errorf("row %q: columns start at %v, header's at %v", line, got, starts)
		}
	}
}

// fieldStarts is where each column of a line starts: after two spaces or more, or at 0. A
// header of two words ("ORDER LIMIT") is one column, as its single space says.
func fieldStarts(line string) []int {
	starts := []int{0}
	for i := 2; i < len(line); i++ {
		if line[i] != ' ' && line[i-1] == ' ' && line[i-2] == ' ' {
			starts = append(starts, i)
		}
	}
	return starts
}

func TestWriteAccounts_tableIsAligned(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAccounts(&buf, []resellerd.AccountInfo{rich, longName}, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want a header and two rows:\n%s", len(lines), buf.String())
	}
	columnsAligned(t, buf.String(), 10)
	for _, want := range [][]string{
		{"ID", "BALANCE", "DEBT", "SERVERS", "ORDER LIMIT", "BLOCKED", "VERIFIED", "APPS", "LANGUAGE", "KEY"},
		{"7", "12.5", "0", "2/10", "5", "yes", "no", "on", "fa", "rk_abcd…"},
		{"1234", "1000", "3.25", "12/100", "50", "no", "yes", "off", "en", "rk_wxyz…"},
	} {
		if got := splitColumns(lines[slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, want[0]+" ") })]); !slices.Equal(got, want) {
			t.Errorf("row = %q, want %q", got, want)
		}
	}
}

// splitColumns is a table line's cells, split at two spaces or more.
func splitColumns(line string) []string {
	var out []string
	for _, cell := range strings.Split(line, "  ") {
		if cell = strings.TrimSpace(cell); cell != "" {
			out = append(out, cell)
		}
	}
	return out
}

func TestWriteAccounts_JSONFieldNames(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAccounts(&buf, []resellerd.AccountInfo{rich}, true); err != nil {
		t.Fatal(err)
	}
	var got []json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || len(got) != 1 {
		t.Fatalf("want an array of one account, got %s (%v)", buf.String(), err)
	}
	if k := keys(t, got[0]); !slices.Equal(k, accountFields) {
		t.Errorf("fields = %v, want %v", k, accountFields)
	}
	var a struct {
		ID            int64           `json:"id"`
		Balance       json.RawMessage `json:"balance"`
		APIOrderLimit int             `json:"api_order_limit"`
		APIKeyHint    string          `json:"api_key_hint"`
		Blocked       bool            `json:"blocked"`
	}
	if err := json.Unmarshal(got[0], &a); err != nil {
		t.Fatal(err)
	}
	if a.ID != 7 || string(a.Balance) != "12.5" || a.APIOrderLimit != 5 || a.APIKeyHint != "rk_abcd" || !a.Blocked {
		t.Errorf("account = %+v (balance %s), want id 7, balance 12.5 USD, api_order_limit 5, hint rk_abcd, blocked", a, a.Balance)
	}
}

func TestWriteAccounts_noneIsAnEmptyArray(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAccounts(&buf, nil, true); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(buf.String()); got != "[]" {
		t.Errorf("no accounts = %s, want []", got)
	}
}

func detail() resellerd.AccountDetails {
	return resellerd.AccountDetails{AccountInfo: rich,
		PendingOrders: []resellerd.PendingOrderInfo{
			{ID: 3, CreatedAt: at, PriceMicros: 4_000_000, Hostname: "web-1", Building: true},
			{ID: 41, CreatedAt: at, PriceMicros: 125_000_000, Hostname: "database-primary"},
		},
		Locks: []resellerd.LockInfo{{InstanceID: 9, Reason: "debt", LockedAt: at}},
	}
}

func TestWriteAccountDetail_JSONFieldNames(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAccountDetail(&buf, detail(), true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PendingOrders []json.RawMessage `json:"pending_orders"`
		Locks         []json.RawMessage `json:"locks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(append(slices.Clone(accountFields), "pending_orders", "locks")))
	if k := keys(t, buf.Bytes()); !slices.Equal(k, want) {
		t.Errorf("fields = %v, want %v", k, want)
	}
	if len(doc.PendingOrders) != 2 || len(doc.Locks) != 1 {
		t.Fatalf("got %d orders and %d locks, want 2 and 1", len(doc.PendingOrders), len(doc.Locks))
	}
	if k := keys(t, doc.PendingOrders[0]); !slices.Equal(k, []string{"building", "created_at", "hostname", "id", "price"}) {
		t.Errorf("order fields = %v", k)
	}
	if k := keys(t, doc.Locks[0]); !slices.Equal(k, []string{"instance_id", "locked_at", "reason"}) {
		t.Errorf("lock fields = %v", k)
	}
	if !strings.Contains(string(doc.PendingOrders[1]), `"price": 125`) {
		t.Errorf("order = %s, want its price in USD (125)", doc.PendingOrders[1])
	}
}

func TestWriteAccountDetail_noneAreEmptyArraysNotNull(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAccountDetail(&buf, resellerd.AccountDetails{AccountInfo: rich}, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"pending_orders": []`, `"locks": []`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("missing %s in\n%s", want, buf.String())
		}
	}
}

func TestWriteAccountDetail_tables(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAccountDetail(&buf, detail(), false); err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(buf.String(), "\n\n")
	if len(sections) != 3 {
		t.Fatalf("want the account, its orders and its locks apart, got:\n%s", buf.String())
	}
	if !strings.HasPrefix(sections[1], "PENDING ORDER") || !strings.HasPrefix(sections[2], "LOCKED SERVER") {
		t.Errorf("sections start %q and %q", sections[1], sections[2])
	}
	orders := strings.Split(sections[1], "\n")
	if got := splitColumns(orders[1]); !slices.Equal(got, []string{"3", "2026-11-28T04:00:00Z", "4", "web-1", "submitted"}) {
		t.Errorf("first order = %q", got)
	}
	if got := splitColumns(orders[2]); got[len(got)-1] != "waiting" {
		t.Errorf("an order not yet submitted = %q, want it waiting", got)
	}
	// One writer aligns the three tables together: the hostname column of the orders starts
	// under the same place in both order rows, the longest hostname included.
	columnsAligned(t, sections[1], 5)
	if got := splitColumns(strings.Split(sections[2], "\n")[1]); !slices.Equal(got, []string{"9", "2026-11-28T04:00:00Z", "debt"}) {
		t.Errorf("lock = %q", got)
	}
}

func TestDescribeChange(t *testing.T) {
	yes, no, three, fa := true, false, 3, "fa"
	for _, tc := range []struct {
		ch   resellerd.AccountChange
		want string
	}{
		{resellerd.AccountChange{Blocked: &yes}, "blocked"},
		{resellerd.AccountChange{Blocked: &no}, "unblocked"},
		{resellerd.AccountChange{Verified: &yes}, "identity verified"},
		{resellerd.AccountChange{ServerLimit: &three, OrderLimit: &three, AppsEnabled: &no, Language: &fa},
			"server_limit 3, api_order_limit 3, apps off, language fa"},
		{resellerd.AccountChange{AppsEnabled: &yes}, "apps on"},
	} {
		if got := DescribeChange(tc.ch); got != tc.want {
			t.Errorf("DescribeChange(%+v) = %q, want %q", tc.ch, got, tc.want)
		}
	}
}

func TestLockState(t *testing.T) {
	if got := LockState(true, "abuse"); got != "locked (abuse)" {
		t.Errorf("lock = %q", got)
	}
	if got := LockState(false, "ignored"); got != "unlocked" {
		t.Errorf("unlock = %q", got)
	}
}
