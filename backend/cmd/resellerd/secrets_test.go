package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
	"github.com/reseller/terraform-provider-reseller/webhook"
)

// writeKeyFile writes a key file of the keys made of the given bytes (each repeated to 32), the
// first on the first line, with a comment and a blank line, and returns its path.
func writeKeyFile(t *testing.T, name string, fills ...byte) string {
	t.Helper()
	lines := []string{"# resellerd secrets keys: the first encrypts", ""}
	for _, b := range fills {
		lines = append(lines, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, secrets.KeySize)))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// keyIDOf is the id of the key made of fill.
func keyIDOf(fill byte) string { return secrets.KeyID(bytes.Repeat([]byte{fill}, secrets.KeySize)) }

// sqliteBytes is the SQLite database at path as its files hold it: the main file and its WAL.
func sqliteBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// newAccountKey creates an account in db with the account command and returns its API key.
func newAccountKey(t *testing.T, db string) string {
	t.Helper()
	code, out, errOut := cli(t, noEnv, "account", "create", "--db", db, "--balance", "100")
	if code != exitOK {
		t.Fatalf("account create: %d %s", code, errOut)
	}
	var acct struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &acct); err != nil {
		t.Fatal(err)
	}
	return acct.APIKey
}

// waitFor polls cond every 20 ms until it holds, failing t after eventWait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signedReceiver is a webhook receiver that counts the deliveries whose signature verifies
// with secret at the time clock tells.
func signedReceiver(t *testing.T, secret string, clock *devapi.OffsetClock) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var verified atomic.Int32
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := (webhook.Verifier{Secret: secret, Now: clock.Now}).Parse(r); err == nil {
			verified.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(hooks.Close)
	return hooks, &verified
}

