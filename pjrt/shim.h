// The C side of package pjrt: cgo cannot call C function pointers, so every PJRT
// call the package makes goes through one small function here. Each one fills its
// argument struct on the C stack (so no Go pointer is ever stored in C memory),
// calls the plugin's function table and hands results back by value.
//
// The Go side checks that a slot exists (pjrt_has) before it calls a trampoline
// that uses it; the trampolines themselves do not check again.

#ifndef OPENPATHWAYS_PJRT_SHIM_H_
#define OPENPATHWAYS_PJRT_SHIM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

// The function-table slots this package calls, with the minor API version that
// introduced each one (0 = present in every layout since 0.57). The Go constants
// fn* follow the same order; a test checks that the names agree.
#define PJRT_SHIM_FUNCTIONS(X)                         \
  X(PJRT_Error_Destroy, 0)                             \
  X(PJRT_Error_Message, 0)                             \
  X(PJRT_Error_GetCode, 0)                             \
  X(PJRT_Plugin_Initialize, 0)                         \
  X(PJRT_Plugin_Attributes, 0)                         \
  X(PJRT_Event_Destroy, 0)                             \
  X(PJRT_Event_IsReady, 0)                             \
  X(PJRT_Event_Await, 0)                               \
  X(PJRT_Event_OnReady, 0)                             \
  X(PJRT_Client_Create, 0)                             \
  X(PJRT_Client_Destroy, 0)                            \
  X(PJRT_Client_PlatformName, 0)                       \
  X(PJRT_Client_ProcessIndex, 0)                       \
  X(PJRT_Client_PlatformVersion, 0)                    \
  X(PJRT_Client_Devices, 0)                            \
  X(PJRT_Client_AddressableDevices, 0)                 \
  X(PJRT_Client_AddressableMemories, 0)                \
  X(PJRT_Client_Compile, 0)                            \
  X(PJRT_Client_DefaultDeviceAssignment, 0)            \
  X(PJRT_Client_BufferFromHostBuffer, 0)               \
  X(PJRT_DeviceDescription_Id, 0)                      \
  X(PJRT_DeviceDescription_ProcessIndex, 0)            \
  X(PJRT_DeviceDescription_Attributes, 0)              \
  X(PJRT_DeviceDescription_Kind, 0)                    \
  X(PJRT_DeviceDescription_DebugString, 0)             \
  X(PJRT_DeviceDescription_ToString, 0)                \
  X(PJRT_Device_GetDescription, 0)                     \
  X(PJRT_Device_IsAddressable, 0)                      \
  X(PJRT_Device_LocalHardwareId, 0)                    \
  X(PJRT_Device_AddressableMemories, 0)                \
  X(PJRT_Device_DefaultMemory, 0)                      \
  X(PJRT_Memory_Id, 0)                                 \
  X(PJRT_Memory_Kind, 0)                               \
  X(PJRT_Memory_DebugString, 0)                        \
  X(PJRT_Memory_ToString, 0)                           \
  X(PJRT_Memory_AddressableByDevices, 0)               \
  X(PJRT_Executable_Destroy, 0)                        \
  X(PJRT_Executable_Name, 0)                           \
  X(PJRT_Executable_NumReplicas, 0)                    \
  X(PJRT_Executable_NumPartitions, 0)                  \
  X(PJRT_Executable_NumOutputs, 0)                     \
  X(PJRT_Executable_SizeOfGeneratedCodeInBytes, 0)     \
  X(PJRT_Executable_OutputMemoryKinds, 0)              \
  X(PJRT_Executable_Serialize, 0)                      \
  X(PJRT_LoadedExecutable_Destroy, 0)                  \
  X(PJRT_LoadedExecutable_GetExecutable, 0)            \
  X(PJRT_LoadedExecutable_AddressableDevices, 0)       \
  X(PJRT_LoadedExecutable_Execute, 0)                  \
  X(PJRT_Executable_DeserializeAndLoad, 0)             \
  X(PJRT_Buffer_Destroy, 0)                            \
  X(PJRT_Buffer_ElementType, 0)                        \
  X(PJRT_Buffer_Dimensions, 0)                         \
  X(PJRT_Buffer_OnDeviceSizeInBytes, 0)                \
  X(PJRT_Buffer_Device, 0)                             \
  X(PJRT_Buffer_Memory, 0)                             \
  X(PJRT_Buffer_Delete, 0)                             \
  X(PJRT_Buffer_IsDeleted, 0)                          \
  X(PJRT_Buffer_CopyToDevice, 0)                       \
  X(PJRT_Buffer_ToHostBuffer, 0)                       \
  X(PJRT_Buffer_ReadyEvent, 0)                         \
  X(PJRT_TopologyDescription_Create, 0)                \
  X(PJRT_TopologyDescription_Destroy, 0)               \
  X(PJRT_TopologyDescription_PlatformName, 0)          \
  X(PJRT_TopologyDescription_PlatformVersion, 0)       \
  X(PJRT_TopologyDescription_GetDeviceDescriptions, 0) \
  X(PJRT_Compile, 0)                                   \
  X(PJRT_Executable_GetCostAnalysis, 0)                \
  X(PJRT_Executable_OptimizedProgram, 0)               \
  X(PJRT_Executable_OutputElementTypes, 29)            \
  X(PJRT_Executable_OutputDimensions, 29)              \
  X(PJRT_Buffer_CopyToMemory, 32)                      \
  X(PJRT_Executable_Fingerprint, 35)                   \
  X(PJRT_Memory_Kind_Id, 48)                           \
  X(PJRT_LoadedExecutable_GetDeviceAssignment, 79)     \
  X(PJRT_Executable_GetCompileOptions, 87)             \
  X(PJRT_Event_Create, 89)                             \
  X(PJRT_Device_GetAttributes, 92)                     \
  X(PJRT_LoadedExecutable_AddressableDeviceLogicalIds, 96) \
  X(PJRT_Executable_ParameterMemoryKinds, 102)

