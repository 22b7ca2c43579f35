package cliflag

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

var errTestUsage = errors.New("usage")

func envOf(m map[string]string) LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func newSet() (*flag.FlagSet, *string, *int) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	return fs, fs.String("log-format", "text", "log format"), fs.Int("rate-limit", 1, "rate")
}

func TestEnvName(t *testing.T) {
	if got := EnvName("rate-limit-scale"); got != "RESELLER_RATE_LIMIT_SCALE" {
		t.Errorf("EnvName = %q", got)
	}
}

func TestParse_variablesFillWhatTheCommandLineLeaves(t *testing.T) {
	fs, format, rate := newSet()
	env := envOf(map[string]string{"RESELLER_LOG_FORMAT": "json", "RESELLER_RATE_LIMIT": "7"})
	if err := Parse(fs, []string{"--rate-limit", "3"}, env, errTestUsage); err != nil {
		t.Fatal(err)
	}
	if *format != "json" || *rate != 3 {
		t.Errorf("format %q, rate %d: want json from its variable and 3 from the command line, which wins", *format, *rate)
	}
}

func TestParse_mistakesAreUsageErrorsNamingThem(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"extra"}, nil, `serve: unexpected argument "extra"`},
		{[]string{"--nope"}, nil, "serve: flag provided but not defined: -nope"},
		{nil, map[string]string{"RESELLER_RATE_LIMIT": "many"}, "usage: RESELLER_RATE_LIMIT: parse error"},
	} {
		fs, _, _ := newSet()
		err := Parse(fs, tc.args, envOf(tc.env), errTestUsage)
		if !errors.Is(err, errTestUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: err = %v, want a usage error containing %q", tc.args, tc.env, err, tc.want)
		}
	}
}

func TestParse_helpIsAHelpRequestForItsFlagSet(t *testing.T) {
	fs, _, _ := newSet()
	err := Parse(fs, []string{"--help"}, envOf(nil), errTestUsage)
	var h HelpRequest
	if !errors.As(err, &h) || h.FlagSet != fs || !errors.Is(err, flag.ErrHelp) || errors.Is(err, errTestUsage) {
		t.Fatalf("err = %v, want a HelpRequest for serve that is flag.ErrHelp and no usage error", err)
	}
}

func TestWriteHelp(t *testing.T) {
	fs := flag.NewFlagSet("account set", flag.ContinueOnError)
	fs.String("db", "./data/reseller.db", "database `FILE`")
	fs.String("reason", "", "why")
	fs.String("greeting", "hello there", "said first")
	var buf bytes.Buffer
	WriteHelp(&buf, fs)
	for _, want := range []string{
		"usage: resellerd account set [flags]\n",
		"  --db FILE\n      database FILE\n      default: ./data/reseller.db   variable: RESELLER_DB\n",
		"  --reason STRING\n      why\n      default: none   variable: RESELLER_REASON\n",
		"default: \"hello there\"   variable: RESELLER_GREETING",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Index(buf.String(), "--db") > strings.Index(buf.String(), "--greeting") {
		t.Errorf("flags not sorted by name:\n%s", buf.String())
	}
}
