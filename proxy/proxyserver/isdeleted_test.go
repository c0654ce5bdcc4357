package proxyserver_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// slowDonor counts to 200000 before it returns its donated first argument
// plus the second: requests sent after it are planned while it runs.
const slowDonor = `module @jit_slow attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.constant dense<200000> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %x = %arg0) : tensor<i32>, tensor<4xf32>
     cond {
      %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %x : tensor<i32>, tensor<4xf32>
    }
    %y = stablehlo.add %r#1, %arg1 : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
`

// TestIsArrayDeletedFollowsPendingDonation asks whether arrays are deleted
// while an execution that donates one of them is still running: the
// donated one must read as deleted (the answer waits for the execution),
// the other as live, as they do before and after.
func TestIsArrayDeletedFollowsPendingDonation(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	s := h.session(t)
	exe := compileText(t, s, slowDonor, 2)
	s.makeArray(1, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(2))
	s.makeArray(2, f32bytes(10, 20, 30, 40), ifrt.F32, ifrt.Shape{4}, h.single(2))
	ask := func(handle uint64) uint64 {
		return s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_IsArrayDeletedRequest{IsArrayDeletedRequest: &proxypb.IsArrayDeletedRequest{ArrayHandle: handle}}})
	}
	deleted := func(id uint64) bool { return mustOK(t, s.wait(id)).GetIsArrayDeletedResponse().GetDeleted() }

	if deleted(ask(1)) {
		t.Error("an array no request has used reads as deleted")
	}
	run := s.send(executeReq(exe, []uint64{1, 2}, []uint64{10}, false, 0))
	donated, kept := ask(1), ask(2)
	if !deleted(donated) {
		t.Error("the donated argument reads as live while its execution runs")
	}
	if deleted(kept) {
		t.Error("the argument that is not donated reads as deleted")
	}
	mustOK(t, s.wait(run))
	if !deleted(ask(1)) || deleted(ask(2)) {
		t.Error("after the execution: want the donated argument deleted and the other live")
	}
	if got, err := s.fetch(10, 100, nil); err != nil || len(got) != 16 {
		t.Errorf("result: %v, %v", got, err)
	}
}
