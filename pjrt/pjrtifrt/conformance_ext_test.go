package pjrtifrt_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/ifrttest"
	"github.com/openpathways/pathways/pjrt"
)

// TestConformance runs the ifrt conformance suite, programs included, on each
// CPU plugin with 8 devices, and checks that closing the clients releases every
// PJRT object.
func TestConformance(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			p.Path(t)
			before := pjrt.Live()
			ifrttest.RunConformance(t, ifrttest.Harness{
				NewClient: func(t *testing.T) ifrt.Client { return p.client(t, 8) },
				Programs:  true,
			})
			waitLive(t, before)
		})
	}
}
