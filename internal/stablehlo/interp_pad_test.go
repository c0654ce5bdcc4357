package stablehlo

import (
	"strings"
	"testing"
)

// A pad whose padding value has another element type than its operand fails
// with InvalidArgument (it used to index past the result's storage; found by
// FuzzParseBytecode).
func TestPadElementTypes(t *testing.T) {
	src := `func.func @main(%a: tensor<3x4xui8>) -> tensor<8x4xui8> {
  %c = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.pad %a, %c, low = [1, -1], high = [2, 1], interior = [1, 0] : (tensor<3x4xui8>, tensor<i32>) -> tensor<8x4xui8>
  return %0 : tensor<8x4xui8>
}`
	m, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Run(t.Context(), []*Tensor{{Type: m.Main().Params()[0].Type, Data: make([]byte, 12)}})
	if errorCode(err) != InvalidArgument || !strings.Contains(err.Error(), "changes the element type") {
		t.Fatalf("Run = %v, want InvalidArgument: ... changes the element type", err)
	}
}
