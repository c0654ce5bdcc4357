package rm

import (
	"unicode/utf8"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm/rmpb"
)

// Size limits on what a worker may register.
const (
	maxAddressLen     = 1024
	maxIncarnationLen = 256
	maxPlatformLen    = 64
	maxKindLen        = 256
	maxMemoryKinds    = 16
	maxMemoryKindLen  = 64
	maxCoords         = 3
)

// validateRegister checks a RegisterWorker request against the instance type
// and count. Malformed requests are INVALID_ARGUMENT; a slice or host index
// outside the configuration is OUT_OF_RANGE; a device count other than the
// instance type's is FAILED_PRECONDITION.
func validateRegister(it InstanceType, count int, req *rmpb.RegisterWorkerRequest) error {
	if req == nil {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: empty RegisterWorker request")
	}
	if err := checkString("address", req.GetAddress(), maxAddressLen, true); err != nil {
		return err
	}
	if err := checkString("incarnation", req.GetIncarnation(), maxIncarnationLen, true); err != nil {
		return err
	}
	if err := checkString("platform", req.GetPlatform(), maxPlatformLen, false); err != nil {
		return err
	}
	slice, host := req.GetSliceIndex(), req.GetHostIndex()
	if slice < 0 || int(slice) >= count {
		return ifrt.Errorf(ifrt.OutOfRange, "rm: slice index %d is out of range: the instance count is %d (slices 0..%d)", slice, count, count-1)
	}
	if host < AnyHost {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: host index %d is negative (use -1 to let the resource manager pick)", host)
	}
	if int(host) >= it.Hosts {
		return ifrt.Errorf(ifrt.OutOfRange, "rm: host index %d is out of range: %s has %d hosts per slice", host, it.Name, it.Hosts)
	}
	if n := len(req.GetDevices()); n != it.DevicesPerHost() {
		return ifrt.Errorf(ifrt.FailedPrecondition, "rm: topology mismatch: the worker has %d devices, but each host of %s has %d", n, it.describe(), it.DevicesPerHost())
	}
	for i, d := range req.GetDevices() {
		if err := validateLocalDevice(it, i, d); err != nil {
			return err
		}
	}
	return nil
}

func validateLocalDevice(it InstanceType, i int, d *rmpb.LocalDevice) error {
	if d == nil {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d is empty", i)
	}
	if err := checkString("device kind", d.GetKind(), maxKindLen, false); err != nil {
		return err
	}
	if d.GetLocalHardwareId() < -1 {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d: local hardware id %d is negative (-1 means unknown)", i, d.GetLocalHardwareId())
	}
	if c := d.GetCoreOnChip(); c < 0 || int(c) >= it.DevicesPerChip {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d: core on chip %d is out of range: %s chips have %d", i, c, it.Kind, it.DevicesPerChip)
	}
	coords := d.GetCoords()
	if len(coords) > maxCoords {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d has %d coordinates; at most %d", i, len(coords), maxCoords)
	}
	for j, c := range coords {
		if c < 0 || int(c) >= it.dim(j) {
			return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d: coordinate %d is %d, outside topology %v of %s", i, j, c, it.Topology, it.Name)
		}
	}
	kinds := d.GetMemoryKinds()
	if len(kinds) > maxMemoryKinds {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d has %d memory kinds; at most %d", i, len(kinds), maxMemoryKinds)
	}
	for j, k := range kinds {
		if err := checkString("memory kind", k, maxMemoryKindLen, true); err != nil {
			return err
		}
		for _, prev := range kinds[:j] {
			if prev == k {
				return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d lists memory kind %q twice", i, k)
			}
		}
	}
	if def := d.GetDefaultMemoryKind(); def != "" {
		found := false
		for _, k := range kinds {
			found = found || k == def
		}
		if !found {
			return ifrt.Errorf(ifrt.InvalidArgument, "rm: device %d: default memory kind %q is not one of its memory kinds %q", i, def, kinds)
		}
	}
	return nil
}

func checkString(what, s string, max int, required bool) error {
	switch {
	case required && s == "":
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: %s is required", what)
	case len(s) > max:
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: %s is %d bytes long; at most %d", what, len(s), max)
	case !utf8.ValidString(s):
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: %s is not valid UTF-8", what)
	}
	return nil
}
