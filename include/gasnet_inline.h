/* gasnet_inline.h: the node path of put and get, inlined into the client (included by gasnet.h).
 *
 * A node peer's segment is mapped in this process, so a put or get to it is a copy. As a library
 * call with its checks, an 8-byte put cost 9-14 ns against an inlined store's 0.3-0.6 ns
 * (bench_gasnet). Here the client makes the same checks itself, on a table that gasnet_attach publishes:
 *   - GASNet is attached and not exiting (the table is published),
 *   - node is in the job and this process maps its segment,
 *   - [addr, addr + nbytes) lies inside that segment (overflow-safe, as the library checks it),
 *   - this thread is not in an AM handler, a no-interrupt section or holding an HSL [G1 §2.4],
 *   - the local buffer is not in the first page (a null pointer; any other bad pointer faults in
 *     the copy, as in any memcpy).
 * When any of them fails, or nbytes is 0, the call goes to the library, which moves the data over
 * MPI or reports the breach exactly as before. So nothing here can write outside a segment.
 *
 * Only GCC-compatible compilers get it (atomic builtins, __thread); others call the library.
 * GASNET_HYG_NO_INLINE, defined before gasnet.h, turns it off. */
#ifndef GASNET_INLINE_H
#define GASNET_INLINE_H

#if defined(__GNUC__)
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* One entry per node, published by gasnet_attach. Not an interface: its layout may change with
 * the library's version, and the table's exported name carries the layout's number (_v1), so that
 * a client built against another layout fails to load instead of misreading it. */
typedef struct {
  char *mapped;   /* where this process maps the node's segment; NULL: reached over MPI */
  uintptr_t addr; /* the segment's address on its node (gasnet_getSegmentInfo) */
  uintptr_t size;
} gasnet_hyg_segment_t;
extern gasnet_hyg_segment_t *gasnet_hyg_segments_v1; /* NULL before attach and once exiting */
extern gasnet_node_t gasnet_hyg_nnodes;              /* entries, set before the table is published */
/* In a handler, an NIS, or holding an HSL. initial-exec: the library holds it in the static TLS
 * block, so a client built as a shared library reads it without a __tls_get_addr call. */
extern __thread unsigned gasnet_hyg_busy __attribute__((tls_model("initial-exec")));

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#if !defined(GASNET_HYG_LIBRARY) && !defined(GASNET_HYG_NO_INLINE)

/* The mapped address of [addr, addr + nbytes) of node's segment, or NULL: go to the library. */
static __inline__ char *gasnet_hyg_mapped(gasnet_node_t node, const void *addr, size_t nbytes) {
  const gasnet_hyg_segment_t *t = __atomic_load_n(&gasnet_hyg_segments_v1, __ATOMIC_ACQUIRE);
  uintptr_t offset;
  if (t == NULL || node >= gasnet_hyg_nnodes || t[node].mapped == NULL || gasnet_hyg_busy != 0 || nbytes == 0)
    return NULL;
  offset = (uintptr_t)addr - t[node].addr; /* below the segment, this wraps past its size */
  if (offset > t[node].size || nbytes > t[node].size - offset)
    return NULL;
  return t[node].mapped + offset;
}

typedef void (*gasnet_hyg_put_fn)(gasnet_node_t, void *, void *, size_t);
typedef void (*gasnet_hyg_get_fn)(void *, gasnet_node_t, void *, size_t);
typedef void (*gasnet_hyg_put_val_fn)(gasnet_node_t, void *, gasnet_register_value_t, size_t);

/* A local buffer of n bytes (n > 0) that the inline path may copy: not in the first page, which is
 * never mapped (a null pointer or an offset from one), and not wrapping around the address space.
 * Any other buffer goes to the library, which reports it. */
#define GASNET_HYG_LOCAL_OK(p, n) ((uintptr_t)(p) >= 4096u && (uintptr_t)(p) <= UINTPTR_MAX - (uintptr_t)(n))

