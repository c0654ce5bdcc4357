package localtest_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
)

// A slice of two hosts (cpu:2hx4) shows 8 devices whose ids are
// slice×8 + host×4 + local, each host's on its own worker.
func TestSliceOfTwoHosts(t *testing.T) {
	ctx := context.Background()
	c, err := localtest.Start(ctx, local.Config{Slices: 2, HostsPerSlice: 2, DevicesPerSlice: 4, NoProxy: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	devs := c.Client.Devices()
	if len(devs) != 16 {
		t.Fatalf("%d devices, want 16", len(devs))
	}
	for _, d := range devs {
		slice, _ := d.Attributes.Int64(ifrt.AttrSliceIndex)
		host, _ := d.Attributes.Int64("host_index")
		if want := slice*8 + host*4; int64(d.ID) < want || int64(d.ID) >= want+4 {
			t.Errorf("device %d is on slice %d host %d, want ids %d..%d there", d.ID, slice, host, want, want+3)
		}
	}
	for i := range 4 {
		if c.Worker(i) == nil {
			t.Errorf("worker %d is not running", i)
		}
	}
}
