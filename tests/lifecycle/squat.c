/* LD_PRELOAD library for tests/lifecycle/lifecycle.sh (squatted names): plays a local user who
 * squats the names a rank is about to create. The first HYGASPI_TEST_SQUAT (default 2) exclusive
 * creations of a rank's objects ("/hygaspi-*", not the job block) find their name taken: the
 * library creates the object first (mode 0644, as a stranger would) and prints "SQUATTED <name>".
 * The rank must retry under another name and start anyway. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int squatted;

int shm_open(const char *name, int oflag, mode_t mode) {
  static int (*real)(const char *, int, mode_t);
  if (real == NULL) {
    /* POSIX guarantees dlsym's object pointer holds a function's address; ISO C has no cast for
     * it (-Wpedantic), so the bytes are copied. */
    void *symbol = dlsym(RTLD_NEXT, "shm_open");
    memcpy(&real, &symbol, sizeof real);
  }
  const char *limit = getenv("HYGASPI_TEST_SQUAT");
  const int max = limit != NULL ? atoi(limit) : 2;
  const size_t len = strlen(name);
  if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) && strncmp(name, "/hygaspi-", 9) == 0 &&
      !(len > 4 && strcmp(name + len - 4, "-job") == 0) && squatted < max) {
    ++squatted;
    int fd = real(name, O_CREAT | O_EXCL | O_RDWR, 0644);
    if (fd >= 0) {
      fchmod(fd, 0644);
      close(fd);
      fprintf(stderr, "SQUATTED %s\n", name + 1);
    }
  }
  return real(name, oflag, mode);
}
