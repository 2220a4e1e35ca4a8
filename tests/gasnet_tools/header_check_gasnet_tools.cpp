// Compile-only: gasnet_tools.h (and the platform header it includes) as warning-free C++17.
#include <gasnet_tools.h>
#include <gasnet_portable_platform.h>

static_assert(sizeof(gasnett_strongatomic32_t) == 4 && PLATFORM_COMPILER_CXX == 1);

int header_check_gasnet_tools_cxx();
int header_check_gasnet_tools_cxx() {
  gasnett_strongatomic_t a = gasnett_strongatomic_init(1);
  return gasnett_count0s_uint64_t(0) + static_cast<int>(gasnett_strongatomic_read(&a, 0)) + gasnett_isLittleEndian();
}
