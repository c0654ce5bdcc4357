//go:build cgo

#include "shim.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Defined in Go (event_cgo.go).
extern void pjrtGoEventReady(uintptr_t handle, int code, char* msg, size_t n);

// Zeroes an argument struct and sets its size from the header's constant (never
// sizeof: the two differ when the struct has tail padding).
#define ARGS(type, name) \
  type name;             \
  memset(&name, 0, sizeof(name)); \
  name.struct_size = type##_STRUCT_SIZE

// ---- function table ----

#define SHIM_NAME(fn, v) #fn,
#define SHIM_MINOR(fn, v) v,
#define SHIM_OFFSET(fn, v) offsetof(PJRT_Api, fn),
static const char* const fn_names[] = {PJRT_SHIM_FUNCTIONS(SHIM_NAME)};
static const int fn_minors[] = {PJRT_SHIM_FUNCTIONS(SHIM_MINOR)};
static const size_t fn_offsets[] = {PJRT_SHIM_FUNCTIONS(SHIM_OFFSET)};

int pjrt_fn_count(void) { return (int)(sizeof(fn_names) / sizeof(fn_names[0])); }
const char* pjrt_fn_name(int i) { return fn_names[i]; }
int pjrt_fn_min_minor(int i) { return fn_minors[i]; }
size_t pjrt_fn_offset(int i) { return fn_offsets[i]; }

bool pjrt_has(const PJRT_Api* api, int i) {
  size_t off = fn_offsets[i];
  if (off + sizeof(void*) > api->struct_size) return false;
  void* const* slot = (void* const*)((const char*)api + off);
  return *slot != NULL;
}

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

void pjrt_api_header(const PJRT_Api* api, size_t* struct_size, int* major,
                     int* minor) {
  *struct_size = api->struct_size;
  *major = api->pjrt_api_version.major_version;
  *minor = api->pjrt_api_version.minor_version;
}

// ---- errors and named values ----

pjrt_error_info pjrt_take_error(const PJRT_Api* api, PJRT_Error* err) {
  pjrt_error_info info = {2 /* UNKNOWN */, NULL, 0};
  ARGS(PJRT_Error_GetCode_Args, ga);
  ga.error = err;
  PJRT_Error* gerr = api->PJRT_Error_GetCode(&ga);
  if (gerr == NULL) {
    info.code = (int)ga.code;
  } else {
    ARGS(PJRT_Error_Destroy_Args, d);
    d.error = gerr;
    api->PJRT_Error_Destroy(&d);
  }
  ARGS(PJRT_Error_Message_Args, ma);
  ma.error = err;
  api->PJRT_Error_Message(&ma);
  if (ma.message != NULL && ma.message_size > 0) {
    info.msg = malloc(ma.message_size);
    if (info.msg) {
      memcpy(info.msg, ma.message, ma.message_size);
      info.msg_len = ma.message_size;
    }
  }
  ARGS(PJRT_Error_Destroy_Args, da);
  da.error = err;
  api->PJRT_Error_Destroy(&da);
  return info;
}

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

int pjrt_extension_types(const PJRT_Api* api, int* types, int max) {
  int n = 0;
  for (const PJRT_Extension_Base* e = api->extension_start; e != NULL && n < max;
       e = e->next) {
    types[n++] = (int)e->type;
  }
  return n;
}

static const PJRT_Extension_Base* find_extension(const PJRT_Api* api,
                                                 PJRT_Extension_Type t) {
  int guard = 0;
  for (const PJRT_Extension_Base* e = api->extension_start;
       e != NULL && guard < 64; e = e->next, guard++) {
    if (e->type == t) return e;
  }
  return NULL;
}

// ---- plugin ----

PJRT_Error* pjrt_plugin_initialize(const PJRT_Api* api) {
  ARGS(PJRT_Plugin_Initialize_Args, a);
  return api->PJRT_Plugin_Initialize(&a);
}

pjrt_nvs_result pjrt_plugin_attributes(const PJRT_Api* api) {
  ARGS(PJRT_Plugin_Attributes_Args, a);
  pjrt_nvs_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Plugin_Attributes(&a);
  if (r.err == NULL) {
    r.nvs = a.attributes;
    r.n = a.num_attributes;
  }
  return r;
}

// ---- client ----

pjrt_ptr_result pjrt_client_create(const PJRT_Api* api,
                                   const PJRT_NamedValue* opts, size_t n) {
  ARGS(PJRT_Client_Create_Args, a);
  a.create_options = opts;
  a.num_options = n;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Client_Create(&a);
  if (r.err == NULL) r.ptr = a.client;
  return r;
}

