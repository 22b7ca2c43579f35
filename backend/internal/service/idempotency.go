package service

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// IdempotencyRetention is how long an Idempotency-Key is remembered (spec: 24 hours).
const IdempotencyRetention = 24 * time.Hour

// maxIdempotencyKey bounds the length of a key.
const maxIdempotencyKey = 255

// Idempotency is the Idempotency-Key of a POST /instances and the raw body it came with. An
// empty Key means the header was not sent.
type Idempotency struct {
	Key  string
	Body []byte
}

// checkIdempotencyKey accepts 1 to 255 visible ASCII characters, enough for UUIDs and any
// scheme a client may use, and nothing that could smuggle control characters into logs.
func checkIdempotencyKey(key string) error {
	if len(key) > maxIdempotencyKey {
		return Validation("Idempotency-Key", "must be at most %d characters", maxIdempotencyKey)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < '!' || key[i] > '~' {
			return Validation("Idempotency-Key", "must be visible ASCII characters without spaces")
		}
	}
	return nil
}

// canonicalHash hashes the meaning of a JSON body rather than its spelling: object keys are
// sorted, insignificant whitespace is dropped and top-level fields that are null, [] or {} are
// removed (the API reads each of them as "not sent"), so a client that re-serialises the same
// request still matches. Numbers are compared as written.
func canonicalHash(body []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", Validation("body", "is not valid JSON")
	}
	if obj, ok := v.(map[string]any); ok {
		for k, field := range obj {
			if notSent(field) {
				delete(obj, k)
			}
		}
	}
	canonical, err := json.Marshal(v) // maps are written with sorted keys
	if err != nil {
		return "", fmt.Errorf("service: canonical body: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}

// inflight tracks the Idempotency-Keys whose first request is being processed in this process,
// so a concurrent repeat answers 409 idempotency_in_progress at once instead of queueing behind
// the first. Across replicas the key row, committed with the order, is what decides.
type inflight struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

func newInflight() *inflight { return &inflight{keys: map[string]struct{}{}} }

// acquire marks the key as in progress; ok is false when it already is. release must be called
// once the request is finished.
func (f *inflight) acquire(accountID int64, key string) (release func(), ok bool) {
	k := strconv.FormatInt(accountID, 10) + "\x00" + key
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, busy := f.keys[k]; busy {
		return nil, false
	}
	f.keys[k] = struct{}{}
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.keys, k)
	}, true
}

// notSent reports whether a decoded JSON value means the same as leaving its field out.
func notSent(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
