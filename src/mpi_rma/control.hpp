// Two-sided control traffic on the private communicator.
//
// Global atomics on a rank of another node run at the target, with the same CPU atomics that its
// node peers use (docs/DESIGN.md "Atomicity": CPU and MPI atomics do not compose, and osc/rdma's
// MPI_Compare_and_swap crashes here). The initiator sends a request and waits for the reply while
// it drives progress itself (the `progress` step its caller passes in), so two ranks that target
// each other cannot deadlock. The target's progress step (bridge/progress.hpp) pulls requests with
// take_atomic(), applies them to its segment with core/atomic_op.hpp, and answers with reply(): this
// layer knows no segments and calls nothing above it. With no asynchronous progress in MPI, a
// target serves requests whenever it is inside a GASPI wait (or runs the progress thread).
//
// Passive messages from another node travel as MPI messages with their own tag; the receiver
// takes them from MPI and from its shm ring (api_passive.cpp).
#pragma once
#include <GASPI.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/ranks.hpp"
#include "core/atomic_op.hpp"
#include "core/deadline.hpp"
#include "core/wait.hpp"
#include "mpi_rma/credits.hpp"
#include "mpi_rma/eager.hpp"
#include "mpi_rma/mailbox.hpp"
#include "mpi_rma/mpi_env.hpp"

