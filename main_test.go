package main

import (
	"maps"
	"testing"
)

func TestQuietUnreadLogs(t *testing.T) {
	t.Parallel()
	off := map[string]string{
		"TF_LOG_PROVIDER_RESELLER": "off", "TF_LOG_SDK": "off", "TF_LOG_SDK_PROTO": "off", "TF_LOG_SDK_FRAMEWORK": "off",
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"nobody reads the logs", map[string]string{}, off},
		{"TF_LOG shows them", map[string]string{"TF_LOG": "DEBUG"}, map[string]string{"TF_LOG": "DEBUG"}},
		{"TF_LOG_PROVIDER shows them", map[string]string{"TF_LOG_PROVIDER": "INFO"}, map[string]string{"TF_LOG_PROVIDER": "INFO"}},
		{"a level set by the user is kept", map[string]string{"TF_LOG_SDK_FRAMEWORK": "TRACE"}, map[string]string{
			"TF_LOG_PROVIDER_RESELLER": "off", "TF_LOG_SDK": "off", "TF_LOG_SDK_PROTO": "off", "TF_LOG_SDK_FRAMEWORK": "TRACE",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := maps.Clone(tc.env)
			quietUnreadLogs(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
			if !maps.Equal(env, tc.want) {
				t.Errorf("environment after: got %v, want %v", env, tc.want)
			}
		})
	}
}
