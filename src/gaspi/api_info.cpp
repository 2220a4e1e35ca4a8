// Getters (spec §12), environment management (§13), profiling hooks (§14) and the GPI-2
// extensions of GASPI_Ext.h that report or print.
#include <GPI2_VERSION.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sched.h>
#include <string>
#include <x86intrin.h>

#include "gaspi/checks.hpp"
#include "gaspi/fast_path.hpp"
#include "core/statistics.hpp"

using namespace hygaspi;

namespace {

const auto kLoadTime = std::chrono::steady_clock::now(); // gaspi_time_get's origin

// Takes the code as stored bits: a caller may pass any integer, and loading an out-of-range
// value as gaspi_return_t would be undefined (UBSan flags it).
const char *error_text(const gaspi_return_t &error_code) noexcept {
  int code = 0;
  std::memcpy(&code, &error_code, sizeof code);
  switch (code) {
  case GASPI_ERROR:
    return "general error";
  case GASPI_SUCCESS:
    return "success";
  case GASPI_TIMEOUT:
    return "timeout";
  case GASPI_ERR_EMFILE:
    return "too many open files";
  case GASPI_ERR_ENV:
    return "incorrect environment";
  case GASPI_ERR_SN_PORT:
    return "invalid startup port";
  case GASPI_ERR_CONFIG:
    return "invalid configuration";
  case GASPI_ERR_NOINIT:
    return "not initialised";
  case GASPI_ERR_INITED:
    return "already initialised";
  case GASPI_ERR_NULLPTR:
    return "null pointer";
  case GASPI_ERR_INV_SEGSIZE:
    return "invalid segment size";
  case GASPI_ERR_INV_SEG:
    return "invalid segment";
  case GASPI_ERR_INV_GROUP:
    return "invalid group";
  case GASPI_ERR_INV_RANK:
    return "invalid rank";
  case GASPI_ERR_INV_QUEUE:
    return "invalid queue";
  case GASPI_ERR_INV_LOC_OFF:
    return "invalid local offset";
  case GASPI_ERR_INV_REM_OFF:
    return "invalid remote offset";
  case GASPI_ERR_INV_COMMSIZE:
    return "invalid communication size";
  case GASPI_ERR_INV_NOTIF_VAL:
    return "invalid notification value";
  case GASPI_ERR_INV_NOTIF_ID:
    return "invalid notification id";
  case GASPI_ERR_INV_NUM:
    return "invalid number";
  case GASPI_ERR_INV_SIZE:
    return "invalid size";
  case GASPI_ERR_MANY_SEG:
    return "too many segments";
  case GASPI_ERR_MANY_GRP:
    return "too many groups";
  case GASPI_QUEUE_FULL:
    return "queue full";
  case GASPI_ERR_UNALIGN_OFF:
    return "unaligned offset";
  case GASPI_ERR_ACTIVE_COLL:
    return "collective already in progress";
  case GASPI_ERR_DEVICE:
    return "device error";
  case GASPI_ERR_SN:
    return "startup network error";
  case GASPI_ERR_MEMALLOC:
    return "memory allocation failed";
  }
  return "unknown error code";
}

template <class T, class V> gaspi_return_t get_value(T *out, V value, bool needs_init = true) {
  if (needs_init)
    HYGASPI_TRY(check::init());
  HYGASPI_TRY(check::not_null(out, "output"));
  *out = static_cast<T>(value);
  return GASPI_SUCCESS;
}

} // namespace

// Config getters: before init they report the proposal, after it what was granted.
#define HYGASPI_GETTER(name, type, expr)                                                                               \
  extern "C" gaspi_return_t p##name(type *const out) {                                                                 \
    return guarded(#name, [&] { return get_value(out, (expr), false); });                                              \
  }                                                                                                                    \
  HYGASPI_ALIAS(name)

HYGASPI_GETTER(gaspi_group_max, gaspi_number_t, gaspi::state().config.group_max)
HYGASPI_GETTER(gaspi_segment_max, gaspi_number_t, gaspi::state().config.segment_max)
HYGASPI_GETTER(gaspi_queue_num, gaspi_number_t,
               gaspi::state().initialized ? gaspi::state().queues.count() : gaspi::state().config.queue_num)