PJRT_Error* pjrt_client_destroy(const PJRT_Api* api, PJRT_Client* c) {
  ARGS(PJRT_Client_Destroy_Args, a);
  a.client = c;
  return api->PJRT_Client_Destroy(&a);
}

pjrt_str_result pjrt_client_platform_name(const PJRT_Api* api, PJRT_Client* c) {
  ARGS(PJRT_Client_PlatformName_Args, a);
  a.client = c;
  pjrt_str_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Client_PlatformName(&a);
  r.s = a.platform_name;
  r.n = a.platform_name_size;
  return r;
}

pjrt_str_result pjrt_client_platform_version(const PJRT_Api* api,
                                             PJRT_Client* c) {
  ARGS(PJRT_Client_PlatformVersion_Args, a);
  a.client = c;
  pjrt_str_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Client_PlatformVersion(&a);
  r.s = a.platform_version;
  r.n = a.platform_version_size;
  return r;
}

pjrt_int_result pjrt_client_process_index(const PJRT_Api* api, PJRT_Client* c) {
  ARGS(PJRT_Client_ProcessIndex_Args, a);
  a.client = c;
  pjrt_int_result r = {NULL, 0};
  r.err = api->PJRT_Client_ProcessIndex(&a);
  r.v = a.process_index;
  return r;
}

pjrt_ptrs_result pjrt_client_list(const PJRT_Api* api, PJRT_Client* c,
                                  int which) {
  pjrt_ptrs_result r = {NULL, NULL, 0};
  if (which == 0) {
    ARGS(PJRT_Client_Devices_Args, a);
    a.client = c;
    r.err = api->PJRT_Client_Devices(&a);
    r.ptrs = (void* const*)a.devices;
    r.n = a.num_devices;
  } else if (which == 1) {
    ARGS(PJRT_Client_AddressableDevices_Args, a);
    a.client = c;
    r.err = api->PJRT_Client_AddressableDevices(&a);
    r.ptrs = (void* const*)a.addressable_devices;
    r.n = a.num_addressable_devices;
  } else {
    ARGS(PJRT_Client_AddressableMemories_Args, a);
    a.client = c;
    r.err = api->PJRT_Client_AddressableMemories(&a);
    r.ptrs = (void* const*)a.addressable_memories;
    r.n = a.num_addressable_memories;
  }
  return r;
}

PJRT_Error* pjrt_client_default_device_assignment(const PJRT_Api* api,
                                                  PJRT_Client* c, int replicas,
                                                  int partitions, int* out,
                                                  size_t out_size) {
  ARGS(PJRT_Client_DefaultDeviceAssignment_Args, a);
  a.client = c;
  a.num_replicas = replicas;
  a.num_partitions = partitions;
  a.default_assignment_size = out_size;
  a.default_assignment = out;
  return api->PJRT_Client_DefaultDeviceAssignment(&a);
}

pjrt_ptr_result pjrt_client_compile(const PJRT_Api* api, PJRT_Client* c,
                                    const void* code, size_t code_size,
                                    const char* format, size_t format_size,
                                    const void* opts, size_t opts_size) {
  ARGS(PJRT_Program, p);
  p.code = (char*)code;  // input only for Compile
  p.code_size = code_size;
  p.format = format;
  p.format_size = format_size;
  ARGS(PJRT_Client_Compile_Args, a);
  a.client = c;
  a.program = &p;
  a.compile_options = (const char*)opts;
  a.compile_options_size = opts_size;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Client_Compile(&a);
  if (r.err == NULL) r.ptr = a.executable;
  return r;
}

pjrt_ptr_result pjrt_deserialize_and_load(const PJRT_Api* api, PJRT_Client* c,
                                          const void* data, size_t size) {
  ARGS(PJRT_Executable_DeserializeAndLoad_Args, a);
  a.client = c;
  a.serialized_executable = (const char*)data;
  a.serialized_executable_size = size;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Executable_DeserializeAndLoad(&a);
  if (r.err == NULL) r.ptr = a.loaded_executable;
  return r;
}

// ---- devices and memories ----

