// The C side of Go custom-call handlers (ffi.h). XLA calls a handler with
// only its call frame, so each registration gets a trampoline of its own
// that tells the Go side which slot it is.

#include "ffi.h"
#include "shim.h"

#include <stdlib.h>
#include <string.h>

extern pjrt_ffi_result pjrtGoFFICall(int slot, pjrt_ffi_call_frame* frame);

enum {
  kMetadataExtension = 1,
  kExecuteStage = 3,
  kInternalCode = 13,
};

// XLA_FFI_Metadata and its extension: XLA asks a handler at registration
// which FFI API version it was written for (0.1 is the oldest it accepts).
typedef struct {
  size_t struct_size;
  pjrt_ffi_api_version api_version;
  uint32_t traits;
} metadata;

typedef struct {
  pjrt_ffi_ext base;
  metadata* metadata;
} metadata_ext;

static void* make_error(const pjrt_ffi_call_frame* f, int code,
                        const char* msg) {
  if (f->api == NULL ||
      f->api->struct_size < offsetof(pjrt_ffi_api, error_create) +
                                sizeof(f->api->error_create) ||
      f->api->error_create == NULL) {
    return NULL;  // nothing to report through; XLA's own checks remain
  }
  pjrt_ffi_error_create_args a;
  memset(&a, 0, sizeof(a));
  a.struct_size = offsetof(pjrt_ffi_error_create_args, errc) + sizeof(a.errc);
  a.message = msg;
  a.errc = code;
  return f->api->error_create(&a);
}

static void* dispatch(int slot, pjrt_ffi_call_frame* f) {
  for (pjrt_ffi_ext* e = f->extension_start; e != NULL; e = e->next) {
    if (e->type != kMetadataExtension) continue;
    metadata* m = ((metadata_ext*)e)->metadata;
    if (m != NULL && m->struct_size >= offsetof(metadata, traits) +
                                            sizeof(m->traits)) {
      m->api_version.major_version = 0;
      m->api_version.minor_version = 1;
      m->traits = 0;
    }
    return NULL;
  }
  if (f->stage != kExecuteStage) return NULL;
  if (f->struct_size < offsetof(pjrt_ffi_call_frame, attrs) + sizeof(f->attrs)) {
    return make_error(f, kInternalCode,
                      "call frame older than the handler understands");
  }
  pjrt_ffi_result r = pjrtGoFFICall(slot, f);
  if (r.code == 0) return NULL;
  void* err = make_error(f, r.code, r.msg != NULL ? r.msg : "");
  free(r.msg);
  return err;
}

// TRAMPOLINE(r, c) is slot 8*r + c.
#define TRAMPOLINE(r, c)                                      \
  static void* handler_##r##_##c(pjrt_ffi_call_frame* f) {    \
    return dispatch(8 * r + c, f);                             \
  }
#define ROW(r)       \
  TRAMPOLINE(r, 0)   \
  TRAMPOLINE(r, 1)   \
  TRAMPOLINE(r, 2)   \
  TRAMPOLINE(r, 3)   \
  TRAMPOLINE(r, 4)   \
  TRAMPOLINE(r, 5)   \
  TRAMPOLINE(r, 6)   \
  TRAMPOLINE(r, 7)
ROW(0)
ROW(1)
ROW(2)
ROW(3)
ROW(4)
ROW(5)
ROW(6)
ROW(7)
ROW(8)
ROW(9)
ROW(10)
ROW(11)
ROW(12)
ROW(13)
ROW(14)
ROW(15)

#define ROW_ENTRIES(r)                                                  \
  handler_##r##_0, handler_##r##_1, handler_##r##_2, handler_##r##_3,   \
      handler_##r##_4, handler_##r##_5, handler_##r##_6, handler_##r##_7
static void* (*const handlers[PJRT_FFI_SLOTS])(pjrt_ffi_call_frame*) = {
    ROW_ENTRIES(0),  ROW_ENTRIES(1),  ROW_ENTRIES(2),  ROW_ENTRIES(3),
    ROW_ENTRIES(4),  ROW_ENTRIES(5),  ROW_ENTRIES(6),  ROW_ENTRIES(7),
    ROW_ENTRIES(8),  ROW_ENTRIES(9),  ROW_ENTRIES(10), ROW_ENTRIES(11),
    ROW_ENTRIES(12), ROW_ENTRIES(13), ROW_ENTRIES(14), ROW_ENTRIES(15)};

// PJRT_FFI_Register_Handler_Args and the extension (pjrt_c_api_ffi_extension.h),
// as PJRT API 0.81 to 0.115 lay them out (RegisterFFIHandler checks).
typedef struct {
  size_t struct_size;
  const char* target_name;
  size_t target_name_size;
  void* handler;  // a typed XLA FFI handler
  const char* platform_name;
  size_t platform_name_size;
  int traits;
} register_args;

typedef struct {
  PJRT_Extension_Base base;
  void* type_id_register;
  void* user_data_add;
  PJRT_Error* (*register_handler)(register_args* args);
} ffi_extension;

PJRT_Error* pjrt_ffi_register(const PJRT_Api* api, int slot, const char* target,
                              size_t target_size, const char* platform,
                              size_t platform_size, int* absent) {
  *absent = 1;
  if (slot < 0 || slot >= PJRT_FFI_SLOTS) return NULL;
  const PJRT_Extension_Base* e =
      pjrt_find_extension(api, PJRT_Extension_Type_FFI);
  if (e == NULL) return NULL;
  const ffi_extension* ext = (const ffi_extension*)e;
  if (e->struct_size <
          offsetof(ffi_extension, register_handler) + sizeof(ext->register_handler) ||
      ext->register_handler == NULL) {
    return NULL;
  }
  *absent = 0;
  register_args a;
  memset(&a, 0, sizeof(a));
  a.struct_size = offsetof(register_args, traits) + sizeof(a.traits);
  a.target_name = target;
  a.target_name_size = target_size;
  a.handler = (void*)handlers[slot];
  a.platform_name = platform;
  a.platform_name_size = platform_size;
  return ext->register_handler(&a);
}
