package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Limits of a webhook registration (spec: Limits). The API refuses a registration outside them
// with a validation_error naming url or secret; the provider checks the same limits at plan time.
const (
	// MinSecretLength and MaxSecretLength bound the secret, in characters.
	MinSecretLength = 16
	MaxSecretLength = 256
	// MaxURLLength bounds the endpoint URL, in bytes.
	MaxURLLength = 2048
)

// CheckURL reports what is wrong with raw as a webhook endpoint, or nil when nothing is: it must
// be an absolute https:// URL of at most MaxURLLength characters without credentials or
// fragment. With allowHTTP, http:// is accepted too, but only for a loopback host: that is for
// tests, whose receivers run on the same machine, and events must never cross a network in
// clear. The error reads after the URL's name ("url: must not have a fragment (#...)").
func CheckURL(raw string, allowHTTP bool) error {
	if len(raw) > MaxURLLength {
		return fmt.Errorf("has %d characters, at most %d are allowed", len(raw), MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Hostname() == "" {
		return errors.New("must be an absolute https:// URL such as https://hooks.example.com/reseller")
	}
	if u.User != nil {
		return errors.New("must not contain credentials (the secret authenticates the deliveries)")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("must not have a fragment (#...)")
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "https":
		return nil
	case scheme == "http" && !allowHTTP:
		return errors.New("must be an https:// URL")
	case scheme == "http" && !loopback(u.Hostname()):
		return errors.New("may use http:// only for a receiver on the same machine (127.0.0.1, localhost or " +
			"[::1]) and only when the backend allows it; use https://")
	case scheme == "http":
		return nil
	}
	return fmt.Errorf("has the scheme %q, which is not supported; use https://", u.Scheme)
}

// CheckSecret reports whether secret is outside MinSecretLength..MaxSecretLength characters.
func CheckSecret(secret string) error {
	if n := utf8.RuneCountInString(secret); n < MinSecretLength || n > MaxSecretLength {
		return fmt.Errorf("must be %d to %d characters", MinSecretLength, MaxSecretLength)
	}
	return nil
}

// loopback reports whether host names this machine: localhost or a loopback address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
