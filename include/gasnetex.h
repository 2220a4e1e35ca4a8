/* gasnetex.h: the GASNet-EX API (GASNet-EX specification 0.12, "[GEX]") on the HyGASPI engine,
 * beside the GASNet-1 front end (gasnet.h, which this header includes, and whose active messages
 * and RMA it shares).
 *
 * It covers the primordial objects that gex_Client_Init makes (one client, its endpoint, its team
 * of every rank in the job and the segment gex_Segment_Attach binds), the job and neighbourhood
 * queries, handler registration, the fixed-payload and negotiated-payload active messages,
 * contiguous RMA with events, NBI completion and access regions, teams (gex_TM_Split,
 * gex_TM_Destroy), the collectives (barrier, broadcast, reductions to one and to all), remote
 * atomics (gex_AD_*) and handler-safe locks (GASNet-1's). Its limits:
 *  - RMA and atomics on the primordial team need gex_Segment_Attach (or gasnet_attach) first; a
 *    call made before fails fatally, naming the call (active messages, collectives and
 *    gex_TM_Split work from gex_Client_Init on);
 *  - teams need no client scratch (the size queries return 0); GEX_DT_USER elements are at most
 *    32 KiB (GEX_OP_USER_NC: 32 KiB over the team's size);
 *  - GEX_FLAG_IMMEDIATE is accepted and never makes a call a "no op"; the flags marked
 *    [UNIMPLEMENTED] in [GEX] are refused;
 *  - a Medium or Long payload is locally complete when its call returns, whatever lc_opt asks;
 *  - endpoints beyond the primordial one (gex_EP_Create) serve RMA through TM-pairs (gex_TM_Pair)
 *    into segments of gex_Segment_Create, of host or CUDA device memory (gasnet_mk.h), within
 *    the process and on its node, and active messages (GEX_EP_CAPABILITY_AM: a handler table per
 *    endpoint, Long payloads into host segments); no VIS.
 * On a node, contiguous puts and gets on the primordial team and the integer atomics run inline in
 * the client (below, and gasnetex_inline.h); GASNET_HYG_NO_INLINE turns that off.
 *
 * A client defines exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR and links the library
 * of that mode (pkg-config gasnet-hygaspi-<mode>), as for gasnet.h: gex_Client_Init names the
 * mode. */
#ifndef GASNETEX_H
#define GASNETEX_H

#if defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR) != 1 && !defined(GASNET_HYG_LIBRARY)
#error "define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including gasnetex.h"
#endif
#include "gasnet.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* 0.12 is the document this follows; 15 says what clients test for since: gex_EP_BindSegment
 * returns int (GASNet-EX 2022.9) and gex_Segment_Destroy exists (UPC++ looks for minor 15). */
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 15

/* ---- basic types [GEX "Basic types"] */
typedef gasnet_node_t gex_Rank_t;
#define GEX_RANK_INVALID ((gex_Rank_t)0xFFFFFFFFu)
typedef uint32_t gex_Flags_t;
typedef int32_t gex_AM_Arg_t;
typedef uint8_t gex_AM_Index_t;
typedef void (*gex_AM_Fn_t)();
typedef uint64_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T 8
typedef void *gex_Addr_t;
typedef uint32_t gex_EP_Index_t;
typedef uint32_t gex_TI_t;
typedef uint32_t gex_EC_t;
typedef struct {
  void *gex_addr;
  size_t gex_len;
} gex_Memvec_t;

/* Opaque handles: each points at a library object; 0 is never a valid one. */
typedef struct gex_hyg_Client *gex_Client_t;
typedef struct gex_hyg_EP *gex_EP_t;
typedef struct gex_hyg_TM *gex_TM_t;
typedef struct gex_hyg_Segment *gex_Segment_t;
typedef struct gex_hyg_Token *gex_Token_t;
typedef struct gex_hyg_Event *gex_Event_t; /* interoperable with gasnet_handle_t */
typedef struct gex_hyg_MK *gex_MK_t;       /* a memory kind (gasnet_mk.h creates them) */
#define GEX_CLIENT_INVALID ((gex_Client_t)0)
#define GEX_EP_INVALID ((gex_EP_t)0)
#define GEX_TM_INVALID ((gex_TM_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)

