package backend

import "github.com/openpathways/pathways/ifrt"

// Described gives an array type the accessors of ifrt.Array that its spec
// answers (DType, Shape, Sharding, Layout, Spec). Embed it.
type Described struct{ ArraySpec ifrt.ArraySpec }

func (d *Described) DType() ifrt.DType       { return d.ArraySpec.DType }
func (d *Described) Shape() ifrt.Shape       { return d.ArraySpec.Shape }
func (d *Described) Sharding() ifrt.Sharding { return d.ArraySpec.Sharding }
func (d *Described) Layout() *ifrt.Layout    { return d.ArraySpec.Layout }
func (d *Described) Spec() ifrt.ArraySpec    { return d.ArraySpec }
