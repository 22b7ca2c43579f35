//go:build linux

package instance_test

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TestAccInstance_providerAfterSIGTERM: the provider process outlives a SIGTERM (so Terraform,
// which got the same signal from the process group, can stop it gracefully), but once Terraform
// is killed outright, as `timeout -k` does when Terraform does not end in time, the provider
// exits rather than run on with nobody to stop it. The SIGTERM goes to the provider alone, so its
// log line about it is read while Terraform runs: written to a Terraform already gone, it would
// end the provider with SIGPIPE by chance, and the test would show nothing.
func TestAccInstance_providerAfterSIGTERM(t *testing.T) {
	t.Parallel()
	cli := acctest.NewCLI(t)
	b := acctest.StartBackend(t, acctest.WithDelays(time.Minute, 100*time.Millisecond))
	cli.Write("main.tf", acctest.ProviderRequirement()+b.ResourceConfig("reseller_instance",
		acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu)))
	job := cli.Start([]string{"apply", "-auto-approve"})
	if err := waitOrder(b, client.OrderPending, job.Done()); err != nil {
		out, _ := job.Wait()
		t.Fatalf("%v; the apply said:\n%s", err, out)
	}
	providers := job.GroupAlive()
	providers = slices.DeleteFunc(providers, func(pid int) bool { return pid == job.Pid() })
	if len(providers) != 1 {
		t.Fatalf("processes of the apply besides Terraform: got %v, want the provider alone", providers)
	}
	provider := providers[0]
	if err := syscall.Kill(provider, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-time.After(time.Second):
	case <-job.Done():
		out, code := job.Wait()
		t.Fatalf("the apply ended (exit code %d) after a SIGTERM to its provider; it said:\n%s", code, out)
	}
	if alive := job.GroupAlive(); !slices.Contains(alive, provider) {
		t.Fatalf("the provider (pid %d) did not outlive a SIGTERM; the group holds %v", provider, alive)
	}

	job.KillLeader()
	job.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), acctest.EventWait)
	defer cancel()
	err := tfutil.Poll(ctx, tfutil.PollOptions{What: "the provider to exit", Interval: 100 * time.Millisecond, MaxInterval: 500 * time.Millisecond},
		func(context.Context) (bool, string, error) {
			alive := job.GroupAlive()
			return len(alive) == 0, fmt.Sprintf("processes left: %v", alive), nil
		})
	if err != nil {
		t.Errorf("after Terraform was killed: %v", err)
	}
}
