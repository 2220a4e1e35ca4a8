/* gasnet.h: the GASNet-1 API (GASNet 1.8.1 specification, "[G1]") on the HyGASPI engine.
 *
 * A client defines exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including this
 * header [G1 §1.5] and links the library of that mode (pkg-config gasnet-hygaspi-<mode>, or the
 * hygaspi-conduit/hygaspi-<mode>.mak fragment). gasnet_init names the mode, so a client compiled
 * for one mode and linked with another fails to link, as GASNet's own conduits do.
 *
 * Every AM entry point of every argument count funnels into one send (gasnet_hyg_AMRequest /
 * gasnet_hyg_AMReply); the per-count names below only cast the arguments to gasnet_handlerarg_t
 * and count them. */
#ifndef GASNET_H
#define GASNET_H

/* gasnet_tools.h, which clients include after this header, needs POSIX (clock_gettime, rwlocks):
 * a strict C client gets it here, before <stdint.h> fixes the feature set. */
#if !defined(__cplusplus) && defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) &&       \
    !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <stddef.h>
#include <stdint.h>

#if defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR) != 1 && !defined(GASNET_HYG_LIBRARY)
#error "define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including gasnet.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the library builds with hidden visibility; these leave it */

/* ---- versions and configuration [G1 §1.5, §2.1] */
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR
#define GASNET_RELEASE_VERSION_MAJOR 0
#define GASNET_RELEASE_VERSION_MINOR 1
#define GASNET_RELEASE_VERSION_PATCH 0
#define GASNET_SEGMENT_FAST 1 /* defined by the implementation, not the client */
#define GASNET_ALIGNED_SEGMENTS 0
#define GASNET_PAGESIZE 4096
#define SIZEOF_GASNET_REGISTER_VALUE_T 8
#define GASNET_MAXNODES 65535
/* The banner macros GASNet 1.x clients print. */
#define GASNET_CORE_NAME HYGASPI
#define GASNET_CORE_NAME_STR "HYGASPI"
#define GASNET_CORE_VERSION 0.1
#define GASNET_CORE_VERSION_STR "0.1"
#define GASNET_CONDUIT_NAME HYGASPI
#define GASNET_CONDUIT_NAME_STR "hygaspi"
#define GASNET_CONDUIT_HYGASPI 1
#define GASNET_EXTENDED_NAME HYGASPI
#define GASNET_EXTENDED_NAME_STR "HYGASPI"
#define GASNET_EXTENDED_VERSION 0.1
#define GASNET_EXTENDED_VERSION_STR "0.1"

#if defined(GASNET_SEQ)
#define GASNET_THREADMODEL_STR "SEQ"
#define gasnet_init gasnet_init_GASNET_SEQ
#elif defined(GASNET_PARSYNC)
#define GASNET_THREADMODEL_STR "PARSYNC"
#define gasnet_init gasnet_init_GASNET_PARSYNC
#elif defined(GASNET_PAR)
#define GASNET_THREADMODEL_STR "PAR"
#define gasnet_init gasnet_init_GASNET_PAR
#else /* the library itself, which serves every mode */
#define GASNET_THREADMODEL_STR "PAR"
#endif
#define GASNET_CONFIG_STRING                                                                                           \
  "RELEASE=0.1.0,SPEC=1.8,CONDUIT=HYGASPI(shm+MPI-3),THREADMODEL=" GASNET_THREADMODEL_STR                              \
  ",SEGMENT=FAST,PTR=64bit,nodebug"

/* ---- types [G1 §2.1] */
typedef uint32_t gasnet_node_t;
typedef uint8_t gasnet_handler_t;
typedef int32_t gasnet_handlerarg_t;
typedef void *gasnet_token_t;
typedef uint64_t gasnet_register_value_t;
typedef uintptr_t gasnet_handle_t; /* thread-specific; GASNET_INVALID_HANDLE is all-zero bytes */
#define GASNET_INVALID_HANDLE ((gasnet_handle_t)0)
typedef struct gasnet_hyg_valget *gasnet_valget_handle_t;
typedef void *gasnet_threadinfo_t;

