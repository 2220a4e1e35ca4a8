// Two-sided control traffic on the engine's private communicator, by concern:
//  - requests that their target serves and answers, each with its reply (replies.hpp): global
//    atomics (remote_atomics.hpp), transfers into and out of device memory (device_requests.hpp),
//    and kills (here);
//  - messages: GASPI passive messages and the GASNet front ends' active messages (messages.hpp).
// Control owns them and runs their share of the progress step.
#pragma once
#include <GASPI.h>

#include "core/deadline.hpp"
#include "core/ranks.hpp"
#include "core/wait.hpp"
#include "mpi_rma/device_requests.hpp"
#include "mpi_rma/messages.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/remote_atomics.hpp"
#include "mpi_rma/replies.hpp"
#include "mpi_rma/tags.hpp"

namespace hygaspi::mpi {

class Control {
public:
  // `wait`: the spin and yield counts of this layer's waits (core/wait.hpp).
  void init(Env &env, const WaitPolicy &wait) {
    env_ = &env;
    wait_ = wait;
    replies_.init(env);
    atomics_.init(env, replies_, wait);
    device_.init(env, replies_, wait);
    messages_.init(env, wait);
  }
  [[nodiscard]] const WaitPolicy &wait_policy() const noexcept { return wait_; }
  // This layer's share of a progress step: serves kill requests, moves passive messages into the
  // mailbox, takes credit reports, and completes the replies of abandoned requests. True if it
  // took anything. Atomic and device requests are the caller's to serve (atomics().take,
  // device().take).
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
  void serve_kill();
};

} // namespace hygaspi::mpi
