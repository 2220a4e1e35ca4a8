// The out-of-line part of GASNet's tools API (include/gasnet_tools.h): fatal errors, backtraces
// and debugger freezes, environment queries and their verbose reports, number parsing and
// formatting, signal registration, the checksum and rlimits. Every function has C linkage and is
// exported (gasnett_* in hygaspi.map); none needs the GASNet front end to be initialized.
#include <execinfo.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "gasnet/internal.hpp"
#include "gasnet_tools.h"

// The client's own backtrace mechanism, when it defines one. Weak: a program without it links, and
// the address is then null. Default visibility, so the definition in the executable is found.
extern "C" __attribute__((weak, visibility("default"))) gasnett_backtrace_type_t gasnett_backtrace_user;

namespace {

// ASCII case-insensitive equality of [a, a + n) and the C string b.
bool equal_nocase(const char *a, std::size_t n, const char *b) {
  std::size_t i = 0;
  for (; i < n && b[i] != '\0'; ++i) {
    const char ca = (a[i] >= 'A' && a[i] <= 'Z') ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char cb = (b[i] >= 'A' && b[i] <= 'Z') ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (ca != cb)
      return false;
  }
  return i == n && b[i] == '\0';
}
bool equal_nocase(const char *a, const char *b) { return equal_nocase(a, std::strlen(a), b); }

// 1 / 0 for a yes / no word, -1 for anything else (including empty).
int parse_yesno(const char *value) {
  if (equal_nocase(value, "y") || equal_nocase(value, "yes") || std::strcmp(value, "1") == 0)
    return 1;
  if (equal_nocase(value, "n") || equal_nocase(value, "no") || std::strcmp(value, "0") == 0)
    return 0;
  return -1;
}

// A yes/no setting read without fatal errors (for the error path itself): anything but a yes word
// counts as no.
bool setting_is_yes(const char *key) {
  const char *value = std::getenv(key);
  return value != nullptr && parse_yesno(value) == 1;
}

// Parses str into *out; true on success. mem_size_multiplier 0: an integer, decimal or 0x-hex.
// Otherwise a memory size, possibly fractional, with an optional suffix B|K|M|G|T (KB etc., any
// case, powers of 1024); without a suffix the number counts units of mem_size_multiplier.
bool parse_int(const char *str, std::uint64_t mem_size_multiplier, std::int64_t *out) {
  const char *p = str;
  while (*p == ' ' || *p == '\t')
    ++p;
  const bool negative = *p == '-';
  const char *digits = p + (*p == '-' || *p == '+');
  const bool hex = mem_size_multiplier == 0 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  if (!(*digits >= '0' && *digits <= '9'))
    return false;
  char *end = nullptr;
  errno = 0;
  const long long whole = std::strtoll(p, &end, hex ? 16 : 10);
  if (errno != 0)
    return false;
  std::int64_t value = whole;
  if (mem_size_multiplier != 0) {
    double fraction = 0.0;
    if (*end == '.')
      fraction = std::strtod(end, &end);
    std::uint64_t unit = mem_size_multiplier;
    const char suffix = (*end >= 'a' && *end <= 'z') ? static_cast<char>(*end - 'a' + 'A') : *end;
    static const char units[] = "BKMGT";
    const char *at = suffix != '\0' ? std::strchr(units, suffix) : nullptr;
    if (at != nullptr) {
      unit = std::uint64_t{1} << (10 * (at - units));
      ++end;
      if (suffix != 'B' && (*end == 'B' || *end == 'b'))
        ++end;
    }
    if (fraction >= 1.0 || unit > static_cast<std::uint64_t>(INT64_MAX))
      return false;
    const auto extra = static_cast<std::int64_t>(fraction * static_cast<double>(unit));
    if (__builtin_mul_overflow(whole, static_cast<std::int64_t>(unit), &value) ||
        __builtin_add_overflow(value, negative ? -extra : extra, &value))
      return false;
  }
  while (*end == ' ' || *end == '\t')
    ++end;
  if (*end != '\0')
    return false;
  *out = value;
  return true;
}

// Parses a number ("1.5", "-1e4") or a fraction of two numbers ("3/8") into *out.
bool parse_dbl(const char *str, double *out) {
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(str, &end);
  if (end == str || errno != 0)
    return false;
  while (*end == ' ' || *end == '\t')
    ++end;
  if (*end == '/') {
    const char *den_text = end + 1;
    const double den = std::strtod(den_text, &end);
    if (end == den_text || errno != 0 || den == 0.0)
      return false;
    value /= den;
    while (*end == ' ' || *end == '\t')
      ++end;
  }
  if (*end != '\0' || !std::isfinite(value))
    return false;
  *out = value;
  return true;
}

// ---- Verbose environment reports ----

std::mutex &displayed_lock() {
  static std::mutex m;
  return m;
}
// The keys reported so far (each is reported once).
std::set<std::string> &displayed_keys() {
  static std::set<std::string> keys;
  return keys;
}

// Prints "ENV parameter: key = value[ (default)]" to stderr iff verbose and key is new.
void display(const char *key, const char *value, int is_dflt) {
  if (key == nullptr || !gasnett_verboseenv())
    return;
  {
    std::lock_guard<std::mutex> guard(displayed_lock());
    if (!displayed_keys().insert(key).second)
      return;
  }
  std::fprintf(stderr, "ENV parameter: %s = %s%s\n", key, value != nullptr ? value : "(null)",
               is_dflt ? "   (default)" : "");
  std::fflush(stderr);
}

// ---- Backtraces ----

int execinfo_backtrace(int fd) {
  void *frames[128];
  const int n = backtrace(frames, 128);
  if (n <= 0)
    return 1;
  backtrace_symbols_fd(frames, n, fd);
  return 0;
}
const gasnett_backtrace_type_t execinfo_mechanism = {"EXECINFO", execinfo_backtrace, 1};

// The client's mechanism, or null when it defines none (or an incomplete one).
const gasnett_backtrace_type_t *user_mechanism() {
  const gasnett_backtrace_type_t *user = &gasnett_backtrace_user;
  if (user == nullptr || user->name == nullptr || user->name[0] == '\0' || user->fnp == nullptr)
    return nullptr;
  return user;
}

// The mechanism called name[0, n), if any.
const gasnett_backtrace_type_t *find_mechanism(const char *name, std::size_t n) {
  if (const gasnett_backtrace_type_t *user = user_mechanism(); user != nullptr && equal_nocase(name, n, user->name))
    return user;
  if (equal_nocase(name, n, execinfo_mechanism.name))
    return &execinfo_mechanism;
  return nullptr;
}

int print_backtrace_if_enabled(int fd) {
  if (!setting_is_yes("GASNET_BACKTRACE"))
    return 1;
  return gasnett_print_backtrace(fd);
}

// ---- Debugger freeze ----

// Set by SIGCONT while a freeze waits.
volatile sig_atomic_t continued = 0;
extern "C" void on_sigcont(int) { continued = 1; }

// The flag gasnett_freezeForDebuggerErr waits on ("gasnett_frozen" in a debugger).
volatile int gasnett_frozen = 0;

} // namespace

