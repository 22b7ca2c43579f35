package snapshot_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// snapshotCreate matches the path of POST /instances/{id}/snapshots.
var snapshotCreate = regexp.MustCompile(`^/instances/\d+/snapshots$`)

// TestAccSnapshot_lostAnswer: when the answer to the snapshot create is lost, the apply still
// succeeds and the account ends with exactly one snapshot, the one in the state. A reset after
// the backend took the snapshot must find that snapshot rather than take a second; a gateway's
// 502 before the backend saw the request must ask again.
func TestAccSnapshot_lostAnswer(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	cases := map[string]struct {
		fault acctest.Fault
		body  []string
	}{
		"reset after processing, named":   {acctest.FaultReset, []string{`name = "lost"`}},
		"reset after processing, unnamed": {acctest.FaultReset, nil},
		"502 before processing":           {acctest.FaultBadGateway, []string{`name = "lost"`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := acctest.StartBackend(t)
			proxy := acctest.StartFaultProxy(t, b, acctest.FirstMatching(http.MethodPost, snapshotCreate, 1, tc.fault))
			resource.ParallelTest(t, testCase(t, b, resource.TestStep{
				Config: server(proxy.Via(b), planSmall, tmplUbuntu) + snapshotOf(tc.body...),
				Check: func(s *terraform.State) error {
					if n := proxy.Injected()[tc.fault]; n != 1 {
						return fmt.Errorf("faults injected: got %d %s, want 1", n, tc.fault)
					}
					return onlySnapshotIs(t, b, idOf(t, s, res))
				},
			}))
		})
	}
}

// onlySnapshotIs fails unless the account has exactly one snapshot, whatever its status, and
// its id is id.
func onlySnapshotIs(t *testing.T, b *acctest.Backend, id int64) error {
	t.Helper()
	all, err := b.Client(t, "en").ListSnapshots(context.Background(), true)
	if err != nil {
		return fmt.Errorf("listing the backend's snapshots: %w", err)
	}
	if len(all) != 1 || all[0].ID != id {
		ids := make([]int64, len(all))
		for i, s := range all {
			ids[i] = s.ID
		}
		return fmt.Errorf("backend snapshots: got ids %v, want only %d (the one in the state)", ids, id)
	}
	return nil
}
