// Package layering holds no code: its test keeps the module's layering (cgo
// only under pjrt, the servers free of it and of the GCS SDK). Each package
// with rules of its own checks them in its own deps_test.go.
package layering