HYGASPI_GETTER(gaspi_queue_size_max, gaspi_number_t, gaspi::state().config.queue_size_max)
HYGASPI_GETTER(gaspi_queue_max, gaspi_number_t, limits::kMaxQueues)
HYGASPI_GETTER(gaspi_transfer_size_max, gaspi_size_t, gaspi::state().config.transfer_size_max)
// 0: a transfer of 0 bytes is accepted and completes at once (GPI-2 1.6 reports 0 too; its
// comm_limits test reads `min - 1` bytes and expects a refusal, which a 1 here would contradict).
HYGASPI_GETTER(gaspi_transfer_size_min, gaspi_size_t, 0)
HYGASPI_GETTER(gaspi_notification_num, gaspi_number_t, gaspi::state().config.notification_num)
HYGASPI_GETTER(gaspi_passive_transfer_size_max, gaspi_size_t, gaspi::state().config.passive_transfer_size_max)
HYGASPI_GETTER(gaspi_passive_transfer_size_min, gaspi_size_t, 1)
HYGASPI_GETTER(gaspi_atomic_max, gaspi_atomic_value_t, ~0ul)
HYGASPI_GETTER(gaspi_allreduce_buf_size, gaspi_size_t, gaspi::state().config.allreduce_buf_size)
HYGASPI_GETTER(gaspi_allreduce_elem_max, gaspi_number_t, gaspi::state().config.allreduce_elem_max)
HYGASPI_GETTER(gaspi_rw_list_elem_max, gaspi_number_t, gaspi::state().config.rw_list_elem_max)
HYGASPI_GETTER(gaspi_network_type, gaspi_network_t, gaspi::state().config.network)
HYGASPI_GETTER(gaspi_build_infrastructure, gaspi_number_t, gaspi::state().config.build_infrastructure)
HYGASPI_GETTER(gaspi_initialized, gaspi_number_t, gaspi::state().initialized ? 1 : 0)
HYGASPI_GETTER(gaspi_version, float, GASPI_MAJOR_VERSION + GASPI_MINOR_VERSION / 10.0f + GASPI_REVISION / 100.0f)
HYGASPI_GETTER(gaspi_statistic_counter_max, gaspi_number_t, stats::counter_count)
#undef HYGASPI_GETTER

