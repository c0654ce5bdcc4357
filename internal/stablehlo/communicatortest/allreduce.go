package communicatortest

import (
	"context"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// ReplicatedAllReduce compiles AllReduceSum over every device of c and puts
// its argument on them, replicated: n f32 values, element i being i%mod.
// CheckAllReduce checks a result of running one on the other.
func ReplicatedAllReduce(ctx context.Context, t testing.TB, c ifrt.Client, n, mod int) (ifrt.LoadedExecutable, ifrt.Array) {
	t.Helper()
	devs := c.Devices()
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(AllReduceSum(len(devs), n))}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	s, err := ifrt.NewReplicatedSharding(devs)
	if err != nil {
		t.Fatal(err)
	}
	values := make([]float32, n)
	for i := range values {
		values[i] = float32(i % mod)
	}
	x, err := ifrt.MakeArrayFromSlice(ctx, c, values, ifrt.Shape{int64(n)}, s)
	if err != nil {
		t.Fatalf("MakeArrayFromSlice: %v", err)
	}
	return exe, x
}

// CheckAllReduce fails t unless a holds the sum over parts devices of
// ReplicatedAllReduce's argument with mod: element i is parts*(i%mod). After
// k all_reduces in a row (AllReduceSums), parts is the devices to the k-th
// power.
func CheckAllReduce(ctx context.Context, t testing.TB, a ifrt.Array, parts, mod int) {
	t.Helper()
	got, err := ifrt.ArrayToSlice[float32](ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if want := float32(parts * (i % mod)); v != want {
			t.Fatalf("on %v: element %d of the sum is %v, want %v", a.Sharding().Devices(), i, v, want)
		}
	}
}