typedef struct {
  gex_Rank_t gex_rank;
  gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;
#define GEX_EP_INDEX_INVALID ((gex_EP_Index_t)0xFFFFFFFFu)
/* Endpoints per process, the primordial one included: indices 0 .. GASNET_MAXEPS-1, handed out in
 * creation order and never reused (gex_EP_Create). */
#define GASNET_MAXEPS 33

/* ---- memory kinds [GEX-MK "Memory Kinds"]: GEX_MK_HOST, and the classes gex_MK_Create
 * (gasnet_mk.h) knows. CUDA is loaded at run time: the class exists in every build, and
 * gex_MK_Create says at run time whether this machine can serve it. */
#define GEX_MK_INVALID ((gex_MK_t)0)
#define GEX_MK_HOST ((gex_MK_t)(uintptr_t)1)
#define GASNET_HAVE_MK_CLASS_CUDA_UVA 1
#define GASNET_HAVE_MK_CLASS_MULTIPLE 1

/* ---- endpoint capabilities [GEX-MK "GEX_EP_CAPABILITY Constants"] */
typedef uint32_t gex_EP_Capabilities_t;
#define GEX_EP_CAPABILITY_RMA ((gex_EP_Capabilities_t)1u << 0)
#define GEX_EP_CAPABILITY_AM ((gex_EP_Capabilities_t)1u << 1)
#define GEX_EP_CAPABILITY_VIS ((gex_EP_Capabilities_t)1u << 2)
#define GEX_EP_CAPABILITY_COLL ((gex_EP_Capabilities_t)1u << 3)
#define GEX_EP_CAPABILITY_AD ((gex_EP_Capabilities_t)1u << 4)
#define GEX_EP_CAPABILITY_ALL ((gex_EP_Capabilities_t)0x1f)

/* ---- events [GEX "Events"] */
#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP ((gex_Event_t)(uintptr_t)1)
#define GEX_EVENT_NOW ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP ((gex_Event_t *)(uintptr_t)3)

#define GEX_EC_GET ((gex_EC_t)0x01)
#define GEX_EC_PUT ((gex_EC_t)0x02)
#define GEX_EC_AM ((gex_EC_t)0x04)
#define GEX_EC_LC ((gex_EC_t)0x08)
#define GEX_EC_RMW ((gex_EC_t)0x10)
#define GEX_EC_ALL ((gex_EC_t)0xff)

/* ---- flags: one bit each, so that no two of them alias across calls */
#define GEX_FLAG_IMMEDIATE ((gex_Flags_t)1u << 0)
#define GEX_FLAG_LC_COPY_YES ((gex_Flags_t)1u << 1)
#define GEX_FLAG_LC_COPY_NO ((gex_Flags_t)1u << 2)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT ((gex_Flags_t)1u << 3)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC ((gex_Flags_t)1u << 4)
#define GEX_FLAG_SELF_SEG_UNKNOWN ((gex_Flags_t)1u << 5)
#define GEX_FLAG_PEER_SEG_UNKNOWN ((gex_Flags_t)1u << 6)
#define GEX_FLAG_SELF_SEG_SOME ((gex_Flags_t)1u << 7)
#define GEX_FLAG_PEER_SEG_SOME ((gex_Flags_t)1u << 8)
#define GEX_FLAG_SELF_SEG_BOUND ((gex_Flags_t)1u << 9)
#define GEX_FLAG_PEER_SEG_BOUND ((gex_Flags_t)1u << 10)
#define GEX_FLAG_SELF_SEG_OFFSET ((gex_Flags_t)1u << 11)
#define GEX_FLAG_PEER_SEG_OFFSET ((gex_Flags_t)1u << 12)
#define GEX_FLAG_RANK_IS_JOBRANK ((gex_Flags_t)1u << 13)
#define GEX_FLAG_AM_SHORT ((gex_Flags_t)1u << 16)
#define GEX_FLAG_AM_MEDIUM ((gex_Flags_t)1u << 17)
#define GEX_FLAG_AM_LONG ((gex_Flags_t)1u << 18)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST ((gex_Flags_t)1u << 20)
#define GEX_FLAG_AM_REPLY ((gex_Flags_t)1u << 21)
#define GEX_FLAG_AM_REQREP (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)
#define GEX_FLAG_USES_GASNET1 ((gex_Flags_t)1u << 24)
/* teams (gex_TM_Split, gex_TM_Destroy) */
#define GEX_FLAG_TM_NO_SCRATCH ((gex_Flags_t)1u << 14)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED ((gex_Flags_t)1u << 15)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN ((gex_Flags_t)1u << 22) /* deprecated [GEX]: warns once */
#define GEX_FLAG_GLOBALLY_QUIESCED ((gex_Flags_t)1u << 23)
/* gex_EP_Create's hints (accepted, and kept for gex_EP_QueryFlags; nothing here is scarce). They
 * share bits with team flags, which gex_EP_Create never takes. */
#define GEX_FLAG_HINT_ACCEL_AD ((gex_Flags_t)1u << 19)
#define GEX_FLAG_HINT_ACCEL_COLL ((gex_Flags_t)1u << 22)
#define GEX_FLAG_HINT_ACCEL_ALL (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)
/* remote atomics: the target's locality (gex_AD_Op*), the creation's hint (gex_AD_Create), fences */
#define GEX_FLAG_AD_MY_RANK ((gex_Flags_t)1u << 25)
#define GEX_FLAG_AD_MY_NBRHD ((gex_Flags_t)1u << 26)
#define GEX_FLAG_AD_FAVOR_MY_RANK ((gex_Flags_t)1u << 27)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD ((gex_Flags_t)1u << 28)
#define GEX_FLAG_AD_FAVOR_REMOTE ((gex_Flags_t)1u << 29)
#define GEX_FLAG_AD_ACQ ((gex_Flags_t)1u << 30)
#define GEX_FLAG_AD_REL ((gex_Flags_t)1u << 31)

/* ---- the job [GEX "Job rank", "Neighborhood and Host"] */
gex_Rank_t gex_System_QueryJobRank(void);
gex_Rank_t gex_System_QueryJobSize(void);
typedef const struct gex_hyg_RankInfo { gex_Rank_t gex_jobrank; } gex_RankInfo_t;
/* The neighbourhood is the ranks that share memory (an engine node); the host is reported as the
 * same set, as gasnet_getNodeInfo does. */
void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p, gex_Rank_t *my_info_index_p);
void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p, gex_Rank_t *my_info_index_p);
void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank, gex_Rank_t *host_set_size,
                                gex_Rank_t *host_set_rank);

/* ---- client, endpoint, team, segment */
#if defined(GASNET_SEQ)
#define gex_Client_Init gex_Client_Init_GASNET_SEQ
#elif defined(GASNET_PARSYNC)
#define gex_Client_Init gex_Client_Init_GASNET_PARSYNC
#elif defined(GASNET_PAR)
#define gex_Client_Init gex_Client_Init_GASNET_PAR
#endif
/* gex_Client_Init is gex_Client_Init_GASNET_<mode>, defined by the mode's library, which hands its
 * mode to gex_hyg_Client_Init. */
int gex_Client_Init_GASNET_SEQ(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName,
                               int *argc, char ***argv, gex_Flags_t flags);
int gex_Client_Init_GASNET_PARSYNC(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName,
                                   int *argc, char ***argv, gex_Flags_t flags);
int gex_Client_Init_GASNET_PAR(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName,
                               int *argc, char ***argv, gex_Flags_t flags);
int gex_hyg_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName, int *argc,
                        char ***argv, gex_Flags_t flags, int mode);

gex_Flags_t gex_Client_QueryFlags(gex_Client_t client);
const char *gex_Client_QueryName(gex_Client_t client);
void gex_Client_SetCData(gex_Client_t client, const void *val);
void *gex_Client_QueryCData(gex_Client_t client);

