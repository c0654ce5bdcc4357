// A stand-in PJRT plugin for the loader's version-gate tests. Compiled by
// internal_test.go with -DFAKE_MINOR=<minor> -DFAKE_LAST=<last slot field>: the
// function table claims API 0.FAKE_MINOR and its struct_size ends at FAKE_LAST,
// as an older plugin's shorter table would.
//
// With -DFAKE_KV it is instead a multi-process plugin's use of the key-value
// callbacks, which the real CPU plugins never call: Client_Create drives
// them as XLA's CApiKeyValueStore does (argument structs whose struct_size
// and extension_start are left as garbage, errors made through
// callback_error) and returns a client without devices whose platform version
// is the report of what it saw; Client_Destroy calls them once more, and the
// next Client_Create calls the closed client's.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pjrt_c_api.h"

// Our errors; the leading vtable slot keeps the 0.107+ PJRT_Error layout (the
// loader never uses it: it calls the PJRT_Error_* functions).
typedef struct {
  const void* vtable;
  PJRT_Error_Code code;
  const char* msg;
} fake_error;

static void error_destroy(PJRT_Error_Destroy_Args* args) { free(args->error); }

static void error_message(PJRT_Error_Message_Args* args) {
  const fake_error* e = (const fake_error*)args->error;
  args->message = e->msg;
  args->message_size = strlen(e->msg);
}

static PJRT_Error* error_get_code(PJRT_Error_GetCode_Args* args) {
  args->code = ((const fake_error*)args->error)->code;
  return NULL;
}

static PJRT_Error* make_error(PJRT_Error_Code code, const char* msg) {
  fake_error* e = malloc(sizeof(*e));
  e->vtable = NULL;
  e->code = code;
  e->msg = msg;
  return (PJRT_Error*)e;
}

static PJRT_Error* plugin_initialize(PJRT_Plugin_Initialize_Args* args) {
  (void)args;
  return NULL;
}

static const int64_t fake_version[3] = {1, 2, 3};
static PJRT_NamedValue fake_attrs[2];

static PJRT_Error* plugin_attributes(PJRT_Plugin_Attributes_Args* args) {
  memset(fake_attrs, 0, sizeof(fake_attrs));
  fake_attrs[0].struct_size = PJRT_NamedValue_STRUCT_SIZE;
  fake_attrs[0].name = "fake_name";
  fake_attrs[0].name_size = strlen("fake_name");
  fake_attrs[0].type = PJRT_NamedValue_kString;
  fake_attrs[0].string_value = "fake";
  fake_attrs[0].value_size = 4;
  fake_attrs[1].struct_size = PJRT_NamedValue_STRUCT_SIZE;
  fake_attrs[1].name = "stablehlo_current_version";
  fake_attrs[1].name_size = strlen("stablehlo_current_version");
  fake_attrs[1].type = PJRT_NamedValue_kInt64List;
  fake_attrs[1].int64_array_value = fake_version;
  fake_attrs[1].value_size = 3;
  args->attributes = fake_attrs;
  args->num_attributes = 2;
  return NULL;
}

#ifndef FAKE_KV
static PJRT_Error* client_create(PJRT_Client_Create_Args* args) {
  (void)args;
  return make_error(PJRT_Error_Code_FAILED_PRECONDITION, "fake plugin: no devices here");
}
#else
// Errors the callbacks make for us: code and a copy of the message.
typedef struct {
  const void* vtable;
  PJRT_Error_Code code;
  char* msg;
} kv_error;

static PJRT_Error* kv_callback_error(PJRT_Error_Code code, const char* message,
                                     size_t message_size) {
  kv_error* e = malloc(sizeof(*e));
  e->vtable = NULL;
  e->code = code;
  e->msg = malloc(message_size + 1);
  memcpy(e->msg, message, message_size);
  e->msg[message_size] = 0;
  return (PJRT_Error*)e;
}
static PJRT_CallbackError kv_error_fn = kv_callback_error;

// The saved callbacks and the report.
static PJRT_Client_Create_Args saved;
static char report[4096];
static int fake_client;  // the PJRT_Client* we hand out

static void note(const char* what, PJRT_Error* err, const char* value,
                 size_t value_size) {
  size_t n = strlen(report);
  if (err != NULL) {
    kv_error* e = (kv_error*)err;
    snprintf(report + n, sizeof(report) - n, "%s=%d:%s;", what, (int)e->code,
             e->msg);
    free(e->msg);
    free(e);
  } else {
    snprintf(report + n, sizeof(report) - n, "%s=ok:%.*s;", what,
             (int)value_size, value ? value : "");
  }
}

static PJRT_Error* fake_put(const char* key, const char* value) {
  PJRT_KeyValuePutCallback_Args a;
  memset(&a, 0xab, sizeof(a));  // struct_size and extension_start: garbage
  a.key = key;
  a.key_size = strlen(key);
  a.value = value;
  a.value_size = strlen(value);
  a.callback_error = &kv_error_fn;
  a.user_arg = saved.kv_put_user_arg;
  return saved.kv_put_callback(&a);
}

