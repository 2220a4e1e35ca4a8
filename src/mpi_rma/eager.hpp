// Active messages across nodes: preposted receives, in order per sender.
//
// A message of at most kEagerBytes travels on its lane's eager tag, where a set of persistent
// receives waits for it (MPI_Recv_init once, MPI_Start to give a buffer back). The progress step
// tests the oldest of each lane (the next to match) with MPI_Testsome; the front end runs its
// handler on the buffer in place, and the next test restarts the receive. Before, every message
// cost a probe for any tag, a matched probe for its own, a count, an allocation, a matched receive
// and a mailbox push and pop (measured, bench_gasnet MPI path: AM round trip 3.9 us against 2.4 us
// for a raw MPI_Send/MPI_Recv ping-pong). GASNet's mpi-conduit (AMMPI) preposts its buffers the
// same way.
//
// Order. GASNet promises none among active messages, but the node rings keep each sender's order,
// and clients come to rely on it (data in Mediums, then a Short that says "done"). So this path
// keeps it too:
//  - MPI matches a sender's messages to the receives in the order they were posted [MPI-3.1
//    section 3.5, "Order"], so every start of a receive takes a sequence number, and messages are
//    handed out by it. A completed receive waits while one started before it is still active
//    (matched, but its data not yet complete).
//  - A larger message goes first on the lane's large tag, followed by an empty message on the
//    eager tag that announces it; when the announcement completes, the receiver takes the large
//    message from that sender at once, under the announcement's number.
//  - A message that arrives while every receive of its lane holds one not yet handled stays
//    unmatched in MPI; the progress step takes it (matched probe and receive) under a fresh
//    number, later than every receive started so far. A sender therefore never waits for the
//    receiver's handlers, whatever MPI's eager limit, except for credits: what one sender may
//    have outstanding per lane is bounded (credits.hpp), so neither MPI's unexpected queue nor
//    the messages taken here grow without bound while the receiver runs no handler.
#pragma once
#include <mpi.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "mpi_rma/arrival_queue.hpp"

namespace hygaspi::mpi {

class Env;

class EagerReceives {
public:
  static constexpr std::size_t kEagerBytes = 1024; // a message's largest size on the eager tags
  static constexpr unsigned kSlots = 16;           // preposted receives per lane
  static constexpr unsigned kLanes = 2;            // requests, replies

  struct Tags {
    int eager, large;
  };
  // Starts every lane's receives. Not thread-safe against the other calls.
  bool open(Env &env, const std::array<Tags, kLanes> &tags);
  // Cancels and frees them; the messages not yet handed out are dropped.
  void close() noexcept;
  [[nodiscard]] bool is_open() const noexcept { return open_.load(std::memory_order_acquire); }

  // MPI_Testsome over each lane's oldest receives (again while they complete, and once more after
  // an empty look while messages come), and the unmatched messages of a lane whose receives are
  // all busy: queues what arrived for take(). True if anything did.
  bool test();
  // While messages come (kLivelyLooks): MPI_Test of the oldest receive of the lane where the last
  // one arrived, the receive that MPI matches its next message to. 1: a message arrived; 0: none;
  // -1: not now, test() is the look to take.
  int test_hot();

  // The next message of `lane` in order, now the caller's until give_back().
  struct Held {
    int slot = -1; // the receive whose buffer holds it, or -1: `body` does
    int from = -1;
    const char *data = nullptr; // 16-byte aligned
    std::size_t size = 0;
    std::vector<char> body;
  };
  bool take(unsigned lane, Held &out);
  // Whether `lane` has messages queued (take() may still hold them back, for their order).
  [[nodiscard]] bool queued(unsigned lane) const noexcept { return queued_[lane].load(std::memory_order_acquire) != 0; }
  // Gives back the receive of a message that take() handed out (nothing for one held in `body`):
  // the next test() restarts it, before its MPI_Testsome. Not here: the handler's rank is then
  // likely to send its next message (the client's loop goes on after a reply), and the restart
  // (the MPI lock and an MPI_Start) would delay it; in test() it runs while this rank waits.
  void give_back(unsigned lane, const Held &held);

private:
  struct alignas(16) Buffer {
    char bytes[kEagerBytes];
  };
  static constexpr unsigned kAll = kLanes * kSlots; // slot s of lane l is index l * kSlots + s
  struct Arrived {
    std::uint64_t seq;
    int slot; // -1: the message is in `body`
    int from;
    std::uint32_t size;
    std::vector<char> body;
    bool announced = false; // an announcement whose large message is not taken yet
  };
  void close_locked() noexcept;
  // The next six run under mutex_ and the MPI lock.
  // Receive i completed (`error` from its status): queues its message for take().
  bool completed_receive(unsigned i, const MPI_Status &status, int error);
  void restart_given_back();
  bool start(unsigned i);             // (re)starts receive i under the next sequence number
  void finished(unsigned i) noexcept; // receive i was seen complete: no longer active
  void arrived(unsigned lane, Arrived a);
  // Takes the large message that an announcement from `from` stands for (its sender sent it first).
  bool take_large(unsigned lane, int from, std::vector<char> &body);
  bool drain_unmatched(unsigned lane);
  // Takes the large messages of the lane's announcements, in order: a sender's large messages
  // share one tag, so each announcement takes the next one only once every earlier one has.
  void take_announced(unsigned lane);
  // Whether a receive of `lane` started before `seq` is still active (its message comes first).
  [[nodiscard]] bool earlier_active(unsigned lane, std::uint64_t seq) const noexcept;

  Env *env_ = nullptr;
  std::array<Tags, kLanes> tags_{};
  std::atomic<bool> open_{false};
  // Messages queued per lane: take() skips the lock when its lane's is 0.
  std::array<std::atomic<unsigned>, kLanes> queued_{};
  // Bit i: receive i was handed out and given back, and test() restarts it. Not under mutex_, so
  // that a handler's return takes no lock; open() clears what a give_back() racing with close()
  // left.
  std::atomic<std::uint32_t> given_back_{0};
  static_assert(kAll <= 32);
  std::mutex mutex_; // all below; taken before the MPI lock, never inside it
  std::uint64_t next_seq_ = 0;
  // Empty looks left, kLivelyLooks after a message arrived, in which test_hot() tests the hot lane
  // and test() looks twice (unless test_hot() looked just before).
  static constexpr unsigned kLivelyLooks = 64;
  unsigned lively_ = 0;
  unsigned hot_ = 0;        // the lane where the last message arrived
  bool hot_tested_ = false; // test_hot() found nothing just before
  std::array<MPI_Request, kAll> requests_{};
  // A lane's active receives (started, not yet seen complete), in the order they were started:
  // the order in which MPI matches messages to them. Their slot numbers within the lane.
  struct Started {
    std::array<std::uint8_t, kSlots> slot{};
    unsigned count = 0;
  };
  std::array<Started, kLanes> started_{};
  std::array<std::uint64_t, kAll> seq_{};
  std::array<ArrivalQueue<Arrived>, kLanes> arrived_;
  std::unique_ptr<Buffer[]> buffers_; // kAll of them; kept across close() and open()
};

} // namespace hygaspi::mpi