gex_Client_t gex_EP_QueryClient(gex_EP_t ep);
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep);
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep);
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);
void gex_EP_SetCData(gex_EP_t ep, const void *val);
void *gex_EP_QueryCData(gex_EP_t ep);

gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
gex_EP_t gex_TM_QueryEP(gex_TM_t tm);
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm);
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm);
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm);
gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
void gex_TM_SetCData(gex_TM_t tm, const void *val);
void *gex_TM_QueryCData(gex_TM_t tm);

/* For a client of gasnet_init/gasnet_attach: the primordial objects (any pointer may be NULL). */
void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p, gex_Segment_t *segment_p);

/* Collective over tm (the primordial team); once per process. */
int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size);
gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg);
void *gex_Segment_QueryAddr(gex_Segment_t seg);
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg);
void gex_Segment_SetCData(gex_Segment_t seg, const void *val);
void *gex_Segment_QueryCData(gex_Segment_t seg);
int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p, uintptr_t *size_p);

/* ---- endpoints, segments and TM-pairs beyond the primordial ones [GEX-MK sections 3-5] */
int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities, gex_Flags_t flags);
int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);
int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags);
gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                                       uintptr_t *size_p, gex_Flags_t flags);
int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address, uintptr_t length,
                       gex_MK_t kind, gex_Flags_t flags);
void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags);
gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);
gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags);

/* ---- active messages [GEX "Active Messages"] */
#define GEX_AM_INDEX_BASE 128
typedef struct {
  gex_AM_Index_t gex_index; /* 0 ("don't care") or GEX_AM_INDEX_BASE..255 */
  gex_AM_Fn_t gex_fnptr;
  gex_Flags_t
      gex_flags; /* one of GEX_FLAG_AM_{SHORT,MEDIUM,LONG,MEDLONG} | one of GEX_FLAG_AM_{REQUEST,REPLY,REQREP} */
  unsigned int gex_nargs;
  const void *gex_cdata;
  const char *gex_name;
} gex_AM_Entry_t;
int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

unsigned int gex_AM_MaxArgs(void);
size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt, gex_Flags_t flags,
                             unsigned int numargs);
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt, gex_Flags_t flags,
                           unsigned int numargs);
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt, gex_Flags_t flags,
                               unsigned int numargs);
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt, gex_Flags_t flags,
                             unsigned int numargs);
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs);
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs);
size_t gex_AM_LUBRequestLong(void);
size_t gex_AM_LUBReplyLong(void);
size_t gex_AM_LUBRequestMedium(void);
size_t gex_AM_LUBReplyMedium(void);

typedef struct {
  gex_Rank_t gex_srcrank;
  gex_EP_t gex_ep;
  const gex_AM_Entry_t *gex_entry;
  unsigned int gex_is_req;
  unsigned int gex_is_long;
} gex_Token_Info_t;
#define GEX_TI_SRCRANK ((gex_TI_t)0x01)
#define GEX_TI_EP ((gex_TI_t)0x02)
#define GEX_TI_ENTRY ((gex_TI_t)0x04)
#define GEX_TI_IS_REQ ((gex_TI_t)0x08)
#define GEX_TI_IS_LONG ((gex_TI_t)0x10)
#define GEX_TI_ALL ((gex_TI_t)0x1f)
gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);

/* The one injection behind every gex_AM_* name. category: 0 Short, 1 Medium, 2 Long. */
int gex_hyg_AMRequest(int category, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *source_addr,
                      size_t nbytes, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, int numargs, ...);
int gex_hyg_AMReply(int category, gex_Token_t token, gex_AM_Index_t handler, const void *source_addr, size_t nbytes,
                    void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, int numargs, ...);

/* ---- negotiated-payload AMs [GEX "Negotiated-payload Active Messages"] */
typedef struct gex_hyg_SrcDesc *gex_AM_SrcDesc_t;
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)
void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);
gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf, size_t least_payload,
                                             size_t most_payload, gex_Event_t *lc_opt, gex_Flags_t flags,
                                             unsigned int numargs);
gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf, size_t least_payload,
                                           size_t most_payload, gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs);
gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf, size_t least_payload,
                                           size_t most_payload, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs);
gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf, size_t least_payload,
                                         size_t most_payload, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                         unsigned int numargs);
/* The one commit behind every gex_AM_Commit* name. category: 1 Medium, 2 Long; request: 1 or 0. */
void gex_hyg_AMCommit(int category, int request, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                      void *dest_addr, int numargs, ...);

/* ---- RMA [GEX "Extended API"] */
int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Flags_t flags);
int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt,
                   gex_Flags_t flags);
gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes, gex_Event_t *lc_opt,
                          gex_Flags_t flags);
int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags);
int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags);
gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags);
gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags);
int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                           gex_Flags_t flags);
int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                      gex_Flags_t flags);
gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                             gex_Flags_t flags);

/* ---- completion */
int gex_Event_Test(gex_Event_t event);
void gex_Event_Wait(gex_Event_t event);
int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
/* The leaf event of one category of a root event. Every operation here is locally complete when
 * its initiation returns, so the GEX_EC_LC leaf is GEX_EVENT_INVALID ("already happened"). */
gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);
int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);
/* Access regions: GASNet-1's (gasnet_{begin,end}_nbi_accessregion). */
void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ---- handler-safe locks: GASNet-1's [GEX "Handler-safe locks"] */
typedef gasnet_hsl_t gex_HSL_t;
#define GEX_HSL_INITIALIZER GASNET_HSL_INITIALIZER
#define gex_HSL_Init gasnet_hsl_init
#define gex_HSL_Destroy gasnet_hsl_destroy
#define gex_HSL_Lock gasnet_hsl_lock
#define gex_HSL_Unlock gasnet_hsl_unlock
#define gex_HSL_Trylock gasnet_hsl_trylock

