/*
 * GASPI_types.h -- HyGASPI
 *
 * Types and constants of the GASPI 17.1 API, with the widths and values of
 * GPI-2 1.6.0 (see HyGASPI's docs/COMPATIBILITY.md), so that programs written against
 * GPI-2 compile unchanged and exchange the same binary values.
 */
#ifndef HYGASPI_GASPI_TYPES_H
#define HYGASPI_GASPI_TYPES_H

/* Every public declaration carries HYGASPI_API, so the library itself can be
 * built with -fvisibility=hidden and still export exactly the API. */
#if defined(__GNUC__)
#define HYGASPI_API __attribute__((visibility("default")))
#else
#define HYGASPI_API
#endif

/* Typed constants are `static const` in a header (as in GPI-2). GCC can warn
 * about them in translation units that do not use them
 * (-Wunused-const-variable=2), so mark them unused there. Clang never warns
 * about unused constants from headers, but with -Wused-but-marked-unused it
 * would warn whenever one is used, so it gets no attribute. */
#if defined(__GNUC__) && !defined(__clang__)
#define HYGASPI_UNUSED_CONST __attribute__((unused))
#else
#define HYGASPI_UNUSED_CONST
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Spec §3.3 / §4: basic data types (plain C types, GPI-2 names).
 * ------------------------------------------------------------------------- */
typedef char gaspi_char;
typedef unsigned char gaspi_uchar;
typedef short gaspi_short;
typedef unsigned short gaspi_ushort;
typedef int gaspi_int;
typedef unsigned int gaspi_uint;
typedef long gaspi_long;
typedef unsigned long gaspi_ulong;
typedef float gaspi_float;
typedef double gaspi_double;

/* ---------------------------------------------------------------------------
 * Spec §4: GASPI-specific types. Widths follow GPI-2 on x86-64.
 * ------------------------------------------------------------------------- */
typedef unsigned short gaspi_rank_t;
typedef unsigned char gaspi_segment_id_t;
typedef unsigned char gaspi_queue_id_t;
typedef unsigned char gaspi_group_t;

typedef unsigned int gaspi_number_t;
typedef unsigned int gaspi_notification_id_t;
typedef unsigned int gaspi_notification_t;
typedef unsigned int gaspi_statistic_counter_t;

typedef unsigned long gaspi_offset_t;
typedef unsigned long gaspi_size_t;
typedef unsigned long gaspi_atomic_value_t;
typedef unsigned long gaspi_timeout_t;
typedef unsigned long gaspi_cycles_t;

/* Time in milliseconds (spec §13). */
typedef float gaspi_time_t;

typedef int gaspi_memory_description_t;

typedef void *gaspi_pointer_t;
typedef const void *gaspi_const_pointer_t;
typedef void *gaspi_reduce_state_t;
typedef char *gaspi_string_t;

/* ---------------------------------------------------------------------------
 * Spec §4.1 / errata: return values. Values are GPI-2's; GASPI_QUEUE_FULL
 * comes from the QUEUE_FULL errata and sits at 23 in GPI-2's numbering.
 * ------------------------------------------------------------------------- */
typedef enum {
  GASPI_ERROR = -1,
  GASPI_SUCCESS = 0,
  GASPI_TIMEOUT = 1,
  GASPI_ERR_EMFILE = 2,
  GASPI_ERR_ENV = 3,
  GASPI_ERR_SN_PORT = 4,
  GASPI_ERR_CONFIG = 5,
  GASPI_ERR_NOINIT = 6,
  GASPI_ERR_INITED = 7,
  GASPI_ERR_NULLPTR = 8,
  GASPI_ERR_INV_SEGSIZE = 9,
  GASPI_ERR_INV_SEG = 10,
  GASPI_ERR_INV_GROUP = 11,
  GASPI_ERR_INV_RANK = 12,
  GASPI_ERR_INV_QUEUE = 13,
  GASPI_ERR_INV_LOC_OFF = 14,
  GASPI_ERR_INV_REM_OFF = 15,
  GASPI_ERR_INV_COMMSIZE = 16,
  GASPI_ERR_INV_NOTIF_VAL = 17,
  GASPI_ERR_INV_NOTIF_ID = 18,
  GASPI_ERR_INV_NUM = 19,
  GASPI_ERR_INV_SIZE = 20,
  GASPI_ERR_MANY_SEG = 21,
  GASPI_ERR_MANY_GRP = 22,
  GASPI_QUEUE_FULL = 23,
  GASPI_ERR_UNALIGN_OFF = 24,
  GASPI_ERR_ACTIVE_COLL = 25,
  GASPI_ERR_DEVICE = 26,
  GASPI_ERR_SN = 27,
  GASPI_ERR_MEMALLOC = 28
} gaspi_return_t;

