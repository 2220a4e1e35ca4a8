// Queues and completion (spec §8.2.3 gaspi_wait, §8.5) and the notification calls of the
// receiving side (spec §8.3.3 gaspi_notify_waitsome, §8.3.4 gaspi_notify_reset).
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "bridge/failures.hpp"
#include "gaspi/checks.hpp"
#include "gaspi/fast_path.hpp"
#include "core/statistics.hpp"

using namespace hygaspi;

namespace {

// Completes what was posted to `q` before this call (device copies left on the queue, MPI
// transfers: engine::flush) and drops its entries; node-local host transfers completed when
// posted. A request that went to a rank known dead fails gaspi_wait (`purge`: dropped silently).
gaspi_return_t drain(gaspi_queue_id_t q, gaspi_timeout_t timeout, bool purge) {
  HYGASPI_TRY(check::init());
  HYGASPI_TRY(check::queue(q));
  Queue &queue = gaspi::state().queues[q];
  std::unique_lock lock(queue.waiting, std::defer_lock);
  if (!lock_for(lock, timeout))
    return GASPI_TIMEOUT;
  const std::uint64_t posted = queue.posted.load(std::memory_order_acquire);
  HYGASPI_TRY(engine::flush(q, timeout)); // device copies within the timeout
  gaspi::state().queues.release_to(q, posted);
  if (const std::uint32_t dead = queue.dead_target.exchange(0, std::memory_order_acq_rel); dead != 0 && !purge) {
    log::error("queue %u held a request to rank %u, which is dead: it was not carried out", static_cast<unsigned>(q),
               dead - 1);
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_wait(const gaspi_queue_id_t queue, const gaspi_timeout_t timeout) {
  return guarded("gaspi_wait", [&] {
    stats::Timer timer(stats::wait_us);
    return drain(queue, timeout, false);
  });
}

gaspi_return_t pgaspi_queue_purge(const gaspi_queue_id_t queue, const gaspi_timeout_t timeout) {
  return guarded("gaspi_queue_purge", [&] {
    HYGASPI_TRY(drain(queue, timeout, true));
    acknowledge_deaths(); // spec §8.5.3: purge is the answer to a detected failure
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_queue_size(const gaspi_queue_id_t queue, gaspi_number_t *const queue_size) {
  return guarded("gaspi_queue_size", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    HYGASPI_TRY(check::not_null(queue_size, "queue_size"));
    // One oversized post into an empty queue may hold more entries than gaspi_number_t counts.
    *queue_size =
        static_cast<gaspi_number_t>(std::min<std::uint64_t>(gaspi::state().queues[queue].outstanding(), UINT32_MAX));
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_queue_create(gaspi_queue_id_t *const queue, const gaspi_timeout_t) {
  return guarded("gaspi_queue_create", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(queue, "queue"));
    std::uint32_t q = gaspi::state().queues.create();
    HYGASPI_CHECK(q < limits::kMaxQueues, GASPI_ERROR, "all %u queues exist (gaspi_queue_max)", limits::kMaxQueues);
    *queue = static_cast<gaspi_queue_id_t>(q);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_queue_delete(const gaspi_queue_id_t queue) {
  return guarded("gaspi_queue_delete", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    Queue &q = gaspi::state().queues[queue];
    std::lock_guard lock(q.waiting);
    HYGASPI_CHECK(q.outstanding() == 0, GASPI_ERROR, "queue %u still holds %lu posted requests; call gaspi_wait first",
                  queue, static_cast<unsigned long>(q.outstanding()));
    gaspi::state().queues.destroy(queue);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_notify_waitsome(const gaspi_segment_id_t segment_id_local,
                                      const gaspi_notification_id_t notification_begin, const gaspi_number_t num,
                                      gaspi_notification_id_t *const first_id, const gaspi_timeout_t timeout) {
  // Fast path: one look at valid arguments (as check::init, like any non-blocking call), before
  // the InFlight registration and the timer that only a call that waits needs.
  {
    calls::Section in;
    if (const SegmentView *seg = fast::local_segment(segment_id_local, 0, 0);
        seg != nullptr && first_id != nullptr && num != 0 && notification_begin < seg->notification_num &&
        num <= seg->notification_num - notification_begin && !stats::active(2)) [[likely]] {
      const std::uint32_t *const first = seg->notifications + notification_begin;
      for (gaspi_number_t i = 0; i < num; ++i)
        if (std::atomic_ref<const std::uint32_t>(first[i]).load(std::memory_order_acquire) != 0) {
          *first_id = notification_begin + i;
          return GASPI_SUCCESS;
        }
    }
  }
  return guarded("gaspi_notify_waitsome", [&] {
    stats::Timer timer(stats::notify_wait_us);
    InFlight call;
    HYGASPI_TRY(call.status());
    HYGASPI_TRY(check::not_null(first_id, "first_id"));
    const SegmentView *seg = nullptr;
    HYGASPI_TRY(check::local_segment(segment_id_local, 0, 0, seg));
    // spec §8.3.3: with num 0 there is nothing to wait for; return at once (as GPI-2).
    if (num == 0)
      return GASPI_SUCCESS;
    HYGASPI_CHECK(notification_begin < seg->notification_num && num <= seg->notification_num - notification_begin,
                  GASPI_ERR_INV_NOTIF_ID, "notifications [%u, %u + %u) beyond notification_num %u", notification_begin,
                  notification_begin, num, seg->notification_num);
    std::uint32_t *const first = seg->notifications + notification_begin;
    // spec §8.3.3: returns once at least one notification in the range is non-zero. Acquire
    // loads pair with the notifier's store, so the data written before it is visible now.
    auto found = [&] {
      for (gaspi_number_t i = 0; i < num; ++i)
        if (std::atomic_ref<std::uint32_t>(first[i]).load(std::memory_order_acquire) != 0) {
          *first_id = notification_begin + i;
          return true;
        }
      return false;
    };
    // Any rank may notify, so no partner is known: bridge/failures.hpp says when GASPI_BLOCK fails.
    return await_any_partner(found, timeout, false, [] {});
  });
}

gaspi_return_t pgaspi_notify_reset(const gaspi_segment_id_t segment_id_local,
                                   const gaspi_notification_id_t notification_id,
                                   gaspi_notification_t *const old_notification_val) {
  {
    calls::Section in;
    if (const SegmentView *seg = fast::local_segment(segment_id_local, 0, 0);
        seg != nullptr && notification_id < seg->notification_num) [[likely]] {
      const gaspi_notification_t old =
          std::atomic_ref<std::uint32_t>(seg->notifications[notification_id]).exchange(0, std::memory_order_acq_rel);
      if (old_notification_val != nullptr)
        *old_notification_val = old;
      return GASPI_SUCCESS;
    }
  }
  return guarded("gaspi_notify_reset", [&] {
    HYGASPI_TRY(check::init());
    const SegmentView *seg = nullptr;
    HYGASPI_TRY(check::local_segment(segment_id_local, 0, 0, seg));
    HYGASPI_TRY(check::notification(seg->notification_num, notification_id));
    // An atomic exchange: of several threads resetting one id, exactly one gets the value.
    gaspi_notification_t old =
        std::atomic_ref<std::uint32_t>(seg->notifications[notification_id]).exchange(0, std::memory_order_acq_rel);
    if (old_notification_val != nullptr)
      *old_notification_val = old;
    return GASPI_SUCCESS;
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_wait)
HYGASPI_ALIAS(gaspi_queue_purge)
HYGASPI_ALIAS(gaspi_queue_size)
HYGASPI_ALIAS(gaspi_queue_create)
HYGASPI_ALIAS(gaspi_queue_delete)
HYGASPI_ALIAS(gaspi_notify_waitsome)
HYGASPI_ALIAS(gaspi_notify_reset)
