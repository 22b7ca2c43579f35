package sqlstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

// testKey is a keyring of the keys of the given bytes (each repeated to a key), the first
// sealing, named as a key file would be.
func testKey(t *testing.T, fill ...byte) *secrets.Keyring {
	t.Helper()
	var lines []string
	for _, b := range fill {
		lines = append(lines, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, secrets.KeySize)))
	}
	k, err := secrets.Parse([]byte(strings.Join(lines, "\n")), "/etc/resellerd/test-keys")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestStoreSQLiteSealed and TestStorePostgresSealed run the whole store suite with a key: every
// write and read of a sealed column, single and batched, round-trips.
func TestStoreSQLiteSealed(t *testing.T) {
	t.Parallel()
	keys := testKey(t, 1)
	storetest.Run(t, func(t *testing.T) store.Store {
		return mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "test.db"), WithSecrets(keys))
	}, uncheckedOrder)
}

func TestStorePostgresSealed(t *testing.T) {
	t.Parallel()
	keys := testKey(t, 1)
	storetest.Run(t, func(t *testing.T) store.Store {
		return mustOpen(t, OpenPostgres, pg.Database(t), WithSecrets(keys))
	}, uncheckedOrder)
}

// opener opens (another store on) one database with opts.
type opener func(opts ...Option) (*Store, error)

// eachDatabase runs fn on a new SQLite file and on a new PostgreSQL database.
func eachDatabase(t *testing.T, fn func(t *testing.T, open opener)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "secrets.db")
		fn(t, func(opts ...Option) (*Store, error) { return OpenSQLite(context.Background(), path, opts...) })
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		url := pg.Database(t)
		fn(t, func(opts ...Option) (*Store, error) { return OpenPostgres(context.Background(), url, opts...) })
	})
}