/* ---------------------------------------------------------------------------
 * Spec §4: predefined timeouts and the group of all ranks.
 * ------------------------------------------------------------------------- */
static const gaspi_group_t GASPI_GROUP_ALL HYGASPI_UNUSED_CONST = 0;
static const gaspi_timeout_t GASPI_BLOCK HYGASPI_UNUSED_CONST = 0xffffffffffffffffUL;
static const gaspi_timeout_t GASPI_TEST HYGASPI_UNUSED_CONST = 0;

/* ---------------------------------------------------------------------------
 * Spec §6.3: process state vector (gaspi_state_vec_get).
 * ------------------------------------------------------------------------- */
typedef enum { GASPI_STATE_HEALTHY = 0, GASPI_STATE_CORRUPT = 1 } gaspi_state_t;

typedef gaspi_state_t *gaspi_state_vector_t;

/* ---------------------------------------------------------------------------
 * Spec §7.2: segment allocation policies.
 * Bit flags: bit 0 selects zero-initialised memory (GPI-2). Bits 1 and 2 are
 * HyGASPI extensions for NUMA placement and may be OR-ed with bit 0:
 *   GASPI_ALLOC_NUMA_LOCAL      (1 << 1)  place pages on the caller's node
 *   GASPI_ALLOC_NUMA_INTERLEAVE (1 << 2)  interleave pages over all nodes
 * ------------------------------------------------------------------------- */
typedef unsigned long gaspi_alloc_t;

enum gaspi_alloc_policy_flags {
  GASPI_MEM_UNINITIALIZED = 0,
  GASPI_MEM_INITIALIZED = 1,
  GASPI_ALLOC_DEFAULT = GASPI_MEM_UNINITIALIZED,
  GASPI_ALLOC_NUMA_LOCAL = 2,
  GASPI_ALLOC_NUMA_INTERLEAVE = 4
};

/* ---------------------------------------------------------------------------
 * Spec §5.2 / §12: configuration-related enumerations.
 * ------------------------------------------------------------------------- */
typedef enum { GASPI_TOPOLOGY_NONE = 0, GASPI_TOPOLOGY_STATIC = 1, GASPI_TOPOLOGY_DYNAMIC = 2 } gaspi_topology_t;

typedef enum {
  GASPI_IB = 0,
  GASPI_ROCE = 1,
  GASPI_ETHERNET = 2,
  GASPI_GEMINI = 3,
  GASPI_ARIES = 4,
  GASPI_OFI = 5
} gaspi_network_t;

/* ---------------------------------------------------------------------------
 * Spec §11.3: predefined reductions. The datatype order is GPI-2's, which
 * differs from the order of the spec's listing.
 * ------------------------------------------------------------------------- */
typedef enum { GASPI_OP_MIN = 0, GASPI_OP_MAX = 1, GASPI_OP_SUM = 2 } gaspi_operation_t;

typedef enum {
  GASPI_TYPE_INT = 0,
  GASPI_TYPE_UINT = 1,
  GASPI_TYPE_FLOAT = 2,
  GASPI_TYPE_DOUBLE = 3,
  GASPI_TYPE_LONG = 4,
  GASPI_TYPE_ULONG = 5
} gaspi_datatype_t;