extern "C" {

int (*gasnett_print_backtrace_ifenabled)(int fd) = print_backtrace_if_enabled;

void gasnett_fatalerror(const char *msg, ...) {
  va_list args;
  va_start(args, msg);
  std::fflush(stdout);
  std::fputs("*** FATAL ERROR: ", stderr);
  std::vfprintf(stderr, msg, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::fflush(stderr);
  gasnett_freezeForDebuggerErr();
  (void)(*gasnett_print_backtrace_ifenabled)(STDERR_FILENO);
  std::fflush(nullptr);
  std::abort();
}

void gasnett_backtrace_init(const char *exename) {
  // Nothing to prepare for the mechanisms here; the settings are read at each backtrace, so a
  // GASNET_BACKTRACE_TYPE set after this call still counts. glibc's backtrace() loads libgcc on
  // first use: do that now, while allocating memory is still safe.
  (void)exename;
  void *frame[1];
  (void)backtrace(frame, 1);
}

int gasnett_print_backtrace(int fd) {
  std::string list;
  if (const char *type = std::getenv("GASNET_BACKTRACE_TYPE"); type != nullptr && type[0] != '\0') {
    list = type;
  } else {
    if (const gasnett_backtrace_type_t *user = user_mechanism(); user != nullptr)
      list = std::string(user->name) + ",";
    list += execinfo_mechanism.name;
  }
  std::fflush(nullptr);
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t comma = list.find(',', at);
    if (comma == std::string::npos)
      comma = list.size();
    std::size_t b = at, e = comma;
    while (b < e && (list[b] == ' ' || list[b] == '\t'))
      ++b;
    while (e > b && (list[e - 1] == ' ' || list[e - 1] == '\t'))
      --e;
    if (const gasnett_backtrace_type_t *m = find_mechanism(list.data() + b, e - b); m != nullptr && m->fnp(fd) == 0)
      return 0;
    at = comma + 1;
  }
  return 1;
}

void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname) {
  struct sigaction action {
  }, previous{};
  action.sa_handler = on_sigcont;
  sigemptyset(&action.sa_mask);
  continued = 0;
  const bool caught = sigaction(SIGCONT, &action, &previous) == 0;
  *flag = 1;
  std::fflush(stdout);
  std::fprintf(stderr,
               "Process frozen for debugger: host=%s pid=%d\n"
               "To unfreeze, attach a debugger and set '%s' to 0, or send a SIGCONT\n",
               gasnett_gethostname(), static_cast<int>(getpid()), flagsymname != nullptr ? flagsymname : "?");
  std::fflush(stderr);
  while (*flag != 0 && continued == 0) {
    const struct timespec nap = {0, 100 * 1000 * 1000};
    (void)nanosleep(&nap, nullptr);
  }
  *flag = 0;
  if (caught)
    (void)sigaction(SIGCONT, &previous, nullptr);
}