// Number of entries in PJRT_SHIM_FUNCTIONS.
int pjrt_fn_count(void);
// Name, introducing minor version and byte offset in PJRT_Api of entry i.
const char* pjrt_fn_name(int i);
int pjrt_fn_min_minor(int i);
size_t pjrt_fn_offset(int i);
// Whether api's table reaches slot i (offset + pointer size <= struct_size) and
// the pointer there is not NULL.
bool pjrt_has(const PJRT_Api* api, int i);

// Loading. dlopen(RTLD_NOW|RTLD_LOCAL) + dlsym("GetPjrtApi") + call. On failure
// returns NULL and sets *err to a malloc'ed message the caller frees. The library
// is never closed.
const PJRT_Api* pjrt_load(const char* path, char** err);
// Reads the fixed header of a PJRT_Api: struct_size, major, minor.
void pjrt_api_header(const PJRT_Api* api, size_t* struct_size, int* major,
                     int* minor);

// Errors: code and a malloc'ed copy of the message (caller frees); destroys err.
typedef struct {
  int code;
  char* msg;
  size_t msg_len;
} pjrt_error_info;
pjrt_error_info pjrt_take_error(const PJRT_Api* api, PJRT_Error* err);

// Named values (read side): one flattened entry.
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
// Named values (write side): nvs is a C array the Go side allocated; name and
// string/list payloads are C memory too.
void pjrt_nv_set(PJRT_NamedValue* nvs, size_t i, const char* name,
                 size_t name_size, int type, const char* str, int64_t i64,
                 const int64_t* i64s, float f, bool b, size_t value_size);

// Extension chain: writes up to max extension types into types; returns count.
int pjrt_extension_types(const PJRT_Api* api, int* types, int max);

