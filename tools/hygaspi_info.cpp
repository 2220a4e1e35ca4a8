// hygaspi-info: what this HyGASPI was built with and what it would do on this host. Prints the
// version and build options, every environment knob (from the one table, core/knobs.hpp), the
// configuration defaults and hard limits, the GASNet-1 front end's limits and thread-mode
// libraries (gasnet_AMMax* need no gasnet_init), the hwloc topology, and the MPI library with the
// thread level and osc component the library asks for when it starts MPI (mpi_rma/mpi_env.cpp).
// MPI is initialised only under mpirun or with --mpi-init; MPI_Get_library_version needs no init.
// --knobs-markdown prints the knob table as README.md has it (ctest knobs_readme compares them).
#include <GASPI.h>
#include <GPI2_VERSION.h>
#include <hwloc.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/config.hpp"
#include "core/knobs.hpp"
#include "core/limits.hpp"
#include "gasnet/internal.hpp" // defines GASNET_HYG_LIBRARY and includes <gasnet.h>
#include "kinds/cuda_driver.hpp"
#include "mpi_rma/mpi_env.hpp"

#ifndef HYGASPI_VERSION
#define HYGASPI_VERSION "unknown"
#endif
#ifndef HYGASPI_BUILD_TYPE
#define HYGASPI_BUILD_TYPE "unknown"
#endif
#ifndef HYGASPI_SANITIZE
#define HYGASPI_SANITIZE ""
#endif
#ifndef HYGASPI_ARG_CHECKS
#define HYGASPI_ARG_CHECKS 1
#endif

