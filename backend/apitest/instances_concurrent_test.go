package apitest

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// TestInstanceAnswersConcurrent reads six instances of two accounts at once, 1,200 times each,
// the languages alternated: every answer is byte for byte its own instance's as read alone,
// though the buffers GET /instances/{id} appends its answers into are pooled and shared by every
// request (run it with -race). The clock stands still, so an instance's answer does not change.
func TestInstanceAnswersConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	type target struct {
		key  string
		path [2]string // English, Persian
		want [2][]byte
	}
	var targets []target
	for a := range 2 {
		key := e.funded(t, 1_000_000_000).APIKey
		for i := range 3 {
			id := e.deployed(t, key, fmt.Sprintf(`{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "h%d-%d.example.com"}`, a, i))
			tg := target{key: key, path: [2]string{fmt.Sprintf("/instances/%d?lang=en", id), fmt.Sprintf("/instances/%d?lang=fa", id)}}
			for l, path := range tg.path {
				r := e.do(t, request{Path: path, Key: key})
				r.WantStatus(t, http.StatusOK, "")
				tg.want[l] = r.Raw
			}
			targets = append(targets, tg)
		}
	}
	if bytes.Equal(targets[0].want[0], targets[1].want[0]) || bytes.Equal(targets[0].want[0], targets[0].want[1]) {
		t.Fatal("two instances, or two languages, answer the same bytes: the test could not tell them apart")
	}
	errs := make(chan error, len(targets))
	var wg sync.WaitGroup
	for _, tg := range targets {
		wg.Go(func() {
			for n := range 1200 {
				r, err := e.send(request{Path: tg.path[n%2], Key: tg.key})
				if err == nil && !bytes.Equal(r.Raw, tg.want[n%2]) {
					err = fmt.Errorf("%d %s\n got  %s\n want %s", r.Status, tg.path[n%2], r.Raw, tg.want[n%2])
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
