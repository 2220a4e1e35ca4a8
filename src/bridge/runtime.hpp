// Process-wide state behind the C entry points, and the argument checks they share. The bridge is
// the only layer that knows the transports; today every peer is node-local (shm), and the MPI
// transport will be routed here per peer.
#pragma once
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <PGASPI.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>

#include "core/config.hpp"
#include "core/groups.hpp"
#include "core/knobs.hpp"
#include "core/log.hpp"
#include "core/queues.hpp"
#include "shm/node.hpp"
#include "shm/node_reduce.hpp"

// Each gaspi_X is a weak alias of pgaspi_X (spec §14.2), so a tool library can define gaspi_X,
// do its work and call pgaspi_X.
#define HYGASPI_ALIAS(name) extern "C" decltype(p##name) name __attribute__((weak, alias("p" #name)));

#if defined(HYGASPI_NO_ARG_CHECKS)
#define HYGASPI_CHECKS_ON 0
#else
#define HYGASPI_CHECKS_ON 1
#endif

namespace hygaspi {

struct Runtime {
  std::mutex lifecycle;  // serialises init and term
  std::atomic<bool> initialized{false};
  gaspi_config_t config = default_config();  // proposed before init, granted after
  Knobs knobs;
  std::uint32_t rank = 0;
  std::uint32_t nranks = 1;
  std::chrono::steady_clock::time_point start{};
  shm::Node node;
  shm::NodeReduce reduce;
  QueueTable queues;
  GroupTable groups;
  std::mutex segments;  // serialises segment creation and deletion
};

extern Runtime g_runtime;
inline Runtime& rt() noexcept { return g_runtime; }

// Runs an entry point's body; a stray exception becomes GASPI_ERROR plus a message.
template <class Body>
gaspi_return_t guarded(const char* fn, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    log::error(fn, "internal error: %s", e.what());
  } catch (...) {
    log::error(fn, "internal error");
  }
  return GASPI_ERROR;
}

#define HYGASPI_TRY(expr)                                                                                    \
  do {                                                                                                       \
    gaspi_return_t hygaspi_rc_ = (expr);                                                                     \
    if (hygaspi_rc_ != GASPI_SUCCESS)                                                                        \
      return hygaspi_rc_;                                                                                    \
  } while (0)

// Rejects a call when `cond` is false: logs once with the rank and returns `code`.
#define HYGASPI_CHECK(cond, code, fn, ...)                                                                   \
  do {                                                                                                       \
    if (HYGASPI_CHECKS_ON && __builtin_expect(!(cond), 0)) {                                                 \
      ::hygaspi::log::error(fn, __VA_ARGS__);                                                                \
      return code;                                                                                           \
    }                                                                                                        \
  } while (0)

namespace check {

inline gaspi_return_t init(const char* fn) noexcept {
  if (__builtin_expect(!rt().initialized.load(std::memory_order_acquire), 0)) {
    log::error(fn, "called before gaspi_proc_init or after gaspi_proc_term");
    return GASPI_ERR_NOINIT;
  }
  return GASPI_SUCCESS;
}

inline gaspi_return_t rank(const char* fn, std::uint32_t r) noexcept {
  HYGASPI_CHECK(r < rt().nranks, GASPI_ERR_INV_RANK, fn, "rank %u out of range (job has %u ranks)", r, rt().nranks);
  HYGASPI_CHECK(rt().node.alive(r), GASPI_ERROR, fn, "rank %u is dead", r);
  return GASPI_SUCCESS;
}

inline gaspi_return_t queue(const char* fn, std::uint32_t q) noexcept {
  HYGASPI_CHECK(rt().queues.exists(q), GASPI_ERR_INV_QUEUE, fn, "queue %u does not exist", q);
  return GASPI_SUCCESS;
}

inline gaspi_return_t size(const char* fn, std::uint64_t s) noexcept {
  HYGASPI_CHECK(s > 0 && s <= rt().config.transfer_size_max, GASPI_ERR_INV_COMMSIZE, fn,
                "size %lu outside [1, transfer_size_max=%lu]", static_cast<unsigned long>(s),
                static_cast<unsigned long>(rt().config.transfer_size_max));
  return GASPI_SUCCESS;
}

inline gaspi_return_t segment_id(const char* fn, std::uint32_t seg) noexcept {
  HYGASPI_CHECK(seg < rt().config.segment_max, GASPI_ERR_INV_SEG, fn, "segment id %u >= segment_max %u", seg,
                rt().config.segment_max);
  return GASPI_SUCCESS;
}

inline gaspi_return_t local_segment(const char* fn, std::uint32_t seg, std::uint64_t off, std::uint64_t size,
                                    const shm::MappedSegment*& out) noexcept {
  HYGASPI_TRY(segment_id(fn, seg));
  out = rt().node.local(seg);
  HYGASPI_CHECK(out != nullptr, GASPI_ERR_INV_SEG, fn, "local segment %u does not exist", seg);
  HYGASPI_CHECK(off <= out->size && size <= out->size - off, GASPI_ERR_INV_LOC_OFF, fn,
                "local offset %lu + size %lu beyond segment %u (%lu bytes)", static_cast<unsigned long>(off),
                static_cast<unsigned long>(size), seg, static_cast<unsigned long>(out->size));
  return GASPI_SUCCESS;
}

inline gaspi_return_t remote_segment(const char* fn, std::uint32_t r, std::uint32_t seg, std::uint64_t off,
                                     std::uint64_t size, const shm::MappedSegment*& out) noexcept {
  HYGASPI_TRY(segment_id(fn, seg));
  out = rt().node.lookup(r, seg);
  HYGASPI_CHECK(out != nullptr, GASPI_ERR_INV_SEG, fn, "segment %u of rank %u does not exist", seg, r);
  HYGASPI_CHECK(off <= out->size && size <= out->size - off, GASPI_ERR_INV_REM_OFF, fn,
                "remote offset %lu + size %lu beyond segment %u of rank %u (%lu bytes)",
                static_cast<unsigned long>(off), static_cast<unsigned long>(size), seg, r,
                static_cast<unsigned long>(out->size));
  return GASPI_SUCCESS;
}

inline gaspi_return_t notification(const char* fn, const shm::MappedSegment& seg, std::uint32_t id) noexcept {
  HYGASPI_CHECK(id < seg.notification_num, GASPI_ERR_INV_NOTIF_ID, fn, "notification id %u >= notification_num %u",
                id, seg.notification_num);
  return GASPI_SUCCESS;
}

inline gaspi_return_t list_num(const char* fn, std::uint32_t num) noexcept {
  HYGASPI_CHECK(num > 0 && num <= rt().config.rw_list_elem_max, GASPI_ERR_INV_NUM, fn,
                "list of %u elements outside [1, rw_list_elem_max=%u]", num, rt().config.rw_list_elem_max);
  return GASPI_SUCCESS;
}

template <class T>
inline gaspi_return_t not_null(const char* fn, const T* p, const char* what) noexcept {
  HYGASPI_CHECK(p != nullptr, GASPI_ERR_NULLPTR, fn, "%s is NULL", what);
  return GASPI_SUCCESS;
}

}  // namespace check
}  // namespace hygaspi