namespace {

using namespace hygaspi;

void usage(std::FILE *to) {
  std::fprintf(to, "usage: hygaspi-info [--mpi-init | --knobs-markdown]\n"
                   "Prints the version, build options, environment knobs, limits, GASNet limits and\n"
                   "thread-mode libraries, hwloc topology and MPI library of this HyGASPI.\n"
                   "  --mpi-init        initialise MPI (a singleton outside mpirun) to report the thread\n"
                   "                    level MPI grants; under mpirun this happens anyway, and rank 0 prints\n"
                   "  --knobs-markdown  print only the knob table, in Markdown (README.md's)\n"
                   "  -h, --help        this text\n");
}

// "integer in [-1, 1]", "boolean 0 or 1", "hex id of at most 32 digits".
std::string type_and_range(const Knob &k) {
  switch (k.type) {
  case KnobType::integer:
    return "integer in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
  case KnobType::boolean:
    return "boolean 0 or 1";
  case KnobType::path:
    return "path of 1 to " + std::to_string(k.max) + " bytes";
  case KnobType::hex_id:
    break;
  }
  return "hex id of at most " + std::to_string(k.max) + " digits";
}

// The environment's knobs, each read on its own, so that every malformed one can be shown.
Knobs knobs_now() {
  Knobs knobs;
  std::string error;
  for (const Knob &k : kKnobs)
    (void)read_knob(knobs, k.member, error);
  return knobs;
}

const char *thread_level_name(int level) {
  switch (level) {
  case MPI_THREAD_SINGLE:
    return "MPI_THREAD_SINGLE";
  case MPI_THREAD_FUNNELED:
    return "MPI_THREAD_FUNNELED";
  case MPI_THREAD_SERIALIZED:
    return "MPI_THREAD_SERIALIZED";
  case MPI_THREAD_MULTIPLE:
    return "MPI_THREAD_MULTIPLE";
  default:
    return "unknown";
  }
}

void print_build() {
  std::printf("HyGASPI %s (GPI-2 interface %d.%d.%d)\n\n", HYGASPI_VERSION, GASPI_MAJOR_VERSION, GASPI_MINOR_VERSION,
              GASPI_REVISION);
  std::printf("== Build\n");
  std::printf("  build type:       %s\n", HYGASPI_BUILD_TYPE);
  std::printf("  sanitizers:       %s\n", std::strlen(HYGASPI_SANITIZE) > 0 ? HYGASPI_SANITIZE : "none");
  std::printf("  argument checks:  %s\n", HYGASPI_ARG_CHECKS ? "on (every argument of every call)" : "off");
#if defined(__clang__)
  std::printf("  compiler:         clang %s\n", __clang_version__);
#elif defined(__GNUC__)
  std::printf("  compiler:         GCC %d.%d.%d\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
#ifdef HWLOC_VERSION
  std::printf("  hwloc (headers):  %s (API %u.%u.%u)\n", HWLOC_VERSION, HWLOC_API_VERSION >> 16,
              (HWLOC_API_VERSION >> 8) & 0xff, HWLOC_API_VERSION & 0xff);
#endif
  std::printf("  MPI (headers):    MPI %d.%d\n\n", MPI_VERSION, MPI_SUBVERSION);
}

void print_knobs() {
  std::printf("== Environment knobs\n");
  for (const Knob &k : kKnobs) {
    std::printf("  %.*s (%s, default \"%.*s\")", static_cast<int>(k.name.size()), k.name.data(),
                type_and_range(k).c_str(), static_cast<int>(k.default_value.size()), k.default_value.data());
    if (const char *now = knob_env(k)) {
      Knobs scratch;
      std::string error;
      std::printf(" now \"%s\"%s", now,
                  read_knob(scratch, k.member, error) ? "" : " (malformed: gaspi_proc_init fails)");
    }
    std::printf("\n      %.*s\n", static_cast<int>(k.doc.size()), k.doc.data());
  }
  std::printf("\n");
}

// README.md's table, byte for byte: ctest knobs_readme diffs the two.
void print_knobs_markdown() {
  std::printf("| knob | default | meaning |\n|---|---|---|\n");
  for (const Knob &k : kKnobs) {
    const std::string_view def = k.default_value.empty() ? std::string_view("(unset)") : k.default_value;
    std::printf("| `%.*s` | %.*s | %.*s |\n", static_cast<int>(k.name.size()), k.name.data(),
                static_cast<int>(def.size()), def.data(), static_cast<int>(k.doc.size()), k.doc.data());
  }
}

void print_limits() {
  using namespace limits;
  const gaspi_config_t c = default_config();
  std::printf("== Limits (gaspi_config_t default; larger proposals are clamped to the maximum)\n");
  std::printf("  %-26s %12s %12s\n", "", "default", "maximum");
  auto row = [](const char *name, unsigned long long value, unsigned long long max) {
    std::printf("  %-26s %12llu %12llu\n", name, value, max);
  };
  row("queue_num", c.queue_num, kMaxQueues);
  row("queue_size_max", c.queue_size_max, kMaxQueueSize);
  row("group_max", c.group_max, kMaxGroups);
  row("segment_max", c.segment_max, kMaxSegments);
  row("transfer_size_max", c.transfer_size_max, kMaxTransferSize);
  row("notification_num", c.notification_num, kMaxNotifications);
  row("passive_queue_size_max", c.passive_queue_size_max, kMaxPassiveQueueSize);
  row("passive_transfer_size_max", c.passive_transfer_size_max, kMaxPassiveTransferSize);
  row("allreduce_buf_size", c.allreduce_buf_size, kMaxAllreduceBuf);
  row("allreduce_elem_max", c.allreduce_elem_max, kMaxAllreduceElems);
  row("rw_list_elem_max", c.rw_list_elem_max, kMaxListElems);
  std::printf("  %-26s %12s %12u\n", "ranks", "-", kMaxRanks);
  std::printf("  sn_timeout %llu ms, sn_port %u, build_infrastructure %d\n\n",
              static_cast<unsigned long long>(c.sn_timeout), static_cast<unsigned>(c.sn_port),
              static_cast<int>(c.build_infrastructure));
}

// The GASNet-1 front end: AM limits [G1 §2.3], handler indices [G1 §2.3.1] and the library of each
// thread mode [G1 §1.5] with the pkg-config module and makefile fragment that link it.
void print_gasnet() {
  std::printf("== GASNet (GASNet-1 spec %d.%d, conduit %s)\n", GASNET_SPEC_VERSION_MAJOR, GASNET_SPEC_VERSION_MINOR,
              GASNET_CONDUIT_NAME_STR);
  std::printf("  AMMaxArgs:        %zu\n", gasnet_AMMaxArgs());
  std::printf("  AMMaxMedium:      %zu\n", gasnet_AMMaxMedium());
  std::printf("  AMMaxLongRequest: %zu\n", gasnet_AMMaxLongRequest());
  std::printf("  AMMaxLongReply:   %zu\n", gasnet_AMMaxLongReply());
  std::printf("  handlers:         %u..%u implementation, %u..%u client\n", 0u, gasnet::kFirstClientHandler - 1,
              gasnet::kFirstClientHandler, 255u);
  std::printf("  GASNET_PAGESIZE:  %d\n", GASNET_PAGESIZE);
  std::printf("  GASNET_MAXNODES:  %d\n", GASNET_MAXNODES);
  std::printf("  thread modes (compile with -DGASNET_<mode>, link the mode's library and libhygaspi):\n");
  struct Mode {
    const char *macro, *name;
  };
  for (const Mode &m : {Mode{"GASNET_SEQ", "seq"}, Mode{"GASNET_PARSYNC", "parsync"}, Mode{"GASNET_PAR", "par"}})
    std::printf("    %-15s libgasnet-hygaspi-%s.so (pkg-config gasnet-hygaspi-%s, hygaspi-conduit/hygaspi-%s.mak)\n",
                m.macro, m.name, m.name, m.name);
  std::printf("\n");
}

// Memory kinds (gasnet_mk.h): what this machine can serve, through the driver that gex_MK_Create
// would load (HYGASPI_CUDA_LIBRARY).
void print_kinds(const Knobs &knobs) {
  std::printf("== Memory kinds (GASNet-EX gex_MK_Create, GASPI HYGASPI_MEMORY_CUDA)\n");
  std::printf("  HOST:             GEX_MK_HOST\n");
  std::string why;
  const cuda::Driver *d = cuda::load(knobs.cuda_library, why);
  int count = 0;
  if (d != nullptr && d->cuDeviceGetCount(&count) != cuda::CUDA_SUCCESS)
    count = 0;
  if (d == nullptr) {
    std::printf("  CUDA_UVA:         none: %s\n", why.c_str());
  } else {
    std::printf("  CUDA_UVA:         %d device%s through %s (CUDA driver %d.%d)\n", count, count == 1 ? "" : "s",
                knobs.cuda_library.c_str(), d->version / 1000, d->version % 1000 / 10);
    for (int i = 0; i < count; ++i) {
      cuda::CUdevice dev = 0;
      int uva = 0;
      const bool ok =
          d->cuDeviceGet(&dev, i) == cuda::CUDA_SUCCESS &&
          d->cuDeviceGetAttribute(&uva, cuda::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev) == cuda::CUDA_SUCCESS;
      std::printf("    device %d:       %s\n", i,
                  !ok        ? "cannot be queried"
                  : uva != 0 ? "unified addressing: served"
                             : "no unified addressing: refused");
    }
  }
  std::printf("  HIP, ZE:          not served by this build\n\n");
}

void print_topology() {
  std::printf("== Topology (hwloc)\n");
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) {
    std::printf("  hwloc cannot read the topology of this host\n\n");
    if (topology != nullptr)
      hwloc_topology_destroy(topology);
    return;
  }
  const unsigned api = hwloc_get_api_version();
  std::printf("  hwloc library:    API %u.%u.%u\n", api >> 16, (api >> 8) & 0xff, api & 0xff);
  std::printf("  packages:         %d\n", hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE));
  std::printf("  NUMA nodes:       %d\n", hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE));
  std::printf("  cores:            %d\n", hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE));
  std::printf("  PUs:              %d\n", hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU));
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, nullptr); node != nullptr;
       node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)) {
    char *cpus = nullptr;
    hwloc_bitmap_list_asprintf(&cpus, node->cpuset);
    std::printf("  NUMA node %u:      CPUs %s, %llu MiB\n", node->os_index, cpus != nullptr ? cpus : "?",
                static_cast<unsigned long long>(node->attr->numanode.local_memory >> 20));
    std::free(cpus);
  }
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (bound != nullptr && hwloc_get_cpubind(topology, bound, HWLOC_CPUBIND_PROCESS) == 0) {
    char *cpus = nullptr;
    hwloc_bitmap_list_asprintf(&cpus, bound);
    std::printf("  this process:     bound to CPUs %s\n", cpus != nullptr ? cpus : "?");
    std::free(cpus);
  }
  hwloc_bitmap_free(bound);
  hwloc_topology_destroy(topology);
  std::printf("\n");
}

