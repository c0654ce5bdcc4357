//go:build cgo

#include "shim.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Defined in Go (callback_cgo.go).
extern void pjrtGoEventReady(uintptr_t handle, PJRT_Error* err);
// Defined in Go (kvstore_cgo.go).
extern pjrt_kv_result pjrtGoKVGet(uintptr_t handle, char* key, size_t key_size,
                                  int timeout_ms, int try_only);
extern pjrt_kv_result pjrtGoKVPut(uintptr_t handle, char* key, size_t key_size,
                                  char* value, size_t value_size);

// ---- loading ----

static char* dup_msg(const char* prefix, const char* detail) {
  size_t n = strlen(prefix) + (detail ? strlen(detail) : 0) + 1;
  char* s = malloc(n);
  if (s) snprintf(s, n, "%s%s", prefix, detail ? detail : "");
  return s;
}

const PJRT_Api* pjrt_load(const char* path, char** err) {
  *err = NULL;
  dlerror();
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    *err = dup_msg("dlopen: ", dlerror());
    return NULL;
  }
  typedef const PJRT_Api* (*get_api_fn)(void);
  get_api_fn get = (get_api_fn)dlsym(lib, "GetPjrtApi");
  if (get == NULL) {
    *err = dup_msg("dlsym GetPjrtApi: ", dlerror());
    return NULL;
  }
  const PJRT_Api* api = get();
  if (api == NULL) *err = dup_msg("GetPjrtApi returned NULL", NULL);
  return api;
}

// ---- named values ----

pjrt_nv pjrt_nv_get(const PJRT_NamedValue* nvs, size_t i) {
  const PJRT_NamedValue* v = &nvs[i];
  pjrt_nv out;
  memset(&out, 0, sizeof(out));
  out.name = v->name;
  out.name_size = v->name_size;
  out.type = (int)v->type;
  out.value_size = v->value_size;
  switch (v->type) {
    case PJRT_NamedValue_kString:
      out.str = v->string_value;
      break;
    case PJRT_NamedValue_kInt64:
      out.i64 = v->int64_value;
      break;
    case PJRT_NamedValue_kInt64List:
      out.i64s = v->int64_array_value;
      break;
    case PJRT_NamedValue_kFloat:
      out.f = v->float_value;
      break;
    case PJRT_NamedValue_kBool:
      out.b = v->bool_value;
      break;
  }
  return out;
}

void pjrt_nv_set(PJRT_NamedValue* nvs, size_t i, const char* name,
                 size_t name_size, int type, const char* str, int64_t i64,
                 const int64_t* i64s, float f, bool b, size_t value_size) {
  PJRT_NamedValue* v = &nvs[i];
  memset(v, 0, sizeof(*v));
  v->struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v->name = name;
  v->name_size = name_size;
  v->type = (PJRT_NamedValue_Type)type;
  v->value_size = value_size;
  switch (v->type) {
    case PJRT_NamedValue_kString:
      v->string_value = str;
      break;
    case PJRT_NamedValue_kInt64:
      v->int64_value = i64;
      break;
    case PJRT_NamedValue_kInt64List:
      v->int64_array_value = i64s;
      break;
    case PJRT_NamedValue_kFloat:
      v->float_value = f;
      break;
    case PJRT_NamedValue_kBool:
      v->bool_value = b;
      break;
  }
}

// ---- events ----

typedef struct {
  uintptr_t handle;
} on_ready_ctx;

static void on_ready(PJRT_Error* err, void* user_arg) {
  uintptr_t handle = ((on_ready_ctx*)user_arg)->handle;
  free(user_arg);
  pjrtGoEventReady(handle, err);  // Go converts and destroys err
}

PJRT_Event_OnReady_Args pjrt_on_ready_args(PJRT_Event_OnReady_Args args,
                                           uintptr_t handle) {
  on_ready_ctx* ctx = malloc(sizeof(on_ready_ctx));
  if (ctx == NULL) abort();
  ctx->handle = handle;
  args.callback = on_ready;
  args.user_arg = ctx;
  return args;
}

// ---- key-value store callbacks ----

// The plugin frees a value we return with this; Go allocated it with malloc.
static void kv_free_value(char* value) { free(value); }

// kv_error turns a failed result into the plugin's own PJRT_Error through its
// callback_error. Without one there is no way to fail, so the error is
// written to stderr and the call reports success with an empty value.
static PJRT_Error* kv_error(PJRT_CallbackError* callback_error,
                            pjrt_kv_result r) {
  PJRT_Error* err = NULL;
  if (callback_error != NULL && *callback_error != NULL) {
    err = (*callback_error)((PJRT_Error_Code)r.code,
                            r.msg != NULL ? r.msg : "", r.msg_size);
  } else {
    fprintf(stderr,
            "pjrt: key-value callback failed (code %d) and the plugin gave "
            "no callback_error: %.*s\n",
            r.code, (int)r.msg_size, r.msg != NULL ? r.msg : "");
  }
  free(r.msg);
  free(r.value);
  return err;
}

