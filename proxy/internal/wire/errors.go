package wire

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// CodeToProto converts an ifrt code to the wire's.
func CodeToProto(c ifrt.Code) proxypb.Code { return proxypb.Code(rpc.CodeFromNumber(uint32(c))) }

// CodeFromProto converts a wire code to ifrt's.
func CodeFromProto(c proxypb.Code) ifrt.Code {
	if c < 0 {
		return ifrt.Unknown
	}
	return rpc.CodeFromNumber(uint32(c))
}

// ErrorToStatus encodes err as a StatusProto: its code and message as
// rpc.CodeAndMessage gives them (valid UTF-8, whatever the backend said), and
// its reason (rpc.ReasonOf) as a google.rpc.ErrorInfo payload. nil is nil (OK).
func ErrorToStatus(err error) *proxypb.StatusProto {
	if err == nil {
		return nil
	}
	code, msg := rpc.CodeAndMessage(err)
	st := &proxypb.StatusProto{Code: CodeToProto(code), Message: msg}
	if p := rpc.ReasonPayload(err); p != nil {
		st.Payload = map[string][]byte{rpc.ErrorInfoTypeURL: p}
	}
	return st
}

// StatusToError decodes p: nil or OK is nil, anything else an error with the
// same code and message that wraps what its reason names (rpc.NewError), so
// errors.Is(err, ifrt.ErrNotFound) holds for a NOT_FOUND status and
// errors.Is(err, ifrt.ErrArrayDeleted) for a deleted array.
func StatusToError(p *proxypb.StatusProto) error {
	if p == nil || p.GetCode() == proxypb.Code_OK {
		return nil
	}
	return rpc.NewError(CodeFromProto(p.GetCode()), p.GetMessage(), rpc.ReasonFromPayload(p.GetPayload()[rpc.ErrorInfoTypeURL]))
}