// Returns the rank in MPI_COMM_WORLD when this call initialised MPI, else 0.
int print_mpi(std::FILE *out, bool force_init) {
  std::fprintf(out, "== MPI\n");
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (HYGASPI_MPI(MPI_Get_library_version(version, &len)) != GASPI_SUCCESS) // allowed before MPI_Init
    len = 0;
  std::string_view text(version, static_cast<std::size_t>(len));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
    text.remove_suffix(1);
  std::fprintf(out, "  library:          %.*s\n", static_cast<int>(text.size()), text.data());
  std::fprintf(out, "  thread level:     requests %s (the progress thread shares the library's MPI lock)\n",
               thread_level_name(mpi::requested_thread_level()));
  std::fprintf(out, "  osc component:    OMPI_MCA_osc=%s%s\n", mpi::chosen_osc(),
               env_foreign("OMPI_MCA_osc") != nullptr ? " (from the environment)"
                                                      : " (set by the library when it starts MPI)");
  int rank = 0;
  if (force_init || mpi::wanted(knobs_now())) {
    int initialised = 0;
    if (HYGASPI_MPI(MPI_Initialized(&initialised)) != GASPI_SUCCESS)
      initialised = 1; // do not try to start an MPI that cannot answer
    if (!initialised) {
      setenv("OMPI_MCA_osc", mpi::chosen_osc(), 0);
      int provided = MPI_THREAD_SINGLE;
      if (HYGASPI_MPI(MPI_Init_thread(nullptr, nullptr, mpi::requested_thread_level(), &provided)) != GASPI_SUCCESS) {
        std::fprintf(out, "  MPI_Init_thread failed\n\n");
        return 0;
      }
      int size = 1;
      if (HYGASPI_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank)) != GASPI_SUCCESS ||
          HYGASPI_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size)) != GASPI_SUCCESS)
        std::fprintf(out, "  MPI_Comm_rank/size failed\n");
      if (rank == 0)
        std::fprintf(out, "  granted:          %s (%d MPI ranks)\n", thread_level_name(provided), size);
    }
  } else {
    std::fprintf(out, "  granted:          not queried (not under mpirun; --mpi-init initialises MPI)\n");
  }
  std::fprintf(out, "\n");
  return rank;
}

} // namespace

