package rm

import (
	"testing"
	"time"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm/rmpb"
)

// FuzzSliceControl feeds arbitrary bytes as ReportSliceState, SuspendSlice
// and ResumeSlice requests to the service of an RM with one registered
// worker: every answer is a success or an error of a documented code, never a
// panic or a hang.
func FuzzSliceControl(f *testing.F) {
	s, err := New(Config{InstanceType: "cpu:1", InstanceCount: 2, HeartbeatTimeout: time.Hour, Logger: discard})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	reg, err := s.register(WorkerInfo{Slice: 0, Host: 0, Address: "w:1", Incarnation: "i", Platform: "cpu", Devices: []LocalDevice{{Kind: "cpu"}}})
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range []proto.Message{
		&rmpb.ReportSliceStateRequest{LeaseId: reg.leaseID, Generation: 1, State: rmpb.SliceState_SLICE_SUSPENDED, Location: "file:///x"},
		&rmpb.ReportSliceStateRequest{LeaseId: reg.leaseID, Generation: 1, State: rmpb.SliceState_SLICE_ACTIVE, ErrorCode: 9, ErrorMessage: "no"},
		&rmpb.SuspendSliceRequest{SliceIndex: 0, Reason: "fuzz", AutoResume: true},
		&rmpb.ResumeSliceRequest{SliceIndex: 7},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		for kind := range 3 {
			f.Add(uint8(kind), b)
		}
	}
	svc := &sliceService{s: s}
	allowed := map[ifrt.Code]bool{
		ifrt.InvalidArgument: true, ifrt.NotFound: true, ifrt.FailedPrecondition: true, ifrt.OutOfRange: true,
		ifrt.DeadlineExceeded: true, ifrt.DataLoss: true,
	}
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		// Suspend and resume wait for the workers: give them no time.
		ctx := testenv.Context(t, time.Millisecond)
		var err error
		switch kind % 3 {
		case 0:
			req := &rmpb.ReportSliceStateRequest{}
			if proto.Unmarshal(b, req) != nil {
				return
			}
			_, err = svc.ReportSliceState(ctx, req)
		case 1:
			req := &rmpb.SuspendSliceRequest{}
			if proto.Unmarshal(b, req) != nil {
				return
			}
			_, err = svc.SuspendSlice(ctx, req)
		case 2:
			req := &rmpb.ResumeSliceRequest{}
			if proto.Unmarshal(b, req) != nil {
				return
			}
			_, err = svc.ResumeSlice(ctx, req)
		}
		if err != nil && !allowed[ifrt.Code(status.Code(err))] {
			t.Fatalf("an error of code %v: %v", status.Code(err), err)
		}
	})
}