// Plugin.
PJRT_Error* pjrt_plugin_initialize(const PJRT_Api* api);
typedef struct {
  PJRT_Error* err;
  const PJRT_NamedValue* nvs;
  size_t n;
} pjrt_nvs_result;
pjrt_nvs_result pjrt_plugin_attributes(const PJRT_Api* api);

// Client.
typedef struct {
  PJRT_Error* err;
  void* ptr;
} pjrt_ptr_result;
pjrt_ptr_result pjrt_client_create(const PJRT_Api* api,
                                   const PJRT_NamedValue* opts, size_t n);
PJRT_Error* pjrt_client_destroy(const PJRT_Api* api, PJRT_Client* c);
typedef struct {
  PJRT_Error* err;
  const char* s;
  size_t n;
} pjrt_str_result;
pjrt_str_result pjrt_client_platform_name(const PJRT_Api* api, PJRT_Client* c);
pjrt_str_result pjrt_client_platform_version(const PJRT_Api* api,
                                             PJRT_Client* c);
typedef struct {
  PJRT_Error* err;
  int64_t v;
} pjrt_int_result;
pjrt_int_result pjrt_client_process_index(const PJRT_Api* api, PJRT_Client* c);
typedef struct {
  PJRT_Error* err;
  void* const* ptrs;
  size_t n;
} pjrt_ptrs_result;
// which: 0 devices, 1 addressable devices, 2 addressable memories.
pjrt_ptrs_result pjrt_client_list(const PJRT_Api* api, PJRT_Client* c,
                                  int which);
PJRT_Error* pjrt_client_default_device_assignment(const PJRT_Api* api,
                                                  PJRT_Client* c, int replicas,
                                                  int partitions, int* out,
                                                  size_t out_size);
pjrt_ptr_result pjrt_client_compile(const PJRT_Api* api, PJRT_Client* c,
                                    const void* code, size_t code_size,
                                    const char* format, size_t format_size,
                                    const void* opts, size_t opts_size);
pjrt_ptr_result pjrt_deserialize_and_load(const PJRT_Api* api, PJRT_Client* c,
                                          const void* data, size_t size);

// Devices and memories.
typedef struct {
  PJRT_Error* err;  // first error met; the fields before it are filled
  int id;
  int process_index;
  const char* kind;
  size_t kind_size;
  const char* debug;
  size_t debug_size;
  const char* str;
  size_t str_size;
  const PJRT_NamedValue* attrs;
  size_t num_attrs;
  bool addressable;
  int local_hardware_id;
} pjrt_device_info;
pjrt_device_info pjrt_device_info_get(const PJRT_Api* api, PJRT_Device* d);
// The description part only (addressable false, local_hardware_id -1).
pjrt_device_info pjrt_description_info_get(const PJRT_Api* api,
                                           PJRT_DeviceDescription* desc);
pjrt_ptrs_result pjrt_device_memories(const PJRT_Api* api, PJRT_Device* d);
pjrt_ptr_result pjrt_device_default_memory(const PJRT_Api* api,
                                           PJRT_Device* d);
typedef struct {
  PJRT_Error* err;
  int id;
  const char* kind;
  size_t kind_size;
  const char* debug;
  size_t debug_size;
  const char* str;
  size_t str_size;
  PJRT_Device* const* devices;
  size_t num_devices;
} pjrt_memory_info;
pjrt_memory_info pjrt_memory_info_get(const PJRT_Api* api, PJRT_Memory* m);
pjrt_int_result pjrt_memory_kind_id(const PJRT_Api* api, PJRT_Memory* m);

// Topologies and deviceless compilation.
pjrt_ptr_result pjrt_topology_create(const PJRT_Api* api, const char* name,
                                     size_t name_size,
                                     const PJRT_NamedValue* opts, size_t n);
PJRT_Error* pjrt_topology_destroy(const PJRT_Api* api,
                                  PJRT_TopologyDescription* t);
pjrt_str_result pjrt_topology_platform_name(const PJRT_Api* api,
                                            PJRT_TopologyDescription* t);
