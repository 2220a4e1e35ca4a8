/* A node that crashes ends the whole job promptly [G1 §1.6: "If any node crashes, GASNet should
 * try to terminate the rest of the job promptly so that no processes are left orphaned"]. The last
 * node SIGKILLs itself (argv[1] picks the scene) once every other node has told it, with a Short
 * request, that it is about to start waiting in the scene's way:
 *   barrier   the others are in gasnet_barrier
 *   amwait    the others wait in GASNET_BLOCKUNTIL for the victim's reply to that request
 *   handler   as amwait, but the victim dies inside the request handler of the last of them
 *   compute   the others compute and call gasnet_AMPoll now and then
 *   transfer  the others move data to and from the victim's segment and sync, and never poll
 *   attach    the victim dies right after gasnet_init, while the others make their segments and
 *             wait for its in gasnet_attach (their objects in /dev/shm still have names then)
 *   launcher  nobody crashes: every node waits in GASNET_BLOCKUNTIL, and run_crash.sh SIGKILLs
 *             the launcher (hygaspi-run)
 * Records for run_crash.sh, each a line on stdout and, since mpirun may drop the last output of a
 * process that dies, a file of the same name in $GN_CRASH_DIR: "PID <node> <pid>", "JOB <id>"
 * (hygaspi-run's job, when there is one), "OBJECTS <node> <count>" (this job's /dev/shm objects
 * that the node sees), "READY <node>" (about to wait) and "CRASH_AT <unix ms>". Reaching the end
 * of main is a failure: exit code 99. */
#define _GNU_SOURCE
#include "gn_util.h"

#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define H_WAITING 200
#define H_REPLY 201

static atomic_int g_waiting; /* at the victim: nodes that said they wait */
static atomic_int g_replied; /* a reply that never comes */
static int g_die_in_handler;

