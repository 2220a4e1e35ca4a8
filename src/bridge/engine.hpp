// The engine as a front end sees it: the job, segments addressed by (rank, segment id), kills, and
// the end of the job. A front end (src/gaspi, src/gasnet) includes this header and the other
// bridge/ headers that name no transport (target.hpp, passive.hpp, fast_views.hpp,
// engine_groups.hpp, ...), never shm/ or mpi_rma/ and never Runtime: which transport reaches a rank
// is decided here, once, from the peer table (tests/lint/facade.py checks the includes).
#pragma once
#include <GASPI.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <functional>
#include <mutex>
#include <vector>

#include "core/knobs.hpp"
#include "core/ranks.hpp"
#include "core/segment_view.hpp"
#include "core/wait.hpp"

namespace hygaspi::engine {

// ---- the job (valid once the engine started: engine_start)
std::uint32_t rank() noexcept;
std::uint32_t size() noexcept;
// This rank's index among the ranks of its node.
std::uint32_t node_rank() noexcept;
// The environment's settings the engine was started with (core/knobs.hpp).
const Knobs &knobs() noexcept;
// Some rank lives on another node (MPI carries part of the traffic).
bool spans_nodes() noexcept;
// The ranks of this rank's node (1 where every rank is a node of its own).
std::uint32_t node_size() noexcept;
// The ranks on this rank's host, which share its memory: the node's, or more where virtual nodes
// (HYGASPI_NODE_SIZE) split the host.
std::uint32_t host_ranks() noexcept;
// MPI runs (the job was started by mpirun, or the program started MPI itself).
bool mpi_job() noexcept;
// For every rank, its node, named by the node's lowest rank: all 0 on one node.
std::vector<std::uint32_t> node_firsts();
// What this rank knows of `r`'s life: a node peer's from the job block, another node's from its
// own kill and from the death notices of the dead rank's node peers or killer.
bool alive(GlobalRank r) noexcept;
const WaitPolicy &wait_policy() noexcept;
// A sleeper for core/wait.hpp's wait_until: at most `ns` on this rank's doorbell, which node peers
// ring at notifications and collective signals (AMs and MPI traffic ring nothing here).
bool doorbell_sleep(Step ready, std::chrono::nanoseconds ns);
struct DoorbellSleep {
  template <class Ready> bool operator()(Ready &ready, std::chrono::nanoseconds ns) const {
    return doorbell_sleep(Step(ready), ns);
  }
};
// Serialises the front ends' init, attach and exit (Runtime::lifecycle).
std::mutex &lifecycle() noexcept;
// gaspi_proc_term (or the end of the job) is tearing this rank down: a wait that ended with an
// error ended for that reason.
bool stopping() noexcept;
// The front end's term begins (true: every waiter of this rank wakes and returns GASPI_ERROR) or
// is over (false). Setting it again rings again.
void set_stopping(bool stopping) noexcept;
// Marks dead the node peers whose process is gone (rate-limited), and tells the other nodes of
// their deaths (bridge/failures.hpp).
void refresh_liveness() noexcept;
// A start that returned GASPI_TIMEOUT may be called again (hygaspi-run: peers still arriving).
bool start_resumable() noexcept;

// ---- segments: an engine segment is named by its id (core/limits.hpp) on every rank.
// Creates this rank's segment `id` of `size` bytes and registers it with every rank, so that any
// rank may reach it (put, get, atomics, AM Long payloads).
gaspi_return_t create_segment(std::uint32_t id, std::uint64_t size);
// Creates this rank's segment `id` of `size` bytes with `notification_num` notifications: in shm,
// or over `user_memory` when it is not nullptr (bound memory). `alloc_policy`: GASPI's NUMA bits.
// Registered with nobody yet.
gaspi_return_t allocate_segment(std::uint32_t id, std::uint64_t size, std::uint32_t notification_num, void *user_memory,
                                gaspi_alloc_t alloc_policy);
// Creates this rank's segment `id` over `size` bytes of CUDA device memory at `memory` (device
// `ordinal`, checked with the driver), with `notification_num` notifications in host shm. Node
// peers open it through CUDA IPC; other nodes' transfers are served here. GASPI_ERROR (logged,
// with the driver's reason) when the driver, the device or the memory cannot serve.
gaspi_return_t bind_device_segment(std::uint32_t id, std::uint64_t size, std::uint32_t notification_num, void *memory,
                                   int ordinal);
// Deletes this rank's segment `id`.
gaspi_return_t delete_segment(std::uint32_t id);
// A collective creation of segment `id` that returned GASPI_TIMEOUT and is to be resumed: the
// segment exists and is registered, only the closing barrier is left.
bool segment_pending(std::uint32_t id) noexcept;
void set_segment_pending(std::uint32_t id, bool pending) noexcept;
// Collective over `members` (global ranks ascending, this rank among them), where each created
// segment `id` in the same call (GASPI's gaspi_segment_create on a group, after its barrier): the
// members on other nodes reach it through an MPI window of its own, which MPI serves faster than
// the dynamic window every segment is attached to. The window lives on a communicator of the
// group's members, made at its first window. Nothing to do for a group of one node. GASPI_ERROR
// when MPI failed.
gaspi_return_t open_segment_window(std::uint32_t id, std::span<const GlobalRank> members);
// Registers this rank's segment `id` with rank `with`, which may then reach it (GASPI's
// gaspi_segment_register: a node peer finds it by itself; another node needs its address).
gaspi_return_t register_segment(std::uint32_t id, GlobalRank with);
// This rank's segment `id` (any engine id), or nullptr when it has none. The view stays valid until
// the segment is deleted. Its notifications are set with engine::notify_mapped (fast_views.hpp).
const SegmentView *local_segment(std::uint32_t id) noexcept;
// Where this process maps rank `r`'s segment `id` (its own, or a node peer's, mapped here on first
// use), or nullptr when `r` is reached over MPI or has no such segment. `size_out` gets its size.
char *mapping(GlobalRank r, std::uint32_t id, std::uint64_t *size_out = nullptr) noexcept;
// The view of rank `r`'s segment `id` that this process reaches by itself: its own, or a node
// peer's mapped here on first use (shm: host memory; device memory: opened through CUDA IPC), or
// nullptr when `r` is reached over MPI, has no such segment, or it is a node peer's bound host
// memory (reached by cross-memory attach). Valid until the segment is deleted or released.
const SegmentView *direct_view(GlobalRank r, std::uint32_t id) noexcept;
// Closes this process's mapping of node peer `r`'s segment `id`, whose owner is about to free its
// memory (GASNet-EX's gex_Segment_Destroy); a later use maps it anew. Nothing for other ranks.
void release_mapping(GlobalRank r, std::uint32_t id) noexcept;
// Every node peer has mapped this rank's segment `id` (after a barrier): its name can go, so that
// a crash leaves nothing in /dev/shm.
void forget_segment_name(std::uint32_t id) noexcept;

// ---- the end of a rank
// Kills rank `r` (not this one). A node peer gets SIGKILL from us, an intended death: the
// launcher lets the job go on, and the survivors see the rank GASPI_STATE_CORRUPT. A rank of
// another node, whose pid means nothing here, is asked over MPI to SIGKILL itself
// (mpi_rma/control.hpp, Control::kill), which it does when it next makes progress; GASPI_TIMEOUT: it has not
// taken the request by the deadline. GASPI_SUCCESS: it is dead (spec §5.3.5).
gaspi_return_t kill(GlobalRank r, gaspi_timeout_t timeout);

// ---- the end of the job
// Ends the job at once with `code`: written to this rank's job slot (hygaspi-run reports it), node
// peers for which `spare(rank)` is false are killed where no MPI runs (under mpirun, MPI_Abort ends
// every process), then the process ends with `code`.
[[noreturn]] void abort_job(int code, const std::function<bool(std::uint32_t)> &spare) noexcept;

} // namespace hygaspi::engine
