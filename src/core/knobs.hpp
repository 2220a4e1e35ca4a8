// Every environment variable HyGASPI reads is a knob of one table, kKnobs below (as Sandia
// OpenSHMEM's shmem_env_defs.h; docs/DESIGN.md "Code conventions"). Parsing, range checks,
// defaults, hygaspi-info and README.md's knob table (hygaspi-info --knobs-markdown, compared with
// the README by ctest knobs_readme) all loop over it: a new knob is one member of Knobs and one
// entry of kKnobs. Variables that belong to others (MPI launchers, Open MPI's MCA parameters) are
// read through env_foreign(). knobs.cpp holds the only getenv calls of src/ and tools/.
#pragma once
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace hygaspi {

// Parsed values. A default-constructed Knobs holds every knob's default from kKnobs (the zeros
// below are placeholders that the constructor overwrites).
struct Knobs {
  Knobs();

  std::string job;                // HYGASPI_JOB: job id set by the launcher ("" = standalone)
  std::int64_t rank{};            // HYGASPI_RANK
  std::int64_t nranks{};          // HYGASPI_NRANKS
  std::int64_t launched_pid{};    // HYGASPI_PID: the process hygaspi-run started (0: unknown)
  std::int64_t spin{};            // HYGASPI_SPIN: busy-poll iterations before yielding
  std::int64_t yields{};          // HYGASPI_YIELDS: sched_yield calls before sleeping on a futex
  std::int64_t log_level{};       // HYGASPI_LOG: 0 none, 1 errors, 2 warnings, 3 debug
  std::int64_t init_timeout_ms{}; // HYGASPI_INIT_TIMEOUT_MS
  std::int64_t node_size{};       // HYGASPI_NODE_SIZE: virtual nodes of k ranks (MPI jobs); 0 = real nodes
  bool shm{};                     // HYGASPI_SHM: false sends everything through MPI
  std::int64_t progress_thread{}; // HYGASPI_PROGRESS_THREAD: -1 auto, 0 off, 1 on
  std::int64_t progress_nap_us{}; // HYGASPI_PROGRESS_NAP_US: the idle progress thread's longest nap
  std::int64_t threads_pin{};     // HYGASPI_THREADS_PIN: gaspi_threads_run binding, -1 auto, 0 off, 1 on
  std::int64_t test_die_send{};   // HYGASPI_TEST_DIE_IN_PASSIVE_SEND: this rank dies in a send
  bool numa_socket{};             // GASPI_SET_NUMA_SOCKET (GPI-2's): gaspi_numa_socket answers
  bool dynamic_window{};          // HYGASPI_DYNAMIC_WINDOW: collective segments through a dynamic window
  std::int64_t group_windows{};   // HYGASPI_GROUP_WINDOWS: -1 auto, 0 off, 1 on (mpi_rma/rma.hpp)
  bool death_ring{};              // HYGASPI_DEATH_RING: the TCP ring that sees unwitnessed deaths
  std::string cuda_library;       // HYGASPI_CUDA_LIBRARY: the CUDA driver that memory kinds load

  std::uint64_t from_env = 0; // bit i: the environment set kKnobs[i] (read_knobs, read_knob)

  // True when the environment set the knob of `member` (a knob left at its default reads false).
  template <class T> [[nodiscard]] constexpr bool given(T Knobs::*member) const noexcept;
};

// integer: a decimal in [min, max]. boolean: 0 or 1. hex_id: at most `max` lower-case hex digits.
// path: a file name or path of `min` to `max` bytes, without control characters.
enum class KnobType : std::uint8_t { integer, boolean, hex_id, path };
using KnobMember = std::variant<std::int64_t Knobs::*, bool Knobs::*, std::string Knobs::*>;

struct Knob {
  std::string_view name; // from a literal, so name.data() is NUL-terminated
  KnobType type;
  std::string_view default_value; // as it would be written in the environment
  std::int64_t min, max;          // integer: value range; boolean: 0, 1; hex_id: length range
  KnobMember member;
  std::string_view doc; // one line of Markdown, no '|' (README.md's table cell)
};

// One helper per type, so that each entry of the table states its type once.
namespace knob {
constexpr Knob integer(std::string_view name, std::string_view def, std::int64_t min, std::int64_t max,
                       std::int64_t Knobs::*member, std::string_view doc) {
  return {name, KnobType::integer, def, min, max, member, doc};
}
constexpr Knob boolean(std::string_view name, std::string_view def, bool Knobs::*member, std::string_view doc) {
  return {name, KnobType::boolean, def, 0, 1, member, doc};
}
constexpr Knob hex_id(std::string_view name, std::string_view def, std::int64_t max_digits, std::string Knobs::*member,
                      std::string_view doc) {
  return {name, KnobType::hex_id, def, 0, max_digits, member, doc};
}
constexpr Knob path(std::string_view name, std::string_view def, std::string Knobs::*member, std::string_view doc) {
  return {name, KnobType::path, def, 1, 4096, member, doc};
}
} // namespace knob

// The table. Its order is the order of hygaspi-info, of the README, and of the checks in
// read_knobs (the first malformed knob is the one reported).
inline constexpr Knob kKnobs[] = {
    knob::hex_id("HYGASPI_JOB", "", 32, &Knobs::job, "job id; set by hygaspi-run. Unset: a 1-rank job"),
    knob::integer("HYGASPI_RANK", "0", 0, 65534, &Knobs::rank,
                  "this process's rank, below `HYGASPI_NRANKS`; set by hygaspi-run"),
    knob::integer("HYGASPI_NRANKS", "1", 1, 65535, &Knobs::nranks,
                  "number of ranks; set by hygaspi-run. Above 1 only with `HYGASPI_JOB`"),
    knob::integer("HYGASPI_PID", "0", 0, std::numeric_limits<std::int32_t>::max(), &Knobs::launched_pid,
                  "pid of the process hygaspi-run started for the rank; set by hygaspi-run, and by a rank of "
                  "an mpirun job that started MPI. Another process that inherits it (a program the rank "
                  "starts) runs as a standalone 1-rank job"),
    knob::integer("HYGASPI_SPIN", "2000", 0, 1 << 30, &Knobs::spin,
                  "busy-poll iterations before a wait yields the CPU (unset: 0 when the host has more ranks "
                  "than CPUs)"),
    knob::integer("HYGASPI_YIELDS", "50", 0, 1 << 30, &Knobs::yields,
                  "`sched_yield` calls before a wait sleeps on a futex"),
    knob::integer("HYGASPI_LOG", "1", 0, 3, &Knobs::log_level,
                  "diagnostics: 0 none, 1 errors, 2 warnings, 3 debug (a malformed knob, which fails the start, "
                  "is said at every level)"),
    knob::integer("HYGASPI_INIT_TIMEOUT_MS", "60000", 1, std::int64_t{1} << 40, &Knobs::init_timeout_ms,
                  "how long `gaspi_proc_init(GASPI_BLOCK)` waits for its node peers"),
    knob::integer("HYGASPI_NODE_SIZE", "0", 0, 65535, &Knobs::node_size,
                  "MPI jobs: split the ranks of a host into virtual nodes of k ranks (1: every pair crosses MPI)"),
    knob::boolean("HYGASPI_SHM", "1", &Knobs::shm, "MPI jobs: 0 sends all traffic through MPI, even on one host"),
    knob::integer("HYGASPI_PROGRESS_THREAD", "-1", -1, 1, &Knobs::progress_thread,
                  "MPI jobs: a thread that drives MPI progress, so that operations aimed at a rank that computes "
                  "(or spins on local memory) complete: -1 on when the job spans nodes, 0 off, 1 on when the "
                  "job spans nodes and said when it cannot be (a job of one node makes no MPI calls after its "
                  "start). Never beside an application's own MPI calls unless MPI grants `MPI_THREAD_MULTIPLE`"),
    knob::integer("HYGASPI_PROGRESS_NAP_US", "1000", 50, 1000000, &Knobs::progress_nap_us,
                  "MPI jobs: the longest nap of the progress thread while no wait of the application drives "
                  "progress, in microseconds (while one does, it naps 500 us). It naps 50 us after a step "
                  "that served a request, and each step that served none doubles the nap up to this. Lower: an "
                  "operation aimed at a rank that computes, or a put through Open MPI's osc/pt2pt to a rank "
                  "that spins on its memory, completes sooner after a quiet spell; higher: the thread wakes "
                  "less often, and takes less CPU time and MPI from the application"),
    knob::integer("HYGASPI_THREADS_PIN", "-1", -1, 1, &Knobs::threads_pin,
                  "`gaspi_threads_run`: bind each started thread to a core of the process's CPU set; -1 only "
                  "when a launcher narrowed that set and it has a core per thread, 0 never, 1 always. Read "
                  "by each `gaspi_threads_init`"),
    knob::integer(
        "HYGASPI_TEST_DIE_IN_PASSIVE_SEND", "-1", -1, 65535, &Knobs::test_die_send,
        "testing only: the rank with this number kills itself (SIGKILL) inside its first node-local "
        "`gaspi_passive_send`, between reserving its frame in the receiver's inbox and publishing it; -1 never"),
    knob::boolean("GASPI_SET_NUMA_SOCKET", "0", &Knobs::numa_socket,
                  "GPI-2's: 1 (`gaspi_run -N` sets it) makes `gaspi_numa_socket` report the NUMA node of the "
                  "rank's CPU; 0: it returns `GASPI_ERR_ENV`"),
    knob::boolean("HYGASPI_DYNAMIC_WINDOW", "0", &Knobs::dynamic_window,
                  "jobs across nodes: 1 reaches the segments made collectively (`gasnet_attach`, "
                  "`gaspi_segment_create` on `GASPI_GROUP_ALL`) through a dynamic MPI window, 0 through a regular "
                  "window of their own (`MPI_Win_create`). Set it alike on every rank. For comparison"),
    knob::boolean("HYGASPI_DEATH_RING", "1", &Knobs::death_ring,
                  "jobs across nodes: 1 keeps a ring of TCP connections among the ranks, through which a rank "
                  "sees the death of one that no node peer watches (alone on its node, or the last there); 0 "
                  "leaves it out, where TCP between the hosts is blocked. Set it alike on every rank"),
    knob::integer("HYGASPI_GROUP_WINDOWS", "-1", -1, 1, &Knobs::group_windows,
                  "jobs across nodes: 1 gives a segment that `gaspi_segment_create` makes on a group smaller than "
                  "`GASPI_GROUP_ALL` a window of its own, on an MPI communicator of the group's members; 0 reaches "
                  "it through the dynamic window. -1: 1, except under Open MPI before 5.0, whose osc/rdma names "
                  "its shared-memory file after the communicator's id alone, which two disjoint groups on one "
                  "host can share: windows they make at the same time then fail. Set it alike on every rank"),
    knob::path("HYGASPI_CUDA_LIBRARY", "libcuda.so.1", &Knobs::cuda_library,
               "the CUDA driver library that CUDA memory kinds load (`dlopen`) at their first use: a file name "
               "searched as the dynamic loader does, or a path"),
};
inline constexpr std::size_t kKnobCount = std::size(kKnobs);

// Parses a decimal integer (optional '-', digits only) in [lo, hi]; nullopt on any malformation.
[[nodiscard]] constexpr std::optional<std::int64_t> parse_int(std::string_view text, std::int64_t lo,
                                                              std::int64_t hi) noexcept {
  const bool negative = !text.empty() && text.front() == '-';
  const std::string_view digits = text.substr(negative ? 1 : 0);
  if (digits.empty())
    return std::nullopt;
  // Accumulated as a negative number, whose range includes INT64_MIN.
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  std::int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return std::nullopt;
    const int digit = c - '0';
    if (value < (kMin + digit) / 10) // value * 10 - digit would fall below INT64_MIN
      return std::nullopt;
    value = value * 10 - digit;
  }
  if (!negative) {
    if (value == kMin)
      return std::nullopt;
    value = -value;
  }
  if (value < lo || value > hi)
    return std::nullopt;
  return value;
}

