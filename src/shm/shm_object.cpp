#include "shm/shm_object.hpp"

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/limits.hpp"

namespace bip = boost::interprocess;

namespace hygaspi::shm {

struct ShmObject::Impl {
  bip::mapped_region region;
};

void ShmObject::ImplDeleter::operator()(Impl *impl) const noexcept { delete impl; }

ShmObject::ShmObject(ShmObject &&) noexcept = default;
ShmObject &ShmObject::operator=(ShmObject &&) noexcept = default;
ShmObject::~ShmObject() = default;

void ShmObject::reset() noexcept {
  impl_.reset();
  data_ = nullptr;
  size_ = 0;
}

bool page_round(std::uint64_t bytes, std::uint64_t &out) noexcept {
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  std::uint64_t padded = 0;
  if (__builtin_add_overflow(bytes, page - 1, &padded))
    return false;
  out = padded / page * page;
  return true;
}

std::size_t page_round(std::size_t bytes) noexcept {
  std::uint64_t out = 0;
  return page_round(bytes, out) ? out : SIZE_MAX;
}

bool ShmObject::create(const std::string &name, std::size_t bytes, ShmObject &out, std::string &error,
                       const PlaceFn &place, bool *name_taken) {
  if (name_taken != nullptr)
    *name_taken = false;
  bytes = page_round(bytes);
  if (bytes > limits::kMaxObjectBytes) { // also a size page_round saturated
    error = "cannot create shared memory " + name + ": size beyond what a shm object can hold";
    return false;
  }
  try {
    bip::permissions owner_only(0600);
    bip::shared_memory_object object(bip::create_only, name.c_str(), bip::read_write, owner_only);
    int fd = object.get_mapping_handle().handle;
    std::unique_ptr<Impl, ImplDeleter> impl(new Impl);
    if (place) {
      // The pages must not exist yet when `place` sets a memory policy: fallocate allocates them,
      // and the kernel does not move pages that exist. So size, map, place, then reserve.
      object.truncate(static_cast<bip::offset_t>(bytes));
      impl->region = bip::mapped_region(object, bip::read_write, 0, bytes);
      if (!place(impl->region.get_address(), bytes, error)) {
        bip::shared_memory_object::remove(name.c_str());
        return false;
      }
    }
    // posix_fallocate reserves the pages now: a /dev/shm that is too small fails here (ENOSPC),
    // not with SIGBUS at the first store into the mapping.
    if (int rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); rc != 0) {
      error = "cannot reserve " + std::to_string(bytes) + " bytes in /dev/shm for " + name + ": " + std::strerror(rc);
      bip::shared_memory_object::remove(name.c_str());
      return false;
    }
    if (!place)
      impl->region = bip::mapped_region(object, bip::read_write, 0, bytes);
    out.data_ = impl->region.get_address();
    out.size_ = bytes;
    out.impl_ = std::move(impl);
    return true;
  } catch (const bip::interprocess_exception &e) {
    error = "cannot create shared memory " + name + ": " + e.what();
    if (e.get_error_code() == bip::already_exists_error) {
      if (name_taken != nullptr)
        *name_taken = true;
      return false; // not ours: never remove it
    }
    bip::shared_memory_object::remove(name.c_str());
    return false;
  }
}

bool ShmObject::open(const std::string &name, std::size_t bytes, ShmObject &out, std::string &error) {
  bytes = page_round(bytes);
  if (bytes > limits::kMaxObjectBytes) {
    error = "shared memory " + name + ": size beyond what a shm object can hold";
    return false;
  }
  try {
    bip::shared_memory_object object(bip::open_only, name.c_str(), bip::read_write);
    struct stat st {};
    if (fstat(object.get_mapping_handle().handle, &st) != 0 || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      error = "shared memory " + name + " is not this user's own (0600): refused";
      return false;
    }
    bip::offset_t have = 0;
    if (!object.get_size(have) || static_cast<std::size_t>(have) < bytes) {
      error = "shared memory " + name + " is smaller than expected";
      return false;
    }
    std::unique_ptr<Impl, ImplDeleter> impl(new Impl);
    impl->region = bip::mapped_region(object, bip::read_write, 0, bytes);
    out.data_ = impl->region.get_address();
    out.size_ = bytes;
    out.impl_ = std::move(impl);
    return true;
  } catch (const bip::interprocess_exception &e) {
    error = "cannot map shared memory " + name + ": " + e.what();
    return false;
  }
}

void ShmObject::unlink(const std::string &name) noexcept { bip::shared_memory_object::remove(name.c_str()); }

} // namespace hygaspi::shm
