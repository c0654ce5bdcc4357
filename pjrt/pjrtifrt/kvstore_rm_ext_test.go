package pjrtifrt_test

import (
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/rm"
)

// The resource manager's coordination store serves a multi-process PJRT
// client's key-value callbacks.
var _ pjrt.KeyValueStore = (*rm.KeyValueStore)(nil)
