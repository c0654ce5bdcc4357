// Command pjrtgen generates the C trampolines of package pjrt and their Go side
// from the vendored PJRT C API header, so that the table of functions, their
// slots, argument structs and struct sizes cannot drift from the header.
//
// Package pjrt runs it through go:generate (make generate does too):
//
//	cd pjrt && go run ../internal/cmd/pjrtgen
//
// It reads, in the directory given by -dir (default "."):
//
//   - pjrt_c_api.h: the PJRT_Api struct (its function pointers, in order), each
//     function's typedef (return type and argument struct), and each argument
//     struct with its PJRT_DEFINE_STRUCT_TRAITS, which defines the
//     <struct>_STRUCT_SIZE constant a caller must put in struct_size;
//   - functions.txt: the functions the package calls, one a line, in table
//     order, with the minor API version that added each (the header does not
//     record it; the values come from xla/pjrt/c/CHANGELOG.md) and the flag
//     raw where the Go wrapper is to return the PJRT_Error* unconverted.
//
// It writes there:
//
//   - calls_gen.h: one static inline C trampoline per function,
//     pjrt_call_<Name>(const PJRT_Api*, <Args>), which calls through the table
//     with the argument struct passed and returned by value (with the
//     PJRT_Error*), so that no Go stack address reaches the plugin;
//   - calls_gen.go: the apiFn constants fn<Name>, fnNames and fnMinors;
//   - calls_cgo_gen.go (cgo only): fnOffsets (each slot's offset, from the C
//     compiler) and one Go method per function, call<Name>(*C.<Args>), which
//     checks that the plugin's table has the slot, sets struct_size and calls
//     the trampoline.
//
// Only the functions listed are generated: each one has a known minor version
// and a caller, and adding one is a line in functions.txt. pjrtgen fails, and
// writes nothing, when a listed function is not in the header, its argument
// struct has no traits or traits that miss its last member, or the list is out
// of table order. scripts/verify_generate.sh regenerates and fails on any
// difference; the command's test does the same without writing.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	dir := flag.String("dir", ".", "directory of pjrt_c_api.h and functions.txt, and of the generated files")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "pjrtgen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	header, err := os.ReadFile(filepath.Join(dir, "pjrt_c_api.h"))
	if err != nil {
		return err
	}
	list, err := os.ReadFile(filepath.Join(dir, "functions.txt"))
	if err != nil {
		return err
	}
	files, err := generate(string(header), string(list))
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		// Unchanged files keep their time stamps, so cgo does not rebuild.
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
