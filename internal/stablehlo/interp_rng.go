package stablehlo

func evalRngBitGenerator(ev *evaluator, op *Op, in []*array) ([]*array, error) {
	return nil, unimplementedf("rng_bit_generator is not supported yet")
}