typedef struct {
  gasnet_handler_t index; /* 0: "don't care", replaced by gasnet_attach */
  void (*fnptr)();
} gasnet_handlerentry_t;

typedef struct {
  void *addr;
  uintptr_t size;
} gasnet_seginfo_t;

/* gasnet_getNodeInfo (GASNet 1.x), from gasnet_init on: nodes that share a host (`host`) and those
 * that share memory (`supernode`: the same node of the engine, whose segments are mapped here);
 * `offset` is what to add to a node's segment address to reach it from here when the supernode is
 * ours (from gasnet_attach on; 0 before). */
typedef struct {
  gasnet_node_t host;
  gasnet_node_t supernode;
  intptr_t offset;
} gasnet_nodeinfo_t;

/* ---- errors [G1 §2.1.4] */
#define GASNET_OK 0
#define _GASNET_ERR_BASE 10000
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)
const char *gasnet_ErrorName(int errval);
const char *gasnet_ErrorDesc(int errval);

/* ---- job control and environment [G1 §2.2] */
/* gasnet_init is gasnet_init_GASNET_<mode>, defined by the mode's library (libgasnet-hygaspi-<mode>),
 * which hands its mode to gasnet_hyg_init. */
int gasnet_init_GASNET_SEQ(int *argc, char ***argv);
int gasnet_init_GASNET_PARSYNC(int *argc, char ***argv);
int gasnet_init_GASNET_PAR(int *argc, char ***argv);
int gasnet_hyg_init(int *argc, char ***argv, int mode); /* 0 SEQ, 1 PARSYNC, 2 PAR */
int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize, uintptr_t minheapoffset);
void gasnet_exit(int exitcode);
gasnet_node_t gasnet_mynode(void);
gasnet_node_t gasnet_nodes(void);
uintptr_t gasnet_getMaxLocalSegmentSize(void);
uintptr_t gasnet_getMaxGlobalSegmentSize(void);
int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);
char *gasnet_getenv(const char *name);

/* ---- active messages [G1 §2.3] */
size_t gasnet_AMMaxArgs(void);
size_t gasnet_AMMaxMedium(void);
size_t gasnet_AMMaxLongRequest(void);
size_t gasnet_AMMaxLongReply(void);
int gasnet_AMPoll(void);
int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex);
#define GASNET_BLOCKUNTIL(cond)                                                                                        \
  do {                                                                                                                 \
    unsigned gasnet_hyg_looks_ = 0;                                                                                    \
    while (!(cond))                                                                                                    \
      gasnet_hyg_block_step(++gasnet_hyg_looks_);                                                                      \
  } while (0)
/* One look of GASNET_BLOCKUNTIL: polls, and yields the CPU once the wait is long. */
void gasnet_hyg_block_step(unsigned looks);

/* The one send behind every gasnet_AM* name. category: 0 Short, 1 Medium, 2 Long, 3 LongAsync. */
int gasnet_hyg_AMRequest(int category, gasnet_node_t dest, gasnet_handler_t handler, void *source_addr, size_t nbytes,
                         void *dest_addr, int numargs, ...);
int gasnet_hyg_AMReply(int category, gasnet_token_t token, gasnet_handler_t handler, void *source_addr, size_t nbytes,
                       void *dest_addr, int numargs, ...);

/* ---- atomicity control [G1 §2.4] */
void gasnet_hold_interrupts(void);
void gasnet_resume_interrupts(void);
typedef struct {
  uintptr_t opaque[8]; /* a pthread mutex and the owner, for the debug checks */
} gasnet_hsl_t;
#define GASNET_HSL_INITIALIZER                                                                                         \
  {                                                                                                                    \
    { 0, 0, 0, 0, 0, 0, 0, 0 }                                                                                         \
  }
