package rm

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm/rmpb"
)

// SuspendSlice asks the RM to suspend slice i and returns the slice once its
// workers saved their arrays and freed their devices (Server.SuspendSlice
// says what can fail). It does not retry.
func (c *Client) SuspendSlice(ctx context.Context, i int, opts SuspendOptions) (Slice, error) {
	resp, err := rmpb.NewSliceControlClient(c.conn).SuspendSlice(ctx, &rmpb.SuspendSliceRequest{
		SliceIndex: int32(i), Reason: opts.Reason, AutoResume: opts.AutoResume,
	})
	if err != nil {
		return Slice{}, c.notAnRM(rpc.CallError(ctx, "rm: ", err))
	}
	return *sliceFromPB(resp.GetSlice()), nil
}

// ResumeSlice asks the RM to resume slice i and returns the slice once every
// host has a live worker that took its arrays back. It does not retry.
func (c *Client) ResumeSlice(ctx context.Context, i int) (Slice, error) {
	resp, err := rmpb.NewSliceControlClient(c.conn).ResumeSlice(ctx, &rmpb.ResumeSliceRequest{SliceIndex: int32(i)})
	if err != nil {
		return Slice{}, c.notAnRM(rpc.CallError(ctx, "rm: ", err))
	}
	return *sliceFromPB(resp.GetSlice()), nil
}

// ReportSliceState tells the RM that this worker did its part of suspension
// gen of its slice: saved its arrays under location (state SliceSuspended)
// or took them back (SliceActive); failure, when not nil, says why it could
// not. FAILED_PRECONDITION means the report came late (the slice moved on).
func (r *Registration) ReportSliceState(ctx context.Context, gen uint64, state SliceState, location string, failure error) error {
	r.mu.Lock()
	lease := r.lease
	r.mu.Unlock()
	req := &rmpb.ReportSliceStateRequest{LeaseId: lease, Generation: gen, State: sliceStateToPB[state], Location: location}
	if failure != nil {
		req.ErrorCode, req.ErrorMessage = int32(ifrt.CodeOf(failure)), failure.Error()
	}
	_, err := rmpb.NewSliceControlClient(r.c.conn).ReportSliceState(ctx, req)
	return rpc.CallError(ctx, "rm: ", err)
}
