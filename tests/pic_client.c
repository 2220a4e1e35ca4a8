/* A client built as a shared library (-fPIC), as Legion and GaspiCxx are. The inline paths of
 * GASPI_inline.h and gasnet_inline.h must read the library's thread-locals as an executable does,
 * without a call to __tls_get_addr; lint.pic_tls disassembles this object to check it. */
#define GASNET_PAR 1
#include <GASPI.h>
#include <gasnet.h>

__attribute__((visibility("default"))) int hyg_pic_atomic(gaspi_atomic_value_t *old) {
  return (int)gaspi_atomic_fetch_add(0, 8, 1, 1, old, GASPI_BLOCK);
}

__attribute__((visibility("default"))) void hyg_pic_put(void *dest, void *src) { gasnet_put(1, dest, src, 8); }