// TestSecretsEncryptedAtRest runs serve with --secrets-key-file on SQLite and on PostgreSQL: a
// webhook with its secret, a server with its root password, and an app install with a password
// input (queued, then installing). The SQLite file and its WAL, or a pg_dump of the database,
// then hold none of the three, while the API still uses and shows them: the test ping verifies
// with the secret, GET /instances/{id} shows the password, and the install answers on the
// domain given as an input. Once the install has finished its inputs are gone from the
// database. A start with a key file that does not decrypt the database is refused naming the
// file, and so is a start without one.
func TestSecretsEncryptedAtRest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		db    func(t *testing.T) string
		bytes func(t *testing.T, db string) []byte
		open  func(ctx context.Context, dsn string, opts ...sqlstore.Option) (*sqlstore.Store, error)
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "reseller.db") }, sqliteBytes, sqlstore.OpenSQLite},
		{"postgres", func(t *testing.T) string { return pg.Database(t) },
			func(t *testing.T, db string) []byte { return pg.Dump(t, db) }, sqlstore.OpenPostgres},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, keyFile := tt.db(t), writeKeyFile(t, "keys", 1)
			apiKey := newAccountKey(t, db) // before any key: the account commands need none
			clock := &devapi.OffsetClock{}
			opts, err := parseServe([]string{"--listen", "127.0.0.1:0", "--db", db, "--secrets-key-file", keyFile,
				"--deploy-delay", "1h", "--credentials-delay", "1h", "--order-window", "24h", "--allow-http-webhooks", "--rate-limit-scale", "0"}, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			opts.Config.Clock = clock
			var logs testbuf.Buffer
			logger, err := newLogger(&logs, opts.Log)
			if err != nil {
				t.Fatal(err)
			}
			bound, stop := startServe(t, opts, logger)
			base := "http://" + bound[0].String() + "/api/v1"
			call := func(method, path, body string) map[string]any {
				t.Helper()
				return callAPI(t, method, base+path, apiKey, body)
			}

			const hookSecret, appInput, domain = "whsec-At-Rest-0123456789", "app-Input-Pa55word-42", "db.secrets.example"
			hooks, verified := signedReceiver(t, hookSecret, clock)
			call(http.MethodPut, "/account/webhook", fmt.Sprintf(`{"url": %q, "secret": %q}`, hooks.URL+"/h", hookSecret))
			call(http.MethodPost, "/account/webhook/test", "")
			if verified.Load() == 0 {
				t.Fatal("the test ping did not verify with the webhook secret")
			}
			order := call(http.MethodPost, "/instances", fmt.Sprintf(`{"server_id": 101, "template_id": 1, "term": "hourly",
				"apps": ["mysql", "wordpress"], "app_inputs": {"mysql": {"ROOT_PASSWORD": %q}, "wordpress": {"DOMAIN": %q}}}`, appInput, domain))
			orderID := int64(order["order_id"].(float64))

			var instanceID int64
			advanceUntil(t, clock, "the order to deploy", func() bool { // the build may be submitted after a first advance
				srv, _ := call(http.MethodGet, fmt.Sprintf("/orders/%d", orderID), "")["server"].(map[string]any)
				if srv != nil {
					instanceID = int64(srv["id"].(float64))
				}
				return instanceID != 0
			})
			clock.Advance(time.Hour) // credentials delivered
			var rootPassword string
			waitFor(t, "the root password", func() bool {
				c, _ := call(http.MethodGet, fmt.Sprintf("/instances/%d", instanceID), "")["credentials"].(map[string]any)
				rootPassword, _ = c["password"].(string)
				return rootPassword != ""
			})
			installs := func() []any {
				list, _ := call(http.MethodGet, fmt.Sprintf("/instances/%d/apps", instanceID), "")["installs"].([]any)
				return list
			}
			if n := len(installs()); n != 2 {
				t.Fatalf("%d installs, want mysql and wordpress", n)
			}

			stored := tt.bytes(t, db)
			if !bytes.Contains(stored, []byte(hooks.URL)) {
				t.Fatalf("the webhook URL is not in the %d bytes read: the search below proves nothing", len(stored))
			}
			for name, secret := range map[string]string{"webhook secret": hookSecret, "root password": rootPassword,
				"app input": appInput, "domain input": domain} {
				if bytes.Contains(stored, []byte(secret)) {
					t.Errorf("the %s is stored as plain text", name)
				}
			}

			// An hour a stage: mysql runs, then wordpress starts, prepares and runs.
			for step := 0; !allInstalled(installs()); step++ {
				if step == 8 {
					t.Fatalf("installs not finished after 8 hours: %v", installs())
				}
				before := fmt.Sprint(installs())
				clock.Advance(time.Hour)
				waitFor(t, "an install to move on", func() bool { return fmt.Sprint(installs()) != before })
			}
			wordpress := installs()[0].(map[string]any) // newest first
			if host := wordpress["result"].(map[string]any)["host"]; host != domain {
				t.Errorf("wordpress answers on %v, want the DOMAIN input %s", host, domain)
			}
			stop()
			if strings.Count(logs.String(), "no --secrets-key-file") != 0 {
				t.Error("serve with a key warned that secrets are stored as plain text")
			}

			ctx := context.Background()
			keys, err := secrets.Load(keyFile)
			if err != nil {
				t.Fatal(err)
			}
			st, err := tt.open(ctx, db, sqlstore.WithSecrets(keys))
			if err != nil {
				t.Fatal(err)
			}
			left, err := st.AppInstalls(ctx, instanceID)
			if err == nil {
				var o store.Order
				if o, err = st.OrderByID(ctx, orderID); err == nil && len(o.AppInputs) != 0 {
					t.Errorf("the deployed order still holds its app inputs: %d apps", len(o.AppInputs))
				}
			}
			_ = st.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range left {
				if len(a.Inputs) != 0 {
					t.Errorf("the finished install of %s still holds its inputs %v", a.AppID, keysOf(a.Inputs))
				}
			}

			wrong := writeKeyFile(t, "wrong-keys", 2)
			err = serveOnce(t, db, "--secrets-key-file", wrong)
			if err == nil || !strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), keyIDOf(1)) {
				t.Errorf("serve with a key file that does not decrypt the database: %v; want an error naming %s and key %s", err, wrong, keyIDOf(1))
			}
			if err := serveOnce(t, db); err == nil || !strings.Contains(err.Error(), "--secrets-key-file") {
				t.Errorf("serve without a key on an encrypted database: %v; want an error asking for --secrets-key-file", err)
			}
		})
	}
}

