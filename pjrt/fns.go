package pjrt

// apiFn indexes the function-table slots the package calls, in the order of
// PJRT_SHIM_FUNCTIONS in shim.h (TestFnTableMatchesShim checks that they agree).
type apiFn int

const (
	fnErrorDestroy                                apiFn = iota // PJRT_Error_Destroy, 0.0
	fnErrorMessage                                             // PJRT_Error_Message, 0.0
	fnErrorGetCode                                             // PJRT_Error_GetCode, 0.0
	fnPluginInitialize                                         // PJRT_Plugin_Initialize, 0.0
	fnPluginAttributes                                         // PJRT_Plugin_Attributes, 0.0
	fnEventDestroy                                             // PJRT_Event_Destroy, 0.0
	fnEventIsReady                                             // PJRT_Event_IsReady, 0.0
	fnEventAwait                                               // PJRT_Event_Await, 0.0
	fnEventOnReady                                             // PJRT_Event_OnReady, 0.0
	fnClientCreate                                             // PJRT_Client_Create, 0.0
	fnClientDestroy                                            // PJRT_Client_Destroy, 0.0
	fnClientPlatformName                                       // PJRT_Client_PlatformName, 0.0
	fnClientProcessIndex                                       // PJRT_Client_ProcessIndex, 0.0
	fnClientPlatformVersion                                    // PJRT_Client_PlatformVersion, 0.0
	fnClientDevices                                            // PJRT_Client_Devices, 0.0
	fnClientAddressableDevices                                 // PJRT_Client_AddressableDevices, 0.0
	fnClientAddressableMemories                                // PJRT_Client_AddressableMemories, 0.0
	fnClientCompile                                            // PJRT_Client_Compile, 0.0
	fnClientDefaultDeviceAssignment                            // PJRT_Client_DefaultDeviceAssignment, 0.0
	fnClientBufferFromHostBuffer                               // PJRT_Client_BufferFromHostBuffer, 0.0
	fnDeviceDescriptionID                                      // PJRT_DeviceDescription_Id, 0.0
	fnDeviceDescriptionProcessIndex                            // PJRT_DeviceDescription_ProcessIndex, 0.0
	fnDeviceDescriptionAttributes                              // PJRT_DeviceDescription_Attributes, 0.0
	fnDeviceDescriptionKind                                    // PJRT_DeviceDescription_Kind, 0.0
	fnDeviceDescriptionDebugString                             // PJRT_DeviceDescription_DebugString, 0.0
	fnDeviceDescriptionToString                                // PJRT_DeviceDescription_ToString, 0.0
	fnDeviceGetDescription                                     // PJRT_Device_GetDescription, 0.0
	fnDeviceIsAddressable                                      // PJRT_Device_IsAddressable, 0.0
	fnDeviceLocalHardwareID                                    // PJRT_Device_LocalHardwareId, 0.0
	fnDeviceAddressableMemories                                // PJRT_Device_AddressableMemories, 0.0
	fnDeviceDefaultMemory                                      // PJRT_Device_DefaultMemory, 0.0
	fnMemoryID                                                 // PJRT_Memory_Id, 0.0
	fnMemoryKind                                               // PJRT_Memory_Kind, 0.0
	fnMemoryDebugString                                        // PJRT_Memory_DebugString, 0.0
	fnMemoryToString                                           // PJRT_Memory_ToString, 0.0
	fnMemoryAddressableByDevices                               // PJRT_Memory_AddressableByDevices, 0.0
	fnExecutableDestroy                                        // PJRT_Executable_Destroy, 0.0
	fnExecutableName                                           // PJRT_Executable_Name, 0.0
	fnExecutableNumReplicas                                    // PJRT_Executable_NumReplicas, 0.0
	fnExecutableNumPartitions                                  // PJRT_Executable_NumPartitions, 0.0
	fnExecutableNumOutputs                                     // PJRT_Executable_NumOutputs, 0.0
	fnExecutableSizeOfGeneratedCodeInBytes                     // PJRT_Executable_SizeOfGeneratedCodeInBytes, 0.0
	fnExecutableOutputMemoryKinds                              // PJRT_Executable_OutputMemoryKinds, 0.0
	fnExecutableSerialize                                      // PJRT_Executable_Serialize, 0.0
	fnLoadedExecutableDestroy                                  // PJRT_LoadedExecutable_Destroy, 0.0
	fnLoadedExecutableGetExecutable                            // PJRT_LoadedExecutable_GetExecutable, 0.0
	fnLoadedExecutableAddressableDevices                       // PJRT_LoadedExecutable_AddressableDevices, 0.0
	fnLoadedExecutableExecute                                  // PJRT_LoadedExecutable_Execute, 0.0
	fnExecutableDeserializeAndLoad                             // PJRT_Executable_DeserializeAndLoad, 0.0
	fnBufferDestroy                                            // PJRT_Buffer_Destroy, 0.0
	fnBufferElementType                                        // PJRT_Buffer_ElementType, 0.0
	fnBufferDimensions                                         // PJRT_Buffer_Dimensions, 0.0
	fnBufferOnDeviceSizeInBytes                                // PJRT_Buffer_OnDeviceSizeInBytes, 0.0
	fnBufferDevice                                             // PJRT_Buffer_Device, 0.0
	fnBufferMemory                                             // PJRT_Buffer_Memory, 0.0
	fnBufferDelete                                             // PJRT_Buffer_Delete, 0.0
	fnBufferIsDeleted                                          // PJRT_Buffer_IsDeleted, 0.0
	fnBufferCopyToDevice                                       // PJRT_Buffer_CopyToDevice, 0.0
	fnBufferToHostBuffer                                       // PJRT_Buffer_ToHostBuffer, 0.0
	fnBufferReadyEvent                                         // PJRT_Buffer_ReadyEvent, 0.0
	fnTopologyDescriptionCreate                                // PJRT_TopologyDescription_Create, 0.0
	fnTopologyDescriptionDestroy                               // PJRT_TopologyDescription_Destroy, 0.0
	fnTopologyDescriptionPlatformName                          // PJRT_TopologyDescription_PlatformName, 0.0
	fnTopologyDescriptionPlatformVersion                       // PJRT_TopologyDescription_PlatformVersion, 0.0
	fnTopologyDescriptionGetDeviceDescriptions                 // PJRT_TopologyDescription_GetDeviceDescriptions, 0.0
	fnCompile                                                  // PJRT_Compile, 0.0
	fnExecutableGetCostAnalysis                                // PJRT_Executable_GetCostAnalysis, 0.0
	fnExecutableOptimizedProgram                               // PJRT_Executable_OptimizedProgram, 0.0
	fnExecutableOutputElementTypes                             // PJRT_Executable_OutputElementTypes, 0.29
	fnExecutableOutputDimensions                               // PJRT_Executable_OutputDimensions, 0.29
	fnBufferCopyToMemory                                       // PJRT_Buffer_CopyToMemory, 0.32
	fnExecutableFingerprint                                    // PJRT_Executable_Fingerprint, 0.35
	fnMemoryKindID                                             // PJRT_Memory_Kind_Id, 0.48
	fnLoadedExecutableGetDeviceAssignment                      // PJRT_LoadedExecutable_GetDeviceAssignment, 0.79
	fnExecutableGetCompileOptions                              // PJRT_Executable_GetCompileOptions, 0.87
	fnEventCreate                                              // PJRT_Event_Create, 0.89
	fnDeviceGetAttributes                                      // PJRT_Device_GetAttributes, 0.92
	fnLoadedExecutableAddressableDeviceLogicalIDs              // PJRT_LoadedExecutable_AddressableDeviceLogicalIds, 0.96
	fnExecutableParameterMemoryKinds                           // PJRT_Executable_ParameterMemoryKinds, 0.102
	numFns                                        int   = iota
)

