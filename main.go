// Command terraform-provider-reseller is the Terraform provider for the Reseller Server Service.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/reseller/terraform-provider-reseller/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=1.2.3"; "dev" marks a local build.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	if !debug {
		quietUnreadLogs(os.Getenv, os.Setenv)
		outliveSIGTERM() // a debugged provider runs on its own, and a SIGTERM ends it
	}

	opts := providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	}
	if err := providerserver.Serve(context.Background(), provider.New(version), opts); err != nil {
		log.Fatal(err.Error())
	}
}

// unreadLogLevels are the log levels, by environment variable, that the provider and the SDKs it
// is built on read at start: the provider's own (tflog), the plugin SDK's, its protocol
// subsystem's and the framework's.
var unreadLogLevels = []string{"TF_LOG_PROVIDER_RESELLER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// quietUnreadLogs turns the provider's logs off when Terraform (or OpenTofu) will drop them. They
// show provider logs only when TF_LOG or TF_LOG_PROVIDER is set, yet with no level set the SDKs
// log every call at TRACE, a few lines per attribute of every resource read: formatting and
// sending those lines is a quarter of the time of a refresh of 200 servers (bench/README.md).
// A level the user set is kept.
func quietUnreadLogs(getenv func(string) string, setenv func(string, string) error) {
	if getenv("TF_LOG") != "" || getenv("TF_LOG_PROVIDER") != "" {
		return
	}
	for _, name := range unreadLogLevels {
		if getenv(name) == "" {
			_ = setenv(name, "off")
		}
	}
}