// The user_arg of the callbacks: C memory holding the id of the client's Go
// bridge (an integer, which Go must never see in a pointer-typed field).
static uintptr_t kv_handle(void* user_arg) { return *(uintptr_t*)user_arg; }

// kv_value fills a get's out fields from r (the deleter always, so a plugin
// that calls it on an empty value is safe).
static PJRT_Error* kv_value(pjrt_kv_result r, PJRT_CallbackError* callback_error,
                           char** value, size_t* value_size,
                           void (**deleter)(char*)) {
  *value = NULL;
  *value_size = 0;
  *deleter = kv_free_value;
  if (r.code != 0) return kv_error(callback_error, r);
  *value = r.value;
  *value_size = r.value_size;
  return NULL;
}

static PJRT_Error* kv_get(PJRT_KeyValueGetCallback_Args* args) {
  pjrt_kv_result r =
      pjrtGoKVGet(kv_handle(args->user_arg), (char*)args->key, args->key_size,
                  args->timeout_in_ms, 0);
  return kv_value(r, args->callback_error, &args->value, &args->value_size,
                  &args->value_deleter_callback);
}

static PJRT_Error* kv_try_get(PJRT_KeyValueTryGetCallback_Args* args) {
  pjrt_kv_result r = pjrtGoKVGet(kv_handle(args->user_arg), (char*)args->key,
                                 args->key_size, 0, 1);
  return kv_value(r, args->callback_error, &args->value, &args->value_size,
                  &args->value_deleter_callback);
}

static PJRT_Error* kv_put(PJRT_KeyValuePutCallback_Args* args) {
  pjrt_kv_result r =
      pjrtGoKVPut(kv_handle(args->user_arg), (char*)args->key, args->key_size,
                  (char*)args->value, args->value_size);
  if (r.code != 0) return kv_error(args->callback_error, r);
  return NULL;
}

PJRT_Client_Create_Args pjrt_kv_create_args(PJRT_Client_Create_Args args,
                                            uintptr_t handle) {
  uintptr_t* user_arg = malloc(sizeof(uintptr_t));
  if (user_arg == NULL) abort();
  *user_arg = handle;
  args.kv_get_callback = kv_get;
  args.kv_get_user_arg = user_arg;
  args.kv_try_get_callback = kv_try_get;
  args.kv_try_get_user_arg = user_arg;
  args.kv_put_callback = kv_put;
  args.kv_put_user_arg = user_arg;
  return args;
}

// ---- plugin-owned memory ----

void pjrt_call_deleter(void (*deleter)(void*), void* owner) {
  if (deleter != NULL && owner != NULL) deleter(owner);
}

// ---- extensions ----

const PJRT_Extension_Base* pjrt_find_extension(const PJRT_Api* api,
                                               PJRT_Extension_Type t) {
  int guard = 0;
  for (const PJRT_Extension_Base* e = api->extension_start;
       e != NULL && guard < 64; e = e->next, guard++) {
    if (e->type == t) return e;
  }
  return NULL;
}

// The shardings extension, declared here from its documented layout (extension
// base, then two function pointers) rather than by vendoring its header.
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num;                    // out
  const char* const* shardings;  // out
  const size_t* sizes;           // out
} shim_shardings_args;
typedef PJRT_Error* shim_shardings_fn(shim_shardings_args* args);
typedef struct {
  PJRT_Extension_Base base;
  shim_shardings_fn* parameter_shardings;
  shim_shardings_fn* output_shardings;
} shim_shardings_extension;

pjrt_blobs_result pjrt_executable_shardings(const PJRT_Api* api,
                                            PJRT_Executable* e, int which) {
  pjrt_blobs_result r = {NULL, NULL, NULL, SIZE_MAX};
  const PJRT_Extension_Base* base =
      pjrt_find_extension(api, PJRT_Extension_Type_Shardings);
  if (base == NULL) return r;
  const shim_shardings_extension* ext = (const shim_shardings_extension*)base;
  size_t need = which == 0 ? offsetof(shim_shardings_extension, output_shardings)
                           : offsetof(shim_shardings_extension,
                                      parameter_shardings);
  if (base->struct_size < need + sizeof(void*)) return r;
  shim_shardings_fn* fn =
      which == 0 ? ext->output_shardings : ext->parameter_shardings;
  if (fn == NULL) return r;
  shim_shardings_args a;
  memset(&a, 0, sizeof(a));
  a.struct_size = offsetof(shim_shardings_args, sizes) + sizeof(a.sizes);
  a.executable = e;
  r.err = fn(&a);
  r.items = a.shardings;
  r.sizes = a.sizes;
  r.n = r.err == NULL ? a.num : 0;
  return r;
}

// ---- helpers ----

void pjrt_noop(void) {}

void pjrt_signal_snapshot(uintptr_t* handlers, int* flags, int n) {
  for (int i = 0; i < n; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    handlers[i] = 0;
    flags[i] = 0;
    if (sigaction(i + 1, NULL, &sa) == 0) {
      handlers[i] = (sa.sa_flags & SA_SIGINFO) ? (uintptr_t)sa.sa_sigaction
                                               : (uintptr_t)sa.sa_handler;
      flags[i] = sa.sa_flags;
    }
  }
}
