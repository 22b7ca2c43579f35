//go:build unix

package instance_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// planLarge is the plan a server on planMedium resizes to in place (seeded catalogue).
const planLarge = 103

// failureStep is one row of the failure-path matrix: a step of a create or an update that can
// fail after the server exists, and how the test makes it fail. Every row runs twice, without
// and with write-only arguments (app_inputs_wo), since a state saved with an error must carry no
// write-only value, or Terraform throws it away and the server is lost from the state.
type failureStep struct {
	name    string
	backend []acctest.Option
	// before, when set, are the lines of a first apply that succeeds: the failing apply is then
	// an update from that server. Lines hold plan_id and anything else beside the template,
	// the apps and the write-only arguments every configuration has.
	before []string
	// holdBefore keeps the order of the before apply pending (Server.HoldDeploys) until the
	// failing step releases it, so the apply that resumes the create meets a pending order
	// however slowly the before apply ran.
	holdBefore bool
	lines      []string
	// fail runs the failing apply (`apply -auto-approve`) and injects the failure; it returns
	// the apply's output and exit code.
	fail func(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int)
	// wantCode and wantOutput (an acctest.ErrorRegexp pattern) are what the failing apply ends
	// with; a cut-short create ends with a warning, not an error.
	wantCode   int
	wantOutput string
	// tainted tells whether the server is left tainted (the next apply replaces it: one more
	// order) rather than partial (the next apply finishes it: no new order).
	tainted bool
	// replaced tells whether the next apply replaces a server left untainted (one more order):
	// a resumed create, an Update, cannot taint, so it records the failure for the next plan.
	replaced bool
	// nextOutput, when set, is what the next apply's output must match (acctest.ErrorRegexp).
	nextOutput string
	// cliShaped runs the plain variant on every CLI of the matrix too: the row tests the CLI's
	// own behaviour (its handling of a signal). Other rows' plain variants check what the
	// provider and the backend decide (acctest.SameOnEveryCLI); their write_only variants run
	// on every CLI, since what a CLI keeps of a state saved with an error is its own.
	cliShaped bool
}

