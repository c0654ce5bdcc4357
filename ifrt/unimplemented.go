package ifrt

import "context"

// UnimplementedClient answers every Client method with an Unimplemented error.
// Backends embed it, which also satisfies Client's unexported method, so that methods
// added to Client later do not break them.
type UnimplementedClient struct{}

func (UnimplementedClient) isClient() {}

func (UnimplementedClient) Platform() Platform             { return Platform{} }
func (UnimplementedClient) Devices() DeviceList            { return nil }
func (UnimplementedClient) AddressableDevices() DeviceList { return nil }
func (UnimplementedClient) Attributes() Attributes         { return nil }
func (UnimplementedClient) As(any) bool                    { return false }
func (UnimplementedClient) Close() error                   { return nil }

func (UnimplementedClient) LookupDevice(id DeviceID) (*Device, error) {
	return nil, Errorf(NotFound, "ifrt: no device %d", id)
}

func (UnimplementedClient) MakeArrayFromHostBuffer(context.Context, []byte, ArraySpec, *HostBufferOptions) (Array, error) {
	return nil, unimplemented("MakeArrayFromHostBuffer")
}

func (UnimplementedClient) AssembleArray(context.Context, ArraySpec, []Array, CopySemantics) (Array, error) {
	return nil, unimplemented("AssembleArray")
}

func (UnimplementedClient) DisassembleArray(context.Context, Array, CopySemantics) ([]Array, error) {
	return nil, unimplemented("DisassembleArray")
}

func (UnimplementedClient) CopyArrays(context.Context, []Array, DeviceList, *MemoryKind, CopySemantics) ([]Array, error) {
	return nil, unimplemented("CopyArrays")
}

func (UnimplementedClient) Reshard(context.Context, []Array, []ArraySpec, CopySemantics) ([]Array, error) {
	return nil, unimplemented("Reshard")
}

func (UnimplementedClient) Remap(context.Context, RemapPlan, []Array, CopySemantics) ([]Array, error) {
	return nil, unimplemented("Remap")
}

func (UnimplementedClient) FullyReplicatedShard(context.Context, Array, CopySemantics) (Array, error) {
	return nil, unimplemented("FullyReplicatedShard")
}

func (UnimplementedClient) Compile(context.Context, Program, *CompileOptions) (LoadedExecutable, error) {
	return nil, unimplemented("Compile")
}

// UnimplementedArray satisfies Array's unexported method; backends embed it.
type UnimplementedArray struct{}

func (UnimplementedArray) isArray() {}

// UnimplementedExecutable satisfies LoadedExecutable's unexported method; backends
// embed it.
type UnimplementedExecutable struct{}

//lint:ignore U1000 backends in other packages embed UnimplementedExecutable to implement LoadedExecutable through this method
func (UnimplementedExecutable) isExecutable() {}

func unimplemented(method string) error {
	return Errorf(Unimplemented, "ifrt: %s is not implemented by this backend", method)
}
