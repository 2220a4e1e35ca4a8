// What survivors of an mpirun job see when one rank dies (docs/mpi-failures.md).
//
//   P=/usr/lib/x86_64-linux-gnu/pmix2
//   mpicc -O1 -o death_probe death_probe.c -I$P/include -L$P/lib -lpmix -Wl,-rpath,$P/lib
//   mpirun -np 4 [OPTIONS] ./death_probe MODE
//
// Rank 1 SIGKILLs itself after a barrier. Every survivor prints, in ms since that death (one host,
// so CLOCK_REALTIME is shared): the PMIx events it receives, the signals it receives, and the
// return code of its MPI calls, for MODE
//   idle     survivors stay out of MPI (nanosleep), as a computing rank does
//   p2p      survivors MPI_Sendrecv with the dead rank, MPI_ERRORS_RETURN on the communicator
//   put      survivors MPI_Put + MPI_Win_flush to the dead rank, MPI_ERRORS_RETURN on the window
//   barrier  survivors call MPI_Barrier on MPI_COMM_WORLD, MPI_ERRORS_RETURN
// Each survivor runs for 10 s, then prints "survived" and ends as END (second argument) says:
//   finalize (default)  MPI_Win_unlock_all, MPI_Finalize, exit 0
//   exit0               _exit(0) without MPI_Finalize
#include <mpi.h>
#include <pmix.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile long g_death_ms; // wall clock of the death, from the victim through a broadcast
static int g_rank;

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static void on_signal(int sig) {
  char line[96];
  int n = snprintf(line, sizeof line, "rank %d: signal %d at +%ld ms\n", g_rank, sig, now_ms() - g_death_ms);
  ssize_t ignored = write(2, line, (size_t)n);
  (void)ignored;
  if (sig != SIGCONT)
    _exit(128 + sig);
}

static void on_pmix_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                          pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cb,
                          void *cbdata) {
  (void)id, (void)results, (void)nresults;
  int affected = -1;
  for (size_t i = 0; i < ninfo; ++i)
    if (strcmp(info[i].key, PMIX_EVENT_AFFECTED_PROC) == 0)
      affected = (int)info[i].value.data.proc->rank;
  fprintf(stderr, "rank %d: PMIx event %s (source rank %d, affected rank %d) at +%ld ms\n", g_rank,
          PMIx_Error_string(status), source ? (int)source->rank : -1, affected, now_ms() - g_death_ms);
  if (cb != NULL)
    cb(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_registered(pmix_status_t status, size_t ref, void *cbdata) {
  (void)ref, (void)cbdata;
  if (status != PMIX_SUCCESS)
    fprintf(stderr, "rank %d: PMIx_Register_event_handler: %s\n", g_rank, PMIx_Error_string(status));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "idle";
  const char *end = argc > 2 ? argv[2] : "finalize";
  MPI_Init(&argc, &argv);
  int n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  signal(SIGHUP, on_signal);
  signal(SIGCONT, on_signal);

  // PMIx: Open MPI already initialised it; a second PMIx_Init returns the same client handle.
  pmix_proc_t self;
  pmix_status_t prc = PMIx_Init(&self, NULL, 0);
  if (prc == PMIX_SUCCESS) {
    // No codes: the default handler, called for every event this client is sent.
    PMIx_Register_event_handler(NULL, 0, NULL, 0, on_pmix_event, on_registered, NULL);
  } else {
    fprintf(stderr, "rank %d: PMIx_Init: %s\n", g_rank, PMIx_Error_string(prc));
  }

  long *base = NULL;
  MPI_Win win;
  MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(0, win);

  long death = now_ms() + 200; // the victim dies 200 ms after this agreed instant
  MPI_Bcast(&death, 1, MPI_LONG, 1, MPI_COMM_WORLD);
  g_death_ms = death;
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 1) {
    while (now_ms() < death)
      usleep(1000);
    raise(SIGKILL);
  }

  int reported = 0;
  long next_alive = 0;
  while (now_ms() < death + 10000) {
    int rc = MPI_SUCCESS;
    if (strcmp(mode, "p2p") == 0 && now_ms() > death) {
      long out = 1, in = 0;
      rc = MPI_Sendrecv(&out, 1, MPI_LONG, 1, 7, &in, 1, MPI_LONG, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "put") == 0) {
      long v = g_rank;
      rc = MPI_Put(&v, 1, MPI_LONG, 1, 8 * g_rank, 1, MPI_LONG, win);
      if (rc == MPI_SUCCESS)
        rc = MPI_Win_flush(1, win);
    } else if (strcmp(mode, "barrier") == 0 && now_ms() > death) {
      rc = MPI_Barrier(MPI_COMM_WORLD);
    } else {
      struct timespec nap = {0, 1000000};
      nanosleep(&nap, NULL);
      if (strcmp(mode, "idle") != 0) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      }
    }
    if (rc != MPI_SUCCESS && reported < 3) {
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, text, &len);
      fprintf(stderr, "rank %d: %s returned %d (%s) at +%ld ms\n", g_rank, mode, rc, text, now_ms() - death);
      ++reported;
    }
    if (now_ms() >= next_alive && now_ms() > death) {
      fprintf(stderr, "rank %d: alive at +%ld ms\n", g_rank, now_ms() - death);
      next_alive = now_ms() + 1000;
    }
  }
  fprintf(stderr, "rank %d: survived\n", g_rank);
  if (strcmp(end, "exit0") == 0)
    _exit(0);
  MPI_Win_unlock_all(win);
  int frc = MPI_Finalize();
  fprintf(stderr, "rank %d: MPI_Finalize returned %d at +%ld ms\n", g_rank, frc, now_ms() - death);
  return 0;
}
