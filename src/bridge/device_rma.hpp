// Transfers where either side is CUDA device memory (GASPI device segments): the routes that
// bridge/target.cpp hands over when the local buffer or the target segment is not host memory.
//   - memory this process addresses (its own segments, a node peer's shm segment, a node peer's
//     device segment opened through CUDA IPC): one copy on the device's stream, which the unified
//     address space lets the driver do between any two of them;
//   - a node peer's bound host memory (cross-memory attach) or another node's host segment (the
//     MPI window): through two pinned host slots of 1 MiB, the device copying one piece while the
//     other crosses (complete, MPI flushed, before its slot is written again);
//   - another node's device segment: served by its owner in its progress step, which copies with
//     the driver on its side (bridge/remote_device.hpp).
// The first and the last route leave their transfer in flight on the GASPI queue it was posted to
// (settle_queue completes it: gaspi_wait, and before the queue's next notification), or the last
// in the caller's Completion; the others complete before they return. Notifications stay in host
// memory and take their usual path after the data.
#pragma once
#include <GASPI.h>

#include <cstdint>

#include "bridge/segment_rma.hpp"
#include "bridge/target.hpp"
#include "core/segment_view.hpp"

namespace hygaspi::engine {

// `local`: the segment that holds the local buffer, when it is device memory; else nullptr.
// `pending`: where a transfer with another node's device memory stays in flight (else: on `queue`).
gaspi_return_t device_put(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size,
                          std::uint32_t queue, const SegmentView *local, Completion *pending = nullptr);
gaspi_return_t device_get(void *dst, const Target &from, std::uint64_t offset, std::uint64_t size, std::uint32_t queue,
                          const SegmentView *local, Completion *pending = nullptr);
// device_put, then notification `id` of the target segment set to `value` after it (and after
// every transfer `queue` carried to that rank before it: spec §8.3.2). To another node's device
// segment the notification travels with the data and the owner sets it, so the call returns
// before the owner serves it; elsewhere the queue's device transfers complete first. `size` 0:
// the notification alone (engine::notify, while the queue has device transfers in flight).
gaspi_return_t device_put_notify(const Target &to, std::uint64_t offset, const void *src, std::uint64_t size,
                                 std::uint32_t id, std::uint32_t value, std::uint32_t queue, const SegmentView *local);
// Completes the copies left in flight on `queue` (one atomic load when there are none).
// GASPI_ERROR when one of them failed (logged); a failure is also kept for the queue's gaspi_wait
// (`at_wait`: engine::flush), which reports it whichever call settled the copy.
gaspi_return_t settle_queue(std::uint32_t queue, bool at_wait = false);
// Waits until the device copies left on `queue` have run, or `timeout_ms` passed (GASPI_TIMEOUT;
// GASPI_TEST: one look); settle_queue then completes them without waiting.
gaspi_return_t copies_done(std::uint32_t queue, std::uint64_t timeout_ms);
// The end of a life cycle: completes every queue's copies (a failure is logged) and forgets them.
void drop_queued_copies() noexcept;

} // namespace hygaspi::engine
