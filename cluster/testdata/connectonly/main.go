// Command connectonly is the smallest user of package cluster, built by
// TestConnectLinksNoServer to see what such a program links.
package main

import (
	"context"
	"os"

	"github.com/openpathways/pathways/cluster"
)

func main() {
	c, err := cluster.Connect(context.Background(), os.Args[1])
	if err != nil {
		os.Exit(1)
	}
	c.Close()
}