pjrt_device_info pjrt_description_info_get(const PJRT_Api* api,
                                           PJRT_DeviceDescription* desc) {
  pjrt_device_info r;
  memset(&r, 0, sizeof(r));
  r.local_hardware_id = -1;

  ARGS(PJRT_DeviceDescription_Id_Args, id);
  id.device_description = desc;
  if ((r.err = api->PJRT_DeviceDescription_Id(&id)) != NULL) return r;
  r.id = id.id;

  ARGS(PJRT_DeviceDescription_ProcessIndex_Args, pi);
  pi.device_description = desc;
  if ((r.err = api->PJRT_DeviceDescription_ProcessIndex(&pi)) != NULL) return r;
  r.process_index = pi.process_index;

  ARGS(PJRT_DeviceDescription_Kind_Args, k);
  k.device_description = desc;
  if ((r.err = api->PJRT_DeviceDescription_Kind(&k)) != NULL) return r;
  r.kind = k.device_kind;
  r.kind_size = k.device_kind_size;

  ARGS(PJRT_DeviceDescription_DebugString_Args, ds);
  ds.device_description = desc;
  if ((r.err = api->PJRT_DeviceDescription_DebugString(&ds)) != NULL) return r;
  r.debug = ds.debug_string;
  r.debug_size = ds.debug_string_size;

  ARGS(PJRT_DeviceDescription_ToString_Args, ts);
  ts.device_description = desc;
  if ((r.err = api->PJRT_DeviceDescription_ToString(&ts)) != NULL) return r;
  r.str = ts.to_string;
  r.str_size = ts.to_string_size;

  ARGS(PJRT_DeviceDescription_Attributes_Args, at);
  at.device_description = desc;
  if ((r.err = api->PJRT_DeviceDescription_Attributes(&at)) != NULL) return r;
  r.attrs = at.attributes;
  r.num_attrs = at.num_attributes;
  return r;
}

pjrt_device_info pjrt_device_info_get(const PJRT_Api* api, PJRT_Device* d) {
  ARGS(PJRT_Device_GetDescription_Args, g);
  g.device = d;
  PJRT_Error* err = api->PJRT_Device_GetDescription(&g);
  if (err != NULL) {
    pjrt_device_info r;
    memset(&r, 0, sizeof(r));
    r.err = err;
    return r;
  }
  pjrt_device_info r = pjrt_description_info_get(api, g.device_description);
  if (r.err != NULL) return r;

  ARGS(PJRT_Device_IsAddressable_Args, ad);
  ad.device = d;
  if ((r.err = api->PJRT_Device_IsAddressable(&ad)) != NULL) return r;
  r.addressable = ad.is_addressable;

  if (r.addressable) {
    ARGS(PJRT_Device_LocalHardwareId_Args, lh);
    lh.device = d;
    if ((r.err = api->PJRT_Device_LocalHardwareId(&lh)) != NULL) return r;
    r.local_hardware_id = lh.local_hardware_id;
  }
  return r;
}

pjrt_ptrs_result pjrt_device_memories(const PJRT_Api* api, PJRT_Device* d) {
  ARGS(PJRT_Device_AddressableMemories_Args, a);
  a.device = d;
  pjrt_ptrs_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Device_AddressableMemories(&a);
  r.ptrs = (void* const*)a.memories;
  r.n = a.num_memories;
  return r;
}

pjrt_ptr_result pjrt_device_default_memory(const PJRT_Api* api,
                                           PJRT_Device* d) {
  ARGS(PJRT_Device_DefaultMemory_Args, a);
  a.device = d;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Device_DefaultMemory(&a);
  if (r.err == NULL) r.ptr = a.memory;
  return r;
}

pjrt_memory_info pjrt_memory_info_get(const PJRT_Api* api, PJRT_Memory* m) {
  pjrt_memory_info r;
  memset(&r, 0, sizeof(r));

  ARGS(PJRT_Memory_Id_Args, id);
  id.memory = m;
  if ((r.err = api->PJRT_Memory_Id(&id)) != NULL) return r;
  r.id = id.id;

  ARGS(PJRT_Memory_Kind_Args, k);
  k.memory = m;
  if ((r.err = api->PJRT_Memory_Kind(&k)) != NULL) return r;
  r.kind = k.kind;
  r.kind_size = k.kind_size;

  ARGS(PJRT_Memory_DebugString_Args, ds);
  ds.memory = m;
  if ((r.err = api->PJRT_Memory_DebugString(&ds)) != NULL) return r;
  r.debug = ds.debug_string;
  r.debug_size = ds.debug_string_size;

  ARGS(PJRT_Memory_ToString_Args, ts);
  ts.memory = m;
  if ((r.err = api->PJRT_Memory_ToString(&ts)) != NULL) return r;
  r.str = ts.to_string;
  r.str_size = ts.to_string_size;

  ARGS(PJRT_Memory_AddressableByDevices_Args, ab);
  ab.memory = m;
  if ((r.err = api->PJRT_Memory_AddressableByDevices(&ab)) != NULL) return r;
  r.devices = ab.devices;
  r.num_devices = ab.num_devices;
  return r;
}

