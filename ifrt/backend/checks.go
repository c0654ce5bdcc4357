package backend

import "github.com/openpathways/pathways/ifrt"

// CheckReshard checks Reshard's arguments: one spec per array, each with the
// array's dtype and shape. The specs themselves are the backend's to check.
func CheckReshard(name string, arrays []ifrt.Array, specs []ifrt.ArraySpec) error {
	if len(arrays) != len(specs) {
		return ifrt.Errorf(ifrt.InvalidArgument, "%s: Reshard of %d arrays into %d specs", name, len(arrays), len(specs))
	}
	for i, a := range arrays {
		if specs[i].DType != a.DType() || !specs[i].Shape.Equal(a.Shape()) {
			return ifrt.Errorf(ifrt.InvalidArgument, "%s: cannot reshard array %d, %v%v, into %v%v",
				name, i, a.DType(), a.Shape(), specs[i].DType, specs[i].Shape)
		}
	}
	return nil
}

// CheckAssemble checks AssembleArray's parts against spec (already
// validated): one per device of its sharding, in order, each on that device
// alone with the dtype of spec and the shape of that device's shard. It
// returns the shards' domains.
func CheckAssemble(name string, spec ifrt.ArraySpec, parts []ifrt.Array) ([]ifrt.IndexDomain, error) {
	devs := spec.Sharding.Devices()
	if len(parts) != len(devs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "%s: %d arrays to assemble over %d devices", name, len(parts), len(devs))
	}
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	for i, p := range parts {
		pd := p.Sharding().Devices()
		switch {
		case len(pd) != 1 || pd[0].ID != devs[i].ID:
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "%s: array %d to assemble is on %v, want device %d alone", name, i, pd, devs[i].ID)
		case p.DType() != spec.DType || !p.Shape().Equal(domains[i].Shape()):
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "%s: array %d to assemble is %v%v, its shard is %v%v",
				name, i, p.DType(), p.Shape(), spec.DType, domains[i].Shape())
		}
	}
	return domains, nil
}

// DisassembleSpecs returns the specs of the single-device arrays
// DisassembleArray makes of an array of spec, one per device of its sharding.
func DisassembleSpecs(spec ifrt.ArraySpec) ([]ifrt.ArraySpec, error) {
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	devs := spec.Sharding.Devices()
	out := make([]ifrt.ArraySpec, len(devs))
	for i, d := range devs {
		out[i] = ifrt.ArraySpec{
			DType: spec.DType, Shape: domains[i].Shape(), Layout: spec.Layout,
			Sharding: ifrt.NewSingleDeviceSharding(d, spec.Sharding.MemoryKind()),
		}
	}
	return out, nil
}

// CheckCopy returns the specs of CopyArrays's results (see ifrt.CopySpec):
// as many devices as each array's sharding has, and memoryKind, when set, on
// every device.
func CheckCopy(name string, arrays []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind) ([]ifrt.ArraySpec, error) {
	if memoryKind != nil {
		for _, d := range devices {
			if _, err := d.Memory(*memoryKind); err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "%s: CopyArrays: %w", name, err)
			}
		}
	}
	specs := make([]ifrt.ArraySpec, len(arrays))
	for i, a := range arrays {
		s, err := ifrt.CopySpec(a.Spec(), devices, memoryKind)
		if err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "%s: CopyArrays: array %d: %w", name, i, err)
		}
		specs[i] = s
	}
	return specs, nil
}

// CheckRemap checks the arrays against plan (ifrt.CheckRemapInputs) and the
// plan itself, and returns where each output shard comes from
// (ifrt.RemapPlan.Sources).
func CheckRemap(plan ifrt.RemapPlan, arrays []ifrt.Array) ([][]ifrt.ShardSource, error) {
	if err := ifrt.CheckRemapInputs(plan, arrays); err != nil {
		return nil, err
	}
	return plan.Sources()
}

// CheckFullyReplicated returns the spec of FullyReplicatedShard's result
// for a: its contents on the first device of its sharding. An array that is
// not fully replicated is FAILED_PRECONDITION: the call is well formed, the
// array's state is not the one it needs.
func CheckFullyReplicated(name string, a ifrt.Array) (ifrt.ArraySpec, error) {
	spec := a.Spec()
	if !spec.Sharding.IsFullyReplicated() {
		return ifrt.ArraySpec{}, ifrt.Errorf(ifrt.FailedPrecondition, "%s: FullyReplicatedShard of an array with %v, which is not fully replicated", name, spec.Sharding)
	}
	spec.Sharding = ifrt.NewSingleDeviceSharding(spec.Sharding.Devices()[0], spec.Sharding.MemoryKind())
	return spec, nil
}

// CheckExecute checks Execute's arguments: e must not be deleted, they must
// fit what e says of its parameters (ifrt.CheckArguments), every shard of
// every argument must be on one of e's devices, and an argument the
// execution donates (Donated) must not be passed at another position too:
// the program would read a buffer it consumes, which PJRT refuses as well.
func CheckExecute(name string, e ifrt.LoadedExecutable, args []ifrt.Array, opts *ifrt.ExecuteOptions) error {
	if e.IsDeleted() {
		return ifrt.ErrExecutableDeleted
	}
	if err := ifrt.CheckArguments(name, e, args); err != nil {
		return err
	}
	for _, i := range Donated(e.DonatableParameters(), opts) {
		for j, a := range args {
			if i < len(args) && j != i && a == args[i] {
				return ifrt.Errorf(ifrt.InvalidArgument, "%s: argument %d is donated and also passed as argument %d", name, i, j)
			}
		}
	}
	devs := e.Devices()
	for i, a := range args {
		for _, d := range a.Sharding().Devices() {
			if devs.Index(d.ID) < 0 {
				return ifrt.Errorf(ifrt.InvalidArgument, "%s: argument %d has a shard on device %d, which %s does not run on", name, i, d.ID, e.Name())
			}
		}
	}
	return nil
}

// CheckSharding checks that s names valid devices of the client, each with
// the memory kind of s. own returns the client's device of an id, or nil when
// it has none (or none it can use).
func CheckSharding(name string, s ifrt.Sharding, own func(ifrt.DeviceID) *ifrt.Device) error {
	if s == nil {
		return ifrt.Errorf(ifrt.InvalidArgument, "%s: missing sharding", name)
	}
	devs := s.Devices()
	if err := devs.Validate(); err != nil {
		return err
	}
	for _, d := range devs {
		mine := own(d.ID)
		if mine == nil {
			return ifrt.Errorf(ifrt.InvalidArgument, "%s: device %d is not a device of this client", name, d.ID)
		}
		if _, err := mine.Memory(s.MemoryKind()); err != nil {
			return err
		}
	}
	return nil
}
