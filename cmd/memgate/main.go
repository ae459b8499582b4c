// Command memgate is the operator's command line for a memgate store: add and
// import memories, search candidates, revoke and forget, migrate embedders,
// and run the demo. See `memgate help`.
package main

import (
	"os"

	"github.com/memgate/memgate/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
