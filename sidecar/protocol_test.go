package sidecar

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"
)

func frame(head string) []byte {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(head)))
	return append(n[:], head...)
}

// FuzzReadReply: whatever a sidecar writes, reading it returns a reply or an
// error, never a panic.
func FuzzReadReply(f *testing.F) {
	f.Add(frame(`{"id":1,"outputs":[{"size":16}]}`))
	f.Add(frame(`{"id":2,"error":{"type":"ValueError","message":"m","traceback":"t"}}`))
	f.Add(frame(`[1,2]`))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := readReply(bufio.NewReader(bytes.NewReader(b)))
		if err == nil && rep == nil {
			t.Error("no reply and no error")
		}
	})
}

func TestWriteFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := writeFrame(&buf, &request{ID: 3, Op: "load", Session: "1/3", Program: 2}, []byte("pickle")); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	n := binary.BigEndian.Uint32(b)
	if got := string(b[4+n:]); got != "pickle" {
		t.Errorf("payload %q after the header", got)
	}
	if !bytes.Contains(b[4:4+n], []byte(`"payload":6`)) {
		t.Errorf("header %s does not give the payload's size", b[4:4+n])
	}
}
