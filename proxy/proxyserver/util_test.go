package proxyserver_test

import (
	"bytes"

	"github.com/openpathways/pathways/internal/testenv"
)

// syncBuffer is the log sink these tests hand their servers.
type syncBuffer = testenv.SyncBuffer

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
