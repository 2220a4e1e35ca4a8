/* test_gasnet_tools_lib.c: the tools that gasnet_tools.h declares and libhygaspi implements
 * (environment, number parsing and formatting, backtraces, debugger freezes, signals, process exit,
 * checksums, rlimits), checked for the behaviour the tools spec documents. Part of the program of
 * test_gasnet_tools.c, whose main() calls gt_lib_checks(). Whatever could end or freeze the test
 * process runs in a forked child, whose output and exit status the parent checks. */
#define GASNETT_THREAD_SAFE 1
#include <gasnet_tools.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

void gt_lib_checks(void);

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "gasnet_tools: FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                                  \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

/* ---- Children: fn runs with stdout and stderr into one pipe; the parent reads and waits. */

typedef struct {
  pid_t pid;
  int fd; /* read end of the child's stdout + stderr */
  char text[16384];
  size_t len;
} gt_child;

static void child_start(gt_child *c, void (*fn)(void)) {
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  gasnett_flush_streams();
  c->pid = fork();
  CHECK(c->pid >= 0);
  if (c->pid == 0) {
    close(pipefd[0]);
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[1]);
    signal(SIGABRT, SIG_DFL);
    fn();
    gasnett_flush_streams();
    _exit(0);
  }
  close(pipefd[1]);
  c->fd = pipefd[0];
  c->len = 0;
  c->text[0] = '\0';
}

/* Reads until the output holds needle (1) or the child closes it (0). */
static int child_read_until(gt_child *c, const char *needle) {
  while (needle == NULL || strstr(c->text, needle) == NULL) {
    const ssize_t n = read(c->fd, c->text + c->len, sizeof c->text - 1 - c->len);
    if (n <= 0)
      return 0;
    c->len += (size_t)n;
    c->text[c->len] = '\0';
  }
  return 1;
}

/* Reads the rest, reaps the child and returns its wait status. */
static int child_finish(gt_child *c) {
  (void)child_read_until(c, NULL);
  close(c->fd);
  int status = 0;
  CHECK(waitpid(c->pid, &status, 0) == c->pid);
  return status;
}

static int child_run(gt_child *c, void (*fn)(void)) {
  child_start(c, fn);
  return child_finish(c);
}

#define EXITED_WITH(status, code) (WIFEXITED(status) && WEXITSTATUS(status) == (code))
#define ABORTED(status) (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)

/* Occurrences of needle in text. */
static int count_of(const char *text, const char *needle) {
  int n = 0;
  for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
    ++n;
  return n;
}

/* ---- Environment */

static void check_setenv(void) {
  gasnett_unsetenv("GT_SETENV");
  CHECK(gasnett_getenv("GT_SETENV") == NULL && getenv("GT_SETENV") == NULL);
  gasnett_setenv("GT_SETENV", "first value");
  CHECK(strcmp(gasnett_getenv("GT_SETENV"), "first value") == 0 && strcmp(getenv("GT_SETENV"), "first value") == 0);
  gasnett_setenv("GT_SETENV", "2");
  CHECK(strcmp(gasnett_getenv("GT_SETENV"), "2") == 0);
  CHECK(gasnett_getenv_int_withdefault("GT_SETENV", 0, 0) == 2);
  gasnett_setenv("GT_SETENV", "");
  CHECK(gasnett_getenv("GT_SETENV") != NULL && gasnett_getenv("GT_SETENV")[0] == '\0');
  gasnett_unsetenv("GT_SETENV");
  CHECK(gasnett_getenv("GT_SETENV") == NULL);
  gasnett_unsetenv("GT_SETENV"); /* removing an absent variable is fine */
}

struct parse_case {
  const char *text;
  uint64_t mem_size_multiplier;
  int64_t value;
};
static const struct parse_case kParseCases[] = {
    {"0", 0, 0},
    {"42", 0, 42},
    {"-17", 0, -17},
    {"+8", 0, 8},
    {"0x1F", 0, 31},
    {" 0X10 ", 0, 16},
    {"9223372036854775807", 0, INT64_MAX},
    {"10", 1, 10},       /* bare number, unit 1: bytes */
    {"10", 1024, 10240}, /* bare number counts units of the multiplier */
    {"64B", 1024, 64},   /* an explicit B overrides the multiplier */
    {"4K", 1, 4096},
    {"4k", 1, 4096},
    {"4KB", 1, 4096},
    {"4kb", 1048576, 4096},
    {"2M", 1, 2 * 1048576},
    {"2MB", 1, 2 * 1048576},
    {"3G", 1, INT64_C(3) << 30},
    {"1T", 1, INT64_C(1) << 40},
    {"1.5K", 1, 1536},
    {"0.5M", 1, 524288},
    {"0.25", 4096, 1024}, /* fractions of the default unit */
    {"-2K", 1, -2048},
    {"8388607T", 1, INT64_C(8388607) << 40},
};

