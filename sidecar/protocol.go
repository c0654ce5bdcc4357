package sidecar

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// ProtocolVersion is the version of the protocol between a worker and its
// sidecar, which the sidecar reports in its hello reply. Protocol 2:
//
// The worker listens on a Unix socket and starts the sidecar with --socket
// PATH; the sidecar connects and serves requests one at a time, in order. A
// frame is a 4-byte big-endian length, then that many bytes of a JSON object
// (the header), then, when the header has "payload": N, N raw bytes. Every
// request has "op" and "id"; its reply has the same "id" and, on failure,
// either "error": {"type", "message", "traceback"} (the user's code raised)
// or "protocol_error": "..." (the request was wrong). Requests:
//
//	hello        {} → {"protocol", "python", "jax", "jaxlib", "cloudpickle", "numpy", "pid"}
//	load         {"session", "program"} + the pickled function as payload → {}
//	call         {"session", "program", "device_id", "inputs": [{"dtype", "shape", "path", "size"}],
//	              "outputs": [{"dtype", "shape", "path"}]} → {"outputs": [{"size"}]}
//	unload       {"session", "program"} → {}
//	end_session  {"session"} → {}
//	stats        {} → {"sessions": {SESSION: {"programs", "objects"}}}
//
// A session is a string: the client session whose programs, results and
// colocated objects the sidecar keeps apart from the others' (see Client).
// Protocol 1 had numbers for sessions and no stats.
//
// Array bytes do not travel on the socket: each input is a file holding the
// shard's dense row-major bytes, and the sidecar writes each output to the file
// named in the request. The files are in shared memory (/dev/shm) where the
// platform has it. Dtypes are numpy's names ("float32", "bfloat16", "bool");
// "string" is numpy's StringDType, an output only, whose file holds a
// serialized xla.ifrt.proto.StringArrayContents (the elements as UTF-8, in
// row-major order).
const ProtocolVersion = 2

// maxReply bounds a reply's header (replies carry no payload; a traceback is
// the longest part).
const maxReply = 16 << 20

// request is a frame from the worker.
type request struct {
	ID       uint64       `json:"id"`
	Op       string       `json:"op"`
	Session  string       `json:"session,omitempty"`
	Program  uint64       `json:"program,omitempty"`
	DeviceID int          `json:"device_id,omitempty"`
	Inputs   []tensorFile `json:"inputs,omitempty"`
	Outputs  []tensorFile `json:"outputs,omitempty"`
	Payload  int          `json:"payload,omitempty"`
}

// tensorFile is one array's bytes in a shared-memory file.
type tensorFile struct {
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
	Path  string  `json:"path"`
	Size  int64   `json:"size,omitempty"`
}

// reply is a frame from the sidecar.
type reply struct {
	ID            uint64                  `json:"id"`
	Error         *UserError              `json:"error,omitempty"`
	ProtocolError string                  `json:"protocol_error,omitempty"`
	Outputs       []sizeReply             `json:"outputs,omitempty"`
	Sessions      map[string]SessionStats `json:"sessions,omitempty"`
	Versions
}

type sizeReply struct {
	Size int64 `json:"size"`
}

// Versions are what a sidecar runs with, from its hello reply. Programs are
// pickled by the client, so its JAX and cloudpickle must be the client's.
type Versions struct {
	Protocol    int    `json:"protocol,omitempty"`
	Python      string `json:"python,omitempty"`
	JAX         string `json:"jax,omitempty"`
	Jaxlib      string `json:"jaxlib,omitempty"`
	Cloudpickle string `json:"cloudpickle,omitempty"`
	NumPy       string `json:"numpy,omitempty"`
	PID         int    `json:"pid,omitempty"`
}

// SessionStats is what a session holds in the sidecar.
type SessionStats struct {
	// Programs are the functions loaded for it.
	Programs int `json:"programs"`
	// Objects are the colocated objects (colocated_python_class instances)
	// it made.
	Objects int `json:"objects"`
}

// UserError is an exception that the user's function raised in the sidecar.
type UserError struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
}

func (e *UserError) Error() string { return e.Type + ": " + e.Message }

func writeFrame(w io.Writer, req *request, payload []byte) error {
	req.Payload = len(payload)
	head, err := json.Marshal(req)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(head)))
	buf := make([]byte, 0, 4+len(head)+len(payload))
	buf = append(append(append(buf, n[:]...), head...), payload...)
	_, err = w.Write(buf)
	return err
}

func readReply(r *bufio.Reader) (*reply, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxReply {
		return nil, fmt.Errorf("sidecar: a reply of %d bytes is too large", size)
	}
	head := make([]byte, size)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	var rep reply
	if err := json.Unmarshal(head, &rep); err != nil {
		return nil, fmt.Errorf("sidecar: malformed reply: %w", err)
	}
	return &rep, nil
}
