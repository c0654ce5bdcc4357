package rm_test

import (
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

// TestRegistrationNeedsTheToken: a rogue process registered as slice 1 and
// received a user's device_put (issue 11, defect 4). With a cluster token, no
// call gets in without it; the health service stays open to probes.
func TestRegistrationNeedsTheToken(t *testing.T) {
	var n network
	srv := startRM(t, &n, rm.Config{InstanceType: "cpu:2", InstanceCount: 2, Security: rm.Security{Token: "cluster-secret"}})
	ctx := testContext(t)
	rogue := rawClient(t, &n)
	if _, err := rogue.RegisterWorker(ctx, registerReq(1, 0, "evil:1", "x", 2)); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("RegisterWorker without the token: %v, want UNAUTHENTICATED", err)
	}
	if _, err := rogue.GetCluster(ctx, &rmpb.GetClusterRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("GetCluster without the token: %v, want UNAUTHENTICATED", err)
	}
	if w := srv.Cluster().Workers; w[1].State != rm.StateMissing {
		t.Errorf("slice 1 is %v after a refused registration", w[2].State)
	}
	conn, err := grpc.NewClient("passthrough:///rm", n.dialOption(), rm.Security{}.DialOptions()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := grpc_health_v1.NewHealthClient(conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{}); err != nil {
		t.Errorf("health check without the token: %v", err)
	}
	member, err := rm.NewClient("passthrough:///rm", rm.WithLogger(quiet), rm.WithDialOptions(n.dialOption()), rm.WithSecurity(rm.Security{Token: "cluster-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	reg, err := member.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 1, Host: 0, Address: "w1:1", Platform: "cpu", Devices: localDevices(2)})
	if err != nil {
		t.Fatalf("a member with the token: %v", err)
	}
	reg.Close()
}

// TestWatchersAreBounded: Watch streams each hold a buffer; past MaxWatchers
// they are refused, and the RM goes on serving.
func TestWatchersAreBounded(t *testing.T) {
	var n network
	startRM(t, &n, rm.Config{InstanceType: "cpu:2", InstanceCount: 1, MaxWatchers: 2})
	ctx := testContext(t)
	c := rawClient(t, &n)
	for i := range 2 {
		st, err := c.Watch(ctx, &rmpb.WatchRequest{})
		if err == nil {
			_, err = st.Recv()
		}
		if err != nil {
			t.Fatalf("watcher %d: %v", i, err)
		}
	}
	st, err := c.Watch(ctx, &rmpb.WatchRequest{})
	if err == nil {
		_, err = st.Recv()
	}
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("a 3rd watcher: %v, want RESOURCE_EXHAUSTED", err)
	}
	if _, err := c.GetCluster(ctx, &rmpb.GetClusterRequest{}); err != nil {
		t.Errorf("GetCluster after: %v", err)
	}
}