static __inline__ void gasnet_hyg_put_inline(gasnet_node_t node, void *dest, void *src, size_t nbytes,
                                             gasnet_hyg_put_fn library) {
  char *to = gasnet_hyg_mapped(node, dest, nbytes);
  if (__builtin_expect(to != NULL && GASNET_HYG_LOCAL_OK(src, nbytes), 1))
    memcpy(to, src, nbytes);
  else
    library(node, dest, src, nbytes);
}

static __inline__ void gasnet_hyg_get_inline(void *dest, gasnet_node_t node, void *src, size_t nbytes,
                                             gasnet_hyg_get_fn library) {
  const char *from = gasnet_hyg_mapped(node, src, nbytes);
  if (__builtin_expect(from != NULL && GASNET_HYG_LOCAL_OK(dest, nbytes), 1))
    memcpy(dest, from, nbytes);
  else
    library(dest, node, src, nbytes);
}

/* [G1 §3.4]: nbytes is 1..sizeof(gasnet_register_value_t); the value's low bytes (little-endian:
 * its first bytes) are written, and a get zero-extends. Other sizes go to the library's error. */
static __inline__ void gasnet_hyg_put_val_inline(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                                                 size_t nbytes, gasnet_hyg_put_val_fn library) {
  char *to = nbytes <= sizeof value ? gasnet_hyg_mapped(node, dest, nbytes) : NULL;
  if (__builtin_expect(to != NULL, 1))
    memcpy(to, &value, nbytes);
  else
    library(node, dest, value, nbytes);
}

static __inline__ gasnet_register_value_t gasnet_hyg_get_val_inline(gasnet_node_t node, void *src, size_t nbytes) {
  const char *from = nbytes <= sizeof(gasnet_register_value_t) ? gasnet_hyg_mapped(node, src, nbytes) : NULL;
  gasnet_register_value_t value = 0;
  if (__builtin_expect(from == NULL, 0))
    return gasnet_get_val(node, src, nbytes);
  memcpy(&value, from, nbytes);
  return value;
}

/* On a node every one of these completes before it returns; the library does no more. The name
 * inside each expansion is the function (a macro does not expand itself). */
#define gasnet_put(node, dest, src, nbytes) gasnet_hyg_put_inline((node), (dest), (src), (nbytes), gasnet_put)
#define gasnet_put_bulk(node, dest, src, nbytes) gasnet_hyg_put_inline((node), (dest), (src), (nbytes), gasnet_put_bulk)
#define gasnet_put_nbi(node, dest, src, nbytes) gasnet_hyg_put_inline((node), (dest), (src), (nbytes), gasnet_put_nbi)
#define gasnet_put_nbi_bulk(node, dest, src, nbytes)                                                                   \
  gasnet_hyg_put_inline((node), (dest), (src), (nbytes), gasnet_put_nbi_bulk)
#define gasnet_get(dest, node, src, nbytes) gasnet_hyg_get_inline((dest), (node), (src), (nbytes), gasnet_get)
#define gasnet_get_bulk(dest, node, src, nbytes) gasnet_hyg_get_inline((dest), (node), (src), (nbytes), gasnet_get_bulk)
#define gasnet_get_nbi(dest, node, src, nbytes) gasnet_hyg_get_inline((dest), (node), (src), (nbytes), gasnet_get_nbi)
#define gasnet_get_nbi_bulk(dest, node, src, nbytes)                                                                   \
  gasnet_hyg_get_inline((dest), (node), (src), (nbytes), gasnet_get_nbi_bulk)
#define gasnet_put_val(node, dest, value, nbytes)                                                                      \
  gasnet_hyg_put_val_inline((node), (dest), (value), (nbytes), gasnet_put_val)
#define gasnet_put_nbi_val(node, dest, value, nbytes)                                                                  \
  gasnet_hyg_put_val_inline((node), (dest), (value), (nbytes), gasnet_put_nbi_val)
#define gasnet_get_val(node, src, nbytes) gasnet_hyg_get_val_inline((node), (src), (nbytes))

#endif /* the client's inline path */
#endif /* __GNUC__ */
#endif /* GASNET_INLINE_H */
