/* Compile-only: gasnet_tools.h (and the platform header it includes) as strict, warning-free C11,
 * included twice (the guards), with every inline tool referenced. */
#include <gasnet_tools.h>
#include <gasnet_portable_platform.h>
#include <gasnet_tools.h>

_Static_assert(sizeof(gasnett_strongatomic64_t) == 8, "strong 64-bit atomic");
#if PLATFORM_ARCH_64 + PLATFORM_ARCH_32 != 1
#error "one pointer width"
#endif

int header_check_gasnet_tools_c(void);
int header_check_gasnet_tools_c(void) {
  char buf[8] = {0};
  return gasnett_count0s_uint32_t(0) + gasnett_count0s_uintptr_t(1) + (int)gasnett_count0s(buf, 0) +
         gasnett_isLittleEndian() + (int)gasnett_getPhysMemSz(0) + (int)gasnett_gettimeofday_us() +
         (int)gasnett_performance_warning_str()[0];
}