static void parse_bad_integer(void) { (void)gasnett_parse_int("12abc", 0); }
static void parse_bad_suffix_plain(void) { (void)gasnett_parse_int("4K", 0); }
static void parse_bad_unit(void) { (void)gasnett_parse_int("4Q", 1); }
static void parse_overflow(void) { (void)gasnett_parse_int("8388608T", 1); }
static void parse_empty(void) { (void)gasnett_parse_int("", 1); }

static void check_parse_int(void) {
  for (size_t i = 0; i < sizeof kParseCases / sizeof kParseCases[0]; ++i) {
    const struct parse_case *pc = &kParseCases[i];
    if (gasnett_parse_int(pc->text, pc->mem_size_multiplier) != pc->value)
      fprintf(stderr, "parse_int(\"%s\", %llu) = %lld\n", pc->text, (unsigned long long)pc->mem_size_multiplier,
              (long long)gasnett_parse_int(pc->text, pc->mem_size_multiplier));
    CHECK(gasnett_parse_int(pc->text, pc->mem_size_multiplier) == pc->value);
  }
  CHECK(gasnett_parse_int(NULL, 0) == 0 && gasnett_parse_int(NULL, 1) == 0);
  void (*const bad[])(void) = {parse_bad_integer, parse_bad_suffix_plain, parse_bad_unit, parse_overflow, parse_empty};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    gt_child c;
    const int status = child_run(&c, bad[i]);
    CHECK(ABORTED(status) && strstr(c.text, "*** FATAL ERROR: gasnett_parse_int: '") != NULL);
  }
}

static void check_format_number(void) {
  char buf[64];
  CHECK(gasnett_format_number(0, buf, sizeof buf, 0) == buf && strcmp(buf, "0") == 0);
  CHECK(strcmp(gasnett_format_number(1234, buf, sizeof buf, 0), "1234") == 0);
  CHECK(strcmp(gasnett_format_number(-5, buf, sizeof buf, 0), "-5") == 0);
  CHECK(strcmp(gasnett_format_number(4096, buf, sizeof buf, 0), "4096") == 0); /* no units unless a size */
  CHECK(strcmp(gasnett_format_number(INT64_MIN, buf, sizeof buf, 0), "-9223372036854775808") == 0);
  CHECK(strcmp(gasnett_format_number(0, buf, sizeof buf, 1), "0B") == 0);
  CHECK(strcmp(gasnett_format_number(1, buf, sizeof buf, 1), "1B") == 0);
  CHECK(strcmp(gasnett_format_number(1024, buf, sizeof buf, 1), "1KB") == 0);
  CHECK(strcmp(gasnett_format_number(1536, buf, sizeof buf, 1), "1536B") == 0);
  CHECK(strcmp(gasnett_format_number(2047 * 1024, buf, sizeof buf, 1), "2047KB") == 0);
  CHECK(strcmp(gasnett_format_number(INT64_C(3) << 20, buf, sizeof buf, 1), "3MB") == 0);
  CHECK(strcmp(gasnett_format_number(INT64_C(5) << 30, buf, sizeof buf, 1), "5GB") == 0);
  CHECK(strcmp(gasnett_format_number(INT64_C(1) << 40, buf, sizeof buf, 1), "1TB") == 0);
  CHECK(strcmp(gasnett_format_number(INT64_C(1) << 50, buf, sizeof buf, 1), "1024TB") == 0);
  CHECK(strcmp(gasnett_format_number(-4096, buf, sizeof buf, 1), "-4KB") == 0);
  /* A short buffer gets a terminated prefix. */
  char small[4] = {'x', 'x', 'x', 'x'};
  CHECK(gasnett_format_number(123456, small, sizeof small, 0) == small && strcmp(small, "123") == 0);
  /* What format_number writes, parse_int reads back: both kinds, powers of two and odd multiples. */
  for (int shift = 0; shift < 62; ++shift) {
    const int64_t values[] = {INT64_C(1) << shift, (INT64_C(3) << shift) / 2 + 1, -(INT64_C(1) << shift)};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; ++v) {
      CHECK(gasnett_parse_int(gasnett_format_number(values[v], buf, sizeof buf, 1), 1) == values[v]);
      CHECK(gasnett_parse_int(gasnett_format_number(values[v], buf, sizeof buf, 0), 0) == values[v]);
    }
  }
}

