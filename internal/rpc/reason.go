package rpc

import (
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
)

// ReasonDomain is the google.rpc.ErrorInfo domain of the reasons below.
const ReasonDomain = "openpathways.dev"

// ErrorInfoTypeURL is the type URL under which an IFRT Proxy StatusProto
// carries the reason, as an absl::Status payload.
const ErrorInfoTypeURL = "type.googleapis.com/google.rpc.ErrorInfo"

// reasons names the errors more specific than their code that a peer must be
// able to tell apart: errors.Is on the far side of the wire finds them.
var reasons = []struct {
	reason string
	err    error
}{
	{"ARRAY_DELETED", ifrt.ErrArrayDeleted},
	{"CLIENT_CLOSED", ifrt.ErrClientClosed},
	{"EXECUTABLE_DELETED", ifrt.ErrExecutableDeleted},
}

// ReasonOf returns the reason of the first error of the table err wraps, or "".
func ReasonOf(err error) string {
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	return ""
}

// NewError is the error a peer's status decodes to: code and message, wrapping
// the error reason names (none for "" or a reason this build does not know).
func NewError(code ifrt.Code, msg, reason string) error {
	e := &ifrt.Error{Code: code, Msg: msg}
	for _, r := range reasons {
		if r.reason == reason {
			e.Err = r.err
		}
	}
	return e
}

func errorInfo(reason string) *errdetails.ErrorInfo {
	return &errdetails.ErrorInfo{Reason: reason, Domain: ReasonDomain}
}

// ReasonPayload encodes err's reason as the value of an ErrorInfoTypeURL
// payload; nil when err has none.
func ReasonPayload(err error) []byte {
	reason := ReasonOf(err)
	if reason == "" {
		return nil
	}
	b, _ := proto.Marshal(errorInfo(reason))
	return b
}

// ReasonFromPayload decodes what ReasonPayload encoded; "" for nil, bytes that
// do not decode or another domain.
func ReasonFromPayload(b []byte) string {
	var info errdetails.ErrorInfo
	if b == nil || proto.Unmarshal(b, &info) != nil || info.GetDomain() != ReasonDomain {
		return ""
	}
	return info.GetReason()
}