void gasnet_hsl_init(gasnet_hsl_t *hsl);
void gasnet_hsl_destroy(gasnet_hsl_t *hsl);
void gasnet_hsl_lock(gasnet_hsl_t *hsl);
void gasnet_hsl_unlock(gasnet_hsl_t *hsl);
int gasnet_hsl_trylock(gasnet_hsl_t *hsl);

/* ---- extended API: blocking, non-blocking with explicit and implicit handles [G1 §3.2-§3.4] */
void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes);
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);

gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes);
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes);
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);
void gasnet_wait_syncnb(gasnet_handle_t handle);
int gasnet_try_syncnb(gasnet_handle_t handle);
void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles);
int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles);
void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles);
int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles);

void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes);
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);
void gasnet_wait_syncnbi_gets(void);
void gasnet_wait_syncnbi_puts(void);
void gasnet_wait_syncnbi_all(void);
int gasnet_try_syncnbi_gets(void);
int gasnet_try_syncnbi_puts(void);
int gasnet_try_syncnbi_all(void);
void gasnet_begin_nbi_accessregion(void);
gasnet_handle_t gasnet_end_nbi_accessregion(void);

/* ---- register-value operations [G1 §3.4] */
void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes);
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes);
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes);
gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes);
gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle);

/* ---- barriers [G1 §3.5] */
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
#define GASNET_BARRIERFLAG_UNNAMED 4 /* GASNet 1.x: an unnamed barrier; we treat it as anonymous */
void gasnet_barrier_notify(int id, int flags);
int gasnet_barrier_wait(int id, int flags);
int gasnet_barrier_try(int id, int flags);
/* GASNet 1.x: blocking barrier (notify + wait), and the result of the last one. */
int gasnet_barrier(int id, int flags);
int gasnet_barrier_result(int *id);

/* ---- threads [G1 §3.6] */
#define GASNET_GET_THREADINFO() ((gasnet_threadinfo_t)0)
#define GASNET_POST_THREADINFO(info) ((void)(info))
#define GASNET_BEGIN_FUNCTION() ((void)0)
#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2
int gasnet_set_waitmode(int wait_mode);

/* ---- the AM names, M = 0..16 [G1 §2.3.3]: each casts its arguments and counts them */
#define gasnet_hyg_A0()
#define gasnet_hyg_A1(a0) , (gasnet_handlerarg_t)(a0)
#define gasnet_hyg_A2(a0, a1) , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1)
#define gasnet_hyg_A3(a0, a1, a2) , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2)
#define gasnet_hyg_A4(a0, a1, a2, a3)                                                                                  \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3)
#define gasnet_hyg_A5(a0, a1, a2, a3, a4)                                                                              \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4)
#define gasnet_hyg_A6(a0, a1, a2, a3, a4, a5)                                                                          \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5)
#define gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6)                                                                      \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6)
#define gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7)                                                                  \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7)
#define gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8)                                                              \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8)
#define gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                                                         \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9)
#define gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                                                    \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10)
#define gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                                               \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11)
#define gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)                                          \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11),    \
      (gasnet_handlerarg_t)(a12)
#define gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)                                     \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11),    \
      (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13)
#define gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)                                \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11),    \
      (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14)
#define gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)                           \
  , (gasnet_handlerarg_t)(a0), (gasnet_handlerarg_t)(a1), (gasnet_handlerarg_t)(a2), (gasnet_handlerarg_t)(a3),        \
      (gasnet_handlerarg_t)(a4), (gasnet_handlerarg_t)(a5), (gasnet_handlerarg_t)(a6), (gasnet_handlerarg_t)(a7),      \
      (gasnet_handlerarg_t)(a8), (gasnet_handlerarg_t)(a9), (gasnet_handlerarg_t)(a10), (gasnet_handlerarg_t)(a11),    \
      (gasnet_handlerarg_t)(a12), (gasnet_handlerarg_t)(a13), (gasnet_handlerarg_t)(a14), (gasnet_handlerarg_t)(a15)