/* ---- teams [GEX "Operations on gex_TM_t"; gex_TM_Destroy from the "[PROPOSED]" section] */
/* gex_TM_Dup [GEX-MK 5.2]: a team of the same members, its collectives independent of the
 * original's (no scratch is needed: the size queries return 0). Its scratch flags share bits with
 * the handler-registration flags of gex_AM_Entry_t, which never reach a team call. */
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH ((gex_Flags_t)1u << 16)
#define GEX_FLAG_TM_LOCAL_SCRATCH ((gex_Flags_t)1u << 17)
#define GEX_FLAG_TM_GLOBAL_SCRATCH ((gex_Flags_t)1u << 18)
#define GEX_FLAG_SCRATCH_SEG_OFFSET ((gex_Flags_t)1u << 20)
size_t gex_TM_Dup(gex_TM_t *new_tm_p, gex_TM_t orig_tm, gex_Addr_t scratch_addr, size_t scratch_len, gex_Flags_t flags);
size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key, void *scratch_addr, size_t scratch_size,
                    gex_Flags_t flags);
int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);

/* ---- data types and opcodes of reductions and atomics [GEX "Data types", "Operation codes"]: one
 * bit each.
 * A fetching opcode is its non-fetching partner shifted left by one (SET/SWAP are such a pair). */
typedef uint32_t gex_DT_t;
#define GEX_DT_I32 ((gex_DT_t)1u << 0)
#define GEX_DT_U32 ((gex_DT_t)1u << 1)
#define GEX_DT_I64 ((gex_DT_t)1u << 2)
#define GEX_DT_U64 ((gex_DT_t)1u << 3)
#define GEX_DT_FLT ((gex_DT_t)1u << 4)
#define GEX_DT_DBL ((gex_DT_t)1u << 5)
#define GEX_DT_USER ((gex_DT_t)1u << 6)
typedef uint32_t gex_OP_t;
#define GEX_OP_GET ((gex_OP_t)1u << 0)
#define GEX_OP_SET ((gex_OP_t)1u << 1)
#define GEX_OP_SWAP ((gex_OP_t)1u << 2)
#define GEX_OP_CAS ((gex_OP_t)1u << 3)
#define GEX_OP_FCAS ((gex_OP_t)1u << 4)
#define GEX_OP_CSWAP GEX_OP_FCAS
#define GEX_OP_ADD ((gex_OP_t)1u << 5)
#define GEX_OP_FADD ((gex_OP_t)1u << 6)
#define GEX_OP_SUB ((gex_OP_t)1u << 7)
#define GEX_OP_FSUB ((gex_OP_t)1u << 8)
#define GEX_OP_INC ((gex_OP_t)1u << 9)
#define GEX_OP_FINC ((gex_OP_t)1u << 10)
#define GEX_OP_DEC ((gex_OP_t)1u << 11)
#define GEX_OP_FDEC ((gex_OP_t)1u << 12)
#define GEX_OP_MULT ((gex_OP_t)1u << 13)
#define GEX_OP_FMULT ((gex_OP_t)1u << 14)
#define GEX_OP_MIN ((gex_OP_t)1u << 15)
#define GEX_OP_FMIN ((gex_OP_t)1u << 16)
#define GEX_OP_MAX ((gex_OP_t)1u << 17)
#define GEX_OP_FMAX ((gex_OP_t)1u << 18)
#define GEX_OP_AND ((gex_OP_t)1u << 19)
#define GEX_OP_FAND ((gex_OP_t)1u << 20)
#define GEX_OP_OR ((gex_OP_t)1u << 21)
#define GEX_OP_FOR ((gex_OP_t)1u << 22)
#define GEX_OP_XOR ((gex_OP_t)1u << 23)
#define GEX_OP_FXOR ((gex_OP_t)1u << 24)
#define GEX_OP_USER ((gex_OP_t)1u << 25)
#define GEX_OP_USER_NC ((gex_OP_t)1u << 26)
#define GEX_OP_TO_FETCHING(op) ((gex_OP_t)((op) << 1))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)((op) >> 1))

/* ---- collectives [GEX "Collectives"]: non-blocking, each returns an event that gex_Event_Test/Wait
 * synchronises; several may be outstanding over one team or several. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count, const void *cdata);
gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);
gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                                 gex_Flags_t flags);
gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, gex_DT_t dt, size_t dt_sz,
                                   size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags);
gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt, size_t dt_sz, size_t dt_cnt,
                                   gex_OP_t op, gex_Coll_ReduceFn_t user_op, void *user_cdata, gex_Flags_t flags);

/* ---- remote atomics [GEX "Remote Atomic Operations"]. An operation on a node peer (or this
 * rank) is a CPU atomic that has completed when its call returns (an NB call returns
 * GEX_EVENT_INVALID); one on a rank of another node is served by that rank's progress (its GASNet
 * calls: polls and waits), and the same CPU atomic there keeps one domain. Every operation is
 * sequentially consistent, so GEX_FLAG_AD_ACQ and _REL always hold. An NBI operation completes at
 * gex_NBI_Test/Wait of GEX_EC_PUT (SET), GEX_EC_GET (GET) or GEX_EC_RMW (the others), or, when it
 * was started inside an access region, with the region's event. An NB operation's event belongs to
 * the thread that started it. gex_AD_Create and gex_AD_Destroy are collective but need no
 * communication here. A client compiled with GCC-compatible compilers applies the integer
 * atomics on a node inline (gasnetex_inline.h). */
typedef struct gex_hyg_AD *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)0)
void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags);
void gex_AD_Destroy(gex_AD_t ad);
gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
gex_TM_t gex_AD_QueryTM(gex_AD_t ad);
gex_DT_t gex_AD_QueryDT(gex_AD_t ad);
gex_OP_t gex_AD_QueryOps(gex_AD_t ad);
void gex_AD_SetCData(gex_AD_t ad, const void *val);
void *gex_AD_QueryCData(gex_AD_t ad);
#define gex_hyg_AD_DECLARE(NAME, TYPE)                                                                                 \
  gex_Event_t gex_AD_OpNB_##NAME(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t opcode,    \
                                 TYPE operand1, TYPE operand2, gex_Flags_t flags);                                     \
  int gex_AD_OpNBI_##NAME(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t opcode,           \
                          TYPE operand1, TYPE operand2, gex_Flags_t flags);