pjrt_int_result pjrt_memory_kind_id(const PJRT_Api* api, PJRT_Memory* m) {
  ARGS(PJRT_Memory_Kind_Id_Args, a);
  a.memory = m;
  pjrt_int_result r = {NULL, 0};
  r.err = api->PJRT_Memory_Kind_Id(&a);
  r.v = a.kind_id;
  return r;
}

// ---- topologies ----

pjrt_ptr_result pjrt_topology_create(const PJRT_Api* api, const char* name,
                                     size_t name_size,
                                     const PJRT_NamedValue* opts, size_t n) {
  ARGS(PJRT_TopologyDescription_Create_Args, a);
  a.topology_name = name;
  a.topology_name_size = name_size;
  a.create_options = opts;
  a.num_options = n;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_TopologyDescription_Create(&a);
  if (r.err == NULL) r.ptr = a.topology;
  return r;
}

PJRT_Error* pjrt_topology_destroy(const PJRT_Api* api,
                                  PJRT_TopologyDescription* t) {
  ARGS(PJRT_TopologyDescription_Destroy_Args, a);
  a.topology = t;
  return api->PJRT_TopologyDescription_Destroy(&a);
}

pjrt_str_result pjrt_topology_platform_name(const PJRT_Api* api,
                                            PJRT_TopologyDescription* t) {
  ARGS(PJRT_TopologyDescription_PlatformName_Args, a);
  a.topology = t;
  pjrt_str_result r = {NULL, NULL, 0};
  r.err = api->PJRT_TopologyDescription_PlatformName(&a);
  r.s = a.platform_name;
  r.n = a.platform_name_size;
  return r;
}

pjrt_str_result pjrt_topology_platform_version(const PJRT_Api* api,
                                               PJRT_TopologyDescription* t) {
  ARGS(PJRT_TopologyDescription_PlatformVersion_Args, a);
  a.topology = t;
  pjrt_str_result r = {NULL, NULL, 0};
  r.err = api->PJRT_TopologyDescription_PlatformVersion(&a);
  r.s = a.platform_version;
  r.n = a.platform_version_size;
  return r;
}

pjrt_ptrs_result pjrt_topology_descriptions(const PJRT_Api* api,
                                            PJRT_TopologyDescription* t) {
  ARGS(PJRT_TopologyDescription_GetDeviceDescriptions_Args, a);
  a.topology = t;
  pjrt_ptrs_result r = {NULL, NULL, 0};
  r.err = api->PJRT_TopologyDescription_GetDeviceDescriptions(&a);
  r.ptrs = (void* const*)a.descriptions;
  r.n = a.num_descriptions;
  return r;
}

pjrt_ptr_result pjrt_compile_for_topology(const PJRT_Api* api,
                                          PJRT_TopologyDescription* t,
                                          PJRT_Client* client, const void* code,
                                          size_t code_size, const char* format,
                                          size_t format_size, const void* opts,
                                          size_t opts_size) {
  ARGS(PJRT_Program, p);
  p.code = (char*)code;
  p.code_size = code_size;
  p.format = format;
  p.format_size = format_size;
  ARGS(PJRT_Compile_Args, a);
  a.topology = t;
  a.program = &p;
  a.compile_options = (const char*)opts;
  a.compile_options_size = opts_size;
  a.client = client;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Compile(&a);
  if (r.err == NULL) r.ptr = a.executable;
  return r;
}

// ---- executables ----

pjrt_ptr_result pjrt_loaded_get_executable(const PJRT_Api* api,
                                           PJRT_LoadedExecutable* le) {
  ARGS(PJRT_LoadedExecutable_GetExecutable_Args, a);
  a.loaded_executable = le;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_LoadedExecutable_GetExecutable(&a);
  if (r.err == NULL) r.ptr = a.executable;
  return r;
}

PJRT_Error* pjrt_loaded_destroy(const PJRT_Api* api,
                                PJRT_LoadedExecutable* le) {
  ARGS(PJRT_LoadedExecutable_Destroy_Args, a);
  a.executable = le;
  return api->PJRT_LoadedExecutable_Destroy(&a);
}

PJRT_Error* pjrt_executable_destroy(const PJRT_Api* api, PJRT_Executable* e) {
  ARGS(PJRT_Executable_Destroy_Args, a);
  a.executable = e;
  return api->PJRT_Executable_Destroy(&a);
}

