// The hand-written C of package pjrt: what Go cannot do itself. Calls into a
// plugin's function table go through the generated trampolines of
// calls_gen.h; this file has the rest: loading a plugin, named values (a C
// union), the PJRT_Event_OnReady callback, the key-value store callbacks of
// PJRT_Client_Create, calling a plugin's deleter function pointers, finding an extension, the Shardings extension (not in pjrt_c_api.h) and two
// helpers for tests and benchmarks.

#ifndef OPENPATHWAYS_PJRT_SHIM_H_
#define OPENPATHWAYS_PJRT_SHIM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

// dlopen(RTLD_NOW|RTLD_LOCAL) + dlsym("GetPjrtApi") + call. On failure returns
// NULL and sets *err to a malloc'ed message the caller frees. The library is
// never closed.
const PJRT_Api* pjrt_load(const char* path, char** err);

// Named values (read side): entry i, flattened.
typedef struct {
  const char* name;
  size_t name_size;
  int type;
  const char* str;
  int64_t i64;
  const int64_t* i64s;
  float f;
  bool b;
  size_t value_size;
} pjrt_nv;
pjrt_nv pjrt_nv_get(const PJRT_NamedValue* nvs, size_t i);
// Named values (write side): nvs is a C array; name and string/list payloads
// are C memory too.
void pjrt_nv_set(PJRT_NamedValue* nvs, size_t i, const char* name,
                 size_t name_size, int type, const char* str, int64_t i64,
                 const int64_t* i64s, float f, bool b, size_t value_size);

// Returns args with callback and user_arg set so that, once the event is
// ready, the Go function pjrtGoEventReady(handle, error) runs (possibly before
// PJRT_Event_OnReady returns). The user_arg is malloc'ed; if PJRT_Event_OnReady
// fails the caller frees it.
PJRT_Event_OnReady_Args pjrt_on_ready_args(PJRT_Event_OnReady_Args args,
                                           uintptr_t handle);

// Returns args with the three key-value store callbacks of PJRT_Client_Create
// set; each passes handle to the Go functions pjrtGoKVGet and pjrtGoKVPut.
// Their user_arg (args.kv_get_user_arg) is malloc'ed and never freed: a
// plugin may call back after its client is gone, and then gets CANCELLED.
// The callbacks read only the fields their argument structs have had since
// they were introduced, never struct_size (XLA's callers leave it unset), and
// report errors through the plugin's callback_error.
PJRT_Client_Create_Args pjrt_kv_create_args(PJRT_Client_Create_Args args,
                                            uintptr_t handle);

// What pjrtGoKVGet and pjrtGoKVPut return: on success (code 0) a malloc'ed
// value (get only; NULL when empty), else a code and a malloc'ed message.
typedef struct {
  char* value;
  size_t value_size;
  int code;
  char* msg;
  size_t msg_size;
} pjrt_kv_result;

// Calls a plugin-provided deleter (serialized executables, compile options,
// device assignments) on owner.
void pjrt_call_deleter(void (*deleter)(void*), void* owner);

// The first extension of type t in the plugin's extension chain (at most 64
// links), or NULL.
const PJRT_Extension_Base* pjrt_find_extension(const PJRT_Api* api,
                                               PJRT_Extension_Type t);

// Shardings extension (serialized xla.OpSharding protos). which: 0 outputs, 1
// parameters. Returns err == NULL and n == SIZE_MAX when the plugin has no
// shardings extension.
typedef struct {
  PJRT_Error* err;
  const char* const* items;
  const size_t* sizes;
  size_t n;
} pjrt_blobs_result;
pjrt_blobs_result pjrt_executable_shardings(const PJRT_Api* api,
                                            PJRT_Executable* e, int which);

// An empty function, for measuring a cgo call.
void pjrt_noop(void);
// Fills handlers[i]/flags[i] with the disposition of signal i+1 (i < n).
void pjrt_signal_snapshot(uintptr_t* handlers, int* flags, int n);

#endif  // OPENPATHWAYS_PJRT_SHIM_H_