// advanceUntil moves clock an hour at a time, giving the workers up to 3 seconds after each
// (eventWait after the last), until cond holds; it fails t after 6 hours. The 3 seconds are
// not a bound: cond not holding after them only moves the clock on.
func advanceUntil(t *testing.T, clock *devapi.OffsetClock, what string, cond func() bool) {
	t.Helper()
	const hours = 6
	for hour := range hours {
		clock.Advance(time.Hour)
		wait := 3 * time.Second
		if hour == hours-1 {
			wait = eventWait
		}
		deadline := time.Now().Add(wait)
		for time.Now().Before(deadline) {
			if cond() {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Fatalf("%s: not after %d hours", what, hours)
}

// allInstalled reports whether every install of GET /instances/{id}/apps is installed.
func allInstalled(installs []any) bool {
	for _, a := range installs {
		if a.(map[string]any)["status"] != store.InstallInstalled {
			return false
		}
	}
	return len(installs) > 0
}

// keysOf lists the keys of m, not its values.
func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// serveOnce starts serve on db with the extra flags and stops it at once if it started; it
// returns the error that kept it from starting.
func serveOnce(t *testing.T, db string, extra ...string) error {
	t.Helper()
	opts, err := parseServe(append([]string{"--listen", "127.0.0.1:0", "--db", db, "--rate-limit-scale", "0"}, extra...), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return serve(ctx, opts, slog.New(slog.DiscardHandler), func([]net.Addr) { cancel() })
}

// TestServeWarnsOnceWithoutAKey: serve without --secrets-key-file logs one warning at start that
// secrets are stored as plain text; with a key it logs none.
func TestServeWarnsOnceWithoutAKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		extra []string
		want  int
	}{
		{nil, 1},
		{[]string{"--secrets-key-file", writeKeyFile(t, "keys", 7)}, 0},
	} {
		opts, err := parseServe(append([]string{"--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "r.db")}, tt.extra...), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		var logs testbuf.Buffer
		logger, err := newLogger(&logs, opts.Log)
		if err != nil {
			t.Fatal(err)
		}
		_, stop := startServe(t, opts, logger)
		time.Sleep(300 * time.Millisecond) // a worker tick or two: nothing else may warn again
		stop()
		if got := strings.Count(logs.String(), "no --secrets-key-file"); got != tt.want {
			t.Errorf("flags %v: %d warnings about plain-text secrets, want %d:\n%s", tt.extra, got, tt.want, logs.String())
		}
	}
}

// TestSecretsRotateCommand: secrets written without a key are encrypted by `secrets rotate`;
// a key file with a new first key then serves (the old key decrypts), `secrets rotate` moves
// every value to the new key while serve runs, after which the new key alone serves, the old
// one alone is refused, and a second rotation has nothing left to do.
func TestSecretsRotateCommand(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "reseller.db")
	apiKey := newAccountKey(t, db)
	oldKey, both, newKey := writeKeyFile(t, "old", 1), writeKeyFile(t, "both", 2, 1), writeKeyFile(t, "new", 2)

	// A server and a webhook stored plain, before any key.
	base, stop := serveWith(t, db)
	callAPI(t, http.MethodPut, base+"/account/webhook", apiKey, `{"url": "http://127.0.0.1:9/h", "secret": "whsec-rotate-0123456789"}`)
	instanceID, password := deployedServer(t, base, apiKey)
	stop()

	rotate := func(keyFile string, wantResealed int) {
		t.Helper()
		code, out, errOut := cli(t, noEnv, "secrets", "rotate", "--db", db, "--secrets-key-file", keyFile, "--batch-size", "1")
		if code != exitOK {
			t.Fatalf("secrets rotate: exit %d: %s", code, errOut)
		}
		want := fmt.Sprintf("rotated: %d values encrypted again", wantResealed)
		if wantResealed < 0 {
			want = "rotated: "
		}
		if !strings.Contains(out, want) || !strings.Contains(out, "instances.password: ") {
			t.Fatalf("secrets rotate printed:\n%s\nwant %q and a line per column", out, want)
		}
	}
	// Plain values: the webhook secret, the instance's and the simulator's... at least two.
	code, out, errOut := cli(t, noEnv, "secrets", "rotate", "--db", db, "--secrets-key-file", oldKey)
	if code != exitOK || !strings.Contains(out, "under key "+keyIDOf(1)) {
		t.Fatalf("first rotation: exit %d\n%s%s", code, out, errOut)
	}
	if n := countSealed(t, db, keyIDOf(1)); n < 2 {
		t.Fatalf("%d values under the old key after encrypting the plain ones", n)
	}

	base, stop = serveWith(t, db, "--secrets-key-file", both)
	checkPassword(t, base, apiKey, instanceID, password) // the old key, second, decrypts
	rotate(both, -1)                                     // online: serve runs meanwhile
	checkPassword(t, base, apiKey, instanceID, password)
	stop()
	if n := countSealed(t, db, keyIDOf(1)); n != 0 {
		t.Fatalf("%d values still under the old key", n)
	}
	rotate(both, 0)

	base, stop = serveWith(t, db, "--secrets-key-file", newKey)
	checkPassword(t, base, apiKey, instanceID, password)
	stop()
	if err := serveOnce(t, db, "--secrets-key-file", oldKey); err == nil || !strings.Contains(err.Error(), oldKey) {
		t.Fatalf("serve with the retired key alone: %v; want an error naming %s", err, oldKey)
	}
	if code, _, errOut := cli(t, noEnv, "secrets", "rotate", "--db", db); code != exitUsage || !strings.Contains(errOut, "--secrets-key-file") {
		t.Fatalf("secrets rotate without a key file: exit %d, %s", code, errOut)
	}
}

// serveWith serves db with the extra flags until stop, and returns its API's base URL.
func serveWith(t *testing.T, db string, extra ...string) (string, func()) {
	t.Helper()
	opts, err := parseServe(append([]string{"--listen", "127.0.0.1:0", "--db", db, "--rate-limit-scale", "0",
		"--deploy-delay", "20ms", "--credentials-delay", "0s", "--allow-http-webhooks"}, extra...), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	bound, stop := startServe(t, opts, slog.New(slog.DiscardHandler))
	return "http://" + bound[0].String() + "/api/v1", stop
}

// deployedServer orders a server and waits for its root password.
func deployedServer(t *testing.T, base, apiKey string) (int64, string) {
	t.Helper()
	order := callAPI(t, http.MethodPost, base+"/instances", apiKey, `{"server_id": 101, "template_id": 1, "term": "hourly"}`)
	var id int64
	var password string
	waitFor(t, "a deployed server", func() bool {
		srv, _ := callAPI(t, http.MethodGet, fmt.Sprintf("%s/orders/%d", base, int64(order["order_id"].(float64))), apiKey, "")["server"].(map[string]any)
		if srv == nil {
			return false
		}
		id = int64(srv["id"].(float64))
		c, _ := callAPI(t, http.MethodGet, fmt.Sprintf("%s/instances/%d", base, id), apiKey, "")["credentials"].(map[string]any)
		password, _ = c["password"].(string)
		return password != ""
	})
	return id, password
}

// checkPassword fails t unless GET /instances/{id} shows password.
func checkPassword(t *testing.T, base, apiKey string, id int64, password string) {
	t.Helper()
	c, _ := callAPI(t, http.MethodGet, fmt.Sprintf("%s/instances/%d", base, id), apiKey, "")["credentials"].(map[string]any)
	if got, _ := c["password"].(string); got != password {
		t.Fatalf("GET /instances/%d shows password %q, want the one stored", id, got)
	}
}

// sealedColumns are the columns the store keeps encrypted, and the secrets canary.
var sealedColumns = []string{"webhooks.secret", "instances.password", "snapshots.password", "orders.app_inputs",
	"app_installs.inputs", "app_installs.result", "sim_machines.password", "key_hash_secret.sealed", "secrets_canary.sealed"}

// countSealed counts the values of the SQLite database at db encrypted under the key of id.
func countSealed(t *testing.T, db, id string) int {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	total := 0
	for _, c := range sealedColumns {
		table, column, _ := strings.Cut(c, ".")
		var n int
		if err := conn.QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE substr(`+column+`, 1, 16) = ?`, "enc:v2:"+id+":").Scan(&n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

// TestDevEncryptsWithItsOwnKey: dev, without a key file, encrypts with its built-in key, which
// opens its database in any later run, and with which serve and seed open it too.
func TestDevEncryptsWithItsOwnKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "dev.db")
	for run := range 2 {
		o, err := parseDev([]string{"--listen", "127.0.0.1:0", "--db", path}, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		out := &testbuf.Buffer{}
		done := make(chan error, 1)
		go func() { done <- dev(ctx, o, out, slog.New(slog.DiscardHandler)) }()
		waitFor(t, "dev's export lines", func() bool { return strings.Contains(out.String(), "RESELLER_API_KEY") })
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("dev run %d: %v", run+1, err)
		}
	}
	ctx := context.Background()
	if _, err := sqlstore.OpenSQLite(ctx, path); !errors.Is(err, sqlstore.ErrSecretsNeedKey) {
		t.Fatalf("dev's database opened without a key: %v; want its secrets encrypted", err)
	}
	st, err := sqlstore.OpenSQLite(ctx, path, sqlstore.WithSecrets(secrets.Dev()))
	if err != nil {
		t.Fatalf("dev's database with dev's key: %v", err)
	}
	_ = st.Close()
	if code, _, errOut := cli(t, noEnv, "seed", "--db", path, "--allow-http-webhooks", writeSeed(t, everyField)); code != exitOK {
		t.Fatalf("seed into dev's database: exit %d: %s", code, errOut)
	}
	if err := serveOnce(t, path); err != nil {
		t.Fatalf("serve on dev's database: %v", err)
	}
}
