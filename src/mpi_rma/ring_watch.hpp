// Deaths that nobody witnesses (docs/DESIGN.md "Failures"). Node peers watch each other's
// processes (shm/liveness.hpp) and tell the other nodes of a death they see; but a rank alone on
// its node, or the last live one there, leaves no witness, and Open MPI 4.1 tells the survivors
// nothing (docs/mpi-failures.md). So, in a job that spans nodes, the ranks form a ring of TCP
// connections: each holds one to the next rank in job order that it does not know to be gone (its
// successor), and the kernel closes every socket of a process however the process ends. A
// successor that dies shows, at its watcher's next look, as the end of the stream or a reset: no
// heartbeat, so no false alarm for a rank that computes for an hour without a call. A successor's
// host that goes down shows through TCP keepalive (kernel probes, about 16 s).
//
// Identity. A rank publishes every IPv4 address of its host, and an address that is only local
// (a container bridge that every host has) may lead to another process of the watcher's own host.
// So each rank writes its token (a random number gathered with the addresses) to every watcher it
// accepts, and a watcher trusts a connection only once the token matches; otherwise it tries the
// rank's next address. The loopback address is offered only to ranks in the same network
// namespace of the same boot.
//
// A rank that leaves in order (the engine's teardown, where every rank has reached its term, or
// the collective end of gasnet_exit) first writes kLeaving to the ranks that watch it, which then
// stop watching: the job is ending, and the ranks after it may be closing too. A watcher whose
// successor died connects to the next one: a refused connection means that rank's process is gone
// too (a live rank listens until it leaves).
//
// Cost: one listening socket and about two connections per rank; a look is one accept() and one
// recv() with MSG_DONTWAIT, at most once per kInterval per process, on the slow path of waits and in
// the progress thread. Nothing travels while the ranks live.
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/ranks.hpp"
#include "core/throttle.hpp"

namespace hygaspi::mpi {

class Env;

class RingWatch {
public:
  static constexpr std::chrono::milliseconds kInterval{10};

  RingWatch() = default;
  RingWatch(const RingWatch &) = delete;
  RingWatch &operator=(const RingWatch &) = delete;
  ~RingWatch() { close(); }

  // Collective over env's communicator (the engine's start): listens, gathers every rank's
  // addresses, connects to the successor and checks its token. Where this host has no IPv4 address
  // or a socket call fails, this rank takes no part (its watcher passes over it), logged.
  void open(Env &env);
  // Tells the ranks that watch this one that it leaves, then closes every socket. Idempotent.
  void close() noexcept;
  // One look, at most every kInterval; thread-safe (a thread that finds another one looking
  // returns at once). Calls died(rank) for each rank found dead, and passes over the ranks for
  // which gone(rank) is already true (known dead).
  template <class Died, class Gone> void poll(Died &&died, Gone &&gone) noexcept {
    if (!open_.load(std::memory_order_acquire))
      return;
    const std::unique_lock lock = throttle_.enter(mutex_);
    if (!lock || listener_ < 0)
      return;
    look(Callbacks{&died, &gone, [](void *f, MpiRank r) { (*static_cast<Died *>(f))(r); },
                   [](void *f, MpiRank r) { return static_cast<bool>((*static_cast<Gone *>(f))(r)); }});
  }

private:
  static constexpr char kLeaving = 'L';
  static constexpr unsigned kMaxAddresses = 4;
  // What a rank tells the others at open().
  struct Card {
    std::array<std::uint32_t, kMaxAddresses> address{}; // IPv4, network byte order; loopback last
    std::uint64_t token = 0;
    std::uint64_t network = 0; // this boot's and network namespace's identity: who may use loopback
    std::uint16_t port = 0;
    std::uint16_t count = 0; // 0: this rank takes no part
  };
  struct Callbacks {
    void *died, *gone;
    void (*call_died)(void *, MpiRank);
    bool (*call_gone)(void *, MpiRank);
  };
  void look(const Callbacks &cb) noexcept;
  // Accepts the watchers that connected since the last look and writes them this rank's token.
  void accept_watchers() noexcept;
  // Reads what the successor wrote: 1 while it lives (its token checked), 0 when it left in order,
  // -1 when its connection ended (it died), -2 when the token was another process's.
  [[nodiscard]] int read_successor() noexcept;
  // Watches `rank` (from its address `first` on), or the next one after it that is not known gone;
  // one that refuses every address is reported dead (cb) and passed over. Without cb (open()),
  // `rank` is taken as it answers.
  void advance(int rank, unsigned first, const Callbacks *cb) noexcept;
  // Connects to `rank` at its addresses from `first` on: the socket; -1 when each refused or did
  // not answer (its process is gone, or its host); -2 when none can be tried from here (loopback
  // alone, of another host; or no socket to try with). Sets address_ to the one that answered.
  [[nodiscard]] int connect_to(int rank, unsigned first) noexcept;
  void stop_watching() noexcept;
  void close_locked() noexcept;

  std::mutex mutex_; // all below but open_ and throttle_
  std::atomic<bool> open_{false};
  Throttle throttle_{kInterval};
  int me_ = -1;
  int listener_ = -1;
  std::uint64_t token_ = 0;
  std::vector<int> watchers_; // accepted connections of the ranks that watch this one
  int successor_ = -1;        // MPI rank, or -1: nobody to watch
  int fd_ = -1;               // the connection to successor_
  unsigned address_ = 0;      // the index of its address that fd_ reached
  unsigned token_bytes_ = 0;  // of its token read so far; 8: checked
  std::array<unsigned char, 8> token_read_{};
  std::vector<Card> cards_;
  std::vector<char> passed_; // per rank: known dead, or out of reach: never watched again
};

} // namespace hygaspi::mpi