// failureSteps is the matrix: a new step that can fail is a new row.
func failureSteps() []failureStep {
	plan := func(id int) string { return acctest.Attr("plan_id", id) }
	createTimeout := func(d string) string { return fmt.Sprintf("timeouts {\n    create = %q\n  }", d) }
	return []failureStep{
		{
			name: "credentials_pending_at_timeout",
			// The create must see the deploy before its timeout and must not see the credentials.
			// The second holds by construction: the timeout (8s) starts before the order, whose
			// credentials come 12s after its 200ms deploy. The first has 8s for what takes about
			// 2.5s unloaded (the shared order list a create polls is up to 2s old,
			// client.pollViewTTL); 3s was too little with four CLIs' suites side by side on 2 cores.
			// The install stages after the credentials need not take 12s each as well.
			backend: []acctest.Option{acctest.WithDelays(200*time.Millisecond, 12*time.Second),
				acctest.WithAppStepDelay(100 * time.Millisecond)},
			lines: []string{plan(planMedium), createTimeout("8s")},
			fail:  applyOnce,
			wantOutput: `Server not ready yet: the next apply resumes.*to deliver its credentials` +
				`.*Order \d+ is kept in the state \(instance id: \d+\)`,
		},
		{
			name:       "app_install_fails",
			backend:    []acctest.Option{acctest.WithDelays(200*time.Millisecond, 500*time.Millisecond)},
			lines:      []string{plan(planMedium)},
			fail:       brokenPassword,
			wantCode:   1,
			wantOutput: `App install failed.*"mysql".*auth_failed.*kept in the state; Terraform marks it tainted`,
			tainted:    true,
		},
		{
			name:       "resize_refused",
			before:     []string{plan(planMedium)},
			lines:      []string{plan(planLarge)},
			fail:       failingDatacenter,
			wantCode:   1,
			wantOutput: `Unable to update instance \d+.*Error code: provider_error`,
		},
		{
			name:       "power_change_refused",
			before:     []string{plan(planMedium)},
			lines:      []string{plan(planMedium), acctest.Attr("power", "off")},
			fail:       failingDatacenter,
			wantCode:   1,
			wantOutput: `Unable to update instance \d+.*Error code: provider_error`,
		},
		{
			name:       "power_off_refused_at_create",
			backend:    []acctest.Option{acctest.WithDelays(200*time.Millisecond, 500*time.Millisecond)},
			lines:      []string{plan(planMedium), acctest.Attr("power", "off"), acctest.Attr("wait_for_apps", false)},
			fail:       failingDatacenterOnDeploy,
			wantCode:   1,
			wantOutput: `Unable to finish creating the server.*Error code: provider_error`,
			tainted:    true,
		},
		{
			// The create is cut short while the order is pending; the apply that resumes it (an
			// Update) fails at the power change, which an Update cannot taint.
			name:    "power_off_refused_on_resume",
			backend: []acctest.Option{acctest.WithDelays(200*time.Millisecond, 100*time.Millisecond)},
			before: []string{plan(planMedium), acctest.Attr("power", "off"), acctest.Attr("wait_for_apps", false),
				createTimeout("10s")},
			holdBefore: true,
			lines:      []string{plan(planMedium), acctest.Attr("power", "off"), acctest.Attr("wait_for_apps", false)},
			fail:       failingDatacenterOnceDeployed,
			wantCode:   1,
			wantOutput: `Unable to finish creating the server.*Error code: provider_error`,
		},
		{
			// The create is cut short while the order is pending; the apply that resumes it (an
			// Update) fails at the app install, which an Update cannot taint: the failure is
			// recorded, and the next apply replaces the server.
			name:       "app_install_fails_on_resume",
			backend:    []acctest.Option{acctest.WithDelays(200*time.Millisecond, 500*time.Millisecond)},
			before:     []string{plan(planMedium), createTimeout("10s")},
			holdBefore: true,
			lines:      []string{plan(planMedium)},
			fail:       brokenPasswordOnResume,
			wantCode:   1,
			wantOutput: `App install failed.*"mysql".*auth_failed.*not tainted.*the next apply replaces it`,
			replaced:   true,
			nextOutput: `Failed create will be replaced.*order \d+.*"mysql" failed at stage "auth_failed"`,
		},
		{
			name:       "sigterm_to_process_group",
			cliShaped:  true,
			backend:    []acctest.Option{acctest.WithDelays(200*time.Millisecond, 100*time.Millisecond)},
			lines:      []string{plan(planMedium)},
			fail:       sigtermWhilePending,
			wantCode:   1,
			wantOutput: `Server not ready yet: the next apply resumes.*Order \d+ is kept in the state \(instance id: not known yet\)`,
		},
		{
			name:    "resellerd_restarted",
			backend: []acctest.Option{acctest.WithDelays(200*time.Millisecond, 100*time.Millisecond)},
			lines:   []string{plan(planMedium)},
			fail:    restartWhilePending(0),
			// The client retries through the restart: the create finishes.
			wantOutput: `Apply complete! Resources: 1 added`,
		},
		{
			// resellerd is down for 20 s while the create waits on its order (a slow restart, a
			// database failover): the wait rides it out within the create timeout, however many
			// of the client's attempts that takes.
			name:       "resellerd_down_20s",
			backend:    []acctest.Option{acctest.WithDelays(200*time.Millisecond, 100*time.Millisecond)},
			lines:      []string{plan(planMedium)},
			fail:       restartWhilePending(20 * time.Second),
			wantOutput: `Apply complete! Resources: 1 added`,
		},
		{
			name:    "create_timeout_order_pending",
			backend: []acctest.Option{acctest.WithDelays(200*time.Millisecond, 100*time.Millisecond)},
			lines:   []string{plan(planMedium), createTimeout("10s")},
			fail:    applyWhileHeld,
			wantOutput: `Server not ready yet: the next apply resumes.*order \d+ to be deployed timed out.*` +
				`Order \d+ is kept in the state \(instance id: not known yet\)`,
		},
	}
}

