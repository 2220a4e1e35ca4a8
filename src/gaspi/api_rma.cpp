// One-sided communication (spec §8.2, §8.4, and gaspi_read_list_notify from the proposal).
// Node-local operations between host memories complete while they are posted (a copy into or out
// of the peer's mapping), so their queue entries only count towards GASPI_QUEUE_FULL until
// gaspi_wait releases them; a device copy is left on the queue until gaspi_wait or the queue's
// next notification (bridge/device_rma.hpp).
// Every argument is checked before the queue is touched: a rejected call posts nothing.
#include <cstring>
#include <memory>

#include "gaspi/checks.hpp"
#include "gaspi/fast_path.hpp"
#include "core/statistics.hpp"

using namespace hygaspi;

namespace {

struct Transfer {
  const SegmentView *local = nullptr;
  engine::Target remote;
  // The local segment when it is device memory, for the engine's device routes; else nullptr.
  [[nodiscard]] const SegmentView *local_device() const noexcept { return local->host_mapped() ? nullptr : local; }
};

// Resolves the target of a post of `entries` queue entries. Whether a post to a rank known dead
// fails at once or at gaspi_wait is left open by the spec; GPI-2 accepts the post and fails the
// wait, and its fault-tolerance tests rely on that. So such a post takes its entries, moves
// nothing, marks the queue (Queue::dead_target) and sets `dead`: the caller returns success.
gaspi_return_t post_target(gaspi_rank_t rank, gaspi_queue_id_t queue, std::uint64_t entries, bool &dead) {
  HYGASPI_TRY(check::rank_range(rank));
  dead = !engine::alive(GlobalRank{rank});
  if (!dead)
    return GASPI_SUCCESS;
  HYGASPI_TRY(gaspi::state().queues.reserve(queue, entries));
  gaspi::state().queues[queue].dead_target.store(rank + 1u, std::memory_order_release);
  return GASPI_SUCCESS;
}

gaspi_return_t check_transfer(gaspi_segment_id_t seg_l, gaspi_offset_t off_l, gaspi_rank_t rank,
                              gaspi_segment_id_t seg_r, gaspi_offset_t off_r, gaspi_size_t size, Transfer &t) {
  HYGASPI_TRY(check::size(size));
  HYGASPI_TRY(check::local_segment(seg_l, off_l, size, t.local));
  return check::remote_segment(rank, seg_r, off_r, size, t.remote);
}

gaspi_return_t check_list(gaspi_number_t num, gaspi_segment_id_t *seg_l, gaspi_offset_t *off_l,
                          gaspi_segment_id_t *seg_r, gaspi_offset_t *off_r, gaspi_size_t *size) {
  HYGASPI_TRY(check::list_num(num));
  HYGASPI_TRY(check::not_null(seg_l, "segment_id_local"));
  HYGASPI_TRY(check::not_null(off_l, "offset_local"));
  HYGASPI_TRY(check::not_null(seg_r, "segment_id_remote"));
  HYGASPI_TRY(check::not_null(off_r, "offset_remote"));
  return check::not_null(size, "size");
}

// A transfer on `queue`: node peers' host memory complete it now, device copies and other nodes at
// gaspi_wait (their settle, the MPI flush).
struct Mover {
  gaspi_queue_id_t queue;
  bool read;
  gaspi_return_t operator()(const Transfer &t, gaspi_offset_t off_l, gaspi_offset_t off_r, gaspi_size_t size) const {
    return read ? engine::get(t.local->data + off_l, t.remote, off_r, size, queue, t.local_device())
                : engine::put(t.remote, off_r, t.local->data + off_l, size, queue, t.local_device());
  }
};

// The local notification of the read variants: the data must have arrived first.
gaspi_return_t notify_after_read(gaspi_rank_t from, const SegmentView &seg, gaspi_notification_id_t id,
                                 gaspi_queue_id_t queue) {
  HYGASPI_TRY(engine::gets_landed(GlobalRank{from}, queue));
  engine::notify_mapped(engine::rank(), seg, id, 1);
  return GASPI_SUCCESS;
}

// A list operation: every element is checked before the queue is touched and anything moves.
class ListPlan {
public:
  gaspi_return_t check(gaspi_number_t num, gaspi_segment_id_t *seg_l, gaspi_offset_t *off_l, gaspi_rank_t rank,
                       gaspi_segment_id_t *seg_r, gaspi_offset_t *off_r, gaspi_size_t *size) {
    HYGASPI_TRY(check_list(num, seg_l, off_l, seg_r, off_r, size));
    if (num > kOnStack) {
      heap_ = std::make_unique<Transfer[]>(num);
      t_ = heap_.get();
    }
    for (gaspi_number_t i = 0; i < num; ++i)
      HYGASPI_TRY(check_transfer(seg_l[i], off_l[i], rank, seg_r[i], off_r[i], size[i], t_[i]));
    return GASPI_SUCCESS;
  }

