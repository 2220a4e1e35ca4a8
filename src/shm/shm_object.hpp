// A POSIX shared-memory object, created exclusively (O_EXCL, mode 0600) and backed with
// fallocate before it is mapped, so that a full /dev/shm is an error at creation and not a SIGBUS
// at first touch. Built on Boost.Interprocess.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace hygaspi::shm {

class ShmObject {
public:
  ShmObject() = default;
  ShmObject(ShmObject &&) noexcept;
  ShmObject &operator=(ShmObject &&) noexcept;
  ~ShmObject();

  // Creates and maps `bytes` (rounded up to pages). Fails if the name exists or space is short;
  // `error` then says why, and `name_taken` (when given) whether the name existed: such a name
  // belongs to someone else and is left alone.
  // `place`, when given, runs on the mapping before its pages are reserved (NUMA placement,
  // shm/numa.hpp); its false fails the creation.
  using PlaceFn = std::function<bool(void *base, std::size_t bytes, std::string &error)>;
  static bool create(const std::string &name, std::size_t bytes, ShmObject &out, std::string &error,
                     const PlaceFn &place = {}, bool *name_taken = nullptr);
  // Maps an existing object of at least `bytes`. Refuses one that another user owns or that
  // others may write: it cannot be one of ours (we create 0600), so it is a forgery.
  static bool open(const std::string &name, std::size_t bytes, ShmObject &out, std::string &error);
  // Removes the name; the mapping stays valid.
  static void unlink(const std::string &name) noexcept;

  [[nodiscard]] void *data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool mapped() const noexcept { return data_ != nullptr; }
  void reset() noexcept;

private:
  struct Impl;
  struct ImplDeleter {
    void operator()(Impl *impl) const noexcept;
  };
  std::unique_ptr<Impl, ImplDeleter> impl_;
  void *data_ = nullptr;
  std::size_t size_ = 0;
};

// Rounds up to whole pages. False, leaving `out` alone, when the result does not fit 64 bits.
[[nodiscard]] bool page_round(std::uint64_t bytes, std::uint64_t &out) noexcept;
// As above, but a size that does not fit gives SIZE_MAX, which no shm object can have (create
// and open refuse it), so a wrapped size can never become a small mapping.
[[nodiscard]] std::size_t page_round(std::size_t bytes) noexcept;

} // namespace hygaspi::shm
