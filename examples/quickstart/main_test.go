package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, want := range []string{
		"platform cpu, 8 devices: cpu:0 cpu:1 cpu:2 cpu:3 cpu:4 cpu:5 cpu:6 cpu:7",
		"device 6 holds [4:8,2:4]",
		"\n     0    1    2    3\n",
		"\n    28   29   30   31\n",
		"ran affine_and_sum on 8 devices",
		"\n    57   59   61   63\n",
		"sum of x = 496\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
