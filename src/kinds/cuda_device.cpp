#include "kinds/cuda_device.hpp"

#include <cstdio>

#include <unistd.h>

namespace hygaspi::kinds {

using namespace hygaspi::cuda;

namespace {

CUdeviceptr dptr(const void *p) noexcept { return reinterpret_cast<CUdeviceptr>(p); }

} // namespace

// The primary context made current for the scope, the caller's restored after it (a pop gives
// back whatever was current before the push, the client's context or none).
class CudaDevice::Scope {
public:
  explicit Scope(const CudaDevice &dev) : d_(dev.d_) { ok_ = d_.cuCtxPushCurrent(dev.context_) == CUDA_SUCCESS; }
  ~Scope() {
    if (ok_) {
      CUcontext popped = nullptr;
      (void)d_.cuCtxPopCurrent(&popped);
    }
  }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
  [[nodiscard]] bool ok() const noexcept { return ok_; }

private:
  const Driver &d_;
  bool ok_ = false;
};

std::unique_ptr<CudaDevice> CudaDevice::open(const std::string &library, int ordinal, std::string &why) {
  const Driver *d = cuda::load(library, why);
  if (d == nullptr)
    return nullptr;
  int count = 0;
  if (const CUresult r = d->cuDeviceGetCount(&count); r != CUDA_SUCCESS) {
    why = "cuDeviceGetCount: " + describe(d, r);
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= count) {
    why = "CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " devices)";
    return nullptr;
  }
  std::unique_ptr<CudaDevice> dev(new CudaDevice(*d, ordinal));
  if (const CUresult r = d->cuDeviceGet(&dev->device_, ordinal); r != CUDA_SUCCESS) {
    why = "cuDeviceGet: " + describe(d, r);
    return nullptr;
  }
  int uva = 0;
  if (const CUresult r = d->cuDeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev->device_);
      r != CUDA_SUCCESS || uva == 0) {
    why = r != CUDA_SUCCESS ? "cuDeviceGetAttribute: " + describe(d, r)
                            : "CUDA device " + std::to_string(ordinal) + " has no unified addressing";
    return nullptr;
  }
  if (const CUresult r = d->cuDevicePrimaryCtxRetain(&dev->context_, dev->device_); r != CUDA_SUCCESS) {
    dev->context_ = nullptr;
    why = "cuDevicePrimaryCtxRetain: " + describe(d, r);
    return nullptr;
  }
  Scope scope(*dev);
  if (!scope.ok()) {
    why = "cuCtxPushCurrent failed on the primary context";
    return nullptr;
  }
  if (const CUresult r = d->cuStreamCreate(&dev->stream_, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS) {
    dev->stream_ = nullptr;
    why = "cuStreamCreate: " + describe(d, r);
    return nullptr;
  }
  return dev;
}

CudaDevice::~CudaDevice() {
  if (context_ == nullptr)
    return;
  {
    Scope scope(*this);
    for (auto &[owner, imp] : imports_)
      (void)d_.cuIpcCloseMemHandle(dptr(imp.base));
    for (CUevent e : events_)
      (void)d_.cuEventDestroy(e);
    if (stream_ != nullptr)
      (void)d_.cuStreamDestroy(stream_);
  }
  (void)d_.cuDevicePrimaryCtxRelease(device_);
}

Fail CudaDevice::allocate(std::size_t n, void *&out, std::string &why) {
  Scope scope(*this);
  CUdeviceptr p = 0;
  if (const CUresult r = d_.cuMemAlloc(&p, n); r != CUDA_SUCCESS) {
    why = "cuMemAlloc of " + std::to_string(n) + " bytes: " + describe(&d_, r);
    return r == CUDA_ERROR_OUT_OF_MEMORY ? Fail::resource : Fail::bad_arg;
  }
  const unsigned one = 1;
  (void)d_.cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p);
  out = reinterpret_cast<void *>(p);
  return Fail::none;
}

void CudaDevice::release(void *p) noexcept {
  Scope scope(*this);
  (void)d_.cuMemFree(dptr(p));
}

bool CudaDevice::pin(void *p, std::size_t n, std::string &why) {
  Scope scope(*this);
  if (!scope.ok()) {
    why = "cuCtxPushCurrent failed on the primary context";
    return false;
  }
  if (const CUresult r = d_.cuMemHostRegister(p, n, kMemHostRegisterPortable); r != CUDA_SUCCESS) {
    why = "cuMemHostRegister of " + std::to_string(n) + " bytes: " + describe(&d_, r);
    return false;
  }
  return true;
}

Fail CudaDevice::check_client(const void *p, std::size_t n, std::string &why) {
  Scope scope(*this);
  unsigned memory_type = 0, managed = 0;
  int ordinal = -1;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void *values[] = {&memory_type, &managed, &ordinal};
  if (const CUresult r = d_.cuPointerGetAttributes(3, attrs, values, dptr(p)); r != CUDA_SUCCESS) {
    why = "cuPointerGetAttributes: " + describe(&d_, r);
    return Fail::bad_arg;
  }
  if (memory_type != CU_MEMORYTYPE_DEVICE || managed != 0) {
    why = "is not device memory of the CUDA driver (or is managed memory)";
    return Fail::bad_arg;
  }
  if (ordinal != ordinal_) {
    why = "is memory of CUDA device " + std::to_string(ordinal) + ", not of the kind's device " +
          std::to_string(ordinal_);
    return Fail::bad_arg;
  }
  CUdeviceptr base = 0;
  std::size_t size = 0;
  if (const CUresult r = d_.cuMemGetAddressRange(&base, &size, dptr(p)); r != CUDA_SUCCESS) {
    why = "cuMemGetAddressRange: " + describe(&d_, r);
    return Fail::bad_arg;
  }
  if (n > size - (dptr(p) - base)) {
    char at[32];
    std::snprintf(at, sizeof at, "%#llx", static_cast<unsigned long long>(base));
    why = std::string("runs past the end of its allocation [") + at + ", +" + std::to_string(size) + ")";
    return Fail::bad_arg;
  }
  return Fail::none;
}

