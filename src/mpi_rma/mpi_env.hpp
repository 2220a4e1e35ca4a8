// MPI bootstrap and interoperability (spec §5.6, docs/DESIGN.md "Who uses it and how"). The library starts MPI
// itself when a program launched by mpirun calls gaspi_proc_init, or joins an MPI program that has
// already called MPI_Init: GASPI rank = MPI rank. It then splits the job into nodes (ranks sharing
// a host and /dev/shm, or virtual nodes of HYGASPI_NODE_SIZE ranks) and hands each node a shared
// job id for the shm transport. MPI_Finalize stays the application's job when it started MPI.
#pragma once
#include <GASPI.h>
#include <mpi.h>

#include <cstdint>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/wait.hpp"
#include "mpi_rma/mpi_call.hpp"

namespace hygaspi {
struct Knobs;
}

namespace hygaspi::mpi {

// True when this process was started by an MPI launcher or MPI is already initialised, and not
// by hygaspi-run (HYGASPI_JOB set).
bool wanted(const Knobs &knobs) noexcept;

// The cap on attachments to one dynamic window of Open MPI's osc/rdma (MCA parameter
// osc_rdma_max_attach), read through MPI_T once MPI is up; 0 where MPI has no such parameter
// (another MPI, or osc/rdma not among the components opened). Which component serves a window
// MPI does not say: where osc/rdma is open its cap is assumed. Takes no lock.
std::uint32_t osc_rdma_max_attach() noexcept;

// Whether windows of groups smaller than the job serve safely by default (HYGASPI_GROUP_WINDOWS
// -1): not under Open MPI before 5.0, whose osc/rdma names the shared-memory file of a window
// after its communicator's id alone. Two disjoint groups on one host may get the same id, and
// windows they make at the same time then fail (MPI_ERR_WIN) or hang (docs/PLATFORM.md).
[[nodiscard]] bool group_windows_safe() noexcept;

struct EnvOptions {
  std::int64_t node_size = 0; // HYGASPI_NODE_SIZE: 0 = the real shared-memory node
  bool shm = true;            // HYGASPI_SHM=0 puts every rank on a node of its own
  // Run at the start of MPI_Finalize if GASPI is still up then (an attribute delete callback on
  // MPI_COMM_SELF, MPI's hook for this); term() removes the hook first. nullptr: none.
  void (*at_finalize)() = nullptr;
};

// One message that a matched probe (MPI_Improbe) found, for an MPI_Mrecv of `handle`.
struct Probed {
  bool found = false;  // a message waits
  bool failed = false; // MPI failed (logged)
  MPI_Message handle = MPI_MESSAGE_NULL;
  int source = MPI_PROC_NULL;
  int bytes = 0; // its size; 0 when MPI cannot tell: the receive then fails with a truncation, logged
};

class Env {
public:
  gaspi_return_t init(const EnvOptions &options);
  void term() noexcept; // frees our communicators; MPI itself stays up (see mpi_env.cpp)

  [[nodiscard]] bool active() const noexcept { return active_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] MPI_Comm comm() const noexcept { return comm_; } // private duplicate of the world
  // A second duplicate, for the leaders' collective traffic alone (mpi_rma/leaders.cpp). A leader
  // that reached a barrier before its partner leaves a message that MPI holds unmatched until the
  // partner gets there; on comm() it would be what every progress step's MPI_Iprobe for any tag
  // finds first (mpi::Control::incoming), so the step would fall back to probing each of its tags
  // for as long as the partner computes: an AM round trip over MPI took 1.9x MPI_Send/Recv
  // instead of 1.3-1.5x while the partner sat in a barrier (bench_gasnet).
  [[nodiscard]] MPI_Comm collective_comm() const noexcept { return collective_comm_; }
  [[nodiscard]] bool thread_multiple() const noexcept { return thread_multiple_; }
  [[nodiscard]] bool progress_thread_allowed() const noexcept { return progress_thread_allowed_; }
  [[nodiscard]] const char *osc() const noexcept { return osc_.c_str(); }