#define gasnet_AMRequestShort0(dest, h) gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 0 gasnet_hyg_A0())
#define gasnet_AMRequestShort1(dest, h, a0) gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 1 gasnet_hyg_A1(a0))
#define gasnet_AMRequestShort2(dest, h, a0, a1) gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 2 gasnet_hyg_A2(a0, a1))
#define gasnet_AMRequestShort3(dest, h, a0, a1, a2)                                                                    \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 3 gasnet_hyg_A3(a0, a1, a2))
#define gasnet_AMRequestShort4(dest, h, a0, a1, a2, a3)                                                                \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gasnet_AMRequestShort5(dest, h, a0, a1, a2, a3, a4)                                                            \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gasnet_AMRequestShort6(dest, h, a0, a1, a2, a3, a4, a5)                                                        \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gasnet_AMRequestShort7(dest, h, a0, a1, a2, a3, a4, a5, a6)                                                    \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gasnet_AMRequestShort8(dest, h, a0, a1, a2, a3, a4, a5, a6, a7)                                                \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gasnet_AMRequestShort9(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                            \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gasnet_AMRequestShort10(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                                       \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gasnet_AMRequestShort11(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                                  \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gasnet_AMRequestShort12(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                             \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0, 12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gasnet_AMRequestShort13(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)                        \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0,                                                                        \
                       13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gasnet_AMRequestShort14(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)                   \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0,                                                                        \
                       14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gasnet_AMRequestShort15(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)              \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0,                                                                        \
                       15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gasnet_AMRequestShort16(dest, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)         \
  gasnet_hyg_AMRequest(0, (dest), (h), 0, 0, 0,                                                                        \
                       16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gasnet_AMRequestMedium0(dest, h, src, n) gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 0 gasnet_hyg_A0())
#define gasnet_AMRequestMedium1(dest, h, src, n, a0)                                                                   \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 1 gasnet_hyg_A1(a0))
#define gasnet_AMRequestMedium2(dest, h, src, n, a0, a1)                                                               \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 2 gasnet_hyg_A2(a0, a1))
#define gasnet_AMRequestMedium3(dest, h, src, n, a0, a1, a2)                                                           \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 3 gasnet_hyg_A3(a0, a1, a2))
#define gasnet_AMRequestMedium4(dest, h, src, n, a0, a1, a2, a3)                                                       \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gasnet_AMRequestMedium5(dest, h, src, n, a0, a1, a2, a3, a4)                                                   \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gasnet_AMRequestMedium6(dest, h, src, n, a0, a1, a2, a3, a4, a5)                                               \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gasnet_AMRequestMedium7(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6)                                           \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gasnet_AMRequestMedium8(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7)                                       \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gasnet_AMRequestMedium9(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                   \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gasnet_AMRequestMedium10(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                              \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gasnet_AMRequestMedium11(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                         \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0, 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gasnet_AMRequestMedium12(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                    \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0,                                                                  \
                       12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gasnet_AMRequestMedium13(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)               \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0,                                                                  \
                       13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gasnet_AMRequestMedium14(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)          \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0,                                                                  \
                       14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gasnet_AMRequestMedium15(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)     \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0,                                                                  \
                       15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gasnet_AMRequestMedium16(dest, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,     \
                                 a15)                                                                                  \
  gasnet_hyg_AMRequest(1, (dest), (h), (src), (n), 0,                                                                  \
                       16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gasnet_AMRequestLong0(dest, h, src, n, daddr)                                                                  \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 0 gasnet_hyg_A0())
