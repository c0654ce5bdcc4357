package rm_test

import (
	"errors"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

// TestGPUWorkerRegisters registers what a worker on the CUDA PJRT plugin
// reports on a host with one GPU (platform "cuda", one device) with a
// resource manager of gpu:1, and checks the cluster it then shows; a worker
// with more GPUs than the instance type puts on a host is refused.
func TestGPUWorkerRegisters(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	srv := startRM(t, n, rm.Config{InstanceType: "gpu:1", InstanceCount: 1, HeartbeatTimeout: time.Minute})
	c := newClient(t, n)

	gpus := func(k int) []rm.LocalDevice {
		ds := localDevices(k)
		for i := range ds {
			ds[i].Kind = "NVIDIA H200"
		}
		return ds
	}
	_, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 0, Host: 0, Address: "gpu-w", Platform: "cuda", Devices: gpus(2)})
	if !errors.Is(err, ifrt.ErrFailedPrecondition) {
		t.Fatalf("RegisterAndHeartbeat(2 GPUs on gpu:1) = %v, want a FAILED_PRECONDITION error", err)
	}

	reg, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 0, Host: 0, Address: "gpu-w", Platform: "cuda", Devices: gpus(1)})
	if err != nil {
		t.Fatalf("RegisterAndHeartbeat(1 GPU on gpu:1): %v", err)
	}
	t.Cleanup(func() { reg.Close() })
	if ids := reg.Assignment().DeviceIDs; len(ids) != 1 || ids[0] != 0 {
		t.Fatalf("device ids %v, want [0]", ids)
	}
	select {
	case <-srv.Ready():
	case <-ctx.Done():
		t.Fatal("Ready not closed with the one GPU host registered")
	}
	cl := srv.Cluster()
	if cl.InstanceType != "gpu:1" || len(cl.Devices) != 1 || !cl.Ready() {
		t.Fatalf("cluster %+v, want gpu:1 with one device, ready", cl)
	}
	if d := cl.Devices[0]; d.Platform != "cuda" || d.Description.Kind != "NVIDIA H200" || d.State != rm.StateLive {
		t.Errorf("device 0 = %+v, want a live cuda device of kind NVIDIA H200", d)
	}
}
