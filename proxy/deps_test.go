package proxy_test

import (
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// badDeps are packages the proxy client must not link, with the reason.
var badDeps = map[string]string{
	"github.com/openpathways/pathways/pjrt/...":              "the proxy client runs where no accelerator or cgo is",
	"github.com/openpathways/pathways/ifrt/gocpu/...":        "the client holds no arrays itself",
	"github.com/openpathways/pathways/proxy/proxyserver/...": "clients and servers are linked separately",
	"cloud.google.com/go/storage/...":                        "only the leaf package that needs it links the GCS SDK",
}

// TestDeps keeps the proxy client light: no cgo, no backend, no server.
func TestDeps(t *testing.T) { testenv.CheckDeps(t, ".", badDeps) }
