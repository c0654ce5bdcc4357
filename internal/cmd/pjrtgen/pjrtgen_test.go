package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const pjrtDir = "../../../pjrt"

func readPJRT(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pjrtDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The staleness check without the network or a write: regenerating from the
// checked-in header and list gives the checked-in files.
func TestCheckedInFilesUpToDate(t *testing.T) {
	files, err := generate(readPJRT(t, "pjrt_c_api.h"), readPJRT(t, "functions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if got := readPJRT(t, name); got != string(want) {
			t.Errorf("pjrt/%s is stale; run go generate ./pjrt (diff -checked-in +generated):\n%s", name, cmp.Diff(got, string(want)))
		}
	}
}

func TestParseRealHeader(t *testing.T) {
	h, err := parseHeader(readPJRT(t, "pjrt_c_api.h"))
	if err != nil {
		t.Fatal(err)
	}
	if h.minor != 114 || len(h.slots) != 138 {
		t.Errorf("minor %d with %d slots, want 114 with 138", h.minor, len(h.slots))
	}
	// Slots as counted by hand in the header (and checked against the C
	// compiler by pjrt's TestFnOffsets).
	for name, slot := range map[string]int{"PJRT_Error_Destroy": 0, "PJRT_Client_Create": 10, "PJRT_Compile": 89,
		"PJRT_Executable_OutputElementTypes": 90, "PJRT_TopologyDescription_GetMemorySpaceKindIds": 137} {
		if got := h.slot(name); got != slot {
			t.Errorf("slot(%s) = %d, want %d", name, got, slot)
		}
	}
	for name, want := range map[string]signature{
		"PJRT_Error_Destroy":               {false, "PJRT_Error_Destroy_Args"},
		"PJRT_Client_BufferFromHostBuffer": {true, "PJRT_Client_BufferFromHostBuffer_Args"}, // typedef split over two lines
		"PJRT_Memory_Kind_Id":              {true, "PJRT_Memory_Kind_Id_Args"},
	} {
		if got := h.funcs[name]; got != want {
			t.Errorf("funcs[%s] = %+v, want %+v", name, got, want)
		}
	}
	members := map[string][]string{
		// The anonymous union is skipped.
		"PJRT_NamedValue": {"struct_size", "extension_start", "name", "name_size", "type", "value_size"},
		// A function-pointer member is named by its declarator.
		"PJRT_Executable_Serialize_Args": {"struct_size", "extension_start", "executable", "serialized_bytes",
			"serialized_bytes_size", "serialized_executable", "serialized_executable_deleter"},
	}
	for name, want := range members {
		if diff := cmp.Diff(want, h.structs[name]); diff != "" {
			t.Errorf("members of %s (-want +got):\n%s", name, diff)
		}
	}
	if h.traits["PJRT_Executable_Serialize_Args"] != "serialized_executable_deleter" {
		t.Errorf("traits of PJRT_Executable_Serialize_Args = %q", h.traits["PJRT_Executable_Serialize_Args"])
	}
	// Every argument struct of every function in the table passes the check
	// the generator makes on listed ones.
	for _, fn := range h.slots {
		sig, ok := h.funcs[fn]
		if !ok {
			t.Errorf("%s: no typedef found", fn)
			continue
		}
		if err := h.checkArgs(fn, sig); err != nil {
			t.Error(err)
		}
	}
}

// A header with the same layout as pjrt_c_api.h, small enough to edit.
const miniHeader = `
#define PJRT_API_MINOR 7
#define PJRT_DEFINE_STRUCT_TRAITS(sname, last_field) \
  typedef struct sname sname;                        \
  enum { sname##_STRUCT_SIZE = PJRT_STRUCT_SIZE(sname, last_field) }
typedef struct PJRT_Error PJRT_Error;

struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Destroy_Args, error);
typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args* args);

struct PJRT_Thing_Make_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* dims;  /* in */
  size_t num_dims;
  PJRT_Thing* thing;  // out
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Thing_Make_Args, thing);
typedef PJRT_Error* PJRT_Thing_Make(
    PJRT_Thing_Make_Args* args);

struct PJRT_Thing_Ids_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int ids[4];
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Thing_Ids_Args, ids);
typedef PJRT_Error* PJRT_Thing_Ids(PJRT_Thing_Ids_Args* args);

typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;
  _PJRT_API_STRUCT_FIELD(PJRT_Error_Destroy);
  PJRT_NO_DISCARD _PJRT_API_STRUCT_FIELD(PJRT_Thing_Make);
  // Always add new fields to the end of the struct.
  PJRT_NO_DISCARD _PJRT_API_STRUCT_FIELD(
      PJRT_Thing_Ids);
} PJRT_Api;
`

func TestGenerateMini(t *testing.T) {
	files, err := generate(miniHeader, "# comment\nPJRT_Error_Destroy 0\n\nPJRT_Thing_Make 0 # trailing\nPJRT_Thing_Ids 5 raw\n")
	if err != nil {
		t.Fatal(err)
	}
	for name, snippets := range map[string][]string{
		trampolineFile: {
			"static inline PJRT_Error_Destroy_Args pjrt_call_PJRT_Error_Destroy(\n    const PJRT_Api* api, PJRT_Error_Destroy_Args args) {\n  api->PJRT_Error_Destroy(&args);\n  return args;\n}",
			"  PJRT_Error* err;\n  PJRT_Thing_Make_Args args;\n} pjrt_PJRT_Thing_Make_result;",
			"  r.err = api->PJRT_Thing_Make(&r.args);",
		},
		tableFile: {
			"const headerAPIMinor = 7",
			"fnErrorDestroy apiFn = iota // PJRT_Error_Destroy, slot 0",
			"fnThingIDs                  // PJRT_Thing_Ids, slot 2",
			`"PJRT_Thing_Make",`,
			"fnThingIDs: 5,",
		},
		wrapperFile: {
			"//go:build cgo",
			"unsafe.Offsetof(C.PJRT_Api{}.PJRT_Thing_Make),",
			"func (a *capi) callErrorDestroy(args *C.PJRT_Error_Destroy_Args) {\n\tif !a.has[fnErrorDestroy] {\n\t\treturn\n\t}\n\targs.struct_size = C.PJRT_Error_Destroy_Args_STRUCT_SIZE\n\t*args = C.pjrt_call_PJRT_Error_Destroy(a.api, *args)\n}",
			"func (a *capi) callThingMake(args *C.PJRT_Thing_Make_Args) error {\n\tif !a.has[fnThingMake] {\n\t\treturn a.need(fnThingMake)\n\t}",
			"\treturn a.err(r.err)\n}",
			"func (a *capi) callThingIDs(args *C.PJRT_Thing_Ids_Args) *C.PJRT_Error {\n\tif !a.has[fnThingIDs] {\n\t\treturn nil\n\t}",
		},
	} {
		for _, s := range snippets {
			if !bytes.Contains(files[name], []byte(s)) {
				t.Errorf("%s lacks\n%s\nin\n%s", name, s, files[name])
			}
		}
		if !bytes.HasPrefix(files[name], []byte("// Code generated by pjrtgen ")) || !bytes.Contains(files[name], []byte("DO NOT EDIT.")) {
			t.Errorf("%s does not start with the generated-code line", name)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name, header, list, want string
	}{
		{"unknown function", miniHeader, "PJRT_Thing_Break 0", "line 1: PJRT_Thing_Break is not a member of PJRT_Api"},
		{"out of order", miniHeader, "PJRT_Thing_Make 0\nPJRT_Error_Destroy 0", "line 2: PJRT_Error_Destroy (slot 0) must come after PJRT_Thing_Make (slot 1)"},
		{"twice", miniHeader, "PJRT_Thing_Make 0\nPJRT_Thing_Make 0", "list functions once each"},
		{"minor decreases", miniHeader, "PJRT_Thing_Make 3\nPJRT_Thing_Ids 2", "line 2: PJRT_Thing_Ids: minor version 2 is older than that of PJRT_Thing_Make before it (3)"},
		{"minor from the future", miniHeader, "PJRT_Thing_Make 8", "minor version 8 is newer than the header's 0.7"},
		{"bad minor", miniHeader, "PJRT_Thing_Make x", `minor version "x" is not a non-negative integer`},
		{"no minor", miniHeader, "PJRT_Thing_Make", `want "name minor [flags]"`},
		{"unknown flag", miniHeader, "PJRT_Thing_Make 0 fast", `unknown flag "fast"`},
		{"raw void", miniHeader, "PJRT_Error_Destroy 0 raw", "raw applies only to functions that return PJRT_Error*"},
		{"empty list", miniHeader, "# nothing\n", "no functions listed"},
		{"stale traits", strings.Replace(miniHeader, "(PJRT_Thing_Make_Args, thing)", "(PJRT_Thing_Make_Args, num_dims)", 1), "PJRT_Thing_Make 0",
			"PJRT_DEFINE_STRUCT_TRAITS(PJRT_Thing_Make_Args, num_dims) but the struct's last member is thing"},
		{"no traits", strings.Replace(miniHeader, "PJRT_DEFINE_STRUCT_TRAITS(PJRT_Thing_Make_Args, thing);", "", 1), "PJRT_Thing_Make 0",
			"no PJRT_DEFINE_STRUCT_TRAITS(PJRT_Thing_Make_Args, ...)"},
		{"no typedef", strings.Replace(miniHeader, "typedef PJRT_Error* PJRT_Thing_Ids(", "typedef PJRT_Error* PJRT_Thing_Idz(", 1), "PJRT_Thing_Ids 0",
			"PJRT_Thing_Ids: no typedef of its function type"},
		{"no PJRT_Api", strings.Replace(miniHeader, "} PJRT_Api;", "};", 1), "PJRT_Thing_Make 0", "no typedef struct PJRT_Api"},
		{"PJRT_Api prologue", strings.Replace(miniHeader, "  PJRT_Api_Version pjrt_api_version;\n", "", 1), "PJRT_Thing_Make 0",
			"PJRT_Api does not start with struct_size, extension_start, pjrt_api_version"},
		{"no minor define", strings.Replace(miniHeader, "#define PJRT_API_MINOR 7", "", 1), "PJRT_Thing_Make 0", "no #define PJRT_API_MINOR"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := generate(tc.header, tc.list)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("generate = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// The real header's struct traits are checked: a stale last_field in
// pjrt_c_api.h stops generation.
func TestRealHeaderStaleTraits(t *testing.T) {
	header := readPJRT(t, "pjrt_c_api.h")
	const traits = "PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, buffer);"
	if !strings.Contains(header, traits) {
		t.Fatalf("pjrt_c_api.h has no %s", traits)
	}
	stale := strings.Replace(header, traits, "PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, done_with_host_buffer);", 1)
	_, err := generate(stale, readPJRT(t, "functions.txt"))
	if err == nil || !strings.Contains(err.Error(), "PJRT_Client_BufferFromHostBuffer: PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, done_with_host_buffer)") {
		t.Errorf("generate with stale traits = %v", err)
	}
}

func TestGoName(t *testing.T) {
	for c, want := range map[string]string{
		"PJRT_Client_Create":                                "ClientCreate",
		"PJRT_DeviceDescription_Id":                         "DeviceDescriptionID",
		"PJRT_Memory_Kind_Id":                               "MemoryKindID",
		"PJRT_Device_LocalHardwareId":                       "DeviceLocalHardwareID",
		"PJRT_LoadedExecutable_AddressableDeviceLogicalIds": "LoadedExecutableAddressableDeviceLogicalIDs",
		"PJRT_Executable_SizeOfGeneratedCodeInBytes":        "ExecutableSizeOfGeneratedCodeInBytes",
		"PJRT_Buffer_IsDeleted":                             "BufferIsDeleted", // "Is" + "Deleted", not an ID
		"PJRT_Compile":                                      "Compile",
	} {
		if got := goName(c); got != want {
			t.Errorf("goName(%s) = %s, want %s", c, got, want)
		}
	}
}

// run writes the files, and leaves unchanged ones alone.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"pjrt_c_api.h", "functions.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(readPJRT(t, name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{trampolineFile, tableFile, wrapperFile} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != readPJRT(t, name) {
			t.Errorf("run wrote a %s that differs from pjrt's", name)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "functions.txt"), []byte("PJRT_Nope 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir); err == nil || !strings.Contains(err.Error(), "functions.txt: line 1: PJRT_Nope") {
		t.Errorf("run with a bad list = %v", err)
	}
}
