package serverflags_test

import (
	"testing"

	"github.com/openpathways/pathways/internal/serverflags"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

func TestBytes(t *testing.T) {
	for in, want := range map[string]serverflags.Bytes{
		"1024": 1024, "64MiB": 64 << 20, "8 GiB": 8 << 30, "2TiB": 2 << 40, "0": 0, "none": proxyserver.NoLimit,
	} {
		var b serverflags.Bytes
		if err := b.Set(in); err != nil || b != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "1.5GiB", "8GB", "lots", "99999999TiB"} {
		var b serverflags.Bytes
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, b)
		}
	}
	for b, want := range map[serverflags.Bytes]string{64 << 20: "64MiB", 1000: "1000", proxyserver.NoLimit: "none", 3 << 30: "3GiB"} {
		if got := b.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int64(b), got, want)
		}
	}
}

func TestListenAddress(t *testing.T) {
	for addr, ok := range map[string]bool{"": true, "127.0.0.1": true, "::1": true, "[::1]": true, "localhost": true, "127.0.0.1:80": false, "[::1]:80": false} {
		c := serverflags.Common{ListenAddress: addr, KeepaliveInterval: 1, KeepaliveTimeout: 1}
		if err := c.Check(); (err == nil) != ok {
			t.Errorf("--listen_address=%q: %v", addr, err)
		}
	}
	c := serverflags.Common{ListenAddress: "[::1]"}
	if lis, err := c.Listen(0); err == nil {
		lis.Close()
	}
	c.ListenAddress = "127.0.0.1"
	lis, err := c.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	if got := lis.Addr().String(); got[:10] != "127.0.0.1:" {
		t.Errorf("listening on %s", got)
	}
}