gex_hyg_AD_DECLARE(I32, int32_t) gex_hyg_AD_DECLARE(U32, uint32_t) gex_hyg_AD_DECLARE(I64, int64_t)
    gex_hyg_AD_DECLARE(U64, uint64_t) gex_hyg_AD_DECLARE(FLT, float) gex_hyg_AD_DECLARE(DBL, double)
#undef gex_hyg_AD_DECLARE
#include "gasnetex_inline.h" /* the node path of the integer atomics, inlined into the client */

/* ---- the AM names, M = 0..16: each casts its arguments (gasnet.h's gasnet_hyg_A<M>) and counts
 * them. Without M, the count comes from the arguments. */
#define gex_hyg_CAT2(a, b) a##b
#define gex_hyg_CAT(a, b) gex_hyg_CAT2(a, b)
/* The number of arguments after the first (flags), 0..16. */
#define gex_hyg_NARGS(...)                                                                                             \
  gex_hyg_NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, gex_hyg_unused)
#define gex_hyg_NARGS_(f, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, n, ...) n
#define gex_AM_RequestShort(tm, rank, h, ...)                                                                          \
  gex_hyg_CAT(gex_AM_RequestShort, gex_hyg_NARGS(__VA_ARGS__))(tm, rank, h, __VA_ARGS__)
#define gex_AM_RequestMedium(tm, rank, h, src, n, lc, ...)                                                             \
  gex_hyg_CAT(gex_AM_RequestMedium, gex_hyg_NARGS(__VA_ARGS__))(tm, rank, h, src, n, lc, __VA_ARGS__)
#define gex_AM_RequestLong(tm, rank, h, src, n, daddr, lc, ...)                                                        \
  gex_hyg_CAT(gex_AM_RequestLong, gex_hyg_NARGS(__VA_ARGS__))(tm, rank, h, src, n, daddr, lc, __VA_ARGS__)
#define gex_AM_ReplyShort(tok, h, ...) gex_hyg_CAT(gex_AM_ReplyShort, gex_hyg_NARGS(__VA_ARGS__))(tok, h, __VA_ARGS__)
#define gex_AM_ReplyMedium(tok, h, src, n, lc, ...)                                                                    \
  gex_hyg_CAT(gex_AM_ReplyMedium, gex_hyg_NARGS(__VA_ARGS__))(tok, h, src, n, lc, __VA_ARGS__)
#define gex_AM_ReplyLong(tok, h, src, n, daddr, lc, ...)                                                               \
  gex_hyg_CAT(gex_AM_ReplyLong, gex_hyg_NARGS(__VA_ARGS__))(tok, h, src, n, daddr, lc, __VA_ARGS__)
