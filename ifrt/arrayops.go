package ifrt

import "context"

// Reshard returns a's contents under another sharding, which may use other devices:
// Client.Reshard for one array, the dtype and shape taken from a.
func Reshard(ctx context.Context, c Client, a Array, sharding Sharding, sem CopySemantics) (Array, error) {
	spec := a.Spec()
	spec.Sharding = sharding
	out, err := c.Reshard(ctx, []Array{a}, []ArraySpec{spec}, sem)
	return single(out, err, "Reshard")
}

// CopyArray copies a onto other devices, as many as a's sharding has, with the
// partitioning and memory kind unchanged: Client.CopyArrays for one array.
func CopyArray(ctx context.Context, c Client, a Array, devices DeviceList, sem CopySemantics) (Array, error) {
	out, err := c.CopyArrays(ctx, []Array{a}, devices, nil, sem)
	return single(out, err, "CopyArrays")
}

func single(out []Array, err error, op string) (Array, error) {
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, Errorf(Internal, "ifrt: %s of one array returned %d", op, len(out))
	}
	return out[0], nil
}