namespace hygaspi::mpi {

// MPI guarantees tags up to 32767.
enum Tag : int {
  kTagAtomicRequest = 1,
  kTagPassive = 2,
  kTagKill = 3,           // gaspi_proc_kill of a rank on another node: payload = the killer's reply tag
  kTagAmRequest = 4,      // active messages of the GASNet front end, requests and replies (separate, so
  kTagAmReply = 5,        //   that replies always drain), larger than a preposted receive takes
  kTagAmRequestEager = 6, // the others, and the announcements of the large ones (mpi_rma/eager.hpp)
  kTagAmReplyEager = 7,
  kTagCredit = 8,        // what a receiver handled: a Box and a running total of units (credits.hpp)
  kTagDeviceRequest = 9, // a transfer into or out of a device segment, served by its owner (DeviceRequest)
  kTagReply = 100,       // + request number % kReplyTags
  kTagGroup = 16384, // + a bucket of the group's commit tag * kGroupTagStride, on Env::collective_comm() (leaders.cpp)
};
// Per group bucket: [0, 16) leader barrier rounds, 16 leader allreduce, 17 abort notice.
inline constexpr int kGroupTagStride = 32;
inline constexpr int kReplyTags = 8192;

// The engine's atomic operation (core/atomic_op.hpp) on a word of `segment` at the target.
struct AtomicRequest {
  AtomicOp op;
  std::uint32_t segment;
  std::uint64_t offset;
  std::int32_t reply_tag;
  std::int32_t reserved;
};

// A request comes from another process, so the target checks all of it before it acts: a valid op
// on an aligned word of its width inside a segment of `segment_size` bytes (the segment id is
// checked by the lookup, serve_atomic in bridge/progress.cpp), and a reply tag that the initiator
// can have posted. Fuzzed by tests/fuzz/fuzz_atomic_request.cpp.
[[nodiscard]] constexpr bool valid_reply_tag(std::int32_t tag) noexcept {
  return tag >= kTagReply && tag < kTagReply + kReplyTags;
}
[[nodiscard]] constexpr bool valid_atomic_request(const AtomicRequest &request, std::uint64_t segment_size) noexcept {
  if (!valid(request.op))
    return false;
  const std::uint64_t w = width(request.op.type);
  return segment_size >= w && request.offset % w == 0 && request.offset <= segment_size - w;
}

// A transfer into (`put`) or out of [offset, +size) of the target's device segment `segment`, which
// no MPI window reaches; the target copies with the driver on its side and answers. The bytes
// travel one of two ways:
//  - inline (`staging` 0, at most kDeviceInline bytes): after the request in its message (put), or
//    after the status word in the reply (get): one short message each way;
//  - staged: they wait in the initiator's staging buffer at `staging` in its MPI window
//    (bridge/device_rma.cpp), which the target reads (put: MPI_Get + flush) or writes (get:
//    MPI_Put + flush). The messages stay short, so neither side waits for the other to match a
//    large one, and the bytes move by RMA.
// At most kDevicePiece bytes per staged request: an initiator keeps several in flight, so that the
// target serves one piece while the initiator copies the next (bridge/device_rma.cpp).
struct DeviceRequest {
  std::uint32_t segment;
  std::uint32_t put;
  std::uint64_t offset;
  std::uint64_t size;
  std::uint64_t staging;
  std::int32_t reply_tag;
  std::int32_t reserved;
};
static_assert(sizeof(DeviceRequest) == 40);
inline constexpr std::uint64_t kDevicePiece = std::uint64_t{1} << 18;
// Under the eager limits of Open MPI's transports (shared memory 4 KiB, TCP 64 KiB) with the
// request or the status word: a sender's blocking send completes without the target.
inline constexpr std::uint64_t kDeviceInline = 2048;
// The bytes of a request's message: the request, and an inline put's bytes.
[[nodiscard]] constexpr std::uint64_t device_message_bytes(const DeviceRequest &request) noexcept {
  return sizeof request + (request.staging == 0 && request.put != 0 ? request.size : 0);
}
// The message checked at the target, which compares the range with its segment itself
// (device_range_inside). The staging address is the initiator's to get right: the target reaches
// it through the initiator's window, which exposes nothing but the initiator's own memory.
[[nodiscard]] constexpr bool valid_device_request(const DeviceRequest &request, std::uint64_t message_bytes) noexcept {
  return request.put <= 1 && request.size <= (request.staging == 0 ? kDeviceInline : kDevicePiece) &&
         message_bytes == device_message_bytes(request) && valid_reply_tag(request.reply_tag);
}
// [offset, +size) of a request lies inside a segment of `segment_size` bytes (overflow-safe).
[[nodiscard]] constexpr bool device_range_inside(const DeviceRequest &request, std::uint64_t segment_size) noexcept {
  return request.offset <= segment_size && request.size <= segment_size - request.offset;
}
// A request at its target, taken by Control::take_device: `bytes` holds an inline put's bytes, and
// is where an inline get's go.
struct DeviceCall {
  DeviceRequest request{};
  MpiRank from;
  alignas(8) char bytes[kDeviceInline];
};

// Where a message goes at its target. A message is taken out of MPI as soon as any wait of the
// target makes progress (passive: into a mailbox; active messages: eager.hpp), so a sender never
// waits for the receiver to look for that very message (two ranks that send to each other cannot
// deadlock).
enum class Box : unsigned { passive = 0, am_request = 1, am_reply = 2 };

// An atomic request of another rank, taken from MPI by take_atomic(), answered by reply().
struct AtomicCall {
  AtomicRequest request;
  MpiRank from; // its initiator
};

class Control {
public:
  // `wait`: the spin and yield counts of this layer's waits (core/wait.hpp).
  void init(Env &env, const WaitPolicy &wait) {
    env_ = &env;
    wait_ = wait;
    credits_.open(env.size());
  }
  [[nodiscard]] const WaitPolicy &wait_policy() const noexcept { return wait_; }
  // This layer's share of a progress step: serves kill requests, moves passive messages into the
  // mailbox, and completes the replies of abandoned atomics and device transfers. True if it took
  // anything. The atomic
  // requests are the caller's to serve (take_atomic).
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
  // Whether replies of abandoned atomics and device transfers, or credit messages, are still to be
  // completed
  // (progress() tests them).
  [[nodiscard]] bool abandoned_pending() {
    if (credit_sends_.load(std::memory_order_acquire) != 0)
      return true;
    std::lock_guard lock(abandoned_mutex_);
    return !abandoned_.empty();
  }
  // Takes one pending atomic request (checked: a known reply tag; the caller checks the word
  // with valid_atomic_request, against the segment it finds). False when none is pending.
  bool take_atomic(AtomicCall &call);
  // Answers `call`: rc, and the word's old value.
  void reply(const AtomicCall &call, gaspi_return_t rc, std::uint64_t old);
  // Runs `request` at `rank`. Exactly once per GASPI_SUCCESS: a call that returns GASPI_TIMEOUT
  // leaves its request in flight as this thread's pending atomic, and the thread's next call with
  // the same rank and request adopts it instead of sending another (see control.cpp). `progress`
  // is the caller's progress step, driven while the reply is awaited.
  gaspi_return_t atomic(MpiRank rank, AtomicRequest request, std::uint64_t &old, const Deadline &deadline,
                        Step progress);
  // The split phase of a remote atomic, for a front end that keeps several in flight (GASNet-EX's
  // gex_AD_OpNB/NBI): start_atomic sends `request` to `rank` with a reply receive posted into
  // `flight`, which must stay where it is until test_atomic returned true. test_atomic looks once
  // (it drives no progress: the caller's wait does) and, when the reply is in, sets rc and old.
  // No timeout: the flight is the caller's until it completes.
  struct Flight {
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t reply[2] = {0, 0};
  };
  gaspi_return_t start_atomic(MpiRank rank, AtomicRequest request, Flight &flight);
  // A device transfer in flight: the receive of its reply (the target's status, and an inline
  // get's bytes), the caller's until test_device returned true or abandon_device took it.
  struct DeviceFlight {
    MPI_Request request = MPI_REQUEST_NULL;
    std::unique_ptr<std::uint64_t[]> reply;
    std::uint64_t got = 0; // the inline get's bytes that follow the status words
  };
  // Sends `request` (DeviceRequest; its reply_tag is set here) to `rank`, with an inline put's
  // bytes from `bytes`, and posts the receive of its reply into `flight`.
  gaspi_return_t start_device(MpiRank rank, DeviceRequest request, const void *bytes, DeviceFlight &flight);
  // One look (no progress: the caller's wait drives it): true once the reply is in, with `rc` the
  // target's status and a successful inline get's bytes copied to `bytes`.
  bool test_device(DeviceFlight &flight, gaspi_return_t &rc, void *bytes);
  // A flight whose wait ended before its reply (the target died): its receive is drained by
  // progress() or cancelled at term.
  void abandon_device(DeviceFlight &&flight);
  // start_device, then a wait for its reply driving `progress`, which ends with GASPI_ERROR once
  // `alive` says the target died. Returns the target's status.
  gaspi_return_t device_transfer(MpiRank rank, DeviceRequest request, void *bytes, Step progress, Step alive);
  // Takes one pending device request, checked (valid_device_request).
  bool take_device(DeviceCall &call);
  // Answers `call` with `rc`, and a successful inline get with its bytes (call.bytes).
  void reply_device(const DeviceCall &call, gaspi_return_t rc);
  bool test_atomic(Flight &flight, gaspi_return_t &rc, std::uint64_t &old);
  // gaspi_proc_term: cancels the replies still awaited, so that nothing of this MPI session is
  // adopted after a later gaspi_proc_init.
  void term() noexcept;

