// A stand-in PJRT plugin for the loader's version-gate tests. Compiled by
// gate_test.go with -DFAKE_MINOR=<minor> -DFAKE_LAST=<last slot field>: the
// function table claims API 0.FAKE_MINOR and its struct_size ends at FAKE_LAST,
// as an older plugin's shorter table would.
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

static PJRT_Error* client_create(PJRT_Client_Create_Args* args) {
  (void)args;
  return make_error(PJRT_Error_Code_FAILED_PRECONDITION, "fake plugin: no devices here");
}

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
  return &api;
}