#define gasnet_AMRequestLong1(dest, h, src, n, daddr, a0)                                                              \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 1 gasnet_hyg_A1(a0))
#define gasnet_AMRequestLong2(dest, h, src, n, daddr, a0, a1)                                                          \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 2 gasnet_hyg_A2(a0, a1))
#define gasnet_AMRequestLong3(dest, h, src, n, daddr, a0, a1, a2)                                                      \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 3 gasnet_hyg_A3(a0, a1, a2))
#define gasnet_AMRequestLong4(dest, h, src, n, daddr, a0, a1, a2, a3)                                                  \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gasnet_AMRequestLong5(dest, h, src, n, daddr, a0, a1, a2, a3, a4)                                              \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gasnet_AMRequestLong6(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5)                                          \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gasnet_AMRequestLong7(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6)                                      \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gasnet_AMRequestLong8(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7)                                  \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gasnet_AMRequestLong9(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8)                              \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gasnet_AMRequestLong10(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                         \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr), 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gasnet_AMRequestLong11(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                    \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr),                                                            \
                       11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gasnet_AMRequestLong12(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)               \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr),                                                            \
                       12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gasnet_AMRequestLong13(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)          \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr),                                                            \
                       13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gasnet_AMRequestLong14(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)     \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr),                                                            \
                       14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gasnet_AMRequestLong15(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,     \
                               a14)                                                                                    \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr),                                                            \
                       15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gasnet_AMRequestLong16(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,     \
                               a14, a15)                                                                               \
  gasnet_hyg_AMRequest(2, (dest), (h), (src), (n), (daddr),                                                            \
                       16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gasnet_AMRequestLongAsync0(dest, h, src, n, daddr)                                                             \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 0 gasnet_hyg_A0())
#define gasnet_AMRequestLongAsync1(dest, h, src, n, daddr, a0)                                                         \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 1 gasnet_hyg_A1(a0))
#define gasnet_AMRequestLongAsync2(dest, h, src, n, daddr, a0, a1)                                                     \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 2 gasnet_hyg_A2(a0, a1))
#define gasnet_AMRequestLongAsync3(dest, h, src, n, daddr, a0, a1, a2)                                                 \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 3 gasnet_hyg_A3(a0, a1, a2))
#define gasnet_AMRequestLongAsync4(dest, h, src, n, daddr, a0, a1, a2, a3)                                             \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gasnet_AMRequestLongAsync5(dest, h, src, n, daddr, a0, a1, a2, a3, a4)                                         \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gasnet_AMRequestLongAsync6(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5)                                     \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gasnet_AMRequestLongAsync7(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6)                                 \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gasnet_AMRequestLongAsync8(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7)                             \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gasnet_AMRequestLongAsync9(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8)                         \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gasnet_AMRequestLongAsync10(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                    \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr), 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gasnet_AMRequestLongAsync11(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)               \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr),                                                            \
                       11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gasnet_AMRequestLongAsync12(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)          \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr),                                                            \
                       12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gasnet_AMRequestLongAsync13(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)     \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr),                                                            \
                       13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gasnet_AMRequestLongAsync14(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,     \
                                    a13)                                                                               \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr),                                                            \
                       14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gasnet_AMRequestLongAsync15(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,     \
                                    a13, a14)                                                                          \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr),                                                            \
                       15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gasnet_AMRequestLongAsync16(dest, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,     \
                                    a13, a14, a15)                                                                     \
  gasnet_hyg_AMRequest(3, (dest), (h), (src), (n), (daddr),                                                            \
                       16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gasnet_AMReplyShort0(tok, h) gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 0 gasnet_hyg_A0())
#define gasnet_AMReplyShort1(tok, h, a0) gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 1 gasnet_hyg_A1(a0))
#define gasnet_AMReplyShort2(tok, h, a0, a1) gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 2 gasnet_hyg_A2(a0, a1))
#define gasnet_AMReplyShort3(tok, h, a0, a1, a2) gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 3 gasnet_hyg_A3(a0, a1, a2))
#define gasnet_AMReplyShort4(tok, h, a0, a1, a2, a3)                                                                   \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gasnet_AMReplyShort5(tok, h, a0, a1, a2, a3, a4)                                                               \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gasnet_AMReplyShort6(tok, h, a0, a1, a2, a3, a4, a5)                                                           \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gasnet_AMReplyShort7(tok, h, a0, a1, a2, a3, a4, a5, a6)                                                       \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gasnet_AMReplyShort8(tok, h, a0, a1, a2, a3, a4, a5, a6, a7)                                                   \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gasnet_AMReplyShort9(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                               \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gasnet_AMReplyShort10(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                                          \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gasnet_AMReplyShort11(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                                     \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gasnet_AMReplyShort12(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                                \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gasnet_AMReplyShort13(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)                           \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0, 13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gasnet_AMReplyShort14(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)                      \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0,                                                                           \
                     14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gasnet_AMReplyShort15(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)                 \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0,                                                                           \
                     15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gasnet_AMReplyShort16(tok, h, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)            \
  gasnet_hyg_AMReply(0, (tok), (h), 0, 0, 0,                                                                           \
                     16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gasnet_AMReplyMedium0(tok, h, src, n) gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 0 gasnet_hyg_A0())