// True when `text` is a value of `k`: its type's syntax, within its range. (Constant-evaluated for
// every default in knobs.cpp; Knobs itself is not a literal type under clang with libstdc++ 12.)
[[nodiscard]] constexpr bool knob_accepts(const Knob &k, std::string_view text) noexcept {
  if (k.type == KnobType::integer || k.type == KnobType::boolean)
    return parse_int(text, k.min, k.max).has_value();
  if (k.type == KnobType::path) {
    if (text.size() < static_cast<std::uint64_t>(k.min) || text.size() > static_cast<std::uint64_t>(k.max))
      return false;
    for (char c : text)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return false;
    return true;
  }
  if (text.size() < static_cast<std::uint64_t>(k.min) || text.size() > static_cast<std::uint64_t>(k.max))
    return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

// The index of the knob of `member` in kKnobs (kKnobCount if none: not a knob).
[[nodiscard]] constexpr std::size_t knob_index(KnobMember member) noexcept {
  for (std::size_t i = 0; i < kKnobCount; ++i)
    if (kKnobs[i].member == member)
      return i;
  return kKnobCount;
}

template <class T> constexpr bool Knobs::given(T Knobs::*member) const noexcept {
  const std::size_t i = knob_index(member);
  return i < kKnobCount && ((from_env >> i) & 1) != 0;
}

// Reads every knob from the environment into `out`, then the checks between knobs (a rank below
// the number of ranks, several ranks only with a job id). Returns false and fills `error`, naming
// the knob and its bad value, on the first malformed one.
bool read_knobs(Knobs &out, std::string &error);

// Reads one knob now (for knobs read again where they are used, e.g. HYGASPI_THREADS_PIN at each
// gaspi_threads_init). Leaves `out` unchanged when unset; false and `error` when malformed.
bool read_knob(Knobs &out, KnobMember member, std::string &error);

// The environment's text for a knob, nullptr when unset (hygaspi-info shows it beside the default).
const char *knob_env(const Knob &k) noexcept;

// The one way to read a variable that is not a knob of ours: another program's (launcher
// detection: OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK; Open MPI's OMPI_MCA_osc). nullptr when unset.
// Our own knobs go through the table (a knob's name here is a programming error, asserted).
const char *env_foreign(const char *name) noexcept;

} // namespace hygaspi
