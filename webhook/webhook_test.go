package webhook_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/webhook"
)

const (
	secret = "0123456789abcdef-secret"
	body   = `{"id":"evt_1","event":"ping","created_at":"2026-01-02T03:04:05Z","data":{"account_id":7}}`
	// vector is HMAC-SHA256(secret, "1767323045." + body), computed outside Go with Python's
	// hmac module, so the test does not trust the code it checks.
	vector = "b2a162ed0d127c03cefea5c96a1f0113d54bb59613db876d21689dd08e404d66"
)

var signedAt = time.Unix(1767323045, 0)

func verifierAt(now time.Time) webhook.Verifier {
	return webhook.Verifier{Secret: secret, Now: func() time.Time { return now }}
}

func TestSignMatchesIndependentVector(t *testing.T) {
	t.Parallel()
	got := webhook.Sign(secret, signedAt, []byte(body))
	if want := "t=1767323045,v1=" + vector; got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	valid := "t=1767323045,v1=" + vector
	tests := []struct {
		name   string
		header string
		body   string
		now    time.Time
		want   error
	}{
		{"valid", valid, body, signedAt, nil},
		{"valid at the edge of the tolerance", valid, body, signedAt.Add(webhook.DefaultTolerance), nil},
		{"valid from a clock behind", valid, body, signedAt.Add(-webhook.DefaultTolerance), nil},
		{"rotated secret: second v1 matches", "t=1767323045,v1=" + zeros() + ",v1=" + vector, body, signedAt, nil},
		{"unknown scheme ignored", "t=1767323045,v0=abc,v1=" + vector, body, signedAt, nil},
		{"too old", valid, body, signedAt.Add(webhook.DefaultTolerance + time.Second), webhook.ErrTimestampOutOfRange},
		{"from the future", valid, body, signedAt.Add(-webhook.DefaultTolerance - time.Second), webhook.ErrTimestampOutOfRange},
		{"body changed", valid, body + " ", signedAt, webhook.ErrSignatureMismatch},
		{"re-encoded body", valid, `{"event":"ping","id":"evt_1","created_at":"2026-01-02T03:04:05Z","data":{"account_id":7}}`, signedAt, webhook.ErrSignatureMismatch},
		{"timestamp changed", "t=1767323046,v1=" + vector, body, signedAt, webhook.ErrSignatureMismatch},
		{"no header", "", body, signedAt, webhook.ErrNoSignature},
		{"no v1", "t=1767323045", body, signedAt, webhook.ErrMalformedSignature},
		{"no t", "v1=" + vector, body, signedAt, webhook.ErrMalformedSignature},
		{"bad hex", "t=1767323045,v1=zz", body, signedAt, webhook.ErrMalformedSignature},
		{"bad timestamp", "t=soon,v1=" + vector, body, signedAt, webhook.ErrMalformedSignature},
		{"not key=value", "t=1767323045,garbage", body, signedAt, webhook.ErrMalformedSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := verifierAt(tt.now).Verify(tt.header, []byte(tt.body))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestVerifyWrongSecret(t *testing.T) {
	t.Parallel()
	v := webhook.Verifier{Secret: "another-secret-of-16+", Now: func() time.Time { return signedAt }}
	if err := v.Verify("t=1767323045,v1="+vector, []byte(body)); !errors.Is(err, webhook.ErrSignatureMismatch) {
		t.Fatalf("Verify with the wrong secret = %v, want ErrSignatureMismatch", err)
	}
}

func TestCustomTolerance(t *testing.T) {
	t.Parallel()
	v := verifierAt(signedAt.Add(10 * time.Second))
	v.Tolerance = 5 * time.Second
	if err := v.Verify(webhook.Sign(secret, signedAt, []byte(body)), []byte(body)); !errors.Is(err, webhook.ErrTimestampOutOfRange) {
		t.Fatalf("Verify = %v, want ErrTimestampOutOfRange", err)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewBufferString(body))
	req.Header.Set(webhook.HeaderSignature, webhook.Sign(secret, signedAt, []byte(body)))
	ev, err := verifierAt(signedAt).Parse(req)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if ev.ID != "evt_1" || ev.Event != "ping" || !ev.CreatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) ||
		string(ev.Data) != `{"account_id":7}` {
		t.Fatalf("Parse = %+v", ev)
	}

	forged := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewBufferString(body))
	forged.Header.Set(webhook.HeaderSignature, webhook.Sign("not-the-secret!!", signedAt, []byte(body)))
	if _, err := verifierAt(signedAt).Parse(forged); !errors.Is(err, webhook.ErrSignatureMismatch) {
		t.Fatalf("Parse of a forged delivery = %v, want ErrSignatureMismatch", err)
	}

	huge := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(make([]byte, webhook.MaxBodyBytes+1)))
	if _, err := verifierAt(signedAt).Parse(huge); err == nil {
		t.Fatal("Parse accepted a body over MaxBodyBytes")
	}
}

func zeros() string { return string(bytes.Repeat([]byte("0"), 64)) }
