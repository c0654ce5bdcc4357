package testenv

import "strings"

// LineWriter passes each line written to it to C, and drops a line when C
// is full: a test reads a server's ready line or logs from C without a
// slow reader blocking the server.
type LineWriter struct{ C chan string }

// NewLineWriter returns a LineWriter that holds up to n unread lines.
func NewLineWriter(n int) *LineWriter { return &LineWriter{C: make(chan string, n)} }

func (w *LineWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		select {
		case w.C <- l:
		default:
		}
	}
	return len(p), nil
}
