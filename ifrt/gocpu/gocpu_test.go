package gocpu_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/ifrt/ifrttest"
)

func TestConformance(t *testing.T) {
	ifrttest.RunConformance(t, ifrttest.Harness{
		NewClient: func(t *testing.T) ifrt.Client {
			c, err := gocpu.New(gocpu.Config{})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
		Programs:    true,
		Collectives: true,
	})
}
