#include "mpi_rma/mpi_env.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "core/knobs.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"
#include "mpi_rma/rma.hpp"

namespace hygaspi::mpi {

namespace {
// Launchers announce themselves in the environment: Open MPI's mpirun, PMIx, Slurm/MPICH PMI.
bool launched_by_mpirun() noexcept {
  for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (env_foreign(var) != nullptr)
      return true;
  return false;
}

// When we start MPI ourselves, choose the one-sided component (docs/PLATFORM.md): Debian's
// Open MPI disables osc/ucx and osc/pt2pt in its system file, so across real hosts no RMA works.
// An explicit OMPI_MCA_osc of the user wins. On one host the default (osc/rdma over shared
// memory) works; across hosts pt2pt is the component that needs nothing but TCP.
void choose_osc() { setenv("OMPI_MCA_osc", chosen_osc(), 0); }

// osc/rdma takes 64 attachments per dynamic window by default (Open MPI 4.1), fewer than
// segment_max segments need (mpi_rma/rma.hpp "Attachments"). The cap is read at MPI_Init and
// cannot be changed through MPI_T later (MPI_T_ERR_CVAR_SET_NOT_NOW), so raise it here, before
// MPI_Init. Its cost is a few dozen bytes per allowed attachment in every dynamic window's state;
// what an attachment registers is spent only when it is made. A value of the user wins.
void raise_attach_limit() {
  const std::string enough = std::to_string(kWindowAttachments);
  setenv("OMPI_MCA_osc_rdma_max_attach", enough.c_str(), 0);
}

int g_self_keyval = MPI_KEYVAL_INVALID;

} // namespace

std::uint32_t osc_rdma_max_attach() noexcept {
  // MPI_T_init_thread asks for the thread level MPI granted already. Open MPI 4.1 stores the level
  // it is given as the process's own: MPI_THREAD_SINGLE here made MPI_Query_thread answer SINGLE
  // for good, turned off Open MPI's locking for an application that had MPI_THREAD_MULTIPLE, and
  // kept the next gaspi_proc_init of the same MPI session from starting the progress thread.
  int level = MPI_THREAD_SINGLE, provided = 0;
  if (HYGASPI_MPI(MPI_Query_thread(&level)) != GASPI_SUCCESS ||
      HYGASPI_MPI(MPI_T_init_thread(level, &provided)) != GASPI_SUCCESS)
    return 0;
  std::uint32_t cap = 0;
  int index = -1;
  // MPI_T_ERR_INVALID_NAME (no osc/rdma) is an answer, not a failure to log.
  const int found = MPI_T_cvar_get_index("osc_rdma_max_attach", &index); // mpi-unchecked: see above
  if (found == MPI_SUCCESS) {
    char name[64];
    char desc[8];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    int count = 0;
    unsigned value = 0;
    if (HYGASPI_MPI(MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind,
                                        &scope)) == GASPI_SUCCESS &&
        type == MPI_UNSIGNED &&
        HYGASPI_MPI(MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count)) == GASPI_SUCCESS) {
      if (count == 1 && HYGASPI_MPI(MPI_T_cvar_read(handle, &value)) == GASPI_SUCCESS)
        cap = value;
      (void)HYGASPI_MPI(MPI_T_cvar_handle_free(&handle)); // nothing to undo
    }
  }
  (void)HYGASPI_MPI(MPI_T_finalize()); // nothing to undo
  return cap;
}

bool group_windows_safe() noexcept {
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
  return false;
#else
  return true;
#endif
}

const char *chosen_osc() noexcept {
  const char *user = env_foreign("OMPI_MCA_osc");
  return user != nullptr ? user : "sm,rdma,pt2pt";
}

// SERIALIZED, not MULTIPLE: osc/pt2pt, the one component that works across TCP hosts here,
// refuses MPI_THREAD_MULTIPLE, and every MPI call of the library (the progress thread's too) goes
// through one lock, which is what SERIALIZED asks for.
int requested_thread_level() noexcept { return MPI_THREAD_SERIALIZED; }

gaspi_return_t fail(const char *call, int mpi_error) noexcept {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_error, text, &len) != MPI_SUCCESS) // mpi-unchecked: checked here; the wrapper would recurse
    len = std::snprintf(text, sizeof text, "MPI error code %d", mpi_error);
  log::error("%.*s failed: %.*s", static_cast<int>(std::strcspn(call, "(")), call, len, text);
  return GASPI_ERROR;
}