#define gasnet_AMReplyMedium1(tok, h, src, n, a0) gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 1 gasnet_hyg_A1(a0))
#define gasnet_AMReplyMedium2(tok, h, src, n, a0, a1)                                                                  \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 2 gasnet_hyg_A2(a0, a1))
#define gasnet_AMReplyMedium3(tok, h, src, n, a0, a1, a2)                                                              \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 3 gasnet_hyg_A3(a0, a1, a2))
#define gasnet_AMReplyMedium4(tok, h, src, n, a0, a1, a2, a3)                                                          \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gasnet_AMReplyMedium5(tok, h, src, n, a0, a1, a2, a3, a4)                                                      \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gasnet_AMReplyMedium6(tok, h, src, n, a0, a1, a2, a3, a4, a5)                                                  \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gasnet_AMReplyMedium7(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6)                                              \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gasnet_AMReplyMedium8(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7)                                          \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gasnet_AMReplyMedium9(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                      \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gasnet_AMReplyMedium10(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                                 \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gasnet_AMReplyMedium11(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                            \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gasnet_AMReplyMedium12(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                       \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0, 12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gasnet_AMReplyMedium13(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)                  \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0,                                                                     \
                     13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gasnet_AMReplyMedium14(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)             \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0,                                                                     \
                     14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gasnet_AMReplyMedium15(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)        \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0,                                                                     \
                     15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gasnet_AMReplyMedium16(tok, h, src, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)   \
  gasnet_hyg_AMReply(1, (tok), (h), (src), (n), 0,                                                                     \
                     16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gasnet_AMReplyLong0(tok, h, src, n, daddr)                                                                     \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 0 gasnet_hyg_A0())
#define gasnet_AMReplyLong1(tok, h, src, n, daddr, a0)                                                                 \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 1 gasnet_hyg_A1(a0))
#define gasnet_AMReplyLong2(tok, h, src, n, daddr, a0, a1)                                                             \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 2 gasnet_hyg_A2(a0, a1))
#define gasnet_AMReplyLong3(tok, h, src, n, daddr, a0, a1, a2)                                                         \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 3 gasnet_hyg_A3(a0, a1, a2))
#define gasnet_AMReplyLong4(tok, h, src, n, daddr, a0, a1, a2, a3)                                                     \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gasnet_AMReplyLong5(tok, h, src, n, daddr, a0, a1, a2, a3, a4)                                                 \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gasnet_AMReplyLong6(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5)                                             \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gasnet_AMReplyLong7(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6)                                         \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gasnet_AMReplyLong8(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7)                                     \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gasnet_AMReplyLong9(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                 \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gasnet_AMReplyLong10(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                            \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gasnet_AMReplyLong11(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                       \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gasnet_AMReplyLong12(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                  \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr),                                                               \
                     12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gasnet_AMReplyLong13(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)             \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr),                                                               \
                     13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gasnet_AMReplyLong14(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)        \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr),                                                               \
                     14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gasnet_AMReplyLong15(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)   \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr),                                                               \
                     15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gasnet_AMReplyLong16(tok, h, src, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,   \
                             a15)                                                                                      \
  gasnet_hyg_AMReply(2, (tok), (h), (src), (n), (daddr),                                                               \
                     16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

/* put and get to a node peer's segment, inlined with the library's checks (gasnet_inline.h). */
#include "gasnet_inline.h"
#endif /* GASNET_H */