bool CudaDevice::is_device_memory(const void *p) {
  Scope scope(*this);
  unsigned memory_type = 0, managed = 0;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *values[] = {&memory_type, &managed};
  return d_.cuPointerGetAttributes(2, attrs, values, dptr(p)) == CUDA_SUCCESS && memory_type == CU_MEMORYTYPE_DEVICE &&
         managed == 0;
}

bool CudaDevice::export_key(const void *p, IpcKey &key, std::string &why) {
  Scope scope(*this);
  CUdeviceptr base = 0;
  std::size_t size = 0;
  unsigned long long buffer_id = 0;
  if (const CUresult r = d_.cuMemGetAddressRange(&base, &size, dptr(p)); r != CUDA_SUCCESS) {
    why = "cuMemGetAddressRange: " + describe(&d_, r);
    return false;
  }
  if (const CUresult r = d_.cuPointerGetAttribute(&buffer_id, CU_POINTER_ATTRIBUTE_BUFFER_ID, base);
      r != CUDA_SUCCESS) {
    why = "cuPointerGetAttribute(BUFFER_ID): " + describe(&d_, r);
    return false;
  }
  if (const CUresult r = d_.cuIpcGetMemHandle(&key.handle, base); r != CUDA_SUCCESS) {
    why = "cuIpcGetMemHandle: " + describe(&d_, r);
    return false;
  }
  key.owner_pid = static_cast<std::int32_t>(getpid());
  key.device_ordinal = static_cast<std::uint32_t>(ordinal_);
  key.buffer_id = buffer_id;
  key.owner_base = base;
  key.offset = dptr(p) - base;
  key.alloc_size = size;
  return true;
}

void *CudaDevice::import(const IpcKey &key, std::string &why) {
  if (key.owner_pid == static_cast<std::int32_t>(getpid())) // the driver opens no handle of its own process
    return reinterpret_cast<char *>(key.owner_base) + key.offset;
  std::lock_guard<std::mutex> g(lock_);
  Scope scope(*this);
  Imported &imp = imports_[{key.owner_pid, key.owner_base}];
  if (imp.base != nullptr && imp.buffer_id != key.buffer_id) { // a new allocation at a reused address
    (void)d_.cuStreamSynchronize(stream_);                     // as in unimport: no copy of ours still uses the old one
    (void)d_.cuIpcCloseMemHandle(dptr(imp.base));
    imp = Imported{};
  }
  if (imp.base == nullptr) {
    CUdeviceptr p = 0;
    if (const CUresult r = d_.cuIpcOpenMemHandle(&p, key.handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
        r != CUDA_SUCCESS) {
      imports_.erase({key.owner_pid, key.owner_base});
      why = "cuIpcOpenMemHandle of process " + std::to_string(key.owner_pid) + "'s memory: " + describe(&d_, r);
      return nullptr;
    }
    imp.base = reinterpret_cast<void *>(p);
    imp.buffer_id = key.buffer_id;
  }
  ++imp.refs;
  return static_cast<char *>(imp.base) + key.offset;
}

void CudaDevice::unimport(const IpcKey &key) noexcept {
  if (key.owner_pid == static_cast<std::int32_t>(getpid()))
    return;
  std::lock_guard<std::mutex> g(lock_);
  auto it = imports_.find({key.owner_pid, key.owner_base});
  if (it == imports_.end() || it->second.buffer_id != key.buffer_id || --it->second.refs > 0)
    return;
  Scope scope(*this);
  // A copy of this process through the mapping may still run on the stream (a client that let
  // go of a segment with a copy in flight): it ends before the mapping does.
  (void)d_.cuStreamSynchronize(stream_);
  (void)d_.cuIpcCloseMemHandle(dptr(it->second.base));
  imports_.erase(it);
}

bool CudaDevice::start_copy(void *dst, const void *src, std::size_t n, Copy &copy, std::string &why) {
  std::lock_guard<std::mutex> g(lock_);
  Scope scope(*this);
  if (events_.empty()) {
    CUevent e = nullptr;
    if (const CUresult r = d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING); r != CUDA_SUCCESS) {
      why = "cuEventCreate: " + describe(&d_, r);
      return false;
    }
    events_.push_back(e);
  }
  if (const CUresult r = d_.cuMemcpyAsync(dptr(dst), dptr(src), n, stream_); r != CUDA_SUCCESS) {
    why = "cuMemcpyAsync of " + std::to_string(n) + " bytes: " + describe(&d_, r);
    return false;
  }
  copy.event = events_.back();
  if (const CUresult r = d_.cuEventRecord(copy.event, stream_); r != CUDA_SUCCESS) {
    copy.event = nullptr;
    why = "cuEventRecord: " + describe(&d_, r);
    return false;
  }
  events_.pop_back();
  return true;
}

bool CudaDevice::test(Copy &copy, std::string &why) {
  if (copy.event == nullptr)
    return true;
  std::lock_guard<std::mutex> g(lock_);
  Scope scope(*this);
  const CUresult r = d_.cuEventQuery(copy.event);
  if (r == CUDA_ERROR_NOT_READY)
    return false;
  if (r != CUDA_SUCCESS)
    why = "cuEventQuery: " + describe(&d_, r);
  events_.push_back(copy.event);
  copy.event = nullptr;
  return true;
}

} // namespace hygaspi::kinds