// TestAccInstance_failureMatrix runs every row of failureSteps, without and with write-only
// arguments, through the real CLI. After the failing apply (a) the state holds the server,
// tainted or partial as the row says, and no write-only value; (b) once the backend has finished
// what it was doing, GET /instances shows exactly one active server, the state's; (c) the next
// apply of the same configuration converges without another order (one, to replace a tainted
// server), leaving exactly that one server, and the plan after it is empty.
func TestAccInstance_failureMatrix(t *testing.T) {
	t.Parallel()
	cli := acctest.NewCLI(t)
	for _, row := range failureSteps() {
		for _, writeOnly := range []bool{false, true} {
			name := row.name + "/plain"
			if writeOnly {
				name = row.name + "/write_only"
			}
			t.Run(name, func(t *testing.T) {
				if !writeOnly && !row.cliShaped {
					acctest.SameOnEveryCLI(t)
				}
				t.Parallel()
				runFailureStep(t, cli.Sub(t), row, writeOnly)
			})
		}
	}
}

func runFailureStep(t *testing.T, cli *acctest.CLI, row failureStep, writeOnly bool) {
	// Rows hold orders pending (Server.HoldDeploys) for as long as their step takes: the order
	// window outlasts that on a loaded machine too (acctest's default is a minute).
	b := acctest.StartBackend(t, append([]acctest.Option{acctest.WithOrderWindow(10 * time.Minute)}, row.backend...)...)
	config := func(lines []string) string {
		lines = append([]string{acctest.Attr("template_id", tmplUbuntu), `apps = ["mysql"]`}, lines...)
		if writeOnly {
			lines = append(lines, fmt.Sprintf(`app_inputs_wo = { mysql = { ROOT_PASSWORD = %q } }`, woRootPassword),
				acctest.Attr("app_inputs_wo_version", 1))
		}
		return acctest.ProviderRequirement() + b.ResourceConfig("reseller_instance", lines...)
	}
	if row.before != nil {
		if row.holdBefore {
			b.Server.HoldDeploys()
		}
		cli.Write("main.tf", config(row.before))
		cli.Run([]string{"apply", "-auto-approve"})
	}
	cli.Write("main.tf", config(row.lines))

	out, code := row.fail(t, b, cli)
	if code != row.wantCode || !acctest.ErrorRegexp(row.wantOutput).MatchString(out) {
		t.Fatalf("the failing apply: got exit code %d, want %d, and output matching %q:\n%s", code, row.wantCode, row.wantOutput, out)
	}
	kept := stateServer(t, cli, row.tainted, "after the failed apply", out)
	settleBackend(t, b)
	id := orderServer(t, b, kept.orderID)
	if kept.id != 0 && kept.id != id {
		t.Fatalf("after the failed apply: the state holds server %d, its order %d built %d", kept.id, kept.orderID, id)
	}
	if err := b.CheckActiveInstances(t, id)(nil); err != nil {
		t.Fatalf("after the failed apply: %v (the state's server is %d)", err, id)
	}

	out, _ = cli.Run([]string{"apply", "-auto-approve"})
	after := stateServer(t, cli, false, "after the next apply", out)
	if row.nextOutput != "" && !acctest.ErrorRegexp(row.nextOutput).MatchString(out) {
		t.Errorf("the next apply: want output matching %q:\n%s", row.nextOutput, out)
	}
	if err := b.CheckActiveInstances(t, after.id)(nil); err != nil {
		t.Errorf("after the next apply: %v (the state's server is %d)", err, after.id)
	}
	wantReplaced := row.tainted || row.replaced
	wantOrders := 1
	if wantReplaced {
		wantOrders = 2
	}
	if orders := b.Orders(t); len(orders) != wantOrders {
		t.Errorf("orders after the next apply: got %d, want %d", len(orders), wantOrders)
	}
	if replaced := after.id != id; replaced != wantReplaced {
		t.Errorf("the next apply left server %d in the state, the failed apply left %d: replaced %v, want %v", after.id, id, replaced, wantReplaced)
	}
	if out, code := cli.Run([]string{"plan", "-detailed-exitcode"}, 0, 2); code != 0 {
		t.Errorf("the plan after the next apply has changes:\n%s", out)
	}
	t.Logf("%s: the failed apply exited %d, leaving server %d in the state (tainted: %v); the next apply converged on server %d with %d orders",
		t.Name(), row.wantCode, id, row.tainted, after.id, wantOrders)
}