static void dbl_bad(void) { (void)gasnett_getenv_dbl_withdefault("GT_DBL_BAD", 0.0); }

static double env_dbl(const char *value) {
  gasnett_setenv("GT_DBL", value);
  return gasnett_getenv_dbl_withdefault("GT_DBL", -1.0);
}

static void check_getenv_dbl(void) {
  gasnett_unsetenv("GT_DBL");
  CHECK(gasnett_getenv_dbl_withdefault("GT_DBL", 2.25) == 2.25);
  CHECK(env_dbl("1.5") == 1.5 && env_dbl("-1e4") == -10000.0 && env_dbl("3/8") == 0.375);
  CHECK(env_dbl(" 7 ") == 7.0 && env_dbl("-1/4") == -0.25 && env_dbl("0") == 0.0);
  gasnett_setenv("GT_DBL", "");
  CHECK(gasnett_getenv_dbl_withdefault("GT_DBL", 4.5) == 4.5);
  gasnett_unsetenv("GT_DBL");
  static const char *const bad[] = {"abc", "1.5x", "1/0", "3/", "1e999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    gasnett_setenv("GT_DBL_BAD", bad[i]);
    gt_child c;
    const int status = child_run(&c, dbl_bad);
    CHECK(ABORTED(status) && strstr(c.text, "*** FATAL ERROR: environment variable GT_DBL_BAD='") != NULL);
  }
  gasnett_unsetenv("GT_DBL_BAD");
}

/* With GASNET_VERBOSEENV=1 each *_withdefault query and each display call reports its key once. */
static void verbose_queries(void) {
  gasnett_setenv("GASNET_VERBOSEENV", "1");
  if (!gasnett_verboseenv())
    _exit(3);
  gasnett_setenv("GT_V_SET", "5M");
  for (int round = 0; round < 3; ++round) {
    (void)gasnett_getenv_int_withdefault("GT_V_INT", 4096, 1);
    (void)gasnett_getenv_int_withdefault("GT_V_SET", 0, 1);
    (void)gasnett_getenv_withdefault("GT_V_STR", "fallback");
    (void)gasnett_getenv_yesno_withdefault("GT_V_YN", 1);
    (void)gasnett_getenv_dbl_withdefault("GT_V_DBL", 0.5);
    gasnett_envint_display("GT_V_PLAIN", 1234, 0, 0);
    gasnett_envstr_display("GT_V_S2", "text", 0);
    gasnett_envdbl_display("GT_V_D2", -2.5, 1);
  }
}

static void check_verbose(void) {
  CHECK(gasnett_getenv("GASNET_VERBOSEENV") == NULL && gasnett_verboseenv() == 0);
  gt_child c;
  const int status = child_run(&c, verbose_queries);
  if (!EXITED_WITH(status, 0))
    fprintf(stderr, "verbose child: status %d, output:\n%s\n", status, c.text);
  CHECK(EXITED_WITH(status, 0));
  static const char *const lines[] = {"ENV parameter: GT_V_INT = 4KB   (default)\n",
                                      "ENV parameter: GT_V_SET = 5MB\n",
                                      "ENV parameter: GT_V_STR = fallback   (default)\n",
                                      "ENV parameter: GT_V_YN = YES   (default)\n",
                                      "ENV parameter: GT_V_DBL = 0.5   (default)\n",
                                      "ENV parameter: GT_V_PLAIN = 1234\n",
                                      "ENV parameter: GT_V_S2 = text\n",
                                      "ENV parameter: GT_V_D2 = -2.5   (default)\n"};
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
    if (count_of(c.text, lines[i]) != 1)
      fprintf(stderr, "expected once: %soutput:\n%s\n", lines[i], c.text);
    CHECK(count_of(c.text, lines[i]) == 1);
  }
  CHECK(count_of(c.text, "ENV parameter: ") == 8);
  /* Without the setting nothing is reported. */
  gt_child quiet;
  CHECK(EXITED_WITH(child_run(&quiet, check_setenv), 0) && quiet.len == 0);
}

