package ifrt

// ColocatedPythonType is the CustomCallProgram type of the programs that
// jax.experimental.colocated_python makes: Program is a cloudpickled function
// with its input and output specs, run by a Python process next to the devices.
const ColocatedPythonType = "jax_colocated_python_v0.0.1"

// CustomCallProgram is a program that a backend hands to a registered handler
// of its Type rather than to a compiler (IFRT's CustomCallProgram).
type CustomCallProgram struct {
	Type string
	Name string
	// Program is the handler's own serialization of the program; opaque to ifrt.
	Program []byte
	// Devices the program runs on.
	Devices DeviceList
	// InputSpecs and OutputSpecs describe its arguments and results.
	InputSpecs  []ArraySpec
	OutputSpecs []ArraySpec
}

func (*CustomCallProgram) isProgram() {}