void gasnett_freezeForDebuggerErr(void) {
  if (setting_is_yes("GASNET_FREEZE_ON_ERROR"))
    gasnett_freezeForDebuggerNow(&gasnett_frozen, "gasnett_frozen");
}

char *gasnett_current_loc_(const char *file, int line, const char *function) {
  const char *fn = function != nullptr && function[0] != '\0' ? function : "?";
  const char *f = file != nullptr ? file : "?";
  const int n = std::snprintf(nullptr, 0, "%s at %s:%d", fn, f, line);
  auto *text = static_cast<char *>(std::malloc(static_cast<std::size_t>(n) + 1));
  if (text == nullptr)
    gasnett_fatalerror("gasnett_current_loc: out of memory");
  std::snprintf(text, static_cast<std::size_t>(n) + 1, "%s at %s:%d", fn, f, line);
  return text;
}

void gasnett_killmyprocess(int exitcode) { _exit(exitcode); }

gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp) {
  struct sigaction action {
  }, previous{};
  action.sa_handler = fp;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(sigtocatch, &action, &previous) != 0)
    return SIG_ERR;
  return previous.sa_handler;
}

// ---- Environment ----

char *gasnett_getenv(const char *keyname) { return keyname != nullptr ? std::getenv(keyname) : nullptr; }

char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval) {
  char *value = gasnett_getenv(keyname);
  char *result = value != nullptr ? value : const_cast<char *>(defaultval);
  gasnett_envstr_display(keyname, result, value == nullptr);
  return result;
}

int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval) {
  const char *value = gasnett_getenv(keyname);
  int result = defaultval;
  if (value != nullptr && value[0] != '\0') {
    result = parse_yesno(value);
    if (result < 0)
      gasnett_fatalerror("environment variable %s must be YES|Y|1 or NO|N|0, not '%s'", keyname, value);
  }
  display(keyname, result ? "YES" : "NO", value == nullptr || value[0] == '\0');
  return result;
}

int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval, uint64_t mem_size_multiplier) {
  const char *value = gasnett_getenv(keyname);
  std::int64_t result = defaultval;
  const bool dflt = value == nullptr || value[0] == '\0';
  if (!dflt && !parse_int(value, mem_size_multiplier, &result))
    gasnett_fatalerror("environment variable %s='%s' is not a valid %s", keyname, value,
                       mem_size_multiplier != 0 ? "memory size" : "integer");
  gasnett_envint_display(keyname, result, dflt, mem_size_multiplier != 0);
  return result;
}

double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval) {
  const char *value = gasnett_getenv(keyname);
  double result = defaultval;
  const bool dflt = value == nullptr || value[0] == '\0';
  if (!dflt && !parse_dbl(value, &result))
    gasnett_fatalerror("environment variable %s='%s' is not a valid floating-point value", keyname, value);
  gasnett_envdbl_display(keyname, result, dflt);
  return result;
}