// keptServer is what a state holds of the server: its id (0 while the order is pending) and
// its order.
type keptServer struct{ id, orderID int64 }

// stateServer reads the state after an apply: it must hold reseller_instance.test, tainted or
// not as wanted, with its order, and no write-only value anywhere. out is the apply's output.
func stateServer(t *testing.T, cli *acctest.CLI, tainted bool, when, out string) keptServer {
	t.Helper()
	instances, raw := cli.StateInstances()
	if strings.Contains(raw, woRootPassword) {
		t.Fatalf("%s: the state holds the write-only root password", when)
	}
	if len(instances) != 1 || instances[0].Address != res {
		t.Fatalf("%s: the state holds %+v, want %s alone; the apply said:\n%s", when, instances, res, out)
	}
	in := instances[0]
	if in.Tainted != tainted {
		t.Fatalf("%s: %s tainted %v, want %v; the apply said:\n%s", when, res, in.Tainted, tainted, out)
	}
	if wo := in.Attributes["app_inputs_wo"]; wo != nil {
		t.Fatalf("%s: app_inputs_wo is %v in the state, want null", when, wo)
	}
	var k keptServer
	if id, ok := in.Attributes["id"].(float64); ok {
		k.id = int64(id)
	}
	orderID, ok := in.Attributes["order_id"].(float64)
	if !ok {
		t.Fatalf("%s: the state holds no order_id: %v", when, in.Attributes)
	}
	k.orderID = int64(orderID)
	return k
}

// orderServer returns the server order id built.
func orderServer(t *testing.T, b *acctest.Backend, orderID int64) int64 {
	t.Helper()
	for _, o := range b.Orders(t) {
		if o.OrderID == orderID && o.Server != nil {
			return o.Server.ID
		}
	}
	t.Fatalf("order %d built no server: %+v", orderID, b.Orders(t))
	return 0
}

// applyOnce runs `apply -auto-approve` and returns its output and exit code, whatever it is.
func applyOnce(t *testing.T, _ *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	return cli.Run([]string{"apply", "-auto-approve"}, 0, 1)
}

// applyWhileHeld runs the apply while no build may deploy (Server.HoldDeploys), so its order is
// still pending when the create's timeout ends the wait, however slowly the apply runs.
func applyWhileHeld(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	b.Server.HoldDeploys()
	defer b.Server.ReleaseDeploys()
	return applyOnce(t, b, cli)
}

// brokenPassword changes the server's root password behind the service's back at its deploy,
// before any install runs (Server.ChangeRootPasswordAtDeploy), so the installs fail at stage
// auth_failed.
func brokenPassword(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	b.Server.ChangeRootPasswordAtDeploy()
	return applyOnce(t, b, cli)
}

// brokenPasswordOnResume is brokenPassword for the apply that resumes a create an earlier apply
// cut short: that order, held (holdBefore), must still be pending; it is released once the
// password change is armed.
func brokenPasswordOnResume(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	if orders := b.Orders(t); len(orders) != 1 || orders[0].Status != client.OrderPending {
		t.Fatalf("before the resumed apply: got orders %+v, want one pending (the row must hold its deploy)", orders)
	}
	b.Server.ChangeRootPasswordAtDeploy()
	b.Server.ReleaseDeploys()
	return applyOnce(t, b, cli)
}

