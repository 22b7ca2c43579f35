// Command resellerd runs the Reseller API backend and administers its accounts.
//
//	resellerd serve --listen 127.0.0.1:8080 [--alt-listen ADDR] [--db PATH_OR_URL] ...
//	resellerd account create|rotate-key|topup ...
//	resellerd secrets rotate --db ... --secrets-key-file FILE
//	resellerd --version
//
// Every flag also reads RESELLER_<FLAG> from the environment; the command line wins.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=1.2.3" (make build passes the
// provider's version); "dev" marks a plain go build. resellerd --version prints it.
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		tuneCollector(os.LookupEnv) // here, not in dispatch: tests run serve in their own process
	}
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}
