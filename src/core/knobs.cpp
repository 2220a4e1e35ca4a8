#include "core/knobs.hpp"

#include <charconv>
#include <cstdlib>
#include <limits>

namespace hygaspi {

namespace {
constexpr KnobInfo kTable[] = {
    {"HYGASPI_JOB", KnobType::string, "", "job id; set by hygaspi-run. Unset: a 1-rank job"},
    {"HYGASPI_RANK", KnobType::integer, "0", "this process's rank; set by hygaspi-run"},
    {"HYGASPI_NRANKS", KnobType::integer, "1", "number of ranks; set by hygaspi-run"},
    {"HYGASPI_PID", KnobType::integer, "0",
     "pid of the process hygaspi-run started for the rank; set by hygaspi-run. Another process that inherits "
     "HYGASPI_JOB (a program the rank starts) runs as a standalone 1-rank job"},
    {"HYGASPI_SPIN", KnobType::integer, "2000",
     "busy-poll iterations before a wait yields the CPU (default 0 when the node has more ranks than CPUs)"},
    {"HYGASPI_YIELDS", KnobType::integer, "50", "sched_yield calls before a wait sleeps on a futex"},
    {"HYGASPI_LOG", KnobType::integer, "1", "diagnostics: 0 none, 1 errors, 2 warnings, 3 debug"},
    {"HYGASPI_INIT_TIMEOUT_MS", KnobType::integer, "60000",
     "how long gaspi_proc_init waits for its node peers when called with GASPI_BLOCK"},
    {"HYGASPI_NODE_SIZE", KnobType::integer, "0",
     "MPI jobs: split the ranks of a host into virtual nodes of k ranks (1: every pair crosses MPI)"},
    {"HYGASPI_SHM", KnobType::boolean, "1", "MPI jobs: 0 sends all traffic through MPI, even on one host"},
    {"HYGASPI_PROGRESS_THREAD", KnobType::integer, "-1",
     "MPI jobs: a thread that drives MPI progress, so that operations aimed at a rank that computes "
     "(or spins on local memory) complete: -1 on when the job spans nodes, 0 off, 1 on. Never beside an "
     "application's own MPI calls unless MPI grants MPI_THREAD_MULTIPLE"},
    {"HYGASPI_THREADS_PIN", KnobType::integer, "-1",
     "GASPI_Threads.h: bind the threads gaspi_threads_run starts, one per core of the process's CPU set: "
     "-1 only when a launcher narrowed that set and it has a core per thread, 0 never, 1 always"},
    {"HYGASPI_TEST_DIE_IN_PASSIVE_SEND", KnobType::integer, "-1",
     "testing only: the rank with this number kills itself (SIGKILL) inside its first node-local "
     "gaspi_passive_send, after claiming a slot of the receive ring and before filling it; -1 never"},
    {nullptr, KnobType::string, nullptr, nullptr},
};

bool read_int(const char *name, std::int64_t lo, std::int64_t hi, std::int64_t &out, std::string &error) {
  const char *text = std::getenv(name);
  if (text == nullptr)
    return true;
  auto value = parse_int(text, lo, hi);
  if (!value) {
    error = std::string(name) + "='" + text + "' is not an integer in [" + std::to_string(lo) + ", " +
            std::to_string(hi) + "]";
    return false;
  }
  out = *value;
  return true;
}
} // namespace

const KnobInfo *knob_table() noexcept { return kTable; }

std::optional<std::int64_t> parse_int(std::string_view text, std::int64_t lo, std::int64_t hi) noexcept {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || value < lo || value > hi)
    return std::nullopt;
  return value;
}

bool read_knobs(Knobs &out, std::string &error) {
  if (const char *job = std::getenv("HYGASPI_JOB"))
    out.job = job;
  for (char c : out.job) {
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (!hex || out.job.size() > 32) {
      error = "HYGASPI_JOB='" + out.job + "' is not a job id of at most 32 lower-case hex digits";
      return false;
    }
  }
  if (!read_int("HYGASPI_NRANKS", 1, 65535, out.nranks, error) ||
      !read_int("HYGASPI_RANK", 0, out.nranks - 1, out.rank, error) ||
      !read_int("HYGASPI_PID", 0, std::numeric_limits<std::int32_t>::max(), out.launched_pid, error) ||
      !read_int("HYGASPI_SPIN", 0, 1 << 30, out.spin, error) ||
      !read_int("HYGASPI_YIELDS", 0, 1 << 30, out.yields, error) ||
      !read_int("HYGASPI_LOG", 0, 3, out.log_level, error) ||
      !read_int("HYGASPI_INIT_TIMEOUT_MS", 1, 1ll << 40, out.init_timeout_ms, error) ||
      !read_int("HYGASPI_NODE_SIZE", 0, 65535, out.node_size, error))
    return false;
  std::int64_t shm = 1;
  if (!read_int("HYGASPI_SHM", 0, 1, shm, error))
    return false;
  out.shm = shm == 1;
  if (!read_int("HYGASPI_PROGRESS_THREAD", -1, 1, out.progress_thread, error) ||
      !read_int("HYGASPI_THREADS_PIN", -1, 1, out.threads_pin, error) ||
      !read_int("HYGASPI_TEST_DIE_IN_PASSIVE_SEND", -1, 65535, out.test_die_send, error))
    return false;
  if (out.job.empty() && out.nranks != 1) {
    error = "HYGASPI_NRANKS=" + std::to_string(out.nranks) + " but HYGASPI_JOB is not set; start with hygaspi-run";
    return false;
  }
  return true;
}

} // namespace hygaspi
