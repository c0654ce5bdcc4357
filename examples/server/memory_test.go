package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUsableMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	meminfo := write("meminfo", "MemTotal:       24683620 kB\nMemFree:        1000 kB\n")
	const total = 24683620 << 10
	for _, c := range []struct {
		name    string
		meminfo string
		cgroups []string
		want    int64
	}{
		{"the machine", meminfo, nil, total},
		{"cgroup v2 without a limit", meminfo, []string{write("v2max", "max\n")}, total},
		{"cgroup v2 limit", meminfo, []string{write("v2", "4294967296\n")}, 4 << 30},
		{"cgroup v1 without a limit", meminfo, []string{write("v1", "9223372036854771712\n")}, total},
		{"the lower of two", meminfo, []string{write("a", "8589934592"), write("b", "2147483648")}, 2 << 30},
		{"no meminfo, a cgroup", filepath.Join(dir, "none"), []string{write("c", "1073741824")}, 1 << 30},
		{"nothing readable", filepath.Join(dir, "none"), []string{filepath.Join(dir, "none")}, 0},
		{"garbled meminfo", write("bad", "MemTotal: lots kB\n"), nil, 0},
	} {
		if got := usableMemory(c.meminfo, c.cgroups...); got != c.want {
			t.Errorf("%s: usableMemory = %d, want %d", c.name, got, c.want)
		}
	}
}