#define gex_AM_RequestShort0(tm, rank, h, flags)                                                                       \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 0 gasnet_hyg_A0())
#define gex_AM_RequestMedium0(tm, rank, h, src, n, lc, flags)                                                          \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 0 gasnet_hyg_A0())
#define gex_AM_RequestLong0(tm, rank, h, src, n, daddr, lc, flags)                                                     \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags), 0 gasnet_hyg_A0())
#define gex_AM_ReplyShort0(tok, h, flags)                                                                              \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 0 gasnet_hyg_A0())
#define gex_AM_ReplyMedium0(tok, h, src, n, lc, flags)                                                                 \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 0 gasnet_hyg_A0())
#define gex_AM_ReplyLong0(tok, h, src, n, daddr, lc, flags)                                                            \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 0 gasnet_hyg_A0())
#define gex_AM_RequestShort1(tm, rank, h, flags, a0)                                                                   \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 1 gasnet_hyg_A1(a0))
#define gex_AM_RequestMedium1(tm, rank, h, src, n, lc, flags, a0)                                                      \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 1 gasnet_hyg_A1(a0))
#define gex_AM_RequestLong1(tm, rank, h, src, n, daddr, lc, flags, a0)                                                 \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags), 1 gasnet_hyg_A1(a0))
#define gex_AM_ReplyShort1(tok, h, flags, a0)                                                                          \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 1 gasnet_hyg_A1(a0))
#define gex_AM_ReplyMedium1(tok, h, src, n, lc, flags, a0)                                                             \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 1 gasnet_hyg_A1(a0))
#define gex_AM_ReplyLong1(tok, h, src, n, daddr, lc, flags, a0)                                                        \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 1 gasnet_hyg_A1(a0))
#define gex_AM_RequestShort2(tm, rank, h, flags, a0, a1)                                                               \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_RequestMedium2(tm, rank, h, src, n, lc, flags, a0, a1)                                                  \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_RequestLong2(tm, rank, h, src, n, daddr, lc, flags, a0, a1)                                             \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_ReplyShort2(tok, h, flags, a0, a1)                                                                      \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_ReplyMedium2(tok, h, src, n, lc, flags, a0, a1)                                                         \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_ReplyLong2(tok, h, src, n, daddr, lc, flags, a0, a1)                                                    \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_RequestShort3(tm, rank, h, flags, a0, a1, a2)                                                           \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_RequestMedium3(tm, rank, h, src, n, lc, flags, a0, a1, a2)                                              \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_RequestLong3(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2)                                         \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_ReplyShort3(tok, h, flags, a0, a1, a2)                                                                  \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_ReplyMedium3(tok, h, src, n, lc, flags, a0, a1, a2)                                                     \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_ReplyLong3(tok, h, src, n, daddr, lc, flags, a0, a1, a2)                                                \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_RequestShort4(tm, rank, h, flags, a0, a1, a2, a3)                                                       \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_RequestMedium4(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3)                                          \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_RequestLong4(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3)                                     \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_ReplyShort4(tok, h, flags, a0, a1, a2, a3)                                                              \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_ReplyMedium4(tok, h, src, n, lc, flags, a0, a1, a2, a3)                                                 \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_ReplyLong4(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3)                                            \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_RequestShort5(tm, rank, h, flags, a0, a1, a2, a3, a4)                                                   \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_RequestMedium5(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4)                                      \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_RequestLong5(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4)                                 \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_ReplyShort5(tok, h, flags, a0, a1, a2, a3, a4)                                                          \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_ReplyMedium5(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4)                                             \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_ReplyLong5(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4)                                        \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_RequestShort6(tm, rank, h, flags, a0, a1, a2, a3, a4, a5)                                               \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_RequestMedium6(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5)                                  \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_RequestLong6(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5)                             \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_ReplyShort6(tok, h, flags, a0, a1, a2, a3, a4, a5)                                                      \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_ReplyMedium6(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5)                                         \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_ReplyLong6(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5)                                    \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_RequestShort7(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6)                                           \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_RequestMedium7(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6)                              \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_RequestLong7(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6)                         \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_ReplyShort7(tok, h, flags, a0, a1, a2, a3, a4, a5, a6)                                                  \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_ReplyMedium7(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6)                                     \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_ReplyLong7(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6)                                \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_RequestShort8(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7)                                       \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_RequestMedium8(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7)                          \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_RequestLong8(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7)                     \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_ReplyShort8(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7)                                              \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_ReplyMedium8(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7)                                 \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_ReplyLong8(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7)                            \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_RequestShort9(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                   \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_RequestMedium9(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8)                      \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_RequestLong9(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8)                 \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_ReplyShort9(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                          \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags), 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_ReplyMedium9(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8)                             \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags), 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_ReplyLong9(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8)                        \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_RequestShort10(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                              \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_RequestMedium10(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                 \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_RequestLong10(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)            \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_ReplyShort10(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                                     \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                                      \
                  10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_ReplyMedium10(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                        \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags),                                                         \
                  10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_ReplyLong10(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                   \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_RequestShort11(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                         \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_RequestMedium11(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)            \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_RequestLong11(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)       \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_ReplyShort11(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                                \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                                      \
                  11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_ReplyMedium11(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                   \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags),                                                         \
                  11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_ReplyLong11(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)              \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_RequestShort12(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                    \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_RequestMedium12(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)       \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_RequestLong12(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)  \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_ReplyShort12(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                           \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                                      \
                  12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_ReplyMedium12(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)              \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags),                                                         \
                  12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_ReplyLong12(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)         \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_RequestShort13(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)               \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_RequestMedium13(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)  \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_RequestLong13(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,  \
                             a12)                                                                                      \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_ReplyShort13(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)                      \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                                      \
                  13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_ReplyMedium13(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)         \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags),                                                         \
                  13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_ReplyLong13(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)    \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_RequestShort14(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)          \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_RequestMedium14(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,  \
                               a13)                                                                                    \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_RequestLong14(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,  \
                             a12, a13)                                                                                 \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_ReplyShort14(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)                 \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                                      \
                  14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_ReplyMedium14(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)    \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags),                                                         \
                  14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_ReplyLong14(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,    \
                           a13)                                                                                        \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_RequestShort15(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)     \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_RequestMedium15(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,  \
                               a13, a14)                                                                               \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_RequestLong15(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,  \
                             a12, a13, a14)                                                                            \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_ReplyShort15(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)            \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                                      \
                  15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_ReplyMedium15(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,    \
                             a14)                                                                                      \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags),                                                         \
                  15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_ReplyLong15(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,    \
                           a13, a14)                                                                                   \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_RequestShort16(tm, rank, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,     \
                              a15)                                                                                     \
  gex_hyg_AMRequest(0, (tm), (rank), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                             \
                    16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_RequestMedium16(tm, rank, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,  \
                               a13, a14, a15)                                                                          \
  gex_hyg_AMRequest(1, (tm), (rank), (h), (src), (n), 0, (lc), (flags),                                                \
                    16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_RequestLong16(tm, rank, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,  \
                             a12, a13, a14, a15)                                                                       \
  gex_hyg_AMRequest(2, (tm), (rank), (h), (src), (n), (daddr), (lc), (flags),                                          \
                    16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_ReplyShort16(tok, h, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)       \
  gex_hyg_AMReply(0, (tok), (h), 0, 0, 0, GEX_EVENT_NOW, (flags),                                                      \
                  16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_ReplyMedium16(tok, h, src, n, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,    \
                             a14, a15)                                                                                 \
  gex_hyg_AMReply(1, (tok), (h), (src), (n), 0, (lc), (flags),                                                         \
                  16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_ReplyLong16(tok, h, src, n, daddr, lc, flags, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,    \
                           a13, a14, a15)                                                                              \
  gex_hyg_AMReply(2, (tok), (h), (src), (n), (daddr), (lc), (flags),                                                   \
                  16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))

/* gex_AM_Commit{Request,Reply}{Medium,Long}[M]: M = 0..16 as for the fixed-payload names. */
#define gex_AM_CommitRequestMedium(sd, h, ...)                                                                         \
  gex_hyg_CAT(gex_AM_CommitRequestMedium, gex_hyg_NARGS(__VA_ARGS__))(sd, h, __VA_ARGS__)
#define gex_AM_CommitReplyMedium(sd, h, ...)                                                                           \
  gex_hyg_CAT(gex_AM_CommitReplyMedium, gex_hyg_NARGS(__VA_ARGS__))(sd, h, __VA_ARGS__)
#define gex_AM_CommitRequestLong(sd, h, n, ...)                                                                        \
  gex_hyg_CAT(gex_AM_CommitRequestLong, gex_hyg_NARGS(__VA_ARGS__))(sd, h, n, __VA_ARGS__)
#define gex_AM_CommitReplyLong(sd, h, n, ...)                                                                          \
  gex_hyg_CAT(gex_AM_CommitReplyLong, gex_hyg_NARGS(__VA_ARGS__))(sd, h, n, __VA_ARGS__)
#define gex_AM_CommitRequestMedium0(sd, h, n) gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 0 gasnet_hyg_A0())
#define gex_AM_CommitReplyMedium0(sd, h, n) gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 0 gasnet_hyg_A0())
#define gex_AM_CommitRequestLong0(sd, h, n, daddr) gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 0 gasnet_hyg_A0())
#define gex_AM_CommitReplyLong0(sd, h, n, daddr) gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 0 gasnet_hyg_A0())
#define gex_AM_CommitRequestMedium1(sd, h, n, a0) gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 1 gasnet_hyg_A1(a0))
#define gex_AM_CommitReplyMedium1(sd, h, n, a0) gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 1 gasnet_hyg_A1(a0))
#define gex_AM_CommitRequestLong1(sd, h, n, daddr, a0)                                                                 \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 1 gasnet_hyg_A1(a0))
#define gex_AM_CommitReplyLong1(sd, h, n, daddr, a0)                                                                   \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 1 gasnet_hyg_A1(a0))
#define gex_AM_CommitRequestMedium2(sd, h, n, a0, a1) gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_CommitReplyMedium2(sd, h, n, a0, a1) gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_CommitRequestLong2(sd, h, n, daddr, a0, a1)                                                             \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_CommitReplyLong2(sd, h, n, daddr, a0, a1)                                                               \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 2 gasnet_hyg_A2(a0, a1))
#define gex_AM_CommitRequestMedium3(sd, h, n, a0, a1, a2)                                                              \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_CommitReplyMedium3(sd, h, n, a0, a1, a2)                                                                \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_CommitRequestLong3(sd, h, n, daddr, a0, a1, a2)                                                         \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_CommitReplyLong3(sd, h, n, daddr, a0, a1, a2)                                                           \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 3 gasnet_hyg_A3(a0, a1, a2))
#define gex_AM_CommitRequestMedium4(sd, h, n, a0, a1, a2, a3)                                                          \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_CommitReplyMedium4(sd, h, n, a0, a1, a2, a3)                                                            \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_CommitRequestLong4(sd, h, n, daddr, a0, a1, a2, a3)                                                     \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_CommitReplyLong4(sd, h, n, daddr, a0, a1, a2, a3)                                                       \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 4 gasnet_hyg_A4(a0, a1, a2, a3))
#define gex_AM_CommitRequestMedium5(sd, h, n, a0, a1, a2, a3, a4)                                                      \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_CommitReplyMedium5(sd, h, n, a0, a1, a2, a3, a4)                                                        \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_CommitRequestLong5(sd, h, n, daddr, a0, a1, a2, a3, a4)                                                 \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_CommitReplyLong5(sd, h, n, daddr, a0, a1, a2, a3, a4)                                                   \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 5 gasnet_hyg_A5(a0, a1, a2, a3, a4))
#define gex_AM_CommitRequestMedium6(sd, h, n, a0, a1, a2, a3, a4, a5)                                                  \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_CommitReplyMedium6(sd, h, n, a0, a1, a2, a3, a4, a5)                                                    \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_CommitRequestLong6(sd, h, n, daddr, a0, a1, a2, a3, a4, a5)                                             \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_CommitReplyLong6(sd, h, n, daddr, a0, a1, a2, a3, a4, a5)                                               \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 6 gasnet_hyg_A6(a0, a1, a2, a3, a4, a5))
#define gex_AM_CommitRequestMedium7(sd, h, n, a0, a1, a2, a3, a4, a5, a6)                                              \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_CommitReplyMedium7(sd, h, n, a0, a1, a2, a3, a4, a5, a6)                                                \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_CommitRequestLong7(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6)                                         \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_CommitReplyLong7(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6)                                           \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 7 gasnet_hyg_A7(a0, a1, a2, a3, a4, a5, a6))
#define gex_AM_CommitRequestMedium8(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7)                                          \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_CommitReplyMedium8(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7)                                            \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_CommitRequestLong8(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7)                                     \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_CommitReplyLong8(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7)                                       \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 8 gasnet_hyg_A8(a0, a1, a2, a3, a4, a5, a6, a7))
#define gex_AM_CommitRequestMedium9(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                      \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_CommitReplyMedium9(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                        \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_CommitRequestLong9(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                 \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_CommitReplyLong9(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8)                                   \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 9 gasnet_hyg_A9(a0, a1, a2, a3, a4, a5, a6, a7, a8))
#define gex_AM_CommitRequestMedium10(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                                 \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_CommitReplyMedium10(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                                   \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_CommitRequestLong10(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                            \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_CommitReplyLong10(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)                              \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 10 gasnet_hyg_A10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define gex_AM_CommitRequestMedium11(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                            \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_CommitReplyMedium11(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                              \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_CommitRequestLong11(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                       \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_CommitReplyLong11(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)                         \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 11 gasnet_hyg_A11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define gex_AM_CommitRequestMedium12(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                       \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_CommitReplyMedium12(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                         \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_CommitRequestLong12(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                  \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr), 12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_CommitReplyLong12(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)                    \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr), 12 gasnet_hyg_A12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define gex_AM_CommitRequestMedium13(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)                  \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0, 13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_CommitReplyMedium13(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)                    \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0, 13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_CommitRequestLong13(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)             \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr),                                                                      \
                   13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_CommitReplyLong13(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)               \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr),                                                                      \
                   13 gasnet_hyg_A13(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
#define gex_AM_CommitRequestMedium14(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)             \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0,                                                                            \
                   14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_CommitReplyMedium14(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)               \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0,                                                                            \
                   14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_CommitRequestLong14(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)        \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr),                                                                      \
                   14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_CommitReplyLong14(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)          \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr),                                                                      \
                   14 gasnet_hyg_A14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#define gex_AM_CommitRequestMedium15(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)        \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0,                                                                            \
                   15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_CommitReplyMedium15(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)          \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0,                                                                            \
                   15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_CommitRequestLong15(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)   \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr),                                                                      \
                   15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_CommitReplyLong15(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14)     \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr),                                                                      \
                   15 gasnet_hyg_A15(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14))
