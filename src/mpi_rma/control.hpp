// Two-sided control traffic on the engine's private communicator, by concern:
//  - requests that their target serves and answers, each with its reply (replies.hpp): global
//    atomics (remote_atomics.hpp), transfers into and out of device memory (device_requests.hpp),
//    and kills (here);
//  - death notices: what this rank knows of the deaths of ranks it cannot watch (here);
//  - messages: GASPI passive messages and the GASNet front ends' active messages (messages.hpp).
// Control owns them and runs their share of the progress step.
#pragma once
#include <GASPI.h>

#include <atomic>
#include <span>
#include <vector>

#include "core/deadline.hpp"
#include "core/ranks.hpp"
#include "core/wait.hpp"
#include "mpi_rma/device_requests.hpp"
#include "mpi_rma/messages.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/remote_atomics.hpp"
#include "mpi_rma/replies.hpp"
#include "mpi_rma/ring_watch.hpp"
#include "mpi_rma/tags.hpp"

namespace hygaspi::mpi {

class Control {
public:
  // `wait`: the spin and yield counts of this layer's waits (core/wait.hpp).
  void init(Env &env, const WaitPolicy &wait) {
    env_ = &env;
    wait_ = wait;
    dead_ = std::vector<std::atomic<bool>>(static_cast<std::size_t>(env.size()));
    replies_.init(env);
    atomics_.init(env, replies_, wait);
    device_.init(env, replies_, wait);
    messages_.init(env, wait);
  }
  [[nodiscard]] const WaitPolicy &wait_policy() const noexcept { return wait_; }
  // This layer's share of a progress step: serves kill requests, takes death notices, moves
  // passive messages into the mailbox, takes credit reports, and completes the replies of
  // abandoned requests. True if it took anything. Atomic and device requests are the caller's to
  // serve (atomics().take, device().take).
  // `tag`: what incoming() saw. One of this layer's tags: only that one is probed (measured,
  // bench_gasnet MPI path: the five probes of a full step, each under Open MPI's locks, were most
  // of an active message's round trip); kAnyTag: all of them.
  bool progress(int tag = kAnyTag);
  // The tag of a message that MPI holds unmatched on the private communicator (one MPI_Iprobe for
  // any source and tag, which also drives MPI): kNoMessage when there is none, kAnyTag when the
  // message is not one that progress() takes (a reply whose receive is not posted yet, an active
  // message: the step then probes every tag, as the Iprobe keeps finding that message first) or
  // the probe failed.
  [[nodiscard]] int incoming();
  static constexpr int kNoMessage = -1;
  static constexpr int kAnyTag = -2;
  // Whether replies of abandoned requests, or credit messages, are still to be completed
  // (progress() tests them).
  [[nodiscard]] bool abandoned_pending() { return messages_.credits_sending() || replies_.abandoned(); }
  // gaspi_proc_kill of a rank on another node, whose pid this process cannot signal: asks the
  // target to SIGKILL itself, and returns GASPI_SUCCESS once the target has taken the request and
  // acknowledged it (a synchronous send, so the acknowledgement is here before it dies). The
  // target serves the request in its progress, that is when it is inside a GASPI call or runs the
  // progress thread; until then this call waits, up to its deadline (GASPI_TIMEOUT: the request
  // stays queued at the target, and a retry asks again).
  gaspi_return_t kill(MpiRank rank, const Deadline &deadline, Step progress);

  // Deaths of ranks that this rank cannot watch itself (node peers watch each other's processes:
  // shm/liveness.hpp). A rank is known dead here once this rank killed it, or once a death notice
  // said so. Open MPI 4.1 reports no death to the survivors (docs/mpi-failures.md), so the news
  // comes from the dead rank's node peers, which see it, or from its killer: tell_death sends the
  // notice to the ranks of `to` (never waited for: mpi_rma/notices.hpp), and every rank's
  // progress takes the notices that reach it. A death is final: the mark stays for the session.
  [[nodiscard]] bool known_dead(MpiRank rank) const noexcept {
    const auto i = static_cast<std::size_t>(rank.value());
    return i < dead_.size() && dead_[i].load(std::memory_order_acquire); // sized by init()
  }
  void tell_death(MpiRank dead, std::span<const MpiRank> to);
  // A death this rank saw itself (its kill, or ring()): known from now on, as after a notice.
  void mark_dead(MpiRank rank) noexcept;
  // The TCP ring that sees the deaths of ranks that no node peer watches (ring_watch.hpp).
  RingWatch &ring() noexcept { return ring_; }

  // gaspi_proc_term: cancels the replies still awaited and drops undelivered messages, so that
  // nothing of this MPI session is adopted after a later gaspi_proc_init.
  void term() noexcept;

  RemoteAtomics &atomics() noexcept { return atomics_; }
  DeviceRequests &device() noexcept { return device_; }
  Messages &messages() noexcept { return messages_; }

private:
  Env *env_ = nullptr;
  WaitPolicy wait_;
  Replies replies_;
  RemoteAtomics atomics_;
  DeviceRequests device_;
  Messages messages_;
  std::vector<std::atomic<bool>> dead_; // by MPI rank: known_dead()
  RingWatch ring_;
  void serve_kill();
  bool take_death_notices();
};

} // namespace hygaspi::mpi