pjrt_ptrs_result pjrt_loaded_addressable_devices(const PJRT_Api* api,
                                                 PJRT_LoadedExecutable* le) {
  ARGS(PJRT_LoadedExecutable_AddressableDevices_Args, a);
  a.executable = le;
  pjrt_ptrs_result r = {NULL, NULL, 0};
  r.err = api->PJRT_LoadedExecutable_AddressableDevices(&a);
  r.ptrs = (void* const*)a.addressable_devices;
  r.n = a.num_addressable_devices;
  return r;
}

pjrt_ptrs_result pjrt_loaded_logical_ids(const PJRT_Api* api,
                                         PJRT_LoadedExecutable* le) {
  ARGS(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, a);
  a.executable = le;
  pjrt_ptrs_result r = {NULL, NULL, 0};
  r.err = api->PJRT_LoadedExecutable_AddressableDeviceLogicalIds(&a);
  r.ptrs = (void* const*)a.addressable_device_logical_ids;
  r.n = a.num_addressable_device_logical_ids;
  return r;
}

pjrt_str_result pjrt_executable_name(const PJRT_Api* api, PJRT_Executable* e) {
  ARGS(PJRT_Executable_Name_Args, a);
  a.executable = e;
  pjrt_str_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Executable_Name(&a);
  r.s = a.executable_name;
  r.n = a.executable_name_size;
  return r;
}

pjrt_str_result pjrt_executable_fingerprint(const PJRT_Api* api,
                                            PJRT_Executable* e) {
  ARGS(PJRT_Executable_Fingerprint_Args, a);
  a.executable = e;
  pjrt_str_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Executable_Fingerprint(&a);
  r.s = a.executable_fingerprint;
  r.n = a.executable_fingerprint_size;
  return r;
}

pjrt_nvs_result pjrt_executable_cost_analysis(const PJRT_Api* api,
                                              PJRT_Executable* e) {
  ARGS(PJRT_Executable_GetCostAnalysis_Args, a);
  a.executable = e;
  pjrt_nvs_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Executable_GetCostAnalysis(&a);
  r.nvs = a.properties;
  r.n = a.num_properties;
  return r;
}

pjrt_program_result pjrt_executable_optimized_program(const PJRT_Api* api,
                                                      PJRT_Executable* e,
                                                      char* code,
                                                      size_t code_size) {
  ARGS(PJRT_Program, p);
  p.code = code;
  p.code_size = code_size;
  ARGS(PJRT_Executable_OptimizedProgram_Args, a);
  a.executable = e;
  a.program = &p;
  pjrt_program_result r = {NULL, 0, NULL, 0};
  r.err = api->PJRT_Executable_OptimizedProgram(&a);
  r.code_size = p.code_size;
  r.format = p.format;
  r.format_size = p.format_size;
  return r;
}

pjrt_int_result pjrt_executable_count(const PJRT_Api* api, PJRT_Executable* e,
                                      int which) {
  pjrt_int_result r = {NULL, 0};
  switch (which) {
    case 0: {
      ARGS(PJRT_Executable_NumReplicas_Args, a);
      a.executable = e;
      r.err = api->PJRT_Executable_NumReplicas(&a);
      r.v = (int64_t)a.num_replicas;
      break;
    }
    case 1: {
      ARGS(PJRT_Executable_NumPartitions_Args, a);
      a.executable = e;
      r.err = api->PJRT_Executable_NumPartitions(&a);
      r.v = (int64_t)a.num_partitions;
      break;
    }
    case 2: {
      ARGS(PJRT_Executable_NumOutputs_Args, a);
      a.executable = e;
      r.err = api->PJRT_Executable_NumOutputs(&a);
      r.v = (int64_t)a.num_outputs;
      break;
    }
    default: {
      ARGS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, a);
      a.executable = e;
      r.err = api->PJRT_Executable_SizeOfGeneratedCodeInBytes(&a);
      r.v = a.size_in_bytes;
      break;
    }
  }
  return r;
}

pjrt_types_result pjrt_executable_output_types(const PJRT_Api* api,
                                               PJRT_Executable* e) {
  ARGS(PJRT_Executable_OutputElementTypes_Args, a);
  a.executable = e;
  pjrt_types_result r = {NULL, NULL, 0};
  r.err = api->PJRT_Executable_OutputElementTypes(&a);
  r.types = a.output_types;
  r.n = a.num_output_types;
  return r;
}

pjrt_dims_result pjrt_executable_output_dims(const PJRT_Api* api,
                                             PJRT_Executable* e,
                                             size_t num_outputs) {
  ARGS(PJRT_Executable_OutputDimensions_Args, a);
  a.executable = e;
  a.num_outputs = num_outputs;
  pjrt_dims_result r = {NULL, NULL, NULL};
  r.err = api->PJRT_Executable_OutputDimensions(&a);
  r.dims = a.dims;
  r.ranks = a.dim_sizes;
  return r;
}

