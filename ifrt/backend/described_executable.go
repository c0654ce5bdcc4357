package backend

import (
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
)

// DescribedExecutable gives the executable of a program whose array specs are
// its whole signature (a custom call, such as colocated Python) the accessors
// of ifrt.LoadedExecutable that the specs answer, with no fingerprint and no
// donation, and its deleted flag. Embed it, call Describe when compiling, and
// write Execute and Delete (with MarkDeleted).
type DescribedExecutable struct {
	ifrt.UnimplementedExecutable
	name            string
	devices         ifrt.DeviceList
	params, outputs []ifrt.ArgumentInfo
	deleted         atomic.Bool
}

// Describe sets what the accessors report: the program's name, the devices
// it runs on, and its parameters and outputs from their specs.
func (d *DescribedExecutable) Describe(name string, devices ifrt.DeviceList, inputs, outputs []ifrt.ArraySpec) {
	d.name, d.devices = name, devices
	d.params, d.outputs = argumentInfos(inputs), argumentInfos(outputs)
}

func argumentInfos(specs []ifrt.ArraySpec) []ifrt.ArgumentInfo {
	out := make([]ifrt.ArgumentInfo, len(specs))
	for i, s := range specs {
		out[i] = ifrt.ArgumentInfo{DType: s.DType, Shape: s.Shape, MemoryKind: s.Sharding.MemoryKind(), Layout: s.Layout}
	}
	return out
}

// MarkDeleted marks the executable deleted and reports whether it was not
// already, that is whether the caller is the one to release what it holds.
func (d *DescribedExecutable) MarkDeleted() bool { return !d.deleted.Swap(true) }

func (d *DescribedExecutable) Name() string                    { return d.name }
func (d *DescribedExecutable) Fingerprint() string             { return "" }
func (d *DescribedExecutable) Devices() ifrt.DeviceList        { return d.devices }
func (d *DescribedExecutable) Parameters() []ifrt.ArgumentInfo { return d.params }
func (d *DescribedExecutable) Outputs() []ifrt.ArgumentInfo    { return d.outputs }
func (d *DescribedExecutable) DonatableParameters() []int      { return nil }
func (d *DescribedExecutable) As(any) bool                     { return false }
func (d *DescribedExecutable) IsDeleted() bool                 { return d.deleted.Load() }