int main(int argc, char **argv) {
  bool force_init = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    } else if (arg == "--mpi-init") {
      force_init = true;
    } else if (arg == "--knobs-markdown") {
      print_knobs_markdown();
      return 0;
    } else {
      std::fprintf(stderr, "hygaspi-info: unknown option %s\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  // Under mpirun only rank 0 prints. MPI's section comes last but is found out first (it may
  // initialise MPI, which tells the rank), so it goes to a buffer.
  char *buffer = nullptr;
  std::size_t size = 0;
  std::FILE *mem = open_memstream(&buffer, &size);
  if (mem == nullptr)
    return 1;
  const int rank = print_mpi(mem, force_init);
  std::fclose(mem);
  if (rank == 0) {
    print_build();
    print_knobs();
    print_limits();
    print_gasnet();
    print_kinds(knobs_now());
    print_topology();
    std::fwrite(buffer, 1, size, stdout);
  }
  std::free(buffer);
  int initialised = 0, finalized = 0;
  if (HYGASPI_MPI(MPI_Initialized(&initialised)) == GASPI_SUCCESS &&
      HYGASPI_MPI(MPI_Finalized(&finalized)) == GASPI_SUCCESS && initialised && !finalized)
    (void)HYGASPI_MPI(MPI_Finalize()); // the tool exits next: a failure is logged, nothing to undo
  return 0;
}
