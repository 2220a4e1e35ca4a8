// Flow control of the messages that cross nodes (active messages, passive messages): credits per
// sender, receiver and lane, as GASNet's mpi and ibv conduits and UCX's active messages do.
//
// Why. MPI sends of small messages are eager: they complete as soon as MPI has buffered them, and
// the progress step (of any wait, or of the progress thread) takes what arrives out of MPI into
// the receiver's memory whether or not anyone handles it. A receiver that computed while 7 senders
// flooded it with active messages grew from 16 MB to 438 MB in 30 s; on a node, the per-sender
// rings hold a sender back instead. Credits do the same across nodes:
//  - A sender may have at most kWindow units (KiB) of one lane's messages to one receiver
//    outstanding: sent, and not yet reported handled. A message costs its size in KiB, rounded up,
//    at least 1 and at most kWindow / 2. A sender without credits waits, serving its own lanes as
//    on a full ring (bridge/am_channel.hpp), so ranks that flood each other still all progress.
//  - The receiver counts what it handled (a handler returned, gaspi_passive_receive took it) and
//    sends the running total back on its own tag once kWindow / 2 units accumulated. A total, not
//    an increment: the largest one wins, so credit messages sent by two threads may arrive in
//    either order. They need no credits themselves: at most two per sender and lane are ever in
//    flight.
//  - Why the cap at kWindow / 2: a sender blocks only when outstanding + cost > kWindow, so more
//    than kWindow / 2 units are outstanding; once the receiver handled them its unreported count
//    reaches kWindow / 2 and it reports. Without the cap, a big message behind a few small ones
//    could wait forever for credits that are never reported.
// Memory: at most kWindow KiB per sender and lane (plus two messages above kWindow / 2 KiB each)
// sit at a receiver, in MPI's unexpected queue or in our queues, whatever MPI's eager limit: a
// message above it (rendezvous) is charged too, since the receiver takes its body into memory as
// soon as it sees the announcement. 7 senders and 2 lanes: under 8 MiB.
// A message that MPI fails to deliver (logged by eager.cpp) is never reported: its sender's window
// stays that much smaller.
// Explicit credit messages rather than piggy-backed on replies: a message here is an opaque byte
// string (no header to carry a count in), not every request gets a reply, passive messages have
// none, and one 16-byte credit message per kWindow / 2 handled units (one per 256 Shorts) costs
// the round trip nothing measurable.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/ranks.hpp"

namespace hygaspi::mpi {

class Credits {
public:
  static constexpr unsigned kLanes = 3;        // mpi::Box: passive, am_request, am_reply
  static constexpr std::uint64_t kUnit = 1024; // bytes
  // Units outstanding per sender, receiver and lane: 512 KiB, 32 active messages of the largest
  // Medium or 8 passive messages of the largest size. 128 KiB (2 of those passive messages) let a
  // loaded receiver's local senders crowd out its remote ones (mr_passive's fairness check).
  static constexpr std::uint64_t kWindow = 512;
  static constexpr std::uint64_t kReport = kWindow / 2;

  [[nodiscard]] static constexpr std::uint64_t cost(std::uint64_t bytes) noexcept {
    return std::clamp<std::uint64_t>((bytes + kUnit - 1) / kUnit, 1, kWindow / 2);
  }

  // Sizes the tables for `ranks` and forgets everything of an earlier session.
  void open(int ranks) {
    ranks_ = ranks;
    out_ = std::make_unique<Out[]>(static_cast<std::size_t>(ranks) * kLanes);
    in_ = std::make_unique<In[]>(static_cast<std::size_t>(ranks) * kLanes);
  }

  // Sender side. Takes `units` of the window towards `rank`; false when they are not free now.
  [[nodiscard]] bool reserve(MpiRank rank, unsigned lane, std::uint64_t units) noexcept {
    Out &o = out(rank, lane);
    std::uint64_t sent = o.sent.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint64_t back = o.returned.load(std::memory_order_acquire);
      const auto outstanding = static_cast<std::int64_t>(sent - back);
      if (outstanding < 0) { // `sent` was stale: others sent since, and those came back already
        sent = o.sent.load(std::memory_order_relaxed);
        continue;
      }
      if (static_cast<std::uint64_t>(outstanding) + units > kWindow)
        return false;
      if (o.sent.compare_exchange_weak(sent, sent + units, std::memory_order_acq_rel, std::memory_order_relaxed))
        return true;
    }
  }
  // Gives back what reserve() took for a message that was never delivered (a cancelled send).
  void unreserve(MpiRank rank, unsigned lane, std::uint64_t units) noexcept {
    out(rank, lane).sent.fetch_sub(units, std::memory_order_acq_rel);
  }
  // A credit message of `rank`: it has handled `total` units of ours on `lane` so far.
  void returned(MpiRank rank, unsigned lane, std::uint64_t total) noexcept {
    std::atomic<std::uint64_t> &r = out(rank, lane).returned;
    std::uint64_t now = r.load(std::memory_order_relaxed);
    while (now < total && !r.compare_exchange_weak(now, total, std::memory_order_acq_rel, std::memory_order_relaxed)) {
    }
  }

  // Receiver side. A message of `units` from `rank` was handled. Returns the total that `rank`
  // is to be told now, or 0 when no report is due.
  [[nodiscard]] std::uint64_t handled(MpiRank rank, unsigned lane, std::uint64_t units) noexcept {
    In &i = in(rank, lane);
    const std::uint64_t total = i.handled.fetch_add(units, std::memory_order_acq_rel) + units;
    std::uint64_t told = i.told.load(std::memory_order_relaxed);
    while (total > told && total - told >= kReport)
      if (i.told.compare_exchange_weak(told, total, std::memory_order_acq_rel, std::memory_order_relaxed))
        return total;
    return 0;
  }

  [[nodiscard]] bool valid(MpiRank rank, unsigned lane) const noexcept {
    return rank.value() >= 0 && rank.value() < ranks_ && lane < kLanes;
  }

private:
  struct alignas(64) Out {
    std::atomic<std::uint64_t> sent{0};     // units reserved, less those given back
    std::atomic<std::uint64_t> returned{0}; // the receiver's newest total
  };
  struct alignas(64) In {
    std::atomic<std::uint64_t> handled{0};
    std::atomic<std::uint64_t> told{0}; // the last total sent back
  };
  Out &out(MpiRank rank, unsigned lane) noexcept {
    return out_[static_cast<std::size_t>(rank.value()) * kLanes + lane];
  }
  In &in(MpiRank rank, unsigned lane) noexcept { return in_[static_cast<std::size_t>(rank.value()) * kLanes + lane]; }

  int ranks_ = 0;
  std::unique_ptr<Out[]> out_;
  std::unique_ptr<In[]> in_;
};

} // namespace hygaspi::mpi
