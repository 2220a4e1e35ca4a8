// The engine's progress step (bridge/progress.hpp).
#include "bridge/progress.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <thread>

#include "bridge/engine.hpp"
#include "bridge/remote_device.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"
#include "core/atomic_op.hpp"

namespace hygaspi {

namespace {

// Runs an atomic that another node asked for, on one of our segments: a GASPI segment or the
// GASNet segment (the engine's own ids beyond them are no atomic's target). The request comes from
// another process: mpi::valid_atomic_request checks the op and the word against the segment as it
// is now (the initiator checked what it could; the segment may have gone since).
gaspi_return_t serve_atomic(const mpi::AtomicRequest &request, std::uint64_t &old) {
  const std::uint32_t id = request.segment;
  const shm::MappedSegment *seg =
      id < limits::kMaxSegments || id == limits::kGasnetSegment ? rt().segments.local(id) : nullptr;
  if (seg == nullptr || !seg->host_mapped() || !mpi::valid_atomic_request(request, seg->size))
    return GASPI_ERROR;
  old = apply_atomic(seg->data + request.offset, request.op);
  return GASPI_SUCCESS;
}

struct MpiProgress {
  bool operator()() const { return progress_step(); }
};
const MpiProgress g_mpi_progress;

struct MpiHealth {
  bool operator()() const {
    engine::refresh_liveness(); // a death a node peer saw is told to the other nodes from here
    return !rt().node.stopping();
  }
};
const MpiHealth g_mpi_health;

std::thread g_thread;
std::atomic<bool> g_stop{false};

// Steps taken by the application's own threads (waits that drive progress). The progress thread
// compares it between its rounds: when a waiter drives progress, the thread's step would only take
// the MPI lock and a core from it (measured by helper "collectives": with the thread on, a 4-rank
// MPI barrier on 2 cores cost 1.8-2.2x Open MPI's, with it off 0.9-1.2x), so the thread naps longer.
std::atomic<std::uint64_t> g_driven{0};
thread_local bool t_progress_thread = false;

} // namespace

bool progress_step() {
  if (!t_progress_thread)
    g_driven.fetch_add(1, std::memory_order_relaxed);
  mpi::Control &control = rt().control;
  // While active messages come, 7 steps in 8 test only the receive that the next one will
  // complete (EagerReceives::test_hot), and leave the probe for control traffic and the other
  // receives to the 8th. MPI_Test looks again after its progress, which MPI_Testsome does not, and
  // a step is one MPI call instead of two or three. Measured, EX AM Short round trip over MPI (both
  // sides polling, 4 alternating runs): 0.75-0.77 us against 0.84-0.87 us, with MPI_Send/MPI_Recv
  // at 0.33-0.35 us; a full look every 4th step: 0.76-0.78 us.
  thread_local unsigned hot_steps = 0;
  if ((++hot_steps & 7) != 0) {
    const int hot = control.messages().test_eager_hot();
    if (hot >= 0) {
      const bool device = engine::drive_remote_device();
      return hot > 0 || device;
    }
  }
  // One probe for anything first; then only the tag it saw (mpi::Control::incoming).
  const int tag = control.incoming();
  bool served = control.messages().test_eager();
  served |= engine::drive_remote_device(); // this process's staged device transfers (one load when none)
  if (tag == mpi::Control::kNoMessage && !control.abandoned_pending())
    return served;
  served |= control.progress(tag);
  if (tag == mpi::kTagDeviceRequest || tag == mpi::Control::kAnyTag)
    served |= engine::serve_device_requests();
  if (tag != mpi::Control::kAnyTag && tag != mpi::kTagAtomicRequest)
    return served;
  // One thread at a time serves them, so that each initiator's are answered in the order they
  // came (mpi_rma/replies.hpp relies on it); a thread that finds another at it leaves them to it.
  static std::mutex serving;
  std::unique_lock hold(serving, std::try_to_lock);
  if (!hold.owns_lock())
    return served;
  mpi::AtomicCall call;
  while (control.atomics().take(call)) {
    std::uint64_t old = 0;
    const gaspi_return_t rc = serve_atomic(call.request, old);
    control.atomics().reply(call, rc, old);
    served = true;
  }
  return served;
}

Step progress() noexcept { return rt().rma.active() ? Step(g_mpi_progress) : Step(); }

Step mpi_progress() noexcept { return Step(g_mpi_progress); }

Step mpi_health() noexcept { return Step(g_mpi_health); }

void start_progress_thread(std::chrono::microseconds longest_nap) {
  g_stop.store(false);
  g_thread = std::thread([longest_nap] {
    log::CallScope scope("progress");
    t_progress_thread = true;
    // Why the nap grows. A step every 50 us wakes the thread 20,000 times a second. Where every
    // core runs a rank, as on a cluster node, each wake-up takes a core from a rank; and under
    // MPI_THREAD_MULTIPLE the step's MPI calls contend with the application's. Measured, Open MPI
    // 4.1 ob1/vader, 2 ranks on 2 cores, the application's own MPI_Send/MPI_Recv ping-pong while
    // the library was started: 0.61-0.83 us with a 50 us nap, 0.33-0.35 us with the nap that
    // grows to 1 ms, 0.33-0.44 us without the thread (alternating runs). A step that serves
    // something is likely followed by more, so the nap falls back to the shortest.
    constexpr std::chrono::microseconds kShortest{50}, kDriven{500};
    std::chrono::microseconds idle = kShortest;
    std::uint64_t seen = g_driven.load(std::memory_order_relaxed);
    while (!g_stop.load(std::memory_order_relaxed)) {
      // A waiter stepped since our last round: it serves the requests itself; look again later.
      const std::uint64_t now = g_driven.load(std::memory_order_relaxed);
      const bool driven = now != seen;
      seen = now;
      if (!driven)
        idle = progress_step() ? kShortest : std::min(idle * 2, longest_nap);
      // Under mpirun nobody else marks a dead node peer dead while the application only puts and
      // fetch-adds (calls that do not wait look at the mark, not at the process): this does, at most
      // every 10 ms (shm/liveness.hpp), and tells the other nodes (bridge/failures.hpp). Under
      // hygaspi-run the launcher marks it at once anyway.
      engine::refresh_liveness();
      const std::int64_t ns = std::chrono::nanoseconds(driven ? kDriven : idle).count();
      timespec nap{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      nanosleep(&nap, nullptr);
    }
  });
  // Named before this returns (not by the thread itself), for top -H and the tests.
  (void)pthread_setname_np(g_thread.native_handle(), "hyg-progress");
}

void stop_progress_thread() noexcept {
  if (!g_thread.joinable())
    return;
  g_stop.store(true);
  g_thread.join();
}

} // namespace hygaspi