  template <class Move>
  gaspi_return_t run(gaspi_number_t num, gaspi_offset_t *off_l, gaspi_offset_t *off_r, gaspi_size_t *size,
                     Move &&move) const {
    for (gaspi_number_t i = 0; i < num; ++i)
      HYGASPI_TRY(move(t_[i], off_l[i], off_r[i], size[i]));
    return GASPI_SUCCESS;
  }

private:
  static constexpr gaspi_number_t kOnStack = 64;
  Transfer stack_[kOnStack];
  std::unique_ptr<Transfer[]> heap_;
  Transfer *t_ = stack_;
};

// gaspi_write's full path (see fast::transfer_segments): out of line, so the fast path builds no frame.
[[gnu::noinline]] gaspi_return_t write_full(gaspi_segment_id_t segment_id_local, gaspi_offset_t offset_local,
                                            gaspi_rank_t rank, gaspi_segment_id_t segment_id_remote,
                                            gaspi_offset_t offset_remote, gaspi_size_t size,
                                            gaspi_queue_id_t queue) noexcept {
  return guarded("gaspi_write", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, 1, dead));
    if (dead)
      return GASPI_SUCCESS;
    Transfer t;
    HYGASPI_TRY(check_transfer(segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size, t));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, 1));
    return stats::posted(rank, size, stats::write, Mover{queue, false}(t, offset_local, offset_remote, size));
  });
}

[[gnu::noinline]] gaspi_return_t write_notify_full(gaspi_segment_id_t segment_id_local, gaspi_offset_t offset_local,
                                                   gaspi_rank_t rank, gaspi_segment_id_t segment_id_remote,
                                                   gaspi_offset_t offset_remote, gaspi_size_t size,
                                                   gaspi_notification_id_t notification_id,
                                                   gaspi_notification_t notification_value,
                                                   gaspi_queue_id_t queue) noexcept {
  return guarded("gaspi_write_notify", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    HYGASPI_CHECK(notification_value != 0, GASPI_ERR_INV_NOTIF_VAL, "notification value 0");
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, 2, dead));
    if (dead)
      return GASPI_SUCCESS;
    Transfer t;
    HYGASPI_TRY(check_transfer(segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size, t));
    HYGASPI_TRY(check::notification(t.remote.notification_num(), notification_id));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, 2));
    // One choice of transport for both halves. spec §8.4.1: the notification becomes
    // visible only after the data.
    return stats::posted(rank, size, stats::write,
                         engine::put_notify(t.remote, offset_remote, t.local->data + offset_local, size,
                                            notification_id, notification_value, queue, t.local_device()));
  });
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_write(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                            const gaspi_rank_t rank, const gaspi_segment_id_t segment_id_remote,
                            const gaspi_offset_t offset_remote, const gaspi_size_t size, const gaspi_queue_id_t queue,
                            const gaspi_timeout_t) {
  // Fast path: a node peer's shm segment from a host segment, every argument valid; the same checks
  // as write_full.
  {
    calls::Section in;
    const SegmentView *dst = nullptr, *src = nullptr;
    if (fast::transfer_segments(rank, segment_id_remote, offset_remote, segment_id_local, offset_local, size, dst,
                                src) &&
        dst->host_mapped() && src->host_mapped() && size <= gaspi::state().config.transfer_size_max &&
        gaspi::state().queues.exists(queue)) [[likely]] {
      HYGASPI_TRY(gaspi::state().queues.reserve(queue, 1));
      std::memmove(dst->data + offset_remote, src->data + offset_local, size); // loopback writes may overlap
      stats::posted(rank, size, stats::write);
      return GASPI_SUCCESS;
    }
  }
  return write_full(segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size, queue);
}