bool wanted(const Knobs &knobs) noexcept {
  if (knobs.given(&Knobs::job))
    return false; // started by hygaspi-run: shared memory only
  int initialised = 0;
  (void)HYGASPI_MPI(MPI_Initialized(&initialised)); // callable at any time; 0 on failure
  if (initialised)
    return true;
  // mpirun's environment is inherited by every process a rank starts (system(), fork+exec), and
  // Open MPI aborts MPI_Init in such a process, which its daemon does not know. A rank records its
  // pid in HYGASPI_PID when it starts MPI (Env::init): a process that finds another pid there was
  // started by a rank and runs as a standalone job, as under hygaspi-run.
  if (knobs.launched_pid != 0 && knobs.launched_pid != getpid())
    return false;
  return launched_by_mpirun();
}

gaspi_return_t Env::init(const EnvOptions &options) {
  int initialised = 0, finalized = 0;
  HYGASPI_TRY(HYGASPI_MPI(MPI_Initialized(&initialised)));
  HYGASPI_TRY(HYGASPI_MPI(MPI_Finalized(&finalized))); // both are callable at any time
  if (finalized) {
    // MPI cannot start again in this process, and any other MPI call would abort it.
    log::error("the application finalized MPI (MPI_Finalize) before this start: MPI cannot serve the job again");
    return GASPI_ERR_ENV;
  }
  int provided = MPI_THREAD_SINGLE;
  if (!initialised) {
    choose_osc();
    raise_attach_limit();
    const int want = requested_thread_level();
    // For the processes this one starts (see wanted()); before MPI_Init starts threads that may
    // read the environment.
    setenv("HYGASPI_PID", std::to_string(getpid()).c_str(), 1);
    HYGASPI_TRY(HYGASPI_MPI(MPI_Init_thread(nullptr, nullptr, want, &provided)));
    we_initialised_ = true;
    // MPI cannot be initialised twice in a process, and GASPI allows several life cycles: keep
    // MPI up until the process exits.
    finalize_at_process_exit();
  } else {
    HYGASPI_TRY(HYGASPI_MPI(MPI_Query_thread(&provided)));
  }
  thread_multiple_ = provided == MPI_THREAD_MULTIPLE;
  provided_ = provided;
  funneled_ = provided < MPI_THREAD_SERIALIZED;
  if (funneled_) {
    int main_thread = 0;
    HYGASPI_TRY(HYGASPI_MPI(MPI_Is_thread_main(&main_thread)));
    mpi_thread_ = main_thread != 0 ? std::this_thread::get_id() : std::thread::id();
  }
  // Our progress thread may call MPI beside the application's threads only if MPI allows that, or
  // if the application never calls MPI itself (we started it) and MPI lets threads take turns.
  progress_thread_allowed_ = (we_initialised_ && !funneled_) || thread_multiple_;
  // From here on a failure leaves comm_ for term() to free (the caller unwinds with term()).
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm_)));
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN)));
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_dup(comm_, &collective_comm_)));
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_rank(comm_, &rank_)));
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_size(comm_, &size_)));
  if (size_ > 65535) {
    log::error("%d MPI ranks, but gaspi_rank_t holds at most 65535", size_);
    return GASPI_ERR_ENV;
  }

  // Node id: the first world rank of my shared-memory domain, cut into virtual nodes if asked.
  MPI_Comm shared = MPI_COMM_NULL;
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &shared)));
  int first = rank_;
  int shared_rank = 0;
  gaspi_return_t rc = HYGASPI_MPI(MPI_Allreduce(&rank_, &first, 1, MPI_INT, MPI_MIN, shared));
  if (rc == GASPI_SUCCESS)
    rc = HYGASPI_MPI(MPI_Comm_rank(shared, &shared_rank));
  if (rc == GASPI_SUCCESS)
    rc = HYGASPI_MPI(MPI_Comm_size(shared, &host_ranks));
  (void)HYGASPI_MPI(MPI_Comm_free(&shared));
  HYGASPI_TRY(rc);
  int node = first;
  if (!options.shm)
    node = rank_;
  else if (options.node_size > 0)
    node = first + static_cast<int>(shared_rank / options.node_size) * static_cast<int>(options.node_size);
  node_of.assign(static_cast<std::size_t>(size_), 0);
  HYGASPI_TRY(HYGASPI_MPI(MPI_Allgather(&node, 1, MPI_INT, node_of.data(), 1, MPI_INT, comm_)));
  node_ranks.clear();
  for (int r = 0; r < size_; ++r)
    if (node_of[static_cast<std::size_t>(r)] == node) {
      if (r == rank_)
        local_rank = static_cast<int>(node_ranks.size());
      node_ranks.push_back(r);
    }

  // The node's first rank draws the shm job id and shares it with its node.
  MPI_Comm node_comm = MPI_COMM_NULL;
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_split(comm_, node, rank_, &node_comm)));
  char job[33] = {};
  if (local_rank == 0) {
    // Entropy cannot run out on Linux; should it fail, the broadcast still runs (with an empty id
    // that every node peer rejects), so no peer waits for a root that left.
    std::uint64_t id[2];
    if (getentropy(id, sizeof id) == 0)
      std::snprintf(job, sizeof job, "%016llx%016llx", static_cast<unsigned long long>(id[0]),
                    static_cast<unsigned long long>(id[1]));
    else
      log::error("getentropy failed: %s", std::strerror(errno));
  }
  rc = HYGASPI_MPI(MPI_Bcast(job, sizeof job, MPI_CHAR, 0, node_comm));
  (void)HYGASPI_MPI(MPI_Comm_free(&node_comm));
  HYGASPI_TRY(rc);
  if (job[0] == '\0')
    return GASPI_ERROR;
  node_job = job;

  const char *osc = env_foreign("OMPI_MCA_osc");
  osc_ = osc != nullptr ? osc : "Open MPI default";
  at_finalize_ = options.at_finalize;
  if (at_finalize_ != nullptr) {
    if (g_self_keyval == MPI_KEYVAL_INVALID)
      HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &g_self_keyval, nullptr)));
    HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, g_self_keyval, this)));
    hooked_ = true;
  }
  active_ = true;
  return GASPI_SUCCESS;
}

