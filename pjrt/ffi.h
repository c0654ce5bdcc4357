// Custom-call handlers written in Go, registered with a plugin through its
// FFI extension (PJRT_Extension_Type_FFI). The structs below are the parts of
// the XLA FFI C API (xla/ffi/api/c_api.h) and of the PJRT FFI extension that
// the handlers use, declared here from their documented layout rather than
// by vendoring those headers. Every XLA FFI struct starts with its
// struct_size and an extension chain; fields are only ever appended.

#ifndef OPENPATHWAYS_PJRT_FFI_H_
#define OPENPATHWAYS_PJRT_FFI_H_

#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

// How many handlers one process can register (over all plugins).
#define PJRT_FFI_SLOTS 128

typedef struct pjrt_ffi_ext {
  size_t struct_size;
  int type;  // 1: metadata
  struct pjrt_ffi_ext* next;
} pjrt_ffi_ext;

typedef struct {
  size_t struct_size;
  pjrt_ffi_ext* extension_start;
  int major_version;
  int minor_version;
} pjrt_ffi_api_version;

typedef struct {
  size_t struct_size;
  pjrt_ffi_ext* extension_start;
  const char* message;
  int errc;  // an absl status code
} pjrt_ffi_error_create_args;

// The head of XLA_FFI_Api: the handlers need only its first function.
typedef struct {
  size_t struct_size;
  pjrt_ffi_ext* extension_start;
  pjrt_ffi_api_version api_version;
  void* internal_api;
  void* (*error_create)(pjrt_ffi_error_create_args* args);
} pjrt_ffi_api;

typedef struct {
  size_t struct_size;
  pjrt_ffi_ext* extension_start;
  int dtype;  // xla.PrimitiveType
  void* data;
  int64_t rank;
  int64_t* dims;  // logical dimensions; the layout is the call site's
} pjrt_ffi_buffer;

// XLA_FFI_Args and XLA_FFI_Rets: every entry is a buffer (type 1).
typedef struct {
  size_t struct_size;
  pjrt_ffi_ext* extension_start;
  int64_t size;
  int* types;
  void** items;
} pjrt_ffi_list;

typedef struct {
  const char* ptr;
  size_t len;
} pjrt_ffi_span;

typedef struct {
  int dtype;
  void* value;
} pjrt_ffi_scalar;

// Attribute types: 1 array, 2 dictionary, 3 scalar, 4 string (a span).
typedef struct {
  size_t struct_size;
  pjrt_ffi_ext* extension_start;
  int64_t size;
  int* types;
  pjrt_ffi_span** names;
  void** attrs;
} pjrt_ffi_attrs;

typedef struct {
  size_t struct_size;
  pjrt_ffi_ext* extension_start;
  const pjrt_ffi_api* api;
  void* ctx;
  int stage;  // 3: execute
  pjrt_ffi_list args;
  pjrt_ffi_list rets;
  pjrt_ffi_attrs attrs;
} pjrt_ffi_call_frame;

// What the Go side of a call returns: code 0, or an absl status code and a
// malloc'ed message.
typedef struct {
  int code;
  char* msg;
} pjrt_ffi_result;

// Registers trampoline slot (< PJRT_FFI_SLOTS) as the typed FFI handler of
// target on platform. Returns the plugin's error, or NULL; sets *absent when
// the plugin has no FFI extension that can register handlers.
PJRT_Error* pjrt_ffi_register(const PJRT_Api* api, int slot, const char* target,
                              size_t target_size, const char* platform,
                              size_t platform_size, int* absent);

#endif  // OPENPATHWAYS_PJRT_FFI_H_