/* ---------------------------------------------------------------------------
 * Spec §11.4.2: user-defined reduction. The spec's C prototype has 5
 * parameters; its Fortran binding and GPI-2 have 7 (num, element_size).
 * We declare the 7-parameter form (docs/DESIGN.md, "Readings of the spec").
 * ------------------------------------------------------------------------- */
typedef gaspi_return_t (*gaspi_reduce_operation_t)(gaspi_pointer_t op1, gaspi_pointer_t op2, gaspi_pointer_t res,
                                                   gaspi_reduce_state_t state, gaspi_number_t num,
                                                   gaspi_size_t element_size, gaspi_timeout_t timeout);

/* ---------------------------------------------------------------------------
 * Spec §14.1: statistics.
 * ------------------------------------------------------------------------- */
typedef enum { GASPI_STATISTIC_ARGUMENT_NONE = 0, GASPI_STATISTIC_ARGUMENT_RANK = 1 } gaspi_statistic_argument_t;

/* ---------------------------------------------------------------------------
 * Spec §5.2.1: configuration. Field names and order are GPI-2's: GPI-2-only
 * fields first, then the fields the spec names. Values are proposals; the
 * getters of §12 report what was granted.
 * ------------------------------------------------------------------------- */

/* Network device settings (GPI-2-only part of the configuration), laid out as in
 * GPI-2 1.6.0: the parameters of every device GPI-2 can be built for sit side by
 * side in `params` (a struct, not a union: GPI-2's default configuration
 * initialises all three). Programs set them by name, e.g.
 * config.dev_config.params.tcp.port. HyGASPI runs on shared memory and MPI and
 * has none of these devices: it keeps the values (gaspi_config_get returns
 * what gaspi_config_set stored) and ignores them (README, "GPI-2 compatibility"). */
typedef struct {
  gaspi_network_t network_type; /* the device the parameters are for */
  struct {
    struct {
      gaspi_int netdev_id;   /* InfiniBand device index, -1: the first */
      gaspi_uint mtu;        /* 0 (automatic), 1024, 2048 or 4096 */
      gaspi_uint port_check; /* non-zero: check that the port is up */
    } ib;
    struct {
      gaspi_uint port; /* first TCP port of the device (GPI-2: 19000) */
    } tcp;
    struct {
      gaspi_int use_shm;       /* non-zero: libfabric's shm provider within a node */
      gaspi_int provider_info; /* non-zero: print the libfabric provider */
      gaspi_int progress_auto; /* non-zero: automatic progress where the provider has it */
    } ofi;
  } params;
} gaspi_dev_config_t;

typedef struct {
  /* GPI-2-only fields */
  gaspi_uint logger;          /* non-zero: enable the logger */
  gaspi_uint sn_port;         /* TCP port of the startup network */
  gaspi_int net_info;         /* non-zero: print network information */
  gaspi_int user_net;         /* non-zero: user chose the network */
  gaspi_int sn_persistent;    /* keep startup connections open */
  gaspi_timeout_t sn_timeout; /* startup network timeout (ms) */
  gaspi_dev_config_t dev_config;

  /* fields of the GASPI specification */
  gaspi_network_t network;
  gaspi_number_t queue_size_max;
  gaspi_number_t queue_num;
  gaspi_number_t group_max;
  gaspi_number_t segment_max;
  gaspi_size_t transfer_size_max;
  gaspi_number_t notification_num;
  gaspi_number_t passive_queue_size_max;
  gaspi_size_t passive_transfer_size_max;
  gaspi_size_t allreduce_buf_size;
  gaspi_number_t allreduce_elem_max;
  gaspi_number_t rw_list_elem_max;
  gaspi_topology_t build_infrastructure;
  void *user_defined;
} gaspi_config_t;

#ifdef __cplusplus
}
#endif

#endif /* HYGASPI_GASPI_TYPES_H */
