//go:build invariants

package pjrt

const invariants = true