int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier) {
  if (str == nullptr)
    return 0;
  std::int64_t result = 0;
  if (!parse_int(str, mem_size_multiplier, &result))
    gasnett_fatalerror("gasnett_parse_int: '%s' is not a valid %s", str,
                       mem_size_multiplier != 0 ? "memory size" : "integer");
  return result;
}

char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size) {
  if (buf == nullptr || bufsz == 0)
    return buf;
  if (!is_mem_size) {
    std::snprintf(buf, bufsz, "%" PRId64, val);
    return buf;
  }
  static const char *const suffixes[] = {"TB", "GB", "MB", "KB"};
  for (int i = 0; i < 4; ++i) {
    const std::int64_t unit = std::int64_t{1} << (10 * (4 - i));
    if (val != 0 && val % unit == 0) {
      std::snprintf(buf, bufsz, "%" PRId64 "%s", val / unit, suffixes[i]);
      return buf;
    }
  }
  std::snprintf(buf, bufsz, "%" PRId64 "B", val);
  return buf;
}

void gasnett_setenv(const char *key, const char *value) {
  if (key == nullptr || value == nullptr || setenv(key, value, 1) != 0)
    gasnett_fatalerror("gasnett_setenv(%s, %s) failed: %s", key != nullptr ? key : "(null)",
                       value != nullptr ? value : "(null)", std::strerror(errno));
}

void gasnett_unsetenv(const char *key) {
  if (key == nullptr || unsetenv(key) != 0)
    gasnett_fatalerror("gasnett_unsetenv(%s) failed: %s", key != nullptr ? key : "(null)", std::strerror(errno));
}

int gasnett_verboseenv(void) {
  if (!setting_is_yes("GASNET_VERBOSEENV"))
    return 0;
  // In a GASNet job, node 0 speaks for all (their settings are the same environment).
  const hygaspi::gasnet::State &s = hygaspi::gasnet::state();
  return !s.inited.load(std::memory_order_acquire) || s.mynode == 0;
}

void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size) {
  char text[64];
  display(key, gasnett_format_number(val, text, sizeof text, is_mem_size), is_dflt);
}

void gasnett_envstr_display(const char *key, const char *val, int is_dflt) { display(key, val, is_dflt); }

void gasnett_envdbl_display(const char *key, double val, int is_dflt) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", val);
  display(key, text, is_dflt);
}

// ---- Checksums, rlimits ----

uint64_t gasnett_checksum(const void *p, int numbytes) {
  // FNV-1a, 64 bits: XOR in each byte, then multiply by the FNV prime.
  const auto *bytes = static_cast<const unsigned char *>(p);
  std::uint64_t hash = UINT64_C(0xcbf29ce484222325);
  for (int i = 0; i < numbytes; ++i) {
    hash ^= bytes[i];
    hash *= UINT64_C(0x100000001b3);
  }
  return hash;
}

int gasnett_maximize_rlimit(int res, const char *lim_desc) {
  if (lim_desc != nullptr) {
    const std::string knob = std::string("GASNET_MAXIMIZE_") + lim_desc;
    if (!gasnett_getenv_yesno_withdefault(knob.c_str(), 1))
      return 1;
  }
  struct rlimit limit {};
  const auto resource = static_cast<__rlimit_resource_t>(res);
  if (getrlimit(resource, &limit) != 0)
    return 0;
  if (limit.rlim_cur == limit.rlim_max)
    return 1;
  limit.rlim_cur = limit.rlim_max;
  return setrlimit(resource, &limit) == 0;
}

int gasnett_maximize_rlimits(void) {
  int ok = 1;
  ok &= gasnett_maximize_rlimit(RLIMIT_CPU, "RLIMIT_CPU");
  ok &= gasnett_maximize_rlimit(RLIMIT_DATA, "RLIMIT_DATA");
  ok &= gasnett_maximize_rlimit(RLIMIT_RSS, "RLIMIT_RSS");
  ok &= gasnett_maximize_rlimit(RLIMIT_STACK, "RLIMIT_STACK");
  ok &= gasnett_maximize_rlimit(RLIMIT_AS, "RLIMIT_AS");
  return ok;
}

} // extern "C"
