// Command terraform-provider-reseller is the Terraform provider for the Reseller Server Service.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/reseller/terraform-provider-reseller/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=1.2.3"; "dev" marks a local build.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	opts := providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	}
	if err := providerserver.Serve(context.Background(), provider.New(version), opts); err != nil {
		log.Fatal(err.Error())
	}
}