// using opens a store with opts, runs fn on it and closes it.
func using(t *testing.T, open opener, fn func(s *Store), opts ...Option) {
	t.Helper()
	s, err := open(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	fn(s)
}

// secretRows are the rows of a fixture with a value in every sealed column, and the plain
// values written there.
type secretRows struct {
	account   int64
	order     int64
	instances []int64
	snapshot  int64
	installs  []int64
	ref       string
	plain     map[string]string // what each read should return, by name
}

var fixtureBase = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// writeSecrets writes a value in every sealed column through the store's ordinary writes:
// the order's app inputs (PlaceOrder), two instances' passwords (CreateInstances), three
// installs' inputs, over two instances (AddAppInstalls) and one's result (UpdateAppInstall), a
// snapshot's password, the webhook's secret and the simulator's out-of-band password.
func writeSecrets(t *testing.T, s *Store, tag string) secretRows {
	t.Helper()
	ctx := context.Background()
	r := secretRows{ref: "vm-" + tag, plain: map[string]string{
		"webhook": "whsec-Secret-" + tag, "order input": "order-Input-" + tag, "password 0": "root-Pw-0-" + tag,
		"password 1": "root-Pw-1-" + tag, "input 0": "app-Input-0-" + tag, "input 1": "app-Input-1-" + tag,
		"input 2": "app-Input-2-" + tag, "result": "generated-Pw-" + tag, "snapshot": "snap-Pw-" + tag, "sim": "oob-Pw-" + tag,
		"machine": "machine-Pw-" + tag, "op args": "op-Pw-" + tag, "op result": "op-Result-" + tag,
	}}
	a, err := s.CreateAccount(ctx, store.NewAccount{KeyHash: []byte("hash-" + tag), KeyHint: "h", KeyCreatedAt: fixtureBase,
		ServerLimit: 10, OrderLimit: 5, Language: "en", CreatedAt: fixtureBase})
	if err != nil {
		t.Fatal(err)
	}
	r.account = a.ID
	o, _, err := s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: fixtureBase, PlanID: 101, TemplateID: 1,
		Hostname: "web", Apps: []string{"mysql"}, AppInputs: map[string]map[string]string{"mysql": {"ROOT_PASSWORD": r.plain["order input"]}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.order = o.ID
	second, _, err := s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: fixtureBase, PlanID: 101, TemplateID: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.WithTx(ctx, func(tx store.Tx) error {
		ins := make([]store.Instance, 2)
		for i, order := range []int64{o.ID, second.ID} {
			ins[i] = store.Instance{AccountID: a.ID, OrderID: order, Name: "web", PlanID: 101, TemplateID: 1, DatacenterID: 1,
				LocationID: 11, Status: "online", Active: true, MachineRef: r.ref, Username: "root",
				Password: r.plain["password "+string(rune('0'+i))], CreatedAt: fixtureBase, RenewalDue: fixtureBase}
		}
		made, err := tx.CreateInstances(ctx, ins)
		if err != nil {
			return err
		}
		r.instances = []int64{made[0].ID, made[1].ID}
		installs := []store.AppInstall{
			{InstanceID: made[1].ID, AppID: "mysql", Inputs: map[string]string{"ROOT_PASSWORD": r.plain["input 0"]}},
			{InstanceID: made[0].ID, AppID: "mysql", Inputs: map[string]string{"ROOT_PASSWORD": r.plain["input 1"]}},
			{InstanceID: made[1].ID, AppID: "wordpress", Inputs: map[string]string{"SITE_TITLE": r.plain["input 2"]}},
		}
		for i := range installs {
			installs[i].Status, installs[i].Stage, installs[i].QueuedAt, installs[i].NextAt = store.InstallQueued,
				store.StageWaiting, fixtureBase, fixtureBase
		}
		if err := tx.AddAppInstalls(ctx, installs); err != nil {
			return err
		}
		snap, err := tx.CreateSnapshot(ctx, store.Snapshot{AccountID: a.ID, InstanceID: made[0].ID, Name: "snap",
			Status: store.SnapshotCreating, CreatedAt: fixtureBase, DatacenterID: 1, LocationID: 11, TemplateID: 1, PlanID: 101,
			OSType: "linux", Username: "root", Password: r.plain["snapshot"]})
		r.snapshot = snap.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range r.instances {
		installs, err := s.AppInstalls(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range installs {
			r.installs = append(r.installs, a.ID)
		}
	}
	first, err := s.AppInstalls(ctx, r.instances[0])
	if err != nil {
		t.Fatal(err)
	}
	done := first[0]
	done.Result = map[string]string{"root_password": r.plain["result"]}
	if err := s.UpdateAppInstall(ctx, done); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWebhook(ctx, store.Webhook{AccountID: a.ID, URL: "https://hooks.example/h", Secret: r.plain["webhook"],
		UpdatedAt: fixtureBase}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateSimMachine(ctx, r.ref, func(m *store.SimMachine) { m.Password = r.plain["sim"] }); err != nil {
		t.Fatal(err)
	}
	writeMachineSecrets(t, s, r)
	return r
}

// writeMachineSecrets writes the sandbox datacenter's secrets of r: a machine's build password,
// an op's arguments and its result.
func writeMachineSecrets(t *testing.T, s *Store, r secretRows) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.AddMachine(ctx, store.Machine{Ref: r.ref, Host: "h", Password: r.plain["machine"], Power: "online"}); err != nil {
		t.Fatal(err)
	}
	op := store.MachineOp{ID: "op-" + r.ref, Host: "h", Ref: r.ref, Kind: "set_password", Wait: true,
		Args: map[string]string{"password": r.plain["op args"]}}
	if _, err := s.AddMachineOp(ctx, op); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishMachineOp(ctx, op.ID, store.MachineOpDone, r.plain["op result"], 0); err != nil {
		t.Fatal(err)
	}
}

// readSecrets reads every value of r back through the store, by the names of r.plain.
func readSecrets(t *testing.T, s *Store, r secretRows) (map[string]string, error) {
	t.Helper()
	ctx := context.Background()
	got := map[string]string{}
	w, err := s.Webhook(ctx, r.account)
	if err != nil {
		return nil, err
	}
	got["webhook"] = w.Secret
	o, err := s.OrderByID(ctx, r.order)
	if err != nil {
		return nil, err
	}
	got["order input"] = o.AppInputs["mysql"]["ROOT_PASSWORD"]
	for i, id := range r.instances {
		in, err := s.InstanceByID(ctx, id)
		if err != nil {
			return nil, err
		}
		got["password "+string(rune('0'+i))] = in.Password
	}
	byInput := map[string]bool{}
	for _, id := range r.instances {
		installs, err := s.queries.AppInstalls(ctx, id) // not the cache: what the database holds now
		if err != nil {
			return nil, err
		}
		for _, a := range installs {
			for _, v := range a.Inputs {
				byInput[v] = true
			}
			if v := a.Result["root_password"]; v != "" {
				got["result"] = v
			}
		}
	}
	for _, name := range []string{"input 0", "input 1", "input 2"} {
		if byInput[r.plain[name]] {
			got[name] = r.plain[name]
		}
	}
	snap, err := s.SnapshotByID(ctx, r.snapshot)
	if err != nil {
		return nil, err
	}
	got["snapshot"] = snap.Password
	m, err := s.SimMachine(ctx, r.ref)
	if err != nil {
		return nil, err
	}
	got["sim"] = m.Password
	machine, err := s.Machine(ctx, r.ref)
	if err != nil {
		return nil, err
	}
	got["machine"] = machine.Password
	op, err := s.MachineOp(ctx, "op-"+r.ref)
	if err != nil {
		return nil, err
	}
	got["op args"], got["op result"] = op.Args["password"], op.Result
	return got, nil
}

// checkReads fails t unless every value of r reads back as written.
func checkReads(t *testing.T, s *Store, r secretRows) {
	t.Helper()
	got, err := readSecrets(t, s, r)
	if err != nil {
		t.Fatalf("read the secrets back: %v", err)
	}
	if !reflect.DeepEqual(got, r.plain) {
		t.Fatalf("read back:\n got %v\nwant %v", got, r.plain)
	}
}

// storedValues are the values of every sealed column as the database holds them, by column.
func storedValues(t *testing.T, s *Store) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, c := range sealedColumns {
		rows, err := list(context.Background(), s.queries, c.String(), c.scanStored,
			`SELECT `+c.key+`, `+c.column+`, `+c.ownerColumn()+` FROM `+c.table+` WHERE `+c.column+` <> ?`, c.empty)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out[c.String()] = append(out[c.String()], r.stored)
		}
	}
	return out
}

// countUnder counts the stored values sealed under the key of id, and the others.
func countUnder(t *testing.T, s *Store, id string) (under, other int) {
	t.Helper()
	for _, values := range storedValues(t, s) {
		for _, v := range values {
			if strings.HasPrefix(v, "enc:v2:"+id+":") {
				under++
			} else {
				other++
			}
		}
	}
	return under, other
}

// TestSecretsSealedAtRest: with a key, no plain value reaches any sealed column (each holds a
// value sealed under the key), and every one reads back plain.
func TestSecretsSealedAtRest(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		keys := testKey(t, 1)
		using(t, open, func(s *Store) {
			r := writeSecrets(t, s, "a")
			checkReads(t, s, r)
			stored := storedValues(t, s)
			for _, c := range sealedColumns {
				if len(stored[c.String()]) == 0 {
					t.Errorf("%s holds no value: the fixture writes none there", c)
				}
			}
			for column, values := range stored {
				for _, v := range values {
					if !strings.HasPrefix(v, "enc:v2:"+keys.FirstID()+":") {
						t.Errorf("%s holds a value not sealed under the key: %.20s…", column, v)
					}
					for name, plain := range r.plain {
						if strings.Contains(v, plain) {
							t.Errorf("%s holds the %s in plain text", column, name)
						}
					}
				}
			}
		}, WithSecrets(keys))
	})
}

// TestSecretsBoundToTheirRow: a sealed password copied into another instance's row does not
// open there, so the database alone cannot hand one account another's password.
func TestSecretsBoundToTheirRow(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		using(t, open, func(s *Store) {
			ctx := context.Background()
			r := writeSecrets(t, s, "b")
			if _, err := s.exec(ctx, `UPDATE instances SET password = (SELECT password FROM instances WHERE id = ?) WHERE id = ?`,
				r.instances[0], r.instances[1]); err != nil {
				t.Fatal(err)
			}
			_, err := s.InstanceByID(ctx, r.instances[1])
			if !errors.Is(err, secrets.ErrNotOpened) {
				t.Fatalf("a password moved to another row: %v, want ErrNotOpened", err)
			}
			if strings.Contains(err.Error(), r.plain["password 0"]) {
				t.Fatalf("the error shows the password: %v", err)
			}
		}, WithSecrets(testKey(t, 1)))
	})
}

