// The part of the CUDA driver API that HyGASPI calls, declared here in the project's own words:
// the library never includes <cuda.h> and never links libcuda. cuda_driver.cpp loads libcuda.so.1
// at run time and fills a Driver table through cuGetProcAddress, asking for each function at the
// ABI version pinned below, as NVSHMEM and NCCL (up to 2.20) do.
//
// ABI traps this list avoids:
// - the unsuffixed legacy entry points (cuMemAlloc of CUDA 2.0 takes a 32-bit pointer and a
//   32-bit size): every function is asked for by name *and* version, and the version picks the
//   ABI, so "cuMemAlloc" at 3020 is the 64-bit cuMemAlloc_v2;
// - the per-thread-default-stream variants (_ptds, _ptsz): the library uses streams of its own;
// - cuCtxGetDevice changed its arguments in CUDA 13; 2000 pins the one-argument form.
//
// tests/kinds/cuda_api_check.cpp compares every type, constant and function type below with the
// toolkit's cuda.h and cudaTypedefs.h wherever a toolkit is installed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace hygaspi::cuda {

enum CUresult : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_ALREADY_MAPPED = 208,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  CUDA_ERROR_NOT_SUPPORTED = 801,
};

using CUdevice = int;
using CUdeviceptr = unsigned long long;
using cuuint64_t = std::uint64_t;
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;

inline constexpr std::size_t kIpcHandleSize = 64; // CU_IPC_HANDLE_SIZE
struct CUipcMemHandle {
  char reserved[kIpcHandleSize];
};
struct CUuuid {
  char bytes[16];
};

enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
};
enum CUpointer_attribute : int {
  CU_POINTER_ATTRIBUTE_CONTEXT = 1,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6,
  CU_POINTER_ATTRIBUTE_BUFFER_ID = 7,
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE = 10,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};
enum CUmemorytype : int {
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_ARRAY = 3,
  CU_MEMORYTYPE_UNIFIED = 4,
};
enum CUdriverProcAddressQueryResult : int {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_DEFAULT = 0;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
inline constexpr unsigned CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1;
inline constexpr unsigned kMemHostRegisterPortable = 0x1; // CU_MEMHOSTREGISTER_PORTABLE (a macro in cuda.h)

// The two entry points looked up with dlsym: cuGetProcAddress_v2 (CUDA 12.0 on, which reports why
// a symbol is missing) and the four-argument cuGetProcAddress (11.3 on) for older drivers.
using PFN_cuGetProcAddress_v12000 = CUresult (*)(const char *symbol, void **pfn, int driverVersion, cuuint64_t flags,
                                                 CUdriverProcAddressQueryResult *symbolStatus);
using PFN_cuGetProcAddress_v11030 = CUresult (*)(const char *symbol, void **pfn, int driverVersion, cuuint64_t flags);

// X(name, version, function type): every function of the table, asked for at `version`. The
// versions are those of the PFN_<name>_v<version> typedefs in cudaTypedefs.h.
#define HYGASPI_CUDA_FUNCTIONS(X)                                                                                      \
  X(cuInit, 2000, CUresult(unsigned int Flags))                                                                        \
  X(cuDriverGetVersion, 2020, CUresult(int *driverVersion))                                                            \
  X(cuGetErrorName, 6000, CUresult(CUresult error, const char **pStr))                                                 \
  X(cuGetErrorString, 6000, CUresult(CUresult error, const char **pStr))                                               \
  X(cuDeviceGetCount, 2000, CUresult(int *count))                                                                      \
  X(cuDeviceGet, 2000, CUresult(CUdevice *device, int ordinal))                                                        \
  X(cuDeviceGetAttribute, 2000, CUresult(int *pi, CUdevice_attribute attrib, CUdevice dev))                            \
  X(cuDeviceGetUuid, 11040, CUresult(CUuuid *uuid, CUdevice dev))                                                      \
  X(cuDevicePrimaryCtxRetain, 7000, CUresult(CUcontext *pctx, CUdevice dev))                                           \
  X(cuDevicePrimaryCtxRelease, 11000, CUresult(CUdevice dev))                                                          \
  X(cuCtxPushCurrent, 4000, CUresult(CUcontext ctx))                                                                   \
  X(cuCtxPopCurrent, 4000, CUresult(CUcontext *pctx))                                                                  \
  X(cuCtxGetCurrent, 4000, CUresult(CUcontext *pctx))                                                                  \
  X(cuCtxGetDevice, 2000, CUresult(CUdevice *device))                                                                  \
  X(cuMemAlloc, 3020, CUresult(CUdeviceptr *dptr, size_t bytesize))                                                    \
  X(cuMemFree, 3020, CUresult(CUdeviceptr dptr))                                                                       \
  X(cuMemGetAddressRange, 3020, CUresult(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr))                         \
  X(cuMemsetD8, 3020, CUresult(CUdeviceptr dstDevice, unsigned char uc, size_t N))                                     \
  X(cuMemcpy, 4000, CUresult(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount))                                      \
  X(cuMemHostRegister, 6050, CUresult(void *p, size_t bytesize, unsigned int Flags))                                   \
  X(cuMemHostUnregister, 4000, CUresult(void *p))                                                                      \
  X(cuMemcpyAsync, 4000, CUresult(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream))               \
  X(cuMemcpyHtoD, 3020, CUresult(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount))                        \
  X(cuMemcpyDtoH, 3020, CUresult(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount))                              \
  X(cuMemcpyDtoDAsync, 3020,                                                                                           \
    CUresult(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream))                        \
  X(cuStreamCreate, 2000, CUresult(CUstream *phStream, unsigned int Flags))                                            \
  X(cuStreamSynchronize, 2000, CUresult(CUstream hStream))                                                             \
  X(cuStreamQuery, 2000, CUresult(CUstream hStream))                                                                   \
  X(cuStreamDestroy, 4000, CUresult(CUstream hStream))                                                                 \
  X(cuEventCreate, 2000, CUresult(CUevent *phEvent, unsigned int Flags))                                               \
  X(cuEventRecord, 2000, CUresult(CUevent hEvent, CUstream hStream))                                                   \
  X(cuEventQuery, 2000, CUresult(CUevent hEvent))                                                                      \
  X(cuEventSynchronize, 2000, CUresult(CUevent hEvent))                                                                \
  X(cuEventDestroy, 4000, CUresult(CUevent hEvent))                                                                    \
  X(cuIpcGetMemHandle, 4010, CUresult(CUipcMemHandle *pHandle, CUdeviceptr dptr))                                      \
  X(cuIpcOpenMemHandle, 11000, CUresult(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags))                \
  X(cuIpcCloseMemHandle, 4010, CUresult(CUdeviceptr dptr))                                                             \
  X(cuPointerGetAttribute, 4000, CUresult(void *data, CUpointer_attribute attribute, CUdeviceptr ptr))                 \
  X(cuPointerGetAttributes, 7000,                                                                                      \
    CUresult(unsigned int numAttributes, CUpointer_attribute *attributes, void **data, CUdeviceptr ptr))               \
  X(cuPointerSetAttribute, 6000, CUresult(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr))

// The loaded driver: one pointer per function of the list, each of the ABI its version names.
struct Driver {
#define HYGASPI_CUDA_MEMBER(name, version, type) std::add_pointer_t<type> name = nullptr;
  HYGASPI_CUDA_FUNCTIONS(HYGASPI_CUDA_MEMBER)
#undef HYGASPI_CUDA_MEMBER
  int version = 0; // cuDriverGetVersion: 13000 for CUDA 13.0
};

} // namespace hygaspi::cuda