/* A record: `key` and the rest of the line, on stdout and in $GN_CRASH_DIR/<key>.<node>. */
static void record(const char *key, const char *fmt, ...) {
  char line[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  printf("%s %s\n", key, line);
  fflush(stdout);
  const char *dir = getenv("GN_CRASH_DIR");
  if (dir == NULL)
    return;
  char path[512], tmp[520];
  snprintf(path, sizeof path, "%s/%s.%u", dir, key, (unsigned)gasnet_mynode());
  snprintf(tmp, sizeof tmp, "%s/tmp-%s", dir, path + strlen(dir) + 1);
  FILE *f = fopen(tmp, "w"); /* then renamed: a record is there whole or not at all */
  GN_CHECK(f != NULL);
  fprintf(f, "%s %s\n", key, line);
  GN_CHECK(fclose(f) == 0 && rename(tmp, path) == 0);
}

/* How many nodes have made a `key` record (every node, without $GN_CRASH_DIR). */
static int records(const char *key) {
  const char *dir = getenv("GN_CRASH_DIR");
  if (dir == NULL)
    return (int)gasnet_nodes();
  int n = 0;
  DIR *d = opendir(dir);
  GN_CHECK(d != NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    n += strncmp(e->d_name, key, strlen(key)) == 0 && e->d_name[strlen(key)] == '.';
  closedir(d);
  return n;
}

static void crash(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  record("CRASH_AT", "%lld", (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
  raise(SIGKILL);
}

static void h_waiting(gasnet_token_t t) {
  (void)t;
  const int n = atomic_fetch_add(&g_waiting, 1) + 1;
  if (g_die_in_handler && n == (int)gasnet_nodes() - 1)
    crash(); /* inside the handler, with the request unanswered */
  /* No reply: replying is optional [G1 §2.3.3], and the waiters must never get one. */
}
static void h_reply(gasnet_token_t t) {
  (void)t;
  atomic_fetch_add(&g_replied, 1);
}

/* This job's objects in /dev/shm: hygaspi-<job>-* under hygaspi-run, else the ones whose name ends
 * in this process's pid (the shm layer names every object "...-p<owner pid>"). */
static int count_objects(const char *job) {
  char prefix[128], suffix[32];
  snprintf(prefix, sizeof prefix, "hygaspi-%s-", job != NULL ? job : "");
  snprintf(suffix, sizeof suffix, "-p%d", (int)getpid());
  int n = 0;
  DIR *dir = opendir("/dev/shm");
  if (dir == NULL)
    return -1;
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    const size_t len = strlen(e->d_name), sl = strlen(suffix);
    if (strncmp(e->d_name, "hygaspi-", 8) != 0)
      continue;
    if (job != NULL ? strncmp(e->d_name, prefix, strlen(prefix)) == 0
                    : len > sl && strcmp(e->d_name + len - sl, suffix) == 0)
      ++n;
  }
  closedir(dir);
  return n;
}

static void ready(unsigned me) { record("READY", "%u", me); }

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  GN_CHECK(argc == 2);
  const char *scene = argv[1];
  g_die_in_handler = strcmp(scene, "handler") == 0;
  const char *job = getenv("HYGASPI_JOB");
  record("PID", "%u %d", gasnet_mynode(), (int)getpid());
  if (job != NULL)
    record("JOB", "%s", job);
  if (strcmp(scene, "attach") == 0 && gasnet_mynode() == gasnet_nodes() - 1) {
    /* No GASNet call before attach synchronises on one node, so the victim waits (bounded) for
     * every node's PID record: each is then on its way into gasnet_attach. */
    for (int looks = 0; records("PID") < (int)gasnet_nodes(); ++looks) {
      GN_CHECK(looks < 10000);
      const struct timespec nap = {0, 1000000};
      nanosleep(&nap, NULL);
    }
    crash();
  }
  gasnet_handlerentry_t table[] = {{H_WAITING, (void (*)())h_waiting}, {H_REPLY, (void (*)())h_reply}};
  GN_OK(gasnet_attach(table, 2, 16 * GASNET_PAGESIZE, 0));
  const unsigned me = gasnet_mynode(), n = gasnet_nodes(), victim = n - 1;
  GN_CHECK(n >= 2);
  if (strcmp(scene, "attach") == 0) {
    fprintf(stderr, "[%u] gn_crash: returned from the wait of scene attach\n", me);
    return 99;
  }
  record("OBJECTS", "%u %d", me, count_objects(job));
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));

  if (strcmp(scene, "launcher") == 0) {
    ready(me);
    GASNET_BLOCKUNTIL(atomic_load(&g_replied) != 0);
    return 99;
  }
  if (me == victim) {
    if (!g_die_in_handler) {
      GASNET_BLOCKUNTIL(atomic_load(&g_waiting) == (int)n - 1);
      crash();
    }
    GASNET_BLOCKUNTIL(0); /* polls until the handler dies */
    return 99;
  }
  ready(me);
  GN_OK(gasnet_AMRequestShort0(victim, H_WAITING));
  if (strcmp(scene, "barrier") == 0) {
    gasnet_barrier(1, 0);
  } else if (strcmp(scene, "amwait") == 0 || g_die_in_handler) {
    GASNET_BLOCKUNTIL(atomic_load(&g_replied) != 0);
  } else if (strcmp(scene, "transfer") == 0) {
    gasnet_seginfo_t seginfo[64];
    GN_CHECK(n <= 64);
    GN_OK(gasnet_getSegmentInfo(seginfo, (int)n));
    static char buf[4096];
    for (;;) {
      gasnet_put_nbi_bulk(victim, seginfo[victim].addr, buf, sizeof buf);
      gasnet_wait_syncnbi_all();
      gasnet_wait_syncnb(gasnet_get_nb_bulk(buf, victim, seginfo[victim].addr, sizeof buf));
    }
  } else if (strcmp(scene, "compute") == 0) {
    volatile double x = 1.0;
    for (;;) {
      for (int i = 0; i < 100000; ++i)
        x = x * 1.0000001 + 1e-9;
      GN_OK(gasnet_AMPoll());
    }
  } else {
    fprintf(stderr, "gn_crash: unknown scene %s\n", scene);
    return 2;
  }
  fprintf(stderr, "[%u] gn_crash: returned from the wait of scene %s\n", me, scene);
  return 99;
}