pjrt_kinds_result pjrt_executable_memory_kinds(const PJRT_Api* api,
                                               PJRT_Executable* e, int which,
                                               size_t n) {
  pjrt_kinds_result r = {NULL, NULL, NULL};
  if (which == 0) {
    ARGS(PJRT_Executable_OutputMemoryKinds_Args, a);
    a.executable = e;
    a.num_outputs = n;
    r.err = api->PJRT_Executable_OutputMemoryKinds(&a);
    r.kinds = a.memory_kinds;
    r.sizes = a.memory_kind_sizes;
  } else {
    ARGS(PJRT_Executable_ParameterMemoryKinds_Args, a);
    a.executable = e;
    a.num_parameters = n;
    r.err = api->PJRT_Executable_ParameterMemoryKinds(&a);
    r.kinds = a.memory_kinds;
    r.sizes = a.memory_kind_sizes;
  }
  return r;
}

pjrt_bytes_result pjrt_executable_serialize(const PJRT_Api* api,
                                            PJRT_Executable* e) {
  ARGS(PJRT_Executable_Serialize_Args, a);
  a.executable = e;
  pjrt_bytes_result r = {NULL, NULL, 0, NULL, NULL};
  r.err = api->PJRT_Executable_Serialize(&a);
  if (r.err == NULL) {
    r.bytes = a.serialized_bytes;
    r.n = a.serialized_bytes_size;
    r.owner = a.serialized_executable;
    r.deleter = (void (*)(void*))a.serialized_executable_deleter;
  }
  return r;
}

pjrt_bytes_result pjrt_executable_compile_options(const PJRT_Api* api,
                                                  PJRT_Executable* e) {
  ARGS(PJRT_Executable_GetCompileOptions_Args, a);
  a.executable = e;
  pjrt_bytes_result r = {NULL, NULL, 0, NULL, NULL};
  r.err = api->PJRT_Executable_GetCompileOptions(&a);
  if (r.err == NULL) {
    r.bytes = a.serialized_bytes;
    r.n = a.serialized_bytes_size;
    r.owner = a.serialized_compile_options;
    r.deleter = (void (*)(void*))a.serialized_compile_options_deleter;
  }
  return r;
}

pjrt_bytes_result pjrt_loaded_device_assignment(const PJRT_Api* api,
                                                PJRT_LoadedExecutable* le) {
  ARGS(PJRT_LoadedExecutable_GetDeviceAssignment_Args, a);
  a.executable = le;
  pjrt_bytes_result r = {NULL, NULL, 0, NULL, NULL};
  r.err = api->PJRT_LoadedExecutable_GetDeviceAssignment(&a);
  if (r.err == NULL) {
    r.bytes = a.serialized_bytes;
    r.n = a.serialized_bytes_size;
    r.owner = a.serialized_device_assignment;
    r.deleter = (void (*)(void*))a.serialized_device_assignment_deleter;
  }
  return r;
}