  // gaspi_proc_kill of a rank on another node, whose pid this process cannot signal: asks the
  // target to SIGKILL itself, and returns GASPI_SUCCESS once the target has taken the request and
  // acknowledged it (a synchronous send, so the acknowledgement is here before it dies). The
  // target serves the request in its progress, that is when it is inside a GASPI call or runs the
  // progress thread; until then this call waits, up to its deadline (GASPI_TIMEOUT: the request
  // stays queued at the target, and a retry asks again).
  gaspi_return_t kill(MpiRank rank, const Deadline &deadline, Step progress);

  gaspi_return_t passive_send(MpiRank rank, const void *data, std::uint64_t size, const Deadline &deadline,
                              Step progress) {
    return send(rank, Box::passive, data, size, deadline, progress);
  }
  // Sends a message for `box` of `rank` (size <= INT_MAX); waits, driving `progress`, until the
  // target's MPI holds it. First it waits for credits (credits.hpp), driving `serve` when given
  // (the front end's poll, which runs handlers and the progress step) and `progress` otherwise.
  // GASPI_TIMEOUT: at the deadline, cancelled or never sent, nothing delivered (a large active
  // message is never cancelled once sent: see send_am_large).
  // `alive` (when given): false once the target is known dead, which ends the wait with GASPI_ERROR
  // (a message MPI cannot deliver, to a dead target, would otherwise keep it waiting).
  gaspi_return_t send(MpiRank rank, Box box, const void *data, std::uint64_t size, const Deadline &deadline,
                      Step progress, Step alive = {}, Step serve = {});
  // Takes the oldest passive message, pulling what MPI holds first. False when there is none.
  bool take_passive(Message &out);
  // Starts the receives of active messages (gasnet_attach); until then they wait in MPI.
  void open_am_boxes();
  // Looks at the eager receives (one MPI_Testsome): part of every progress step once the boxes
  // are open, since a probe does not see a message that a posted receive has matched.
  bool test_eager() { return eager_.test(); }
  // Runs fn(from, data, size) on the next active message of `box` (am_request or am_reply), in
  // each sender's order; mostly in place, in the buffer of an eager receive. The data (16-byte
  // aligned) lives until fn returns. False when there is none. Does not pull from MPI: the caller
  // has just run the progress step.
  template <class F> bool take_am(Box box, F &&fn) {
    const unsigned lane = static_cast<unsigned>(box) - static_cast<unsigned>(Box::am_request);
    EagerReceives::Held held;
    if (!eager_.take(lane, held))
      return false;
    fn(MpiRank{held.from}, held.data, held.size);
    eager_.give_back(lane, held);
    handled(MpiRank{held.from}, box, held.size);
    return true;
  }
  // Receives one pending passive message if there is one: returns GASPI_SUCCESS with *from set,
  // GASPI_TIMEOUT when none is pending.
  gaspi_return_t passive_try_receive(void *data, std::uint64_t size, MpiRank &from);
  // Discards pending passive messages.
  void passive_purge();

private:
  Env *env_ = nullptr;
  WaitPolicy wait_;
  std::atomic<std::uint32_t> next_reply_{0};
  struct Abandoned {
    MPI_Request request;
    std::unique_ptr<std::uint64_t[]> reply;
  };
  // An atomic whose call returned GASPI_TIMEOUT, still in flight: its reply belongs to the retry.
  struct Pending {
    MpiRank rank;
    AtomicRequest request; // reply_tag included
    Abandoned flight;
  };
  // Passive messages that progress() took from MPI while this rank was busy elsewhere.
  std::mutex mailbox_mutex_;
  Mailbox mailbox_;
  // Active messages across nodes.
  EagerReceives eager_;
  // Moves what MPI holds for the mailbox into it.
  bool drain();
  // Flow control (credits.hpp).
  Credits credits_;
  // A message of `size` bytes from `rank` for `box` was handled: tells `rank` when a report is due.
  void handled(MpiRank rank, Box box, std::uint64_t size);
  // Takes the credit messages that MPI holds.
  bool take_credits();
  // Credit messages being sent (a buffer each, until MPI completes them).
  struct CreditSend {
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t payload[2] = {0, 0}; // Box, total
  };
  std::mutex credit_mutex_;
  std::vector<std::unique_ptr<CreditSend>> credit_sending_;
  std::atomic<std::size_t> credit_sends_{0};
  void complete_credit_sends(); // under credit_mutex_ and the MPI lock
  gaspi_return_t send_am_large(MpiRank rank, Box box, const void *data, std::uint64_t size, Step progress, Step alive);
  void serve_kill();
  // Posts a receive for a reply (two words: gaspi_return_t and value) on a fresh reply tag.
  gaspi_return_t post_reply(MpiRank rank, MPI_Request &receive, std::uint64_t *reply, std::int32_t &tag);
  // One look at `request` (under the MPI lock): true when it completed, or when MPI_Test failed
  // (logged; `failed` set).
  bool test(MPI_Request &request, bool &failed);
  // Withdraws a posted receive whose request could not be sent.
  void cancel(MPI_Request &receive);
  std::mutex abandoned_mutex_;
  std::vector<Abandoned> abandoned_; // replies of atomics that timed out (and of device transfers
                                     // whose target died), still to be drained
  // At most one pending atomic per calling thread, keyed by thread (see control.cpp for why).
  std::mutex pending_mutex_;
  std::unordered_map<std::thread::id, Pending> pending_;
};

} // namespace hygaspi::mpi
