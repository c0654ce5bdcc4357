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
// rpc.CodeAndMessage gives them (valid UTF-8, whatever the backend said). nil
// is nil (OK).
func ErrorToStatus(err error) *proxypb.StatusProto {
	if err == nil {
		return nil
	}
	code, msg := rpc.CodeAndMessage(err)
	return &proxypb.StatusProto{Code: CodeToProto(code), Message: msg}
}

// StatusToError decodes p: nil or OK is nil, anything else an *ifrt.Error with
// the same code and message, so errors.Is(err, ifrt.ErrNotFound) holds for a
// NOT_FOUND status.
func StatusToError(p *proxypb.StatusProto) error {
	if p == nil || p.GetCode() == proxypb.Code_OK {
		return nil
	}
	return &ifrt.Error{Code: CodeFromProto(p.GetCode()), Msg: p.GetMessage()}
}