/* ---- Backtraces */

static int user_calls;
static int user_fails;
static int gt_user_backtrace(int fd) {
  ++user_calls;
  if (user_fails)
    return 1;
  dprintf(fd, "GT-USER-BACKTRACE\n");
  return 0;
}
/* The client mechanism, as GASNet's test harness defines one. */
gasnett_backtrace_type_t gasnett_backtrace_user = {"GTUSER", &gt_user_backtrace, 1};

/* Runs gasnett_print_backtrace(pipe) under GASNET_BACKTRACE_TYPE=type (NULL: unset); returns its
 * result and what it wrote in out. */
static int backtrace_into(const char *type, char *out, size_t outsz) {
  if (type)
    gasnett_setenv("GASNET_BACKTRACE_TYPE", type);
  else
    gasnett_unsetenv("GASNET_BACKTRACE_TYPE");
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  const int rc = gasnett_print_backtrace(pipefd[1]);
  close(pipefd[1]);
  size_t got = 0;
  ssize_t n;
  while (got + 1 < outsz && (n = read(pipefd[0], out + got, outsz - 1 - got)) > 0)
    got += (size_t)n;
  out[got] = '\0';
  close(pipefd[0]);
  gasnett_unsetenv("GASNET_BACKTRACE_TYPE");
  return rc;
}

static int gt_custom_calls;
static int gt_custom_ifenabled(int fd) {
  ++gt_custom_calls;
  dprintf(fd, "GT-CUSTOM-HOOK\n");
  return 0;
}
static void fatal_with_backtrace(void) {
  gasnett_setenv("GASNET_BACKTRACE", "1");
  gasnett_fatalerror("fatal %s", "with backtrace");
}
static void fatal_custom_hook(void) {
  gasnett_print_backtrace_ifenabled = gt_custom_ifenabled;
  gasnett_fatalerror("fatal with hook");
}

static void check_backtrace(void) {
  gasnett_backtrace_init("test_gasnet_tools");
  char text[8192];
  /* Default order: the client's mechanism first. */
  user_calls = 0;
  CHECK(backtrace_into(NULL, text, sizeof text) == 0 && user_calls == 1 && strcmp(text, "GT-USER-BACKTRACE\n") == 0);
  /* EXECINFO alone: frames, not the client's mechanism. */
  CHECK(backtrace_into("EXECINFO", text, sizeof text) == 0 && user_calls == 1);
  CHECK(strlen(text) > 0 && strstr(text, "GT-USER") == NULL && strstr(text, "test_gasnet_tools") != NULL);
  /* Names match in any case; a failing mechanism passes to the next; none left: nonzero. */
  CHECK(backtrace_into("gtuser", text, sizeof text) == 0 && user_calls == 2 && strstr(text, "GT-USER") != NULL);
  user_fails = 1;
  CHECK(backtrace_into("GTUSER", text, sizeof text) != 0 && user_calls == 3 && text[0] == '\0');
  CHECK(backtrace_into(" GTUSER , EXECINFO", text, sizeof text) == 0 && user_calls == 4 && strlen(text) > 0);
  CHECK(backtrace_into(NULL, text, sizeof text) == 0 && user_calls == 5); /* the default list goes on too */
  user_fails = 0;
  CHECK(backtrace_into("NOSUCH", text, sizeof text) != 0 && text[0] == '\0' && user_calls == 5);
  /* The on-error hook prints only with GASNET_BACKTRACE set. */
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  gasnett_unsetenv("GASNET_BACKTRACE");
  CHECK((*gasnett_print_backtrace_ifenabled)(pipefd[1]) != 0 && user_calls == 5);
  gasnett_setenv("GASNET_BACKTRACE", "1");
  CHECK((*gasnett_print_backtrace_ifenabled)(pipefd[1]) == 0 && user_calls == 6);
  gasnett_unsetenv("GASNET_BACKTRACE");
  close(pipefd[1]);
  CHECK(read(pipefd[0], text, sizeof text - 1) == (ssize_t)strlen("GT-USER-BACKTRACE\n"));
  close(pipefd[0]);
  /* A fatal error prints the message, then the backtrace, then aborts. */
  gt_child c;
  int status = child_run(&c, fatal_with_backtrace);
  const char *msg = strstr(c.text, "*** FATAL ERROR: fatal with backtrace\n");
  CHECK(ABORTED(status) && msg != NULL && strstr(msg, "GT-USER-BACKTRACE\n") != NULL);
  /* Without GASNET_BACKTRACE, no backtrace. */
  gt_child plain;
  status = child_run(&plain, parse_bad_integer);
  CHECK(ABORTED(status) && strstr(plain.text, "GT-USER") == NULL);
  /* The hook is the client's to replace. */
  status = child_run(&c, fatal_custom_hook);
  msg = strstr(c.text, "*** FATAL ERROR: fatal with hook\n");
  CHECK(ABORTED(status) && msg != NULL && strstr(msg, "GT-CUSTOM-HOOK\n") != NULL);
}

