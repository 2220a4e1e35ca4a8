// The engine's passive messages (bridge/passive.hpp), on the passive lane of the message channel
// (bridge/am_channel.hpp). Our readings of the spec (§9):
// - Completion (§9.2.1): a send returns GASPI_SUCCESS once the message is in the target's
//   inbox, or held by the target's MPI, where no action of the sender can change it any more (as
//   GPI-2, whose send completes once the data is in the receiver's posted buffer). A send that
//   returns GASPI_TIMEOUT left nothing in the inbox, and across nodes sent nothing (its MPI send
//   was cancelled, or it never got the credits to start).
// - Full inbox (§9.2.1 says a full "passive communication queue" fails with GASPI_ERROR): our sends
//   complete before they return, so the sender side never queues requests. A full *receive* lane
//   means the receiver has not caught up ("as long as there is no matching receive, the send
//   cannot achieve any progress", §9.2.2), so the sender waits for room until its timeout.
// - Fairness (§9.1): every sending process has a ring of its own in the receiver's inbox, which
//   the receiver takes in turn; a process's threads take turns in the order they came
//   (am::post). A sender that timed out or died stalls nobody.
// - A message longer than the receive's `size` (§9.2.2 requires the target to hold the largest
//   message; the user advice asks for matching sizes): treated like MPI_ERR_TRUNCATE. The first
//   `size` bytes land in the target, the message is consumed (so it cannot block the lane
//   forever), and the call returns GASPI_ERROR, naming sender and size in the log.
#include "bridge/passive.hpp"

#include <algorithm>
#include <cstring>

#include "bridge/am_channel.hpp"
#include "bridge/failures.hpp"
#include "core/log.hpp"
#include "core/status.hpp"

namespace hygaspi::engine {

namespace {

// Where a receive puts the message it takes.
struct Taken {
  char *dst;
  std::uint64_t room;
  bool any = false;
  std::uint32_t from = 0;
  std::uint64_t size = 0; // the whole message's
};

void take(void *context, GlobalRank sender, const char *data, std::size_t size) {
  auto &t = *static_cast<Taken *>(context);
  std::memcpy(t.dst, data, std::min<std::uint64_t>(size, t.room));
  t.any = true;
  t.from = sender.value();
  t.size = size;
}

void discard(void *context, GlobalRank, const char *, std::size_t) { ++*static_cast<std::uint64_t *>(context); }

} // namespace

gaspi_return_t passive_send(GlobalRank to, const char *src, std::uint64_t size, gaspi_timeout_t timeout) {
  return am::post(to, src, size, Deadline(timeout));
}

gaspi_return_t passive_receive(char *dst, std::uint64_t size, std::uint32_t &from, gaspi_timeout_t timeout) {
  // The take is the readiness test, so a receive that times out has taken nothing (docs/DESIGN.md
  // "Readings of the spec"). Node senders ring our doorbell after they publish.
  Taken taken{dst, size};
  HYGASPI_TRY(
      await_any_partner([&] { return taken.any || am::poll(am::Lane::passive, take, &taken); }, timeout, true, [] {}));
  from = taken.from;
  if (taken.size > size) {
    log::error("message of %lu bytes from rank %u is longer than size %lu: truncated, the rest is discarded",
               static_cast<unsigned long>(taken.size), taken.from, static_cast<unsigned long>(size));
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

void passive_purge() noexcept {
  refresh_liveness();
  acknowledge_deaths();
  std::uint64_t discarded = 0;
  while (am::poll(am::Lane::passive, discard, &discarded)) {
  }
  log::debug("discarded %lu pending passive messages", static_cast<unsigned long>(discarded));
}

} // namespace hygaspi::engine