static void fake_get(const char* what, const char* key, int timeout_ms) {
  PJRT_KeyValueGetCallback_Args a;
  memset(&a, 0xab, sizeof(a));
  a.key = key;
  a.key_size = strlen(key);
  a.timeout_in_ms = timeout_ms;
  a.callback_error = &kv_error_fn;
  a.user_arg = saved.kv_get_user_arg;
  PJRT_Error* err = saved.kv_get_callback(&a);
  note(what, err, err ? NULL : a.value, err ? 0 : a.value_size);
  if (err == NULL) a.value_deleter_callback(a.value);
}

static void fake_try_get(const char* what, const char* key) {
  PJRT_KeyValueTryGetCallback_Args a;
  memset(&a, 0xab, sizeof(a));
  a.key = key;
  a.key_size = strlen(key);
  a.callback_error = &kv_error_fn;
  a.user_arg = saved.kv_try_get_user_arg;
  PJRT_Error* err = saved.kv_try_get_callback(&a);
  note(what, err, err ? NULL : a.value, err ? 0 : a.value_size);
  if (err == NULL) a.value_deleter_callback(a.value);
}

static PJRT_Error* client_create(PJRT_Client_Create_Args* args) {
  report[0] = 0;
  if (args->kv_get_callback == NULL || args->kv_try_get_callback == NULL ||
      args->kv_put_callback == NULL) {
    return make_error(PJRT_Error_Code_INVALID_ARGUMENT, "fake plugin: no key-value store");
  }
  // The callbacks of the client before this one, now closed, must fail
  // cleanly.
  static int clients;
  if (clients++ > 0) note("stale_put", fake_put("fake/stale", "x"), NULL, 0);
  saved = *args;
  note("put", fake_put("fake/mine", "from the plugin"), NULL, 0);
  fake_try_get("try_get", "fake/mine");
  fake_try_get("try_get_missing", "fake/missing");
  fake_get("get_peer", "fake/peer", 60000);
  fake_get("get_timeout", "fake/missing", 1);
  note("put_refused", fake_put("fake/refused", "x"), NULL, 0);
  fake_try_get("try_get_panic", "fake/panic");
  args->client = (PJRT_Client*)&fake_client;
  return NULL;
}

static PJRT_Error* client_destroy(PJRT_Client_Destroy_Args* args) {
  (void)args;
  // A get with no time limit, as a shutdown barrier would: the client is
  // closing, so it must come back (cancelled), and the callbacks must still
  // be valid here.
  report[0] = 0;
  fake_get("get_at_destroy", "fake/never", -1);
  PJRT_Error* err = fake_put("fake/destroyed", report);
  if (err != NULL) {
    free(((kv_error*)err)->msg);
    free(err);
  }
  return NULL;
}

static PJRT_Error* client_platform_name(PJRT_Client_PlatformName_Args* args) {
  args->platform_name = "fake";
  args->platform_name_size = 4;
  return NULL;
}

static PJRT_Error* client_platform_version(PJRT_Client_PlatformVersion_Args* args) {
  args->platform_version = report;
  args->platform_version_size = strlen(report);
  return NULL;
}

static PJRT_Error* client_process_index(PJRT_Client_ProcessIndex_Args* args) {
  args->process_index = 0;
  return NULL;
}

static PJRT_Error* client_devices(PJRT_Client_Devices_Args* args) {
  args->devices = NULL;
  args->num_devices = 0;
  return NULL;
}

static PJRT_Error* client_addressable_devices(PJRT_Client_AddressableDevices_Args* args) {
  args->addressable_devices = NULL;
  args->num_addressable_devices = 0;
  return NULL;
}

static PJRT_Error* client_addressable_memories(PJRT_Client_AddressableMemories_Args* args) {
  args->addressable_memories = NULL;
  args->num_addressable_memories = 0;
  return NULL;
}
#endif

static PJRT_Api api;

const PJRT_Api* GetPjrtApi(void) {
  memset(&api, 0, sizeof(api));
  api.struct_size = offsetof(PJRT_Api, FAKE_LAST) + sizeof(void*);
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.major_version = 0;
  api.pjrt_api_version.minor_version = FAKE_MINOR;
  api.PJRT_Error_Destroy = error_destroy;
  api.PJRT_Error_Message = error_message;
  api.PJRT_Error_GetCode = error_get_code;
  api.PJRT_Plugin_Initialize = plugin_initialize;
  api.PJRT_Plugin_Attributes = plugin_attributes;
  api.PJRT_Client_Create = client_create;
#ifdef FAKE_KV
  api.PJRT_Client_Destroy = client_destroy;
  api.PJRT_Client_PlatformName = client_platform_name;
  api.PJRT_Client_ProcessIndex = client_process_index;
  api.PJRT_Client_PlatformVersion = client_platform_version;
  api.PJRT_Client_Devices = client_devices;
  api.PJRT_Client_AddressableDevices = client_addressable_devices;
  api.PJRT_Client_AddressableMemories = client_addressable_memories;
#endif
  return &api;
}