var fnNames = [...]string{
	"PJRT_Error_Destroy",
	"PJRT_Error_Message",
	"PJRT_Error_GetCode",
	"PJRT_Plugin_Initialize",
	"PJRT_Plugin_Attributes",
	"PJRT_Event_Destroy",
	"PJRT_Event_IsReady",
	"PJRT_Event_Await",
	"PJRT_Event_OnReady",
	"PJRT_Client_Create",
	"PJRT_Client_Destroy",
	"PJRT_Client_PlatformName",
	"PJRT_Client_ProcessIndex",
	"PJRT_Client_PlatformVersion",
	"PJRT_Client_Devices",
	"PJRT_Client_AddressableDevices",
	"PJRT_Client_AddressableMemories",
	"PJRT_Client_Compile",
	"PJRT_Client_DefaultDeviceAssignment",
	"PJRT_Client_BufferFromHostBuffer",
	"PJRT_DeviceDescription_Id",
	"PJRT_DeviceDescription_ProcessIndex",
	"PJRT_DeviceDescription_Attributes",
	"PJRT_DeviceDescription_Kind",
	"PJRT_DeviceDescription_DebugString",
	"PJRT_DeviceDescription_ToString",
	"PJRT_Device_GetDescription",
	"PJRT_Device_IsAddressable",
	"PJRT_Device_LocalHardwareId",
	"PJRT_Device_AddressableMemories",
	"PJRT_Device_DefaultMemory",
	"PJRT_Memory_Id",
	"PJRT_Memory_Kind",
	"PJRT_Memory_DebugString",
	"PJRT_Memory_ToString",
	"PJRT_Memory_AddressableByDevices",
	"PJRT_Executable_Destroy",
	"PJRT_Executable_Name",
	"PJRT_Executable_NumReplicas",
	"PJRT_Executable_NumPartitions",
	"PJRT_Executable_NumOutputs",
	"PJRT_Executable_SizeOfGeneratedCodeInBytes",
	"PJRT_Executable_OutputMemoryKinds",
	"PJRT_Executable_Serialize",
	"PJRT_LoadedExecutable_Destroy",
	"PJRT_LoadedExecutable_GetExecutable",
	"PJRT_LoadedExecutable_AddressableDevices",
	"PJRT_LoadedExecutable_Execute",
	"PJRT_Executable_DeserializeAndLoad",
	"PJRT_Buffer_Destroy",
	"PJRT_Buffer_ElementType",
	"PJRT_Buffer_Dimensions",
	"PJRT_Buffer_OnDeviceSizeInBytes",
	"PJRT_Buffer_Device",
	"PJRT_Buffer_Memory",
	"PJRT_Buffer_Delete",
	"PJRT_Buffer_IsDeleted",
	"PJRT_Buffer_CopyToDevice",
	"PJRT_Buffer_ToHostBuffer",
	"PJRT_Buffer_ReadyEvent",
	"PJRT_TopologyDescription_Create",
	"PJRT_TopologyDescription_Destroy",
	"PJRT_TopologyDescription_PlatformName",
	"PJRT_TopologyDescription_PlatformVersion",
	"PJRT_TopologyDescription_GetDeviceDescriptions",
	"PJRT_Compile",
	"PJRT_Executable_GetCostAnalysis",
	"PJRT_Executable_OptimizedProgram",
	"PJRT_Executable_OutputElementTypes",
	"PJRT_Executable_OutputDimensions",
	"PJRT_Buffer_CopyToMemory",
	"PJRT_Executable_Fingerprint",
	"PJRT_Memory_Kind_Id",
	"PJRT_LoadedExecutable_GetDeviceAssignment",
	"PJRT_Executable_GetCompileOptions",
	"PJRT_Event_Create",
	"PJRT_Device_GetAttributes",
	"PJRT_LoadedExecutable_AddressableDeviceLogicalIds",
	"PJRT_Executable_ParameterMemoryKinds",
}

var fnMinors = [...]int{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 29, 29, 32, 35, 48, 79, 87, 89, 92, 96, 102,
}