gaspi_return_t pgaspi_read(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                           const gaspi_rank_t rank, const gaspi_segment_id_t segment_id_remote,
                           const gaspi_offset_t offset_remote, const gaspi_size_t size, const gaspi_queue_id_t queue,
                           const gaspi_timeout_t) {
  return guarded("gaspi_read", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, 1, dead));
    if (dead)
      return GASPI_SUCCESS;
    Transfer t;
    HYGASPI_TRY(check_transfer(segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size, t));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, 1));
    return stats::posted(rank, size, stats::read, Mover{queue, true}(t, offset_local, offset_remote, size));
  });
}

gaspi_return_t pgaspi_notify(const gaspi_segment_id_t segment_id_remote, const gaspi_rank_t rank,
                             const gaspi_notification_id_t notification_id,
                             const gaspi_notification_t notification_value, const gaspi_queue_id_t queue,
                             const gaspi_timeout_t) {
  return guarded("gaspi_notify", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, 1, dead));
    if (dead)
      return GASPI_SUCCESS;
    HYGASPI_CHECK(notification_value != 0, GASPI_ERR_INV_NOTIF_VAL, "notification value 0");
    engine::Target seg;
    HYGASPI_TRY(check::remote_segment(rank, segment_id_remote, 0, 0, seg));
    HYGASPI_TRY(check::notification(seg.notification_num(), notification_id));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, 1));
    return stats::posted(rank, 0, stats::notify, engine::notify(seg, notification_id, notification_value, queue));
  });
}

gaspi_return_t pgaspi_write_notify(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                                   const gaspi_rank_t rank, const gaspi_segment_id_t segment_id_remote,
                                   const gaspi_offset_t offset_remote, const gaspi_size_t size,
                                   const gaspi_notification_id_t notification_id,
                                   const gaspi_notification_t notification_value, const gaspi_queue_id_t queue,
                                   const gaspi_timeout_t) {
  // Fast path: as gaspi_write's, plus the notification checks of write_notify_full.
  {
    calls::Section in;
    const SegmentView *dst = nullptr, *src = nullptr;
    if (fast::transfer_segments(rank, segment_id_remote, offset_remote, segment_id_local, offset_local, size, dst,
                                src) &&
        dst->host_mapped() && src->host_mapped() && size <= gaspi::state().config.transfer_size_max &&
        gaspi::state().queues.exists(queue) && notification_value != 0 && notification_id < dst->notification_num &&
        !engine::queue_has_copies(queue)) [[likely]] {
      HYGASPI_TRY(gaspi::state().queues.reserve(queue, 2));
      std::memmove(dst->data + offset_remote, src->data + offset_local, size);
      stats::posted(rank, size, stats::write);
      // spec §8.4.1: the notification becomes visible only after the data (Node::notify).
      engine::notify_mapped(rank, *dst, notification_id, notification_value);
      return GASPI_SUCCESS;
    }
  }
  return write_notify_full(segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size,
                           notification_id, notification_value, queue);
}

gaspi_return_t pgaspi_write_list(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                 gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                 gaspi_segment_id_t *const segment_id_remote, gaspi_offset_t *const offset_remote,
                                 gaspi_size_t *const size, const gaspi_queue_id_t queue, const gaspi_timeout_t) {
  return guarded("gaspi_write_list", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    HYGASPI_TRY(check::list_num(num));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, num, dead));
    if (dead)
      return GASPI_SUCCESS;
    ListPlan plan;
    HYGASPI_TRY(plan.check(num, segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, num));
    HYGASPI_TRY(plan.run(num, offset_local, offset_remote, size, Mover{queue, false}));
    return stats::posted_list(rank, num, size, stats::write);
  });
}

gaspi_return_t pgaspi_write_list_notify(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                        gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                        gaspi_segment_id_t *const segment_id_remote,
                                        gaspi_offset_t *const offset_remote, gaspi_size_t *const size,
                                        const gaspi_segment_id_t segment_id_notification,
                                        const gaspi_notification_id_t notification_id,
                                        const gaspi_notification_t notification_value, const gaspi_queue_id_t queue,
                                        const gaspi_timeout_t) {
  return guarded("gaspi_write_list_notify", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    HYGASPI_TRY(check::list_num(num));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, std::uint64_t{num} + 1, dead));
    if (dead)
      return GASPI_SUCCESS;
    HYGASPI_CHECK(notification_value != 0, GASPI_ERR_INV_NOTIF_VAL, "notification value 0");
    ListPlan plan;
    HYGASPI_TRY(plan.check(num, segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size));
    engine::Target nseg;
    HYGASPI_TRY(check::remote_segment(rank, segment_id_notification, 0, 0, nseg));
    HYGASPI_TRY(check::notification(nseg.notification_num(), notification_id));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, std::uint64_t{num} + 1));
    HYGASPI_TRY(plan.run(num, offset_local, offset_remote, size, Mover{queue, false}));
    stats::posted_list(rank, num, size, stats::write);
    return engine::notify(nseg, notification_id, notification_value, queue);
  });
}