void pjrt_free_serialized(pjrt_bytes_result r) {
  if (r.deleter != NULL && r.owner != NULL) r.deleter(r.owner);
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
      find_extension(api, PJRT_Extension_Type_Shardings);
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

// ---- execute ----

PJRT_Error* pjrt_execute(const PJRT_Api* api, PJRT_LoadedExecutable* le,
                         PJRT_Buffer* const* args, size_t num_devices,
                         size_t num_args, PJRT_Buffer** outs,
                         size_t num_outputs, PJRT_Event** events,
                         PJRT_Device* execute_device,
                         const int64_t* non_donatable, size_t num_non_donatable,
                         int launch_id) {
  // Per-device row pointers; rows point into the caller's flat arrays.
  PJRT_Buffer* const** arg_rows =
      malloc(sizeof(PJRT_Buffer* const*) * (num_devices ? num_devices : 1));
  PJRT_Buffer*** out_rows =
      malloc(sizeof(PJRT_Buffer**) * (num_devices ? num_devices : 1));
  if (arg_rows == NULL || out_rows == NULL) {
    free((void*)arg_rows);
    free(out_rows);
    abort();
  }
  for (size_t d = 0; d < num_devices; d++) {
    arg_rows[d] = args + d * num_args;
    out_rows[d] = outs + d * num_outputs;
  }
  ARGS(PJRT_ExecuteOptions, opts);
  opts.launch_id = launch_id;
  opts.non_donatable_input_indices = non_donatable;
  opts.num_non_donatable_input_indices = num_non_donatable;
  ARGS(PJRT_LoadedExecutable_Execute_Args, a);
  a.executable = le;
  a.options = &opts;
  a.argument_lists = arg_rows;
  a.num_devices = num_devices;
  a.num_args = num_args;
  a.output_lists = out_rows;
  a.device_complete_events = events;
  a.execute_device = execute_device;
  PJRT_Error* err = api->PJRT_LoadedExecutable_Execute(&a);
  free((void*)arg_rows);
  free(out_rows);
  return err;
}

// ---- buffers ----

pjrt_bfh_result pjrt_buffer_from_host(
    const PJRT_Api* api, PJRT_Client* c, const void* data, int type,
    const int64_t* dims, size_t num_dims, const int64_t* strides,
    size_t num_strides, int semantics, PJRT_Device* dev, PJRT_Memory* mem,
    bool destroy_done) {
  ARGS(PJRT_Client_BufferFromHostBuffer_Args, a);
  a.client = c;
  a.data = data;
  a.type = (PJRT_Buffer_Type)type;
  a.dims = dims;
  a.num_dims = num_dims;
  a.byte_strides = strides;
  a.num_byte_strides = num_strides;
  a.host_buffer_semantics = (PJRT_HostBufferSemantics)semantics;
  a.device = dev;
  a.memory = mem;
  pjrt_bfh_result r = {NULL, NULL, NULL};
  r.err = api->PJRT_Client_BufferFromHostBuffer(&a);
  if (r.err != NULL) return r;
  r.buffer = a.buffer;
  r.done = a.done_with_host_buffer;
  if (destroy_done && r.done != NULL) {
    ARGS(PJRT_Event_Destroy_Args, d);
    d.event = r.done;
    PJRT_Error* derr = api->PJRT_Event_Destroy(&d);
    if (derr != NULL) {
      ARGS(PJRT_Error_Destroy_Args, ed);
      ed.error = derr;
      api->PJRT_Error_Destroy(&ed);
    }
    r.done = NULL;
  }
  return r;
}

PJRT_Error* pjrt_buffer_destroy(const PJRT_Api* api, PJRT_Buffer* b) {
  ARGS(PJRT_Buffer_Destroy_Args, a);
  a.buffer = b;
  return api->PJRT_Buffer_Destroy(&a);
}

PJRT_Error* pjrt_buffer_delete(const PJRT_Api* api, PJRT_Buffer* b) {
  ARGS(PJRT_Buffer_Delete_Args, a);
  a.buffer = b;
  return api->PJRT_Buffer_Delete(&a);
}

pjrt_buffer_info pjrt_buffer_info_get(const PJRT_Api* api, PJRT_Buffer* b,
                                      bool with_memory) {
  pjrt_buffer_info r;
  memset(&r, 0, sizeof(r));
  ARGS(PJRT_Buffer_ElementType_Args, t);
  t.buffer = b;
  if ((r.err = api->PJRT_Buffer_ElementType(&t)) != NULL) return r;
  r.type = (int)t.type;
  ARGS(PJRT_Buffer_Dimensions_Args, d);
  d.buffer = b;
  if ((r.err = api->PJRT_Buffer_Dimensions(&d)) != NULL) return r;
  r.dims = d.dims;
  r.num_dims = d.num_dims;
  ARGS(PJRT_Buffer_Device_Args, dv);
  dv.buffer = b;
  if ((r.err = api->PJRT_Buffer_Device(&dv)) != NULL) return r;
  r.device = dv.device;
  if (with_memory) {
    ARGS(PJRT_Buffer_Memory_Args, m);
    m.buffer = b;
    PJRT_Error* merr = api->PJRT_Buffer_Memory(&m);
    if (merr == NULL) {
      r.memory = m.memory;
    } else {
      ARGS(PJRT_Error_Destroy_Args, ed);
      ed.error = merr;
      api->PJRT_Error_Destroy(&ed);
    }
  }
  ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args, s);
  s.buffer = b;
  if ((r.err = api->PJRT_Buffer_OnDeviceSizeInBytes(&s)) != NULL) return r;
  r.on_device_size = s.on_device_size_in_bytes;
  return r;
}

pjrt_int_result pjrt_buffer_is_deleted(const PJRT_Api* api, PJRT_Buffer* b) {
  ARGS(PJRT_Buffer_IsDeleted_Args, a);
  a.buffer = b;
  pjrt_int_result r = {NULL, 0};
  r.err = api->PJRT_Buffer_IsDeleted(&a);
  r.v = a.is_deleted;
  return r;
}

