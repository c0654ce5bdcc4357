package testenv

import (
	"net"
	"testing"
)

// RefusingAddress returns a loopback address that the test holds for its
// lifetime and where every connection is closed as soon as it is accepted: a
// server that is never available, at a port no other process can take (unlike
// a fixed "closed" port such as 1).
func RefusingAddress(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lis.Close() })
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return lis.Addr().String()
}
