package proxy_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/proxy"
)

// transferSize is the payload of one round trip in BenchmarkTransfer.
const transferSize = 64 << 20

// roundTrip puts data on the first device of c and reads it back into out.
func roundTrip(ctx context.Context, b *testing.B, c ifrt.Client, data, out []byte) time.Duration {
	start := time.Now()
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{int64(len(data))}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, data, spec, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := a.CopyToHostBuffer(ctx, out, nil); err != nil {
		b.Fatal(err)
	}
	if err := a.Delete().Await(ctx); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkTransfer moves 64 MiB host -> device -> host through the proxy
// (over bufconn and over loopback TCP) and, in the same iterations, directly
// through gocpu, the proxy server's backend. It reports the throughput of both
// (bytes moved each way, per second) and their ratio.
func BenchmarkTransfer(b *testing.B) {
	for _, transport := range []string{"bufconn", "tcp"} {
		b.Run(transport, func(b *testing.B) {
			var opts []proxy.Option
			target := "passthrough:///bufnet"
			if transport == "bufconn" {
				opts = startServer(b, 1)
			} else {
				target = startTCPServer(b, 1)
			}
			ctx := context.Background()
			c, err := proxy.Dial(ctx, target, append(opts, proxy.WithLogger(quietLogger()))...)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			direct, err := gocpu.New(gocpu.Config{Devices: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer direct.Close()

			data := make([]byte, transferSize)
			for i := range data {
				data[i] = byte(i * 31)
			}
			out := make([]byte, transferSize)
			roundTrip(ctx, b, c, data, out) // warm up connections and buffers
			if !bytes.Equal(out, data) {
				b.Fatal("the proxy round trip changed the contents")
			}
			var viaProxy, viaDirect time.Duration
			for b.Loop() {
				viaDirect += roundTrip(ctx, b, direct, data, out)
				viaProxy += roundTrip(ctx, b, c, data, out)
			}
			moved := float64(2*transferSize) * float64(b.N)
			b.ReportMetric(moved/viaProxy.Seconds(), "proxy-B/s")
			b.ReportMetric(moved/viaDirect.Seconds(), "direct-B/s")
			b.ReportMetric(viaDirect.Seconds()/viaProxy.Seconds(), "proxy/direct")
		})
	}
}

// BenchmarkSmallOps chains 100 copies of a small array between two devices and
// waits for the last, waiting for each response (the default) or dispatching
// asynchronously. It reports the time per operation.
func BenchmarkSmallOps(b *testing.B) {
	for _, mode := range []string{"wait", "async"} {
		b.Run(mode, func(b *testing.B) {
			opts := append(startServer(b, 2), proxy.WithLogger(quietLogger()))
			if mode == "async" {
				opts = append(opts, proxy.WithAsyncDispatch())
			}
			ctx := context.Background()
			c, err := proxy.Dial(ctx, "passthrough:///bufnet", opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			devs := c.AddressableDevices()
			const chain = 100
			for b.Loop() {
				a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 64), ifrt.ArraySpec{
					DType: ifrt.F32, Shape: ifrt.Shape{16}, Sharding: ifrt.NewSingleDeviceSharding(devs[0], "")}, nil)
				if err != nil {
					b.Fatal(err)
				}
				for i := range chain {
					out, err := c.CopyArrays(ctx, []ifrt.Array{a}, devs[(i+1)%2:(i+1)%2+1], nil, ifrt.DonateInput)
					if err != nil {
						b.Fatal(err)
					}
					a = out[0]
				}
				if err := a.Ready().Await(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chain), "ns/copy")
		})
	}
}
