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

// LastLines returns the last n lines of s, for a test failure that shows the
// end of a log or of a child process's output.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