extern "C" {

gaspi_return_t pgaspi_proc_local_rank(gaspi_rank_t *const local_rank) {
  return guarded("gaspi_proc_local_rank", [&] { return get_value(local_rank, engine::node_rank()); });
}

gaspi_return_t pgaspi_proc_local_num(gaspi_rank_t *const local_num) {
  return guarded("gaspi_proc_local_num", [&] { return get_value(local_num, engine::node_size()); });
}

gaspi_return_t pgaspi_proc_ping(const gaspi_rank_t rank, const gaspi_timeout_t) {
  return guarded("gaspi_proc_ping", [&] {
    HYGASPI_TRY(check::init());
    return check::rank(rank);
  });
}

gaspi_return_t pgaspi_time_get(gaspi_time_t *const wtime) {
  // spec §13.2.1: "the time elapsed since an arbitrary point of time in the past". That point is
  // when the library was loaded, so the call works before gaspi_proc_init too (as with GPI-2,
  // whose tests call it first) and never goes backwards across init and term.
  return guarded("gaspi_time_get", [&] {
    HYGASPI_TRY(check::not_null(wtime, "wtime"));
    std::chrono::duration<float, std::milli> ms = std::chrono::steady_clock::now() - kLoadTime;
    *wtime = ms.count();
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_time_ticks(gaspi_cycles_t *const ticks) {
  return guarded("gaspi_time_ticks", [&] { return get_value(ticks, __rdtsc(), false); });
}

gaspi_return_t pgaspi_cpu_frequency(gaspi_float *const cpu_mhz) {
  return guarded("gaspi_cpu_frequency", [&] {
    HYGASPI_TRY(check::not_null(cpu_mhz, "cpu_mhz"));
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line))
      if (line.rfind("cpu MHz", 0) == 0) {
        *cpu_mhz = std::stof(line.substr(line.find(':') + 1));
        return GASPI_SUCCESS;
      }
    log::error("no 'cpu MHz' line in /proc/cpuinfo");
    return GASPI_ERROR;
  });
}

gaspi_return_t pgaspi_print_error(const gaspi_return_t error_code, gaspi_string_t *const error_message) {
  return guarded("gaspi_print_error", [&] {
    HYGASPI_TRY(check::not_null(error_message, "error_message"));
    *error_message = const_cast<char *>(error_text(error_code));
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_error_message(const gaspi_return_t error_code, gaspi_string_t *const error_message) {
  return pgaspi_print_error(error_code, error_message);
}

gaspi_string_t pgaspi_error_str(gaspi_return_t error_code) { return const_cast<char *>(error_text(error_code)); }

gaspi_return_t pgaspi_pcontrol(gaspi_pointer_t) { return GASPI_SUCCESS; }

// Statistics (spec §14.1): the counters of core/statistics.hpp. Any phase; the verbosity level
// starts at 0, so nothing is counted until the program raises it.
gaspi_return_t pgaspi_statistic_counter_info(const gaspi_statistic_counter_t counter,
                                             gaspi_statistic_argument_t *const counter_argument,
                                             gaspi_string_t *const counter_name,
                                             gaspi_string_t *const counter_description,
                                             gaspi_number_t *const verbosity_level) {
  return guarded("gaspi_statistic_counter_info", [&] {
    if (counter >= stats::counter_count) { // the spec's answer, so not one of the optional checks
      log::error("counter %u does not exist (counter_max %u)", counter, unsigned{stats::counter_count});
      return GASPI_ERROR;
    }
    HYGASPI_TRY(check::not_null(counter_argument, "counter_argument"));
    HYGASPI_TRY(check::not_null(counter_name, "counter_name"));
    HYGASPI_TRY(check::not_null(counter_description, "counter_description"));
    HYGASPI_TRY(check::not_null(verbosity_level, "verbosity_level"));
    const stats::CounterInfo &info = stats::info(static_cast<stats::Counter>(counter));
    *counter_argument = info.argument;
    *counter_name = const_cast<char *>(info.name);
    *counter_description = const_cast<char *>(info.description);
    *verbosity_level = info.min_level;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_statistic_verbosity_level(const gaspi_number_t verbosity_level) {
  std::lock_guard lock(engine::lifecycle()); // against a gaspi_proc_init publishing the atomics' life
  stats::set_level(verbosity_level);
  fast::publish_atomic_life(); // counting on: every atomic through the library, which counts it
  return GASPI_SUCCESS;
}

gaspi_return_t pgaspi_statistic_counter_get(const gaspi_statistic_counter_t counter, const gaspi_number_t argument,
                                            gaspi_ulong *const value) {
  return guarded("gaspi_statistic_counter_get", [&] {
    HYGASPI_TRY(check::not_null(value, "value"));
    std::uint64_t v = 0;
    if (!stats::get(counter, argument, v)) {
      log::error("counter %u does not exist, or its rank argument %u is out of range", counter, argument);
      return GASPI_ERROR;
    }
    *value = v;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_statistic_counter_reset(const gaspi_statistic_counter_t counter) {
  log::CallScope scope("gaspi_statistic_counter_reset");
  if (stats::reset(counter))
    return GASPI_SUCCESS;
  log::error("counter %u does not exist", counter);
  return GASPI_ERROR;
}

// As GPI-2: only a rank started with NUMA placement (gaspi_run -N, which sets
// GASPI_SET_NUMA_SOCKET=1) has a socket; otherwise GASPI_ERR_ENV. The socket is the NUMA node of
// the CPU the rank runs on.
gaspi_return_t pgaspi_numa_socket(gaspi_uchar *const socket) {
  return guarded("gaspi_numa_socket", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(socket, "socket"));
    if (!engine::knobs().numa_socket) {
      log::error("NUMA was not enabled (-N option of gaspi_run)");
      return GASPI_ERR_ENV;
    }
    unsigned cpu = 0, node = 0;
    *socket = static_cast<gaspi_uchar>(getcpu(&cpu, &node) == 0 ? node : 0);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_set_socket_affinity(const gaspi_uchar socket) {
  log::CallScope scope("gaspi_set_socket_affinity");
  HYGASPI_CHECK(socket == 0, GASPI_ERROR, "socket %u does not exist", socket);
  return GASPI_SUCCESS;
}

void pgaspi_print_affinity_mask(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return;
  std::string cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) {
      if (!cpus.empty())
        cpus += ',';
      cpus += std::to_string(c); // not "," + to_string(c): GCC 12 -O2 warns falsely on that operator+
    }
  std::printf("[rank %u] affinity: %s\n", engine::rank(), cpus.c_str());
}

void pgaspi_delay(void) { _mm_pause(); }

void gaspi_printf(const char *fmt, ...) {
  char text[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  std::printf("[rank %u] %s", engine::rank(), text);
  std::fflush(stdout);
}

// Printed by the caller, prefixed with the target rank: all ranks of a node share the launcher's
// output, so the text reaches the same terminal.
void gaspi_printf_to(gaspi_rank_t rank, const char *fmt, ...) {
  char text[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  std::printf("[rank %u] %s", rank, text);
  std::fflush(stdout);
}

} // extern "C"

HYGASPI_ALIAS(gaspi_proc_local_rank)
HYGASPI_ALIAS(gaspi_proc_local_num)
HYGASPI_ALIAS(gaspi_proc_ping)
HYGASPI_ALIAS(gaspi_time_get)
HYGASPI_ALIAS(gaspi_time_ticks)
HYGASPI_ALIAS(gaspi_cpu_frequency)
HYGASPI_ALIAS(gaspi_print_error)
HYGASPI_ALIAS(gaspi_error_message)
HYGASPI_ALIAS(gaspi_error_str)
HYGASPI_ALIAS(gaspi_pcontrol)
HYGASPI_ALIAS(gaspi_statistic_counter_info)
HYGASPI_ALIAS(gaspi_statistic_verbosity_level)
HYGASPI_ALIAS(gaspi_statistic_counter_get)
HYGASPI_ALIAS(gaspi_statistic_counter_reset)
HYGASPI_ALIAS(gaspi_numa_socket)
HYGASPI_ALIAS(gaspi_set_socket_affinity)
HYGASPI_ALIAS(gaspi_print_affinity_mask)
HYGASPI_ALIAS(gaspi_delay)
