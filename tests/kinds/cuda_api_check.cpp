// Compares the library's own CUDA declarations (src/kinds/cuda_api.hpp) with the toolkit's cuda.h
// and cudaTypedefs.h: every constant's value, every type's layout, and every function's type
// against the PFN_<name>_v<version> typedef of the version the loader asks for. The checks are
// static_asserts: this file compiles only when the declarations agree. Built where a CUDA toolkit
// is installed (tests/CMakeLists.txt); the program then has nothing left to check and says so.
// Ours first: cuda.h then #defines many of the names (cuMemAlloc to cuMemAlloc_v2, ...).
#include "kinds/cuda_api.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdio>
#include <type_traits>

namespace ours = hygaspi::cuda;

namespace {

// Theirs<T>::type: the toolkit's type for one of ours, through pointers, const and function types.
template <class T> struct Theirs {
  using type = T; // int, size_t, char, void, unsigned ...
};
template <class T> struct Theirs<T *> { using type = typename Theirs<T>::type *; };
template <class T> struct Theirs<const T> { using type = const typename Theirs<T>::type; };
template <class R, class... A> struct Theirs<R(A...)> {
  using type = typename Theirs<R>::type CUDAAPI(typename Theirs<A>::type...);
};
template <> struct Theirs<ours::CUresult> { using type = ::CUresult; };
template <> struct Theirs<ours::CUdevice_attribute> { using type = ::CUdevice_attribute; };
template <> struct Theirs<ours::CUpointer_attribute> { using type = ::CUpointer_attribute; };
template <> struct Theirs<ours::CUdriverProcAddressQueryResult> { using type = ::CUdriverProcAddressQueryResult; };
template <> struct Theirs<ours::CUctx_st> { using type = ::CUctx_st; };
template <> struct Theirs<ours::CUstream_st> { using type = ::CUstream_st; };
template <> struct Theirs<ours::CUevent_st> { using type = ::CUevent_st; };
template <> struct Theirs<ours::CUipcMemHandle> { using type = ::CUipcMemHandle; };
template <> struct Theirs<ours::CUuuid> { using type = ::CUuuid; };

// Scalar typedefs are the same types.
static_assert(std::is_same_v<ours::CUdevice, ::CUdevice>);
static_assert(std::is_same_v<ours::CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<ours::cuuint64_t, ::cuuint64_t>);
// Enumerations: same size and sign, and every enumerator we name has their value.
template <class O, class T> constexpr bool same_repr = sizeof(O) == sizeof(T) && alignof(O) == alignof(T);
static_assert(same_repr<ours::CUresult, ::CUresult>);
static_assert(same_repr<ours::CUdevice_attribute, ::CUdevice_attribute>);
static_assert(same_repr<ours::CUpointer_attribute, ::CUpointer_attribute>);
static_assert(same_repr<ours::CUmemorytype, ::CUmemorytype>);
static_assert(same_repr<ours::CUdriverProcAddressQueryResult, ::CUdriverProcAddressQueryResult>);
static_assert(same_repr<ours::CUipcMemHandle, ::CUipcMemHandle>);
static_assert(same_repr<ours::CUuuid, ::CUuuid>);
static_assert(ours::kIpcHandleSize == CU_IPC_HANDLE_SIZE);

#define SAME(name) static_assert(static_cast<long long>(ours::name) == static_cast<long long>(::name), #name)
SAME(CUDA_SUCCESS);
SAME(CUDA_ERROR_INVALID_VALUE);
SAME(CUDA_ERROR_OUT_OF_MEMORY);
SAME(CUDA_ERROR_NOT_INITIALIZED);
SAME(CUDA_ERROR_DEINITIALIZED);
SAME(CUDA_ERROR_STUB_LIBRARY);
SAME(CUDA_ERROR_NO_DEVICE);
SAME(CUDA_ERROR_INVALID_DEVICE);
SAME(CUDA_ERROR_INVALID_CONTEXT);
SAME(CUDA_ERROR_ALREADY_MAPPED);
SAME(CUDA_ERROR_INVALID_HANDLE);
SAME(CUDA_ERROR_NOT_FOUND);
SAME(CUDA_ERROR_NOT_READY);
SAME(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
SAME(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
SAME(CUDA_ERROR_NOT_SUPPORTED);
SAME(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
SAME(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
SAME(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME(CU_POINTER_ATTRIBUTE_CONTEXT);
SAME(CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SAME(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS);
SAME(CU_POINTER_ATTRIBUTE_BUFFER_ID);
SAME(CU_POINTER_ATTRIBUTE_IS_MANAGED);
SAME(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
SAME(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE);
SAME(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
SAME(CU_POINTER_ATTRIBUTE_RANGE_SIZE);
SAME(CU_MEMORYTYPE_HOST);
SAME(CU_MEMORYTYPE_DEVICE);
SAME(CU_MEMORYTYPE_ARRAY);
SAME(CU_MEMORYTYPE_UNIFIED);
SAME(CU_GET_PROC_ADDRESS_SUCCESS);
SAME(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
SAME(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
SAME(CU_GET_PROC_ADDRESS_DEFAULT);
SAME(CU_STREAM_NON_BLOCKING);
SAME(CU_EVENT_DISABLE_TIMING);
SAME(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
static_assert(ours::kMemHostRegisterPortable == CU_MEMHOSTREGISTER_PORTABLE);
#undef SAME

static_assert(std::is_same_v<Theirs<std::remove_pointer_t<ours::PFN_cuGetProcAddress_v12000>>::type *,
                             ::PFN_cuGetProcAddress_v12000>);
static_assert(std::is_same_v<Theirs<std::remove_pointer_t<ours::PFN_cuGetProcAddress_v11030>>::type *,
                             ::PFN_cuGetProcAddress_v11030>);

} // namespace

// Every function of the table has the type of the toolkit's typedef for its pinned version. Inside
// the library's namespace, the macro's type names are the library's own.
#define CHECK(name, version, fn)                                                                                       \
  static_assert(std::is_same_v<::Theirs<fn>::type *, ::PFN_##name##_v##version>, #name " at " #version);
namespace hygaspi::cuda {
HYGASPI_CUDA_FUNCTIONS(CHECK)
} // namespace hygaspi::cuda
#undef CHECK

int main() {
  std::printf("cuda_api_check: the declarations agree with the toolkit's cuda.h %d\n", CUDA_VERSION);
  return 0;
}