// failingDatacenter makes every datacenter operation fail (502 provider_error) during the apply;
// settleBackend sets the fail rate back.
func failingDatacenter(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	if err := b.Server.SetFailRate(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	return applyOnce(t, b, cli)
}

// failingDatacenterOnDeploy makes every datacenter operation fail from the moment the order is
// deployed (Server.FailDatacenterAtDeploy), so the create fails at its first operation on the
// new server.
func failingDatacenterOnDeploy(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	b.Server.FailDatacenterAtDeploy()
	return applyOnce(t, b, cli)
}

// failingDatacenterOnceDeployed releases the order an earlier apply left pending (holdBefore),
// waits until it is deployed, then makes every datacenter operation fail during the apply.
func failingDatacenterOnceDeployed(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	b.Server.ReleaseDeploys()
	if err := waitOrder(b, client.OrderDeployed, nil); err != nil {
		t.Fatal(err)
	}
	return failingDatacenter(t, b, cli)
}

// sigtermWhilePending starts the apply in a process group of its own and, once its order is
// pending (held there: Server.HoldDeploys), sends SIGTERM to the whole group, as `timeout` or a
// CI runner cancelling the job does.
func sigtermWhilePending(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	t.Helper()
	b.Server.HoldDeploys()
	defer b.Server.ReleaseDeploys()
	job := cli.Start([]string{"apply", "-auto-approve"})
	if err := waitOrder(b, client.OrderPending, job.Done()); err != nil {
		out, _ := job.Wait()
		t.Fatalf("%v; the apply said:\n%s", err, out)
	}
	job.SignalGroup(syscall.SIGTERM)
	return job.Wait()
}

// restartWhilePending stops resellerd while the apply's order is pending (held there until the
// stop: Server.HoldDeploys), keeps it down for down, and starts it again on the same database
// and address; the new backend deploys the order.
func restartWhilePending(down time.Duration) func(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
	return func(t *testing.T, b *acctest.Backend, cli *acctest.CLI) (string, int) {
		t.Helper()
		b.Server.HoldDeploys()
		applied := make(chan struct{})
		restarted := make(chan error, 1)
		go func() {
			if err := waitOrder(b, client.OrderPending, applied); err != nil {
				restarted <- err
				return
			}
			restarted <- b.RestartAfter(t, down)
		}()
		out, code := applyOnce(t, b, cli)
		close(applied)
		if err := <-restarted; err != nil {
			t.Fatalf("restarting resellerd during the create: %v; the apply said:\n%s", err, out)
		}
		return out, code
	}
}

// waitOrder waits, for at most a minute, until the account has exactly one order and it has the
// given status; it fails when stop is closed first. (It reports rather than fails the test: it
// may run on a goroutine of its own.)
func waitOrder(b *acctest.Backend, status string, stop <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.New(client.Config{Endpoint: b.URL, APIKey: b.APIKey, MaxRetries: 2})
	if err != nil {
		return err
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("no %s order within a minute", status)
		case <-stop:
			return fmt.Errorf("the apply ended before its order was %s", status)
		case <-tick.C:
		}
		if orders, err := c.ListOrders(ctx); err == nil && len(orders) == 1 && orders[0].Status == status {
			return nil
		}
	}
}

// settleBackend lets the backend finish what the failure interrupted, so the next apply meets a
// working datacenter: the fail rate is 0 again, no order is pending, every server has settled and
// the installs of every online server have ended.
func settleBackend(t *testing.T, b *acctest.Backend) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b.Server.ReleaseDeploys()
	if err := b.Server.SetFailRate(ctx, 0); err != nil {
		t.Fatal(err)
	}
	c := b.Client(t, "en")
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: "the orders to end", Interval: 100 * time.Millisecond},
		func(ctx context.Context) (bool, string, error) {
			orders, err := c.ListOrders(ctx)
			for _, o := range orders {
				if o.Status == client.OrderPending {
					return false, "pending", err
				}
			}
			return err == nil, "ended", err
		})
	if err != nil {
		t.Fatal(err)
	}
	active, err := c.ListInstances(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range active {
		if settled := b.WaitServer(t, in.ID); settled.StatusValue() != client.StatusOnline {
			continue // installs wait for the server to be online
		}
		err := tfutil.Poll(ctx, tfutil.PollOptions{What: fmt.Sprintf("the installs of server %d to end", in.ID), Interval: 100 * time.Millisecond},
			func(ctx context.Context) (bool, string, error) {
				apps, err := c.ListInstanceApps(ctx, in.ID)
				if err != nil {
					return false, "", err
				}
				for _, a := range apps.Installs {
					if a.Status != client.AppInstalled && a.Status != client.AppFailed {
						return false, a.AppID + ": " + a.Status, nil
					}
				}
				return true, "ended", nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
}