pjrt_str_result pjrt_topology_platform_version(const PJRT_Api* api,
                                               PJRT_TopologyDescription* t);
pjrt_ptrs_result pjrt_topology_descriptions(const PJRT_Api* api,
                                            PJRT_TopologyDescription* t);
// PJRT_Compile against a topology (client may be NULL): an unloaded executable.
pjrt_ptr_result pjrt_compile_for_topology(const PJRT_Api* api,
                                          PJRT_TopologyDescription* t,
                                          PJRT_Client* client, const void* code,
                                          size_t code_size, const char* format,
                                          size_t format_size, const void* opts,
                                          size_t opts_size);

// Executables.
pjrt_ptr_result pjrt_loaded_get_executable(const PJRT_Api* api,
                                           PJRT_LoadedExecutable* le);
PJRT_Error* pjrt_loaded_destroy(const PJRT_Api* api, PJRT_LoadedExecutable* le);
PJRT_Error* pjrt_executable_destroy(const PJRT_Api* api, PJRT_Executable* e);
pjrt_ptrs_result pjrt_loaded_addressable_devices(const PJRT_Api* api,
                                                 PJRT_LoadedExecutable* le);
// (replica, partition) of each addressable device, as pairs in ptrs (cast to
// const PJRT_LogicalDeviceIds*).
pjrt_ptrs_result pjrt_loaded_logical_ids(const PJRT_Api* api,
                                         PJRT_LoadedExecutable* le);
pjrt_str_result pjrt_executable_name(const PJRT_Api* api, PJRT_Executable* e);
pjrt_str_result pjrt_executable_fingerprint(const PJRT_Api* api,
                                            PJRT_Executable* e);
// The executable's cost properties (owned by the executable).
pjrt_nvs_result pjrt_executable_cost_analysis(const PJRT_Api* api,
                                              PJRT_Executable* e);
// The size of the optimized program's serialization (code NULL), or the
// program itself written into code (code_size bytes); format is the plugin's.
typedef struct {
  PJRT_Error* err;
  size_t code_size;
  const char* format;
  size_t format_size;
} pjrt_program_result;
pjrt_program_result pjrt_executable_optimized_program(const PJRT_Api* api,
                                                      PJRT_Executable* e,
                                                      char* code,
                                                      size_t code_size);
// which: 0 replicas, 1 partitions, 2 outputs, 3 generated code size.
pjrt_int_result pjrt_executable_count(const PJRT_Api* api, PJRT_Executable* e,
                                      int which);
typedef struct {
  PJRT_Error* err;
  const PJRT_Buffer_Type* types;
  size_t n;
} pjrt_types_result;
pjrt_types_result pjrt_executable_output_types(const PJRT_Api* api,
                                               PJRT_Executable* e);
typedef struct {
  PJRT_Error* err;
  const int64_t* dims;
  const size_t* ranks;
} pjrt_dims_result;
pjrt_dims_result pjrt_executable_output_dims(const PJRT_Api* api,
                                             PJRT_Executable* e,
                                             size_t num_outputs);
typedef struct {
  PJRT_Error* err;
  const char* const* kinds;
  const size_t* sizes;
} pjrt_kinds_result;
// which: 0 outputs, 1 parameters (n is the count the caller expects).
pjrt_kinds_result pjrt_executable_memory_kinds(const PJRT_Api* api,
                                               PJRT_Executable* e, int which,
                                               size_t n);
// Serialized results owned by the plugin: copy bytes out, then call
// pjrt_free_serialized(res).
typedef struct {
  PJRT_Error* err;
  const char* bytes;
  size_t n;
  void* owner;
  void (*deleter)(void*);
} pjrt_bytes_result;
pjrt_bytes_result pjrt_executable_serialize(const PJRT_Api* api,
                                            PJRT_Executable* e);
pjrt_bytes_result pjrt_executable_compile_options(const PJRT_Api* api,
                                                  PJRT_Executable* e);