gaspi_return_t pgaspi_read_notify(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                                  const gaspi_rank_t rank, const gaspi_segment_id_t segment_id_remote,
                                  const gaspi_offset_t offset_remote, const gaspi_size_t size,
                                  const gaspi_notification_id_t notification_id, const gaspi_queue_id_t queue,
                                  const gaspi_timeout_t) {
  return guarded("gaspi_read_notify", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, 2, dead));
    if (dead)
      return GASPI_SUCCESS;
    Transfer t;
    HYGASPI_TRY(check_transfer(segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size, t));
    HYGASPI_TRY(check::notification(t.local->notification_num, notification_id));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, 2));
    HYGASPI_TRY((Mover{queue, true}(t, offset_local, offset_remote, size)));
    stats::posted(rank, size, stats::read);
    // The notification is local and carries the value 1 (read_list_notify proposal).
    return notify_after_read(rank, *t.local, notification_id, queue);
  });
}

gaspi_return_t pgaspi_read_list(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                gaspi_segment_id_t *const segment_id_remote, gaspi_offset_t *const offset_remote,
                                gaspi_size_t *const size, const gaspi_queue_id_t queue, const gaspi_timeout_t) {
  return guarded("gaspi_read_list", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    HYGASPI_TRY(check::list_num(num));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, num, dead));
    if (dead)
      return GASPI_SUCCESS;
    ListPlan plan;
    HYGASPI_TRY(plan.check(num, segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, num));
    HYGASPI_TRY(plan.run(num, offset_local, offset_remote, size, Mover{queue, true}));
    return stats::posted_list(rank, num, size, stats::read);
  });
}

gaspi_return_t pgaspi_read_list_notify(const gaspi_number_t num, gaspi_segment_id_t *const segment_id_local,
                                       gaspi_offset_t *const offset_local, const gaspi_rank_t rank,
                                       gaspi_segment_id_t *const segment_id_remote, gaspi_offset_t *const offset_remote,
                                       gaspi_size_t *const size, const gaspi_segment_id_t segment_id_notification,
                                       const gaspi_notification_id_t notification_id, const gaspi_queue_id_t queue,
                                       const gaspi_timeout_t) {
  return guarded("gaspi_read_list_notify", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::queue(queue));
    HYGASPI_TRY(check::list_num(num));
    bool dead = false;
    HYGASPI_TRY(post_target(rank, queue, std::uint64_t{num} + 1, dead));
    if (dead)
      return GASPI_SUCCESS;
    ListPlan plan;
    HYGASPI_TRY(plan.check(num, segment_id_local, offset_local, rank, segment_id_remote, offset_remote, size));
    const SegmentView *nseg = nullptr;
    HYGASPI_TRY(check::local_segment(segment_id_notification, 0, 0, nseg));
    HYGASPI_TRY(check::notification(nseg->notification_num, notification_id));
    HYGASPI_TRY(gaspi::state().queues.reserve(queue, std::uint64_t{num} + 1));
    HYGASPI_TRY(plan.run(num, offset_local, offset_remote, size, Mover{queue, true}));
    stats::posted_list(rank, num, size, stats::read);
    return notify_after_read(rank, *nseg, notification_id, queue);
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_write)
HYGASPI_ALIAS(gaspi_read)
HYGASPI_ALIAS(gaspi_notify)
HYGASPI_ALIAS(gaspi_write_notify)
HYGASPI_ALIAS(gaspi_write_list)
HYGASPI_ALIAS(gaspi_write_list_notify)
HYGASPI_ALIAS(gaspi_read_notify)
HYGASPI_ALIAS(gaspi_read_list)
HYGASPI_ALIAS(gaspi_read_list_notify)
