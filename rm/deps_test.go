package rm_test

import (
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestDeps keeps the resource manager away from pjrt and cgo: it runs on CPU
// nodes and must build with CGO_ENABLED=0.
func TestDeps(t *testing.T) {
	testenv.CheckDeps(t, ".", map[string]string{"github.com/openpathways/pathways/pjrt/...": "it must not reach pjrt"})
}