pjrt_bytes_result pjrt_loaded_device_assignment(const PJRT_Api* api,
                                                PJRT_LoadedExecutable* le);
void pjrt_free_serialized(pjrt_bytes_result r);
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

// Execute. args is num_devices*num_args buffers (row per device), outs receives
// num_devices*num_outputs buffers, events (optional) num_devices events.
PJRT_Error* pjrt_execute(const PJRT_Api* api, PJRT_LoadedExecutable* le,
                         PJRT_Buffer* const* args, size_t num_devices,
                         size_t num_args, PJRT_Buffer** outs,
                         size_t num_outputs, PJRT_Event** events,
                         PJRT_Device* execute_device,
                         const int64_t* non_donatable, size_t num_non_donatable,
                         int launch_id);

// Buffers.
typedef struct {
  PJRT_Error* err;
  PJRT_Buffer* buffer;
  PJRT_Event* done;  // NULL when destroy_done was set
} pjrt_bfh_result;
pjrt_bfh_result pjrt_buffer_from_host(
    const PJRT_Api* api, PJRT_Client* c, const void* data, int type,
    const int64_t* dims, size_t num_dims, const int64_t* strides,
    size_t num_strides, int semantics, PJRT_Device* dev, PJRT_Memory* mem,
    bool destroy_done);
PJRT_Error* pjrt_buffer_destroy(const PJRT_Api* api, PJRT_Buffer* b);
PJRT_Error* pjrt_buffer_delete(const PJRT_Api* api, PJRT_Buffer* b);
typedef struct {
  PJRT_Error* err;
  int type;
  const int64_t* dims;
  size_t num_dims;
  size_t on_device_size;
  PJRT_Device* device;
  PJRT_Memory* memory;  // NULL when the plugin could not say
} pjrt_buffer_info;
pjrt_buffer_info pjrt_buffer_info_get(const PJRT_Api* api, PJRT_Buffer* b,
                                      bool with_memory);
pjrt_int_result pjrt_buffer_is_deleted(const PJRT_Api* api, PJRT_Buffer* b);
pjrt_ptr_result pjrt_buffer_ready_event(const PJRT_Api* api, PJRT_Buffer* b);
// Size in bytes of the host copy (dst == NULL query).
pjrt_int_result pjrt_buffer_host_size(const PJRT_Api* api, PJRT_Buffer* b);
// Starts a copy into dst; returns its event. With wait, also awaits and destroys
// the event inside this call (ptr is then NULL).
pjrt_ptr_result pjrt_buffer_to_host(const PJRT_Api* api, PJRT_Buffer* b,
                                    void* dst, size_t n, bool wait);
pjrt_ptr_result pjrt_buffer_copy_to_device(const PJRT_Api* api, PJRT_Buffer* b,
                                           PJRT_Device* d);
pjrt_ptr_result pjrt_buffer_copy_to_memory(const PJRT_Api* api, PJRT_Buffer* b,
                                           PJRT_Memory* m);

// Events.
PJRT_Error* pjrt_event_destroy(const PJRT_Api* api, PJRT_Event* e);
// Awaits and returns the event's own error (NULL on success).
PJRT_Error* pjrt_event_await(const PJRT_Api* api, PJRT_Event* e);
pjrt_int_result pjrt_event_is_ready(const PJRT_Api* api, PJRT_Event* e);
// Registers a callback that calls the Go function pjrtGoEventReady(handle, code,
// msg, len) once the event is ready (possibly before this returns).
PJRT_Error* pjrt_event_on_ready(const PJRT_Api* api, PJRT_Event* e,
                                uintptr_t handle);

// Helpers for tests and benchmarks.
void pjrt_noop(void);
// Fills handlers[i]/flags[i] with the disposition of signal i+1 (i < n).
void pjrt_signal_snapshot(uintptr_t* handlers, int* flags, int n);

#endif  // OPENPATHWAYS_PJRT_SHIM_H_
