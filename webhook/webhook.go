// Package webhook verifies the events the Reseller Server Service delivers to a team's webhook
// endpoint. Deliveries come from a relay, not from the API's address, so the source IP proves
// nothing: a receiver must check the X-Service-Signature header against the shared secret and
// reject stale timestamps, which is what Verifier does.
//
// The signature rule is the one published by Stripe: the header is `t=<unix seconds>,v1=<hex>`
// where v1 is HMAC-SHA256 with the secret over "<t>." followed by the raw request body. Several
// v1 values may be present (during a secret rotation); any one that matches is enough.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Headers of every delivery.
const (
	// HeaderEvent names the event, for routing before the body is decoded.
	HeaderEvent = "X-Service-Event"
	// HeaderDelivery identifies the delivery; it stays the same across retries, so a receiver
	// uses it to drop duplicates.
	HeaderDelivery = "X-Service-Delivery"
	// HeaderSignature carries the timestamp and the HMAC-SHA256 signature.
	HeaderSignature = "X-Service-Signature"
)

// DefaultTolerance is how far a delivery's timestamp may be from the receiver's clock, as in the
// reference verifier of the specification. It bounds how long a captured delivery can be replayed.
const DefaultTolerance = 300 * time.Second

// MaxBodyBytes bounds the body Parse reads; events are small.
const MaxBodyBytes = 1 << 20

// Errors Verify returns, so a receiver can log why a delivery was refused.
var (
	ErrNoSignature         = errors.New("webhook: no " + HeaderSignature + " header")
	ErrMalformedSignature  = errors.New("webhook: malformed signature header")
	ErrTimestampOutOfRange = errors.New("webhook: timestamp outside the tolerance")
	ErrSignatureMismatch   = errors.New("webhook: no signature matches the body")
)

// Event is the body of a delivery.
type Event struct {
	// ID is unique per event.
	ID string `json:"id"`
	// Event is the event name, such as "order.deployed".
	Event string `json:"event"`
	// CreatedAt is when the change happened.
	CreatedAt time.Time `json:"created_at"`
	// Data holds the event's fields; see the specification's event catalogue.
	Data json.RawMessage `json:"data"`
}

// Verifier checks deliveries signed with one secret.
type Verifier struct {
	// Secret is the secret registered with PUT /account/webhook.
	Secret string
	// Tolerance is the accepted clock difference; zero means DefaultTolerance.
	Tolerance time.Duration
	// Now tells the time; nil means time.Now. Tests set it.
	Now func() time.Time
}

// Verify checks a signature header against the raw body: the timestamp must be within the
// tolerance of now and one v1 signature must match. It compares in constant time.
func (v Verifier) Verify(header string, body []byte) error {
	if header == "" {
		return ErrNoSignature
	}
	t, signatures, err := parseHeader(header)
	if err != nil {
		return err
	}
	if age := v.now().Sub(time.Unix(t, 0)); age > v.tolerance() || age < -v.tolerance() {
		return fmt.Errorf("%w: %s off", ErrTimestampOutOfRange, age.Round(time.Second))
	}
	want := signature(v.Secret, t, body)
	for _, got := range signatures {
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}

// Parse reads a delivery request, verifies it and decodes its event. The body is read once and
// verified as received, never re-encoded.
func (v Verifier) Parse(r *http.Request) (*Event, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("webhook: read body: %w", err)
	}
	if len(body) > MaxBodyBytes {
		return nil, fmt.Errorf("webhook: body larger than %d bytes", MaxBodyBytes)
	}
	if err := v.Verify(r.Header.Get(HeaderSignature), body); err != nil {
		return nil, err
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, fmt.Errorf("webhook: decode event: %w", err)
	}
	return &ev, nil
}

// Sign returns the signature header for body at time t. The service signs its deliveries this
// way; receivers use it in their own tests.
func Sign(secret string, t time.Time, body []byte) string {
	return "t=" + strconv.FormatInt(t.Unix(), 10) + ",v1=" + hex.EncodeToString(signature(secret, t.Unix(), body))
}

func signature(secret string, t int64, body []byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t, 10) + "."))
	mac.Write(body)
	return mac.Sum(nil)
}

// parseHeader reads `t=<unix>,v1=<hex>[,v1=<hex>...]`; unknown schemes (v0, ...) are ignored.
func parseHeader(header string) (int64, [][]byte, error) {
	var (
		t          int64
		haveT      bool
		signatures [][]byte
	)
	for _, part := range strings.Split(header, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return 0, nil, fmt.Errorf("%w: %q is not key=value", ErrMalformedSignature, part)
		}
		switch key {
		case "t":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return 0, nil, fmt.Errorf("%w: timestamp %q", ErrMalformedSignature, value)
			}
			t, haveT = n, true
		case "v1":
			sig, err := hex.DecodeString(value)
			if err != nil || len(sig) != sha256.Size {
				return 0, nil, fmt.Errorf("%w: v1 is not a hex SHA-256 digest", ErrMalformedSignature)
			}
			signatures = append(signatures, sig)
		}
	}
	if !haveT || len(signatures) == 0 {
		return 0, nil, fmt.Errorf("%w: need t= and at least one v1=", ErrMalformedSignature)
	}
	return t, signatures, nil
}

func (v Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

func (v Verifier) tolerance() time.Duration {
	if v.Tolerance > 0 {
		return v.Tolerance
	}
	return DefaultTolerance
}