// TestSecretsWrongKeyRefused: a database sealed under one key is refused with another key
// (naming the key file) and without a key; a locked keyring opens it but reads no secret.
func TestSecretsWrongKeyRefused(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		var r secretRows
		using(t, open, func(s *Store) { r = writeSecrets(t, s, "c") }, WithSecrets(testKey(t, 1)))

		_, err := open(WithSecrets(testKey(t, 2)))
		if !errors.Is(err, ErrSecretsWrongKey) || !strings.Contains(err.Error(), "/etc/resellerd/test-keys") {
			t.Fatalf("open with another key: %v, want ErrSecretsWrongKey naming the key file", err)
		}
		if _, err := open(); !errors.Is(err, ErrSecretsNeedKey) {
			t.Fatalf("open without a key: %v, want ErrSecretsNeedKey", err)
		}
		using(t, open, func(s *Store) {
			if _, err := s.Account(context.Background(), r.account); err != nil {
				t.Fatalf("a locked store reads accounts: %v", err)
			}
			if _, err := s.InstanceByID(context.Background(), r.instances[0]); !errors.Is(err, secrets.ErrNoKey) {
				t.Fatalf("a locked store read a sealed password: %v", err)
			}
		}, WithSecrets(secrets.Locked("no key file")))
	})
}