#define gex_AM_CommitRequestMedium16(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)   \
  gex_hyg_AMCommit(1, 1, (sd), (h), (n), 0,                                                                            \
                   16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_CommitReplyMedium16(sd, h, n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15)     \
  gex_hyg_AMCommit(1, 0, (sd), (h), (n), 0,                                                                            \
                   16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_CommitRequestLong16(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,   \
                                   a15)                                                                                \
  gex_hyg_AMCommit(2, 1, (sd), (h), (n), (daddr),                                                                      \
                   16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))
#define gex_AM_CommitReplyLong16(sd, h, n, daddr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,     \
                                 a15)                                                                                  \
  gex_hyg_AMCommit(2, 0, (sd), (h), (n), (daddr),                                                                      \
                   16 gasnet_hyg_A16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15))

    /* The primordial team once the client exists (the inline path below compares with it). Not an
     * interface. */
    extern gex_TM_t gex_hyg_tm0;

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

/* ---- the node path of contiguous RMA, inlined into the client as gasnet_inline.h does it for
 * GASNet-1: a put or get on the primordial team, with no flags, to a rank whose segment this
 * process maps, is a copy; it then completes before it returns, so an NB call's event is
 * GEX_EVENT_INVALID and an lc_opt event is complete. Everything else, and every failed check (a
 * local buffer in the first page, a null pointer, or one that wraps around the address space
 * among them), goes to the library, which checks and reports exactly as before. */