void Env::finalize_at_process_exit() noexcept {
  if (!finalize_registered_)
    on_exit(finalize_at_exit, this); // the Env is never destroyed (bridge/runtime.hpp)
  finalize_registered_ = true;
}

void Env::finalize_at_exit(int, void *env) noexcept {
  Env &self = *static_cast<Env *>(env);
  if (self.leave_unfinalized_.load(std::memory_order_relaxed))
    return;
  // Other threads of the process may still run (GASNET_PAR after gasnet_exit): none enters MPI
  // from here on (lock() parks it), and one inside an MPI call under the lock finishes it first.
  // The lock is never released: the process ends.
  self.closing_.store(true, std::memory_order_seq_cst);
  self.mutex_.lock();
  int finalized = 0;
  if (HYGASPI_MPI(MPI_Finalized(&finalized)) == GASPI_SUCCESS && !finalized)
    (void)HYGASPI_MPI(MPI_Finalize()); // at exit: logged, nothing left to undo
}

int Env::on_finalize(MPI_Comm, int, void *env, void *) noexcept {
  auto *self = static_cast<Env *>(env);
  if (self->hooked_ && self->at_finalize_ != nullptr) {
    self->finalizing_ = true; // term(), called by at_finalize_, must not delete the attribute
    self->at_finalize_();
    self->finalizing_ = false;
  }
  self->hooked_ = false;
  return MPI_SUCCESS;
}

void Env::check_funneled() noexcept {
  if (std::this_thread::get_id() == mpi_thread_ || told_funneled_.exchange(true, std::memory_order_relaxed))
    return;
  // Said once, and the call goes on as before: it has worked with Open MPI's shared-memory paths,
  // but MPI promises nothing, and a network transport may not survive it.
  log::error("MPI granted only %s to the application, and this thread did not start MPI: MPI does not allow it "
             "to make the MPI calls this library call needs. Start MPI with MPI_Init_thread and "
             "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE, or call the library from the thread that started MPI",
             provided_ == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : "MPI_THREAD_FUNNELED");
}

bool Env::test(MPI_Request &request, bool &failed) {
  int done = 0;
  auto held = lock();
  if (HYGASPI_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE)) != GASPI_SUCCESS)
    failed = true;
  return done != 0 || failed;
}

Probed Env::probe(MPI_Comm on, int source, int tag) const noexcept {
  Probed p;
  int pending = 0;
  MPI_Status status;
  if (HYGASPI_MPI(MPI_Improbe(source, tag, on, &pending, &p.handle, &status)) != GASPI_SUCCESS) {
    p.failed = true;
    return p;
  }
  p.found = pending != 0;
  if (!p.found)
    return p;
  p.source = status.MPI_SOURCE;
  if (HYGASPI_MPI(MPI_Get_count(&status, MPI_BYTE, &p.bytes)) != GASPI_SUCCESS || p.bytes < 0)
    p.bytes = 0;
  return p;
}

void Env::term() noexcept {
  if (hooked_ && !finalizing_) {
    hooked_ = false; // on_finalize, which MPI_Comm_delete_attr calls, then does nothing
    (void)HYGASPI_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, g_self_keyval)); // teardown: logged, go on
  }
  hooked_ = false;
  // Also after a failed init(), which may have duplicated the communicator before it failed.
  if (collective_comm_ != MPI_COMM_NULL)
    (void)HYGASPI_MPI(MPI_Comm_free(&collective_comm_));
  if (comm_ != MPI_COMM_NULL)
    (void)HYGASPI_MPI(MPI_Comm_free(&comm_));
  active_ = false;
}

} // namespace hygaspi::mpi
