// Passive communication (spec §9): gaspi_passive_send, gaspi_passive_receive and
// gaspi_passive_queue_purge. The front end checks the arguments; the engine carries the messages
// (bridge/passive.hpp: the paths, and our readings of the spec's completion, full lane, fairness
// and truncation rules).
#include "bridge/engine.hpp"
#include "bridge/passive.hpp"
#include "gaspi/checks.hpp"
#include "core/statistics.hpp"

using namespace hygaspi;

namespace {

gaspi_return_t passive_size(std::uint64_t s) noexcept {
  HYGASPI_CHECK(s > 0 && s <= gaspi::state().config.passive_transfer_size_max, GASPI_ERR_INV_COMMSIZE,
                "size %lu outside [1, passive_transfer_size_max=%lu]", static_cast<unsigned long>(s),
                static_cast<unsigned long>(gaspi::state().config.passive_transfer_size_max));
  return GASPI_SUCCESS;
}

// gaspi_proc_term in another thread while this one waits with GASPI_BLOCK. GPI-2 leaves such a
// thread blocked, and clients rely on it: a receiver thread that treats any error as fatal exits
// while main ends the process with its own code (the GASPI tutorials' negotiate_remote_offset).
// So the thread stops counting as a call under way (term does not wait for it), touches nothing of
// the ended life cycle again, and stays blocked until the process ends.
[[noreturn]] void block_through_term(InFlight &call) noexcept {
  call.leave();
  wait_for_process_end();
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_passive_send(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                                   const gaspi_rank_t rank, const gaspi_size_t size, const gaspi_timeout_t timeout) {
  return guarded("gaspi_passive_send", [&] {
    InFlight call;
    HYGASPI_TRY(call.status());
    HYGASPI_TRY(check::rank(rank));
    HYGASPI_TRY(passive_size(size));
    const SegmentView *local = nullptr;
    HYGASPI_TRY(check::local_segment(segment_id_local, offset_local, size, local));
    HYGASPI_TRY(check::host_segment(segment_id_local, *local, "passive messages"));
    return stats::passive_sent(rank, size,
                               engine::passive_send(GlobalRank{rank}, local->data + offset_local, size, timeout));
  });
}

gaspi_return_t pgaspi_passive_receive(const gaspi_segment_id_t segment_id_local, const gaspi_offset_t offset_local,
                                      gaspi_rank_t *const rem_rank, const gaspi_size_t size,
                                      const gaspi_timeout_t timeout) {
  return guarded("gaspi_passive_receive", [&] {
    InFlight call;
    HYGASPI_TRY(call.status());
    HYGASPI_TRY(check::not_null(rem_rank, "rank"));
    HYGASPI_TRY(passive_size(size));
    const SegmentView *local = nullptr;
    HYGASPI_TRY(check::local_segment(segment_id_local, offset_local, size, local));
    HYGASPI_TRY(check::host_segment(segment_id_local, *local, "passive messages"));
    std::uint32_t from = 0;
    const gaspi_return_t rc = engine::passive_receive(local->data + offset_local, size, from, timeout);
    if (rc != GASPI_SUCCESS && timeout == GASPI_BLOCK && engine::stopping())
      block_through_term(call);
    HYGASPI_TRY(rc);
    *rem_rank = static_cast<gaspi_rank_t>(from);
    return GASPI_SUCCESS;
  });
}

// spec §9.3.1: "purges the passive queue", to be called "in the situation in which a node failure
// is detected". Our sends complete before they return, so no send request is ever queued on the
// sender side; what can hold stale messages is this rank's inbox (its passive lane) and, across
// nodes, its mailbox of MPI messages. Purge discards every message published in them now (from
// dead and live senders alike, as gaspi_queue_purge discards every request of a queue), which
// wakes senders blocked on a full lane. It never waits, so the timeout is not needed. It also
// acknowledges the deaths it was called for (bridge/failures.hpp).
gaspi_return_t pgaspi_passive_queue_purge(const gaspi_timeout_t) {
  return guarded("gaspi_passive_queue_purge", [&] {
    InFlight call;
    HYGASPI_TRY(call.status());
    engine::passive_purge();
    return GASPI_SUCCESS;
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_passive_send)
HYGASPI_ALIAS(gaspi_passive_receive)
HYGASPI_ALIAS(gaspi_passive_queue_purge)