pjrt_ptr_result pjrt_buffer_ready_event(const PJRT_Api* api, PJRT_Buffer* b) {
  ARGS(PJRT_Buffer_ReadyEvent_Args, a);
  a.buffer = b;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Buffer_ReadyEvent(&a);
  if (r.err == NULL) r.ptr = a.event;
  return r;
}

pjrt_int_result pjrt_buffer_host_size(const PJRT_Api* api, PJRT_Buffer* b) {
  ARGS(PJRT_Buffer_ToHostBuffer_Args, a);
  a.src = b;
  a.dst = NULL;
  pjrt_int_result r = {NULL, 0};
  r.err = api->PJRT_Buffer_ToHostBuffer(&a);
  r.v = (int64_t)a.dst_size;
  return r;
}

pjrt_ptr_result pjrt_buffer_to_host(const PJRT_Api* api, PJRT_Buffer* b,
                                    void* dst, size_t n, bool wait) {
  ARGS(PJRT_Buffer_ToHostBuffer_Args, a);
  a.src = b;
  a.dst = dst;
  a.dst_size = n;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Buffer_ToHostBuffer(&a);
  if (r.err != NULL) return r;
  if (!wait) {
    r.ptr = a.event;
    return r;
  }
  if (a.event != NULL) {
    r.err = pjrt_event_await(api, a.event);
    PJRT_Error* derr = pjrt_event_destroy(api, a.event);
    if (derr != NULL) {
      ARGS(PJRT_Error_Destroy_Args, ed);
      ed.error = derr;
      api->PJRT_Error_Destroy(&ed);
    }
  }
  return r;
}

pjrt_ptr_result pjrt_buffer_copy_to_device(const PJRT_Api* api, PJRT_Buffer* b,
                                           PJRT_Device* d) {
  ARGS(PJRT_Buffer_CopyToDevice_Args, a);
  a.buffer = b;
  a.dst_device = d;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Buffer_CopyToDevice(&a);
  if (r.err == NULL) r.ptr = a.dst_buffer;
  return r;
}

pjrt_ptr_result pjrt_buffer_copy_to_memory(const PJRT_Api* api, PJRT_Buffer* b,
                                           PJRT_Memory* m) {
  ARGS(PJRT_Buffer_CopyToMemory_Args, a);
  a.buffer = b;
  a.dst_memory = m;
  pjrt_ptr_result r = {NULL, NULL};
  r.err = api->PJRT_Buffer_CopyToMemory(&a);
  if (r.err == NULL) r.ptr = a.dst_buffer;
  return r;
}

// ---- events ----

PJRT_Error* pjrt_event_destroy(const PJRT_Api* api, PJRT_Event* e) {
  ARGS(PJRT_Event_Destroy_Args, a);
  a.event = e;
  return api->PJRT_Event_Destroy(&a);
}

PJRT_Error* pjrt_event_await(const PJRT_Api* api, PJRT_Event* e) {
  ARGS(PJRT_Event_Await_Args, a);
  a.event = e;
  return api->PJRT_Event_Await(&a);
}

pjrt_int_result pjrt_event_is_ready(const PJRT_Api* api, PJRT_Event* e) {
  ARGS(PJRT_Event_IsReady_Args, a);
  a.event = e;
  pjrt_int_result r = {NULL, 0};
  r.err = api->PJRT_Event_IsReady(&a);
  r.v = a.is_ready;
  return r;
}

typedef struct {
  const PJRT_Api* api;
  uintptr_t handle;
} on_ready_ctx;

static void on_ready(PJRT_Error* err, void* user_arg) {
  on_ready_ctx* ctx = (on_ready_ctx*)user_arg;
  int code = 0;
  char* msg = NULL;
  size_t n = 0;
  if (err != NULL) {
    pjrt_error_info info = pjrt_take_error(ctx->api, err);
    code = info.code == 0 ? 2 : info.code;
    msg = info.msg;
    n = info.msg_len;
  }
  uintptr_t h = ctx->handle;
  free(ctx);
  pjrtGoEventReady(h, code, msg, n);  // Go frees msg
}

PJRT_Error* pjrt_event_on_ready(const PJRT_Api* api, PJRT_Event* e,
                                uintptr_t handle) {
  on_ready_ctx* ctx = malloc(sizeof(on_ready_ctx));
  if (ctx == NULL) abort();
  ctx->api = api;
  ctx->handle = handle;
  ARGS(PJRT_Event_OnReady_Args, a);
  a.event = e;
  a.callback = on_ready;
  a.user_arg = ctx;
  PJRT_Error* err = api->PJRT_Event_OnReady(&a);
  if (err != NULL) free(ctx);
  return err;
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
