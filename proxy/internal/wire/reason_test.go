package wire

import (
	"errors"
	"fmt"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

func TestStatusCarriesTheReason(t *testing.T) {
	err := fmt.Errorf("gocpu: execute: %w", ifrt.ErrArrayDeleted)
	back := StatusToError(ErrorToStatus(err))
	if !errors.Is(back, ifrt.ErrArrayDeleted) || !errors.Is(back, ifrt.ErrInvalidArgument) || back.Error() != err.Error() {
		t.Errorf("StatusToError(ErrorToStatus(%v)) = %v", err, back)
	}
	if st := ErrorToStatus(ifrt.Errorf(ifrt.NotFound, "no such handle")); len(st.GetPayload()) != 0 {
		t.Errorf("an error without a reason has payloads %v", st.GetPayload())
	}
}
