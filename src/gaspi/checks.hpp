// The argument checks and the entry-point frame shared by the GASPI front end (src/gaspi): the
// weak pgaspi_X aliases, guarded(), HYGASPI_CHECK/HYGASPI_TRY, InFlight and the check:: functions.
#pragma once
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <PGASPI.h>

#include <exception>
#include <mutex>

#include "core/status.hpp"

#include "bridge/engine.hpp"
#include "bridge/target.hpp"
#include "gaspi/calls.hpp"
#include "gaspi/state.hpp"
#include "core/log.hpp"

// Each gaspi_X is a weak alias of pgaspi_X (spec §14.2), so a tool library can define gaspi_X,
// do its work and call pgaspi_X.
#define HYGASPI_ALIAS(name) extern "C" decltype(p##name) name __attribute__((weak, alias("p" #name)));

#if defined(HYGASPI_NO_ARG_CHECKS)
#define HYGASPI_CHECKS_ON 0
#else
#define HYGASPI_CHECKS_ON 1
#endif

namespace hygaspi {

// Takes a per-group or per-queue lock for a blocking call. GASPI_TEST only tries: another thread
// in the same call means "not done yet", so the caller returns GASPI_TIMEOUT.
template <class Mutex> [[nodiscard]] bool lock_for(std::unique_lock<Mutex> &lock, gaspi_timeout_t timeout) {
  if (timeout == GASPI_TEST)
    return lock.try_lock();
  lock.lock();
  return true;
}

// Runs an entry point's body under the call's name (log::CallScope: every message of the call,
// its callees' too, carries it); a stray exception becomes GASPI_ERROR plus a message.
template <class Body> gaspi_return_t guarded(const char *call, Body &&body) noexcept {
  log::CallScope scope(call);
  calls::Frame frame; // the call stops counting (check::init) when it returns
  try {
    return body();
  } catch (const std::exception &e) {
    log::error("internal error: %s", e.what());
  } catch (...) {
    log::error("internal error");
  }
  return GASPI_ERROR;
}

// Rejects a call when `cond` is false: logs once with the rank and returns `code`.
#define HYGASPI_CHECK(cond, code, ...)                                                                                 \
  do {                                                                                                                 \
    if (HYGASPI_CHECKS_ON && __builtin_expect(!(cond), 0)) {                                                           \
      ::hygaspi::log::error(__VA_ARGS__);                                                                              \
      return code;                                                                                                     \
    }                                                                                                                  \
  } while (0)

// A call that may block counts itself for its whole duration in its thread's word of the call gate
// (gaspi/calls.hpp), as every other call does, and can stop counting before it returns (leave).
// gaspi_proc_term in another thread rings the doorbell, so that a waiting call returns, and waits
// until it has left before unmapping what it uses (docs/DESIGN.md "Failures").
// Use it instead of check::init: `InFlight call; HYGASPI_TRY(call.status());`.
class InFlight {
public:
  InFlight() noexcept : before_(calls::mine().calls) {
    calls::enter();
    if (__builtin_expect(!gaspi::state().initialized.load(std::memory_order_acquire), 0)) {
      log::error("called before gaspi_proc_init or after gaspi_proc_term");
      status_ = GASPI_ERR_NOINIT;
    }
  }
  ~InFlight() { leave(); }
  InFlight(const InFlight &) = delete;
  InFlight &operator=(const InFlight &) = delete;
  [[nodiscard]] gaspi_return_t status() const noexcept { return status_; }
  // The call no longer counts: gaspi_proc_term stops waiting for it.
  void leave() noexcept {
    if (!left_)
      calls::restore(before_);
    left_ = true;
  }

private:
  unsigned before_;
  gaspi_return_t status_ = GASPI_SUCCESS;
  bool left_ = false;
};

namespace check {

// Counts the call until guarded() returns (gaspi/calls.hpp), then reads whether GASPI is up.
inline gaspi_return_t init() noexcept {
  calls::enter();
  if (__builtin_expect(!gaspi::state().initialized.load(std::memory_order_acquire), 0)) {
    log::error("called before gaspi_proc_init or after gaspi_proc_term");
    return GASPI_ERR_NOINIT;
  }
  return GASPI_SUCCESS;
}

// The rank's range; dead or alive.
inline gaspi_return_t rank_range(std::uint32_t r) noexcept {
  HYGASPI_CHECK(r < engine::size(), GASPI_ERR_INV_RANK, "rank %u out of range (job has %u ranks)", r, engine::size());
  return GASPI_SUCCESS;
}

// The rank's range, and that this rank does not know it dead.
inline gaspi_return_t rank(std::uint32_t r) noexcept {
  HYGASPI_TRY(rank_range(r));
  HYGASPI_CHECK(engine::alive(GlobalRank{r}), GASPI_ERROR, "rank %u is dead", r);
  return GASPI_SUCCESS;
}

inline gaspi_return_t queue(std::uint32_t q) noexcept {
  HYGASPI_CHECK(gaspi::state().queues.exists(q), GASPI_ERR_INV_QUEUE, "queue %u does not exist", q);
  return GASPI_SUCCESS;
}

// Size 0 is a valid no-op transfer (as GPI-2): it takes its queue entries, and a notification
// posted with or after it keeps its order.
inline gaspi_return_t size(std::uint64_t s) noexcept {
  HYGASPI_CHECK(s <= gaspi::state().config.transfer_size_max, GASPI_ERR_INV_COMMSIZE,
                "size %lu above transfer_size_max=%lu", static_cast<unsigned long>(s),
                static_cast<unsigned long>(gaspi::state().config.transfer_size_max));
  return GASPI_SUCCESS;
}

inline gaspi_return_t segment_id(std::uint32_t seg) noexcept {
  HYGASPI_CHECK(seg < gaspi::state().config.segment_max, GASPI_ERR_INV_SEG, "segment id %u >= segment_max %u", seg,
                gaspi::state().config.segment_max);
  return GASPI_SUCCESS;
}

inline gaspi_return_t local_segment(std::uint32_t seg, std::uint64_t off, std::uint64_t size,
                                    const SegmentView *&out) noexcept {
  HYGASPI_TRY(segment_id(seg));
  out = engine::local_segment(seg);
  HYGASPI_CHECK(out != nullptr, GASPI_ERR_INV_SEG, "local segment %u does not exist", seg);
  HYGASPI_CHECK(off <= out->size && size <= out->size - off, GASPI_ERR_INV_LOC_OFF,
                "local offset %lu + size %lu beyond segment %u (%lu bytes)", static_cast<unsigned long>(off),
                static_cast<unsigned long>(size), seg, static_cast<unsigned long>(out->size));
  return GASPI_SUCCESS;
}

// Local segment `seg` (from local_segment) holds host memory: `what` cannot reach device memory.
inline gaspi_return_t host_segment(std::uint32_t seg, const SegmentView &view, const char *what) noexcept {
  HYGASPI_CHECK(view.host_mapped(), GASPI_ERROR, "local segment %u is CUDA device memory, which %s cannot reach", seg,
                what);
  return GASPI_SUCCESS;
}

} // namespace check

namespace check {

// Segment `seg` of rank `r` (range checked), resolved once for the call's data operations
// (bridge/target.hpp), with [off, off + size) inside it.
inline gaspi_return_t remote_segment(std::uint32_t r, std::uint32_t seg, std::uint64_t off, std::uint64_t size,
                                     engine::Target &out) noexcept {
  HYGASPI_TRY(segment_id(seg));
  const engine::Found found = engine::find(GlobalRank{r}, seg, out);
  HYGASPI_CHECK(found != engine::Found::absent, GASPI_ERR_INV_SEG, "segment %u of rank %u does not exist", seg, r);
  HYGASPI_CHECK(found != engine::Found::not_registered, GASPI_ERR_INV_SEG,
                "segment %u of rank %u is not registered with this rank", seg, r);
  HYGASPI_CHECK(off <= out.size() && size <= out.size() - off, GASPI_ERR_INV_REM_OFF,
                "remote offset %lu + size %lu beyond segment %u of rank %u (%lu bytes)",
                static_cast<unsigned long>(off), static_cast<unsigned long>(size), seg, r,
                static_cast<unsigned long>(out.size()));
  return GASPI_SUCCESS;
}

inline gaspi_return_t notification(std::uint32_t notification_num, std::uint32_t id) noexcept {
  HYGASPI_CHECK(id < notification_num, GASPI_ERR_INV_NOTIF_ID, "notification id %u >= notification_num %u", id,
                notification_num);
  return GASPI_SUCCESS;
}

inline gaspi_return_t list_num(std::uint32_t num) noexcept {
  HYGASPI_CHECK(num > 0 && num <= gaspi::state().config.rw_list_elem_max, GASPI_ERR_INV_NUM,
                "list of %u elements outside [1, rw_list_elem_max=%u]", num, gaspi::state().config.rw_list_elem_max);
  return GASPI_SUCCESS;
}

template <class T> inline gaspi_return_t not_null(const T *p, const char *what) noexcept {
  HYGASPI_CHECK(p != nullptr, GASPI_ERR_NULLPTR, "%s is NULL", what);
  return GASPI_SUCCESS;
}

} // namespace check

} // namespace hygaspi