// TestSecretsRotation: values written plain before any key are read with a key, and a key file
// with a new first key still reads those the old key sealed. A rotation interrupted after its
// first batch leaves every value readable, some under each key; run again, it seals the rest
// under the new key, and only the new key is needed after.
func TestSecretsRotation(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		ctx := context.Background()
		old, rotated, onlyNew := testKey(t, 1), testKey(t, 2, 1), testKey(t, 2)
		var plain, sealed secretRows
		using(t, open, func(s *Store) { plain = writeSecrets(t, s, "plain") })
		using(t, open, func(s *Store) {
			checkReads(t, s, plain) // plain values of before, read with a key
			sealed = writeSecrets(t, s, "old")
		}, WithSecrets(old))

		using(t, open, func(s *Store) {
			checkReads(t, s, plain)
			checkReads(t, s, sealed) // the old key, second in the file, still opens
			stop, cancel := context.WithCancel(ctx)
			defer cancel()
			batches := 0
			_, err := s.RotateSecrets(stop, 1, func(RotateProgress) {
				if batches++; batches == 1 {
					cancel() // interrupted after the first batch committed
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted rotation: %v, want context.Canceled", err)
			}
			under, other := countUnder(t, s, rotated.FirstID())
			if under != 1 || other == 0 {
				t.Fatalf("after one batch of one: %d values under the new key, %d not; want 1 and the rest", under, other)
			}
			checkReads(t, s, plain)
			checkReads(t, s, sealed)

			n, err := s.RotateSecrets(ctx, 1, nil)
			if err != nil {
				t.Fatalf("rotation run again: %v", err)
			}
			if under, other := countUnder(t, s, rotated.FirstID()); other != 0 || n != under-1 {
				t.Fatalf("after the second run: %d under the new key (%d sealed by it), %d not", under, n, other)
			}
			if n, err := s.RotateSecrets(ctx, 0, nil); err != nil || n != 0 {
				t.Fatalf("a third run sealed %d values (%v), want none", n, err)
			}
		}, WithSecrets(rotated))

		using(t, open, func(s *Store) {
			checkReads(t, s, plain)
			checkReads(t, s, sealed)
		}, WithSecrets(onlyNew))
		if _, err := open(WithSecrets(old)); !errors.Is(err, ErrSecretsWrongKey) {
			t.Fatalf("the old key alone after rotation: %v, want ErrSecretsWrongKey", err)
		}
	})
}

// TestRotateStopsAtAValueNoKeyOpens: a value sealed under a key the file lacks stops the
// rotation with an error naming the value's place and key, not the value.
func TestRotateStopsAtAValueNoKeyOpens(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "foreign.db")
	s := mustOpen(t, OpenSQLite, path, WithSecrets(testKey(t, 1)))
	r := writeSecrets(t, s, "d")
	foreign, err := testKey(t, 9).Seal(webhookSecret.cell(r.account, r.account), "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.exec(context.Background(), `UPDATE webhooks SET secret = ? WHERE account_id = ?`, foreign, r.account); err != nil {
		t.Fatal(err)
	}
	_, err = s.RotateSecrets(context.Background(), 0, nil)
	if !errors.Is(err, secrets.ErrNoKey) || !strings.Contains(err.Error(), "webhooks.secret") ||
		!strings.Contains(err.Error(), secrets.KeyID(bytes.Repeat([]byte{9}, secrets.KeySize))) {
		t.Fatalf("rotate over a foreign value: %v", err)
	}
}
