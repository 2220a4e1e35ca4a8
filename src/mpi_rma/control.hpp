// Two-sided control traffic on the private communicator, and the progress engine that serves it.
//
// Global atomics on a rank of another node run at the target, with the same CPU atomics that its
// node peers use (DESIGN.md "Atomics": CPU and MPI atomics do not compose, and osc/rdma's
// MPI_Compare_and_swap crashes here). The initiator sends a request and waits for the reply while
// it drives progress itself, so two ranks that target each other cannot deadlock. With no
// asynchronous progress in MPI, a target serves requests whenever it is inside a GASPI wait.
//
// Passive messages from another node travel as MPI messages with their own tag; the receiver
// takes them from MPI and from its shm ring (api_passive.cpp).
#pragma once
#include <GASPI.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <sched.h>
#include <thread>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/deadline.hpp"
#include "mpi_rma/mpi_env.hpp"

namespace hygaspi::mpi {

// MPI guarantees tags up to 32767.
enum Tag : int {
  kTagAtomicRequest = 1,
  kTagPassive = 2,
  kTagKill = 3,      // gaspi_proc_kill of a rank on another node: payload = the killer's reply tag
  kTagReply = 100,   // + request number % kReplyTags
  kTagGroup = 16384, // + a bucket of the group's commit tag * kGroupTagStride (mpi_rma/leaders.cpp)
};
// Per group bucket: [0, 16) leader barrier rounds, 16 leader allreduce, 17 abort notice.
inline constexpr int kGroupTagStride = 32;
inline constexpr int kReplyTags = 8192;

enum class AtomicOp : std::uint32_t { fetch_add = 1, compare_swap = 2 };

struct AtomicRequest {
  AtomicOp op;
  std::uint32_t segment;
  std::uint64_t offset;
  std::uint64_t a; // addend, or comparator
  std::uint64_t b; // new value (compare_swap)
  std::int32_t reply_tag;
  std::int32_t reserved;
};

// A request comes from another process, so the target checks all of it before it acts: a known op
// on an aligned 8-byte word inside a segment of `segment_size` bytes (the segment id is checked by
// the lookup, serve_atomic in api_proc.cpp), and a reply tag that the initiator can have posted.
// Fuzzed by tests/fuzz/fuzz_atomic_request.cpp.
[[nodiscard]] constexpr bool valid_reply_tag(std::int32_t tag) noexcept {
  return tag >= kTagReply && tag < kTagReply + kReplyTags;
}
[[nodiscard]] constexpr bool valid_atomic_request(const AtomicRequest &request, std::uint64_t segment_size) noexcept {
  return (request.op == AtomicOp::fetch_add || request.op == AtomicOp::compare_swap) && segment_size >= 8 &&
         request.offset % 8 == 0 && request.offset <= segment_size - 8;
}

// Executes an atomic on a local segment word; set by the bridge (it knows the segments).
using LocalAtomic = gaspi_return_t (*)(const AtomicRequest &request, std::uint64_t &old);

class Control {
public:
  void init(Env &env, LocalAtomic local_atomic, std::int64_t spin) noexcept {
    env_ = &env;
    local_atomic_ = local_atomic;
    spin_ = spin;
  }
  // Serves pending requests; called from every wait loop. True if it served or took anything.
  bool progress();
  // Between two looks of an MPI wait: busy-poll for the first `spin` rounds, then yield (a
  // sched_yield costs about 1 us here, and each message is only seen after the partner's yield).
  void pause(std::int64_t &round) const noexcept {
    if (round++ < spin_)
      __builtin_ia32_pause();
    else
      sched_yield();
  }
  // Runs `request` at `rank`. Exactly once per GASPI_SUCCESS: a call that returns GASPI_TIMEOUT
  // leaves its request in flight as this thread's pending atomic, and the thread's next call with
  // the same rank and request adopts it instead of sending another (see control.cpp).
  gaspi_return_t atomic(int rank, AtomicRequest request, std::uint64_t &old, const Deadline &deadline);
  // gaspi_proc_term: cancels the replies still awaited, so that nothing of this MPI session is
  // adopted after a later gaspi_proc_init.
  void term() noexcept;

  // The opt-in progress thread (needs MPI_THREAD_MULTIPLE): serves requests and lets MPI move
  // data while the application computes. Sleeps 50 us between rounds.
  void start_thread();
  void stop_thread() noexcept;

  // gaspi_proc_kill of a rank on another node, whose pid this process cannot signal: asks the
  // target to SIGKILL itself, and returns GASPI_SUCCESS once the target has taken the request and
  // acknowledged it (a synchronous send, so the acknowledgement is here before it dies). The
  // target serves the request in its progress, that is when it is inside a GASPI call or runs the
  // progress thread; until then this call waits, up to its deadline (GASPI_TIMEOUT: the request
  // stays queued at the target, and a retry asks again).
  gaspi_return_t kill(int rank, const Deadline &deadline);

  gaspi_return_t passive_send(int rank, const void *data, std::uint64_t size, const Deadline &deadline);
  // Receives one pending passive message if there is one: returns GASPI_SUCCESS with *from set,
  // GASPI_TIMEOUT when none is pending.
  gaspi_return_t passive_try_receive(void *data, std::uint64_t size, int &from);
  // Discards pending passive messages.
  void passive_purge();

private:
  Env *env_ = nullptr;
  LocalAtomic local_atomic_ = nullptr;
  std::int64_t spin_ = 0;
  std::atomic<std::uint32_t> next_reply_{0};
  std::thread thread_;
  std::atomic<bool> stop_{false};
  struct Abandoned {
    MPI_Request request;
    std::unique_ptr<std::uint64_t[]> reply;
  };
  // An atomic whose call returned GASPI_TIMEOUT, still in flight: its reply belongs to the retry.
  struct Pending {
    int rank;
    AtomicRequest request; // reply_tag included
    Abandoned flight;
  };
  // Passive messages that progress() took from MPI while this rank was busy elsewhere: two ranks
  // that send to each other and then receive must not wait on each other's matching receive.
  struct Message {
    int from;
    std::vector<char> data;
  };
  std::mutex mailbox_mutex_;
  std::deque<Message> mailbox_;
  bool drain_passive();
  void serve_kill();
  // Posts a receive for a reply (two words: gaspi_return_t and value) on a fresh reply tag.
  std::int32_t post_reply(int rank, MPI_Request &receive, std::uint64_t *reply);
  std::mutex abandoned_mutex_;
  std::vector<Abandoned> abandoned_; // replies of atomics that timed out, still to be drained
  // At most one pending atomic per calling thread, keyed by thread (see control.cpp for why).
  std::mutex pending_mutex_;
  std::unordered_map<std::thread::id, Pending> pending_;
};

} // namespace hygaspi::mpi
