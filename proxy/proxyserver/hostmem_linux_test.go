package proxyserver

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLowestLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const total = 24 << 30
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name    string
		total   int64
		cgroups []string
		want    int64
	}{
		{"no cgroup file", total, []string{missing}, total},
		{"cgroup v2 without a limit", total, []string{write("v2max", "max\n")}, total},
		{"cgroup v2 limit", total, []string{write("v2", "4294967296\n")}, 4 << 30},
		{"cgroup v1 without a limit", total, []string{write("v1", "9223372036854771712\n")}, total},
		{"the lower of two", total, []string{write("a", "8589934592"), write("b", "2147483648")}, 2 << 30},
		{"unknown total, a cgroup", 0, []string{write("c", "1073741824")}, 1 << 30},
		{"garbled", total, []string{write("bad", "lots\n")}, total},
	} {
		if got := lowestLimit(c.total, c.cgroups...); got != c.want {
			t.Errorf("%s: lowestLimit = %d, want %d", c.name, got, c.want)
		}
	}
	if HostMemory() <= 0 {
		t.Errorf("HostMemory() = %d", HostMemory())
	}
}