/* ---- Debugger freezes */

static volatile int gt_freeze_flag;
static void freeze_now(void) {
  gasnett_freezeForDebuggerNow(&gt_freeze_flag, "gt_freeze_flag");
  printf("THAWED flag=%d\n", gt_freeze_flag);
  gasnett_flush_streams();
  _exit(7);
}
static void freeze_on_error(void) {
  gasnett_setenv("GASNET_FREEZE_ON_ERROR", "1");
  gasnett_fatalerror("frozen fatal");
}

static void check_freeze(void) {
  /* Frozen until SIGCONT: the message names the flag; the call returns with it cleared. */
  gt_child c;
  child_start(&c, freeze_now);
  CHECK(child_read_until(&c, "set 'gt_freeze_flag' to 0"));
  CHECK(strstr(c.text, "Process frozen for debugger") != NULL && strstr(c.text, "THAWED") == NULL);
  struct timespec nap = {0, 200 * 1000 * 1000}; /* still frozen a while later */
  nanosleep(&nap, NULL);
  CHECK(waitpid(c.pid, NULL, WNOHANG) == 0);
  CHECK(kill(c.pid, SIGCONT) == 0);
  int status = child_finish(&c);
  CHECK(EXITED_WITH(status, 7) && strstr(c.text, "THAWED flag=0\n") != NULL);
  /* A fatal error with GASNET_FREEZE_ON_ERROR freezes after its message and aborts once released. */
  child_start(&c, freeze_on_error);
  CHECK(child_read_until(&c, "Process frozen for debugger"));
  CHECK(strstr(c.text, "*** FATAL ERROR: frozen fatal") != NULL);
  CHECK(kill(c.pid, SIGCONT) == 0);
  status = child_finish(&c);
  CHECK(ABORTED(status));
  /* Without the setting the error path does not freeze. */
  gasnett_unsetenv("GASNET_FREEZE_ON_ERROR");
  gasnett_freezeForDebuggerErr();
}

/* ---- Process, signals, system */

static void atexit_marker(void) { fputs("ATEXIT-RAN\n", stderr); }
static void *sleeper(void *arg) {
  (void)arg;
  for (;;)
    pause();
  return NULL;
}
static void kill_with_threads(void) {
  atexit(atexit_marker);
  pthread_t t;
  if (pthread_create(&t, NULL, sleeper, NULL) != 0)
    _exit(2);
  fputs("before kill\n", stderr);
  gasnett_killmyprocess(42);
}

static volatile sig_atomic_t gt_signal_seen;
static void gt_on_signal(int sig) { gt_signal_seen = sig; }

static void check_process(void) {
  gt_child c;
  const int status = child_run(&c, kill_with_threads);
  CHECK(EXITED_WITH(status, 42));
  CHECK(strstr(c.text, "before kill") != NULL && strstr(c.text, "ATEXIT-RAN") == NULL);

  /* reghandler returns the previous handler each time. */
  CHECK(gasnett_reghandler(SIGUSR1, gt_on_signal) == SIG_DFL);
  gt_signal_seen = 0;
  CHECK(raise(SIGUSR1) == 0 && gt_signal_seen == SIGUSR1);
  CHECK(gasnett_reghandler(SIGUSR1, SIG_IGN) == gt_on_signal);
  gt_signal_seen = 0;
  CHECK(raise(SIGUSR1) == 0 && gt_signal_seen == 0);
  CHECK(gasnett_reghandler(SIGUSR1, SIG_DFL) == SIG_IGN);
  CHECK(gasnett_reghandler(SIGKILL, gt_on_signal) == SIG_ERR);
}

