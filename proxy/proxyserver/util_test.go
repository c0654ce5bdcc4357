package proxyserver_test

import "github.com/openpathways/pathways/internal/testenv"

// syncBuffer is the log sink these tests hand their servers.
type syncBuffer = testenv.SyncBuffer