#if defined(__GNUC__) && !defined(GASNET_HYG_LIBRARY) && !defined(GASNET_HYG_NO_INLINE)
static __inline__ char *gex_hyg_mapped(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t nbytes, gex_Flags_t flags,
                                       const void *local) {
  return tm == __atomic_load_n(&gex_hyg_tm0, __ATOMIC_RELAXED) && tm != NULL && flags == 0 &&
                 GASNET_HYG_LOCAL_OK(local, nbytes)
             ? gasnet_hyg_mapped(rank, addr, nbytes)
             : NULL;
}
static __inline__ int gex_hyg_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                                          gex_Flags_t flags) {
  char *to = gex_hyg_mapped(tm, rank, dest, nbytes, flags, src);
  if (__builtin_expect(to == NULL, 0))
    return (gex_RMA_PutBlocking)(tm, rank, dest, src, nbytes, flags);
  memcpy(to, src, nbytes);
  return 0;
}
static __inline__ int gex_hyg_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                                          gex_Flags_t flags) {
  const char *from = gex_hyg_mapped(tm, rank, src, nbytes, flags, dest);
  if (__builtin_expect(from == NULL, 0))
    return (gex_RMA_GetBlocking)(tm, dest, rank, src, nbytes, flags);
  memcpy(dest, from, nbytes);
  return 0;
}
static __inline__ int gex_hyg_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                                     gex_Event_t *lc_opt, gex_Flags_t flags) {
  char *to = lc_opt == GEX_EVENT_NOW || lc_opt == GEX_EVENT_DEFER || lc_opt == GEX_EVENT_GROUP
                 ? gex_hyg_mapped(tm, rank, dest, nbytes, flags, src)
                 : NULL;
  if (__builtin_expect(to == NULL, 0))
    return (gex_RMA_PutNBI)(tm, rank, dest, src, nbytes, lc_opt, flags);
  memcpy(to, src, nbytes);
  return 0;
}
static __inline__ int gex_hyg_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                                     gex_Flags_t flags) {
  const char *from = gex_hyg_mapped(tm, rank, src, nbytes, flags, dest);
  if (__builtin_expect(from == NULL, 0))
    return (gex_RMA_GetNBI)(tm, dest, rank, src, nbytes, flags);
  memcpy(dest, from, nbytes);
  return 0;
}
static __inline__ gex_Event_t gex_hyg_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                                            gex_Event_t *lc_opt, gex_Flags_t flags) {
  char *to = lc_opt != NULL && lc_opt != GEX_EVENT_GROUP ? gex_hyg_mapped(tm, rank, dest, nbytes, flags, src) : NULL;
  if (__builtin_expect(to == NULL, 0))
    return (gex_RMA_PutNB)(tm, rank, dest, src, nbytes, lc_opt, flags);
  memcpy(to, src, nbytes);
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER)
    *lc_opt = GEX_EVENT_INVALID;
  return GEX_EVENT_INVALID;
}
static __inline__ gex_Event_t gex_hyg_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                                            gex_Flags_t flags) {
  const char *from = gex_hyg_mapped(tm, rank, src, nbytes, flags, dest);
  if (__builtin_expect(from == NULL, 0))
    return (gex_RMA_GetNB)(tm, dest, rank, src, nbytes, flags);
  memcpy(dest, from, nbytes);
  return GEX_EVENT_INVALID;
}
#define gex_RMA_PutBlocking(tm, rank, dest, src, nbytes, flags)                                                        \
  gex_hyg_PutBlocking((tm), (rank), (dest), (src), (nbytes), (flags))
#define gex_RMA_GetBlocking(tm, dest, rank, src, nbytes, flags)                                                        \
  gex_hyg_GetBlocking((tm), (dest), (rank), (src), (nbytes), (flags))
#define gex_RMA_PutNBI(tm, rank, dest, src, nbytes, lc_opt, flags)                                                     \
  gex_hyg_PutNBI((tm), (rank), (dest), (src), (nbytes), (lc_opt), (flags))
#define gex_RMA_GetNBI(tm, dest, rank, src, nbytes, flags)                                                             \
  gex_hyg_GetNBI((tm), (dest), (rank), (src), (nbytes), (flags))
#define gex_RMA_PutNB(tm, rank, dest, src, nbytes, lc_opt, flags)                                                      \
  gex_hyg_PutNB((tm), (rank), (dest), (src), (nbytes), (lc_opt), (flags))
#define gex_RMA_GetNB(tm, dest, rank, src, nbytes, flags) gex_hyg_GetNB((tm), (dest), (rank), (src), (nbytes), (flags))
#endif /* the client's inline path */
#endif /* GASNETEX_H */