  // A matched probe of a message of `tag` from `source` on comm(); the caller holds lock(). With a
  // progress thread two threads may probe at once, and a plain Iprobe + Recv pair could hand one
  // thread's message to the other.
  [[nodiscard]] Probed probe(int source, int tag) const noexcept { return probe(comm_, source, tag); }
  [[nodiscard]] Probed probe(MPI_Comm on, int source, int tag) const noexcept;
  // One look at `request`, taking lock(): true when it completed, or when MPI_Test failed (logged;
  // `failed` set).
  bool test(MPI_Request &request, bool &failed);

  // Node map: node_of[r] is the node id of global rank r; node_ranks are my node's global ranks.
  std::vector<int> node_of;
  std::vector<int> node_ranks;
  int local_rank = 0;
  int host_ranks = 1;   // the ranks of this host (MPI_COMM_TYPE_SHARED), whatever the virtual nodes
  std::string node_job; // shared shm job id of my node (32 hex digits)

  // The process exits while the job runs on (no term was called): MPI is left as it is. Our
  // MPI_Finalize at exit would wait for every other process (Open MPI's finalize synchronises the
  // job), which may compute for hours; mpirun instead sees a process end without finalize and
  // ends the job.
  void leave_at_exit() noexcept { leave_unfinalized_.store(true, std::memory_order_relaxed); }
  // The whole job ends cleanly and the process with it (gasnet_exit), so the application cannot
  // finalize MPI even where it started MPI itself: MPI_Finalize runs at exit (mpirun would report
  // a process that ended without it). Where we started MPI, this is so already.
  void finalize_at_process_exit() noexcept;

  // Serialises MPI calls when MPI grants less than MPI_THREAD_MULTIPLE (docs/DESIGN.md "Progress and
  // threads").
  // Once MPI_Finalize runs at exit, a thread that wants MPI waits here until the process ends.
  std::unique_lock<std::mutex> lock() {
    if (__builtin_expect(closing_.load(std::memory_order_acquire), 0))
      wait_for_process_end();
    if (__builtin_expect(funneled_, 0))
      check_funneled();
    return thread_multiple_ ? std::unique_lock<std::mutex>() : std::unique_lock<std::mutex>(mutex_);
  }

private:
  static int on_finalize(MPI_Comm, int, void *env, void *) noexcept;
  static void finalize_at_exit(int status, void *env) noexcept;

  void (*at_finalize_)() = nullptr;
  bool hooked_ = false;     // the attribute is set on MPI_COMM_SELF
  bool finalizing_ = false; // inside on_finalize: MPI is deleting the attribute itself
  bool active_ = false;
  bool we_initialised_ = false;
  bool finalize_registered_ = false; // finalize_at_exit is registered with on_exit
  bool thread_multiple_ = false;
  // The application started MPI at MPI_THREAD_SINGLE or FUNNELED: only the thread that started it
  // may call MPI, and our lock serialises calls but cannot make another thread that one.
  bool funneled_ = false;
  int provided_ = 0;                       // the level MPI granted
  std::thread::id mpi_thread_;             // the thread that started MPI, where the start was seen here
  std::atomic<bool> told_funneled_{false}; // check_funneled speaks once per process
  void check_funneled() noexcept;
  bool progress_thread_allowed_ = false;
  std::atomic<bool> leave_unfinalized_{false};
  std::atomic<bool> closing_{false}; // MPI_Finalize at exit has begun
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm collective_comm_ = MPI_COMM_NULL;
  std::string osc_;
  std::mutex mutex_;
};

// What the library asks of MPI when it starts MPI itself (hygaspi-info reports the same):
// the OMPI_MCA_osc value it sets (the user's own, or its default list), and the thread level.
const char *chosen_osc() noexcept;
int requested_thread_level() noexcept;

} // namespace hygaspi::mpi