static void check_location(void) {
  /* Both on one line, the location's. */
  /* clang-format off */
  char *loc = gasnett_current_loc; const int line = __LINE__;
  /* clang-format on */
  char expect[512];
  snprintf(expect, sizeof expect, "check_location at %s:%d", __FILE__, line);
  CHECK(loc != NULL && strcmp(loc, expect) == 0);
  free(loc);
}

static void check_checksum(void) {
  /* FNV-1a 64's published values. */
  CHECK(gasnett_checksum("", 0) == UINT64_C(0xcbf29ce484222325));
  CHECK(gasnett_checksum(NULL, 0) == UINT64_C(0xcbf29ce484222325));
  CHECK(gasnett_checksum("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
  CHECK(gasnett_checksum("foobar", 6) == UINT64_C(0x85944171f73967e8));
  /* Only the given bytes count; any changed byte changes the sum. */
  unsigned char block[4096];
  for (size_t i = 0; i < sizeof block; ++i)
    block[i] = (unsigned char)(i * 31u + 7u);
  const uint64_t sum = gasnett_checksum(block, (int)sizeof block);
  CHECK(gasnett_checksum(block, (int)sizeof block) == sum && gasnett_checksum(block, 4095) != sum);
  for (size_t i = 0; i < sizeof block; i += 511) {
    block[i] ^= 1;
    CHECK(gasnett_checksum(block, (int)sizeof block) != sum);
    block[i] ^= 1;
  }
  CHECK(gasnett_checksum(block, (int)sizeof block) == sum);
}

static void check_rlimits(void) {
  struct rlimit limit;
  CHECK(getrlimit(RLIMIT_CPU, &limit) == 0);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < 1000) {
    printf("gasnet_tools: RLIMIT_CPU hard limit %llu too low to check maximizing it\n",
           (unsigned long long)limit.rlim_max);
    return;
  }
  struct rlimit lowered = limit;
  lowered.rlim_cur = limit.rlim_max == RLIM_INFINITY ? 100000 : limit.rlim_max - 1;
  CHECK(setrlimit(RLIMIT_CPU, &lowered) == 0);
  CHECK(gasnett_maximize_rlimit(RLIMIT_CPU, "RLIMIT_CPU") != 0);
  CHECK(getrlimit(RLIMIT_CPU, &limit) == 0 && limit.rlim_cur == limit.rlim_max);
  /* GASNET_MAXIMIZE_<desc>=0 leaves it, and still reports success. */
  CHECK(setrlimit(RLIMIT_CPU, &lowered) == 0);
  gasnett_setenv("GASNET_MAXIMIZE_RLIMIT_CPU", "0");
  CHECK(gasnett_maximize_rlimit(RLIMIT_CPU, "RLIMIT_CPU") != 0);
  CHECK(getrlimit(RLIMIT_CPU, &limit) == 0 && limit.rlim_cur == lowered.rlim_cur);
  gasnett_unsetenv("GASNET_MAXIMIZE_RLIMIT_CPU");
  CHECK(gasnett_maximize_rlimits() != 0);
  CHECK(getrlimit(RLIMIT_CPU, &limit) == 0 && limit.rlim_cur == limit.rlim_max);
  CHECK(getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur == limit.rlim_max);
}

static void write_after_close(void) {
  printf("before close\n"); /* buffered (a pipe): close_streams flushes it */
  gasnett_close_streams();
  /* The three descriptors are closed. */
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
      _exit(5);
  _exit(0);
}

static void check_streams(void) {
  gt_child c;
  const int status = child_run(&c, write_after_close);
  CHECK(EXITED_WITH(status, 0) && strcmp(c.text, "before close\n") == 0);
}

void gt_lib_checks(void) {
  gasnett_unsetenv("GASNET_VERBOSEENV");
  gasnett_unsetenv("GASNET_BACKTRACE");
  gasnett_unsetenv("GASNET_BACKTRACE_TYPE");
  gasnett_unsetenv("GASNET_FREEZE_ON_ERROR");
  check_setenv();
  check_parse_int();
  check_format_number();
  check_getenv_dbl();
  check_verbose();
  check_backtrace();
  check_freeze();
  check_process();
  check_location();
  check_checksum();
  check_rlimits();
  check_streams();
}
