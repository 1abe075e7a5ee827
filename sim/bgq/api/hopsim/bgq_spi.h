/* hopsim's Blue Gene/Q System Programming Interface: the subset of the BG/Q
 * driver's SPI (spi/include/kernel/..., spi/include/mu/...) that MU
 * kernels use, with the same names and semantics, running on hopsim's
 * BG/Q machine (simulated: ranks are fibers on the timing model; native:
 * ranks are host threads and the MU's work is done by real copies and
 * atomic counter updates). The forwarding headers under spi/ and hwi/
 * include this one, so a kernel keeps its original #include lines.
 *
 * Differences a kernel author must know (docs/bgq.md):
 *  - a "physical address" is the host virtual address (Kernel_CreateMemoryRegion
 *    returns BasePa == BaseVa);
 *  - a bare loop that spins on memory the MU writes progresses when the source
 *    goes through the hopsim-bgq-poll pass (hopsim-mpicc does this); code
 *    compiled without it calls HOPSIM_SPIN_WAIT() in the loop's body (see
 *    hopsim/bgq_kernel.h), so the simulated rank can yield;
 *  - each rank's copy of a program sits at its own addresses: a direct put
 *    names its target relative to a base-address-table entry each node sets;
 *  - MUSPI_GIBarrierPollWithTimeout's timeout is not modelled: it waits. */
#ifndef HOPSIM_BGQ_SPI_H
#define HOPSIM_BGQ_SPI_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "hopsim/bgq/model/mu_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- personality (spi/include/kernel/location.h) ---- */
typedef struct {
  uint32_t Acoord, Bcoord, Ccoord, Dcoord, Ecoord;
  uint32_t Anodes, Bnodes, Cnodes, Dnodes, Enodes;
} Personality_Networks_t;
typedef struct {
  uint32_t FreqMHz;
} Personality_Kernel_t;
typedef struct {
  Personality_Networks_t Network_Config;
  Personality_Kernel_t Kernel_Config;
} Personality_t;
int Kernel_GetPersonality(Personality_t* p, size_t size);

/* ---- memory regions ---- */
typedef struct {
  void* BaseVa;
  void* BasePa;
  uint64_t Bytes;
} Kernel_MemoryRegion_t;
int32_t Kernel_CreateMemoryRegion(Kernel_MemoryRegion_t* region, void* base, size_t size);

/* ---- injection FIFOs ---- */
typedef struct {
  uint32_t RemoteGet;
  uint32_t System;
  uint32_t Priority;
} Kernel_InjFifoAttributes_t;
typedef struct {
  uint32_t subgroup;
  uint32_t fifo; /* global FIFO id */
} MUSPI_InjFifo_t;
typedef struct {
  uint32_t subgroup;
  MUSPI_InjFifo_t fifos[8];
} MUSPI_InjFifoSubGroup_t;
#define KERNEL_INJ_FIFO_ACTIVATE 1
#define KERNEL_INJ_FIFO_DEACTIVATE 0
int32_t Kernel_AllocateInjFifos(uint32_t subgroup, MUSPI_InjFifoSubGroup_t* sg, uint32_t nfifos, uint32_t* fifoids,
                                Kernel_InjFifoAttributes_t* attrs);
int32_t Kernel_InjFifoInit(MUSPI_InjFifoSubGroup_t* sg, uint32_t fifoid, Kernel_MemoryRegion_t* region,
                           uint64_t startoffset, uint64_t sizeMinus1);
int32_t Kernel_InjFifoActivate(MUSPI_InjFifoSubGroup_t* sg, uint32_t nfifos, uint32_t* fifoids, uint32_t activate);
MUSPI_InjFifo_t* MUSPI_IdToInjFifo(uint32_t fifoid, MUSPI_InjFifoSubGroup_t* sg);
/* Copies the descriptor into the FIFO; returns its sequence number in this FIFO (0, 1, ...). */
uint64_t MUSPI_InjFifoInject(MUSPI_InjFifo_t* fifo, void* desc);
/* 1 once the MU has sent descriptor `desc_number` of this FIFO (its payload has been read and may be
 * written again), else 0. Each call is one iteration of a polling loop: a bare loop on it makes progress.
 * A number the FIFO has not yet been given stops the run with a message. */
uint32_t MUSPI_CheckDescComplete(MUSPI_InjFifo_t* fifo, uint64_t desc_number);
/* Free descriptor slots in the FIFO: its size / 64, less one, less the descriptors the MU has not yet taken. */
uint64_t MUSPI_getHwFreeSpace(MUSPI_InjFifo_t* fifo);

/* ---- base address table ---- */
typedef struct {
  uint32_t subgroup;
} MUSPI_BaseAddressTableSubGroup_t;
int32_t Kernel_AllocateBaseAddressTable(uint32_t subgroup, MUSPI_BaseAddressTableSubGroup_t* sg, uint32_t n,
                                        uint32_t* ids, uint32_t flags);
int32_t MUSPI_SetBaseAddress(MUSPI_BaseAddressTableSubGroup_t* sg, uint32_t id, uint64_t value);
uint64_t MUSPI_GetAtomicAddress(uint64_t pa, uint64_t opcode);
/* The counter offset that, added to entry `id`'s base address, names the atomic address of `pa` with `opcode`. */
uint64_t MUSPI_GetAtomicOffsetFromBaseAddress(MUSPI_BaseAddressTableSubGroup_t* sg, uint32_t id, uint64_t pa,
                                              uint64_t opcode);

/* ---- descriptors ---- */
typedef struct {
  uint32_t Pre_Fetch_Only;
  uint64_t Payload_Address;
  uint64_t Message_Length;
  uint64_t Torus_FIFO_Map;
  MUHWI_Destination_t Dest;
} MUSPI_BaseDescriptorInfoFields_t;
typedef struct {
  uint8_t Hints_ABCD;
  uint8_t Misc1; /* E hints, routing, deposit, interrupt (Byte2) */
  uint8_t Misc2; /* virtual channel (Byte3) */
  uint8_t Skip;
} MUSPI_Pt2PtDescriptorInfoFields_t;
typedef struct {
  uint16_t Rec_Payload_Base_Address_Id;
  uint64_t Rec_Payload_Offset;
  uint16_t Rec_Counter_Base_Address_Id;
  uint64_t Rec_Counter_Offset;
  uint8_t Pacing;
} MUSPI_DirectPutDescriptorInfoFields_t;
typedef struct {
  uint16_t Rec_FIFO_Id;
  uint64_t Rec_Put_Offset;
  uint8_t Interrupt; /* MUHWI_PACKET_(DO_NOT_)INTERRUPT_ON_PACKET_ARRIVAL: kept in the header, not modelled */
  uint8_t SoftwareBit;
  uint8_t SoftwareBytes[14]; /* SoftwareBytes[0]: the receive function's id (MUSPI_RegisterReceiveFunction) */
} MUSPI_MemoryFIFODescriptorInfoFields_t;
typedef struct {
  uint8_t Op_Code;      /* MUHWI_COLLECTIVE_OP_CODE_* (ignored by a broadcast) */
  uint16_t Word_Length; /* bytes per word: 4, 8, ..., 512; Message_Length is a multiple of it */
  uint8_t Class_Route;  /* 0..15 */
  uint8_t Misc;         /* virtual channel | MUHWI_COLLECTIVE_TYPE_* */
  uint8_t Skip;
} MUSPI_CollectiveDescriptorInfoFields_t;
typedef struct {
  uint8_t Type;              /* MUHWI_PACKET_TYPE_GET */
  uint16_t Rget_Inj_FIFO_Id; /* global id of the remote node's injection FIFO that runs the payload descriptors */
} MUSPI_RemoteGetDescriptorInfoFields_t;
typedef struct {
  MUSPI_BaseDescriptorInfoFields_t Base;
  MUSPI_Pt2PtDescriptorInfoFields_t Pt2Pt;
  MUSPI_DirectPutDescriptorInfoFields_t DirectPut;
} MUSPI_Pt2PtDirectPutDescriptorInfo_t;
typedef struct {
  MUSPI_BaseDescriptorInfoFields_t Base;
  MUSPI_Pt2PtDescriptorInfoFields_t Pt2Pt;
  MUSPI_RemoteGetDescriptorInfoFields_t RemoteGet;
} MUSPI_Pt2PtRemoteGetDescriptorInfo_t;
typedef struct {
  MUSPI_BaseDescriptorInfoFields_t Base;
  MUSPI_Pt2PtDescriptorInfoFields_t Pt2Pt;
  MUSPI_MemoryFIFODescriptorInfoFields_t MemFIFO;
} MUSPI_Pt2PtMemoryFIFODescriptorInfo_t;

/* Collectives on a class route's tree: every node of the route injects one (allreduce, reduce; a broadcast
 * is injected by one node); the combined result lands at every node (allreduce, broadcast) or at the root
 * Base.Dest (reduce), as a direct put into each receiver's own base-address-table entries or as memory-FIFO
 * packets into its reception FIFO. */
typedef struct {
  MUSPI_BaseDescriptorInfoFields_t Base;
  MUSPI_CollectiveDescriptorInfoFields_t Collective;
  MUSPI_DirectPutDescriptorInfoFields_t DirectPut;
} MUSPI_CollectiveDirectPutDescriptorInfo_t;
typedef struct {
  MUSPI_BaseDescriptorInfoFields_t Base;
  MUSPI_CollectiveDescriptorInfoFields_t Collective;
  MUSPI_MemoryFIFODescriptorInfoFields_t MemFIFO;
} MUSPI_CollectiveMemoryFIFODescriptorInfo_t;

int MUSPI_SetUpDestination(MUHWI_Destination_t* dest, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e);
int MUSPI_CreatePt2PtDirectPutDescriptor(MUHWI_Descriptor_t* desc, MUSPI_Pt2PtDirectPutDescriptorInfo_t* info);
int MUSPI_CreatePt2PtMemoryFIFODescriptor(MUHWI_Descriptor_t* desc, MUSPI_Pt2PtMemoryFIFODescriptorInfo_t* info);
/* Remote get: the payload (Base.Payload_Address, a multiple of 64 bytes) is a list of descriptors that the
 * destination's MU injects into its injection FIFO RemoteGet.Rget_Inj_FIFO_Id when the packet arrives. */
int MUSPI_CreatePt2PtRemoteGetDescriptor(MUHWI_Descriptor_t* desc, MUSPI_Pt2PtRemoteGetDescriptorInfo_t* info);
/* 0, or -1 for a word length that is not a power of two from 4 to 512 or a class route above 15. */
int MUSPI_CreateCollectiveDirectPutDescriptor(MUHWI_Descriptor_t* desc,
                                              MUSPI_CollectiveDirectPutDescriptorInfo_t* info);
int MUSPI_CreateCollectiveMemoryFIFODescriptor(MUHWI_Descriptor_t* desc,
                                               MUSPI_CollectiveMemoryFIFODescriptorInfo_t* info);
/* Prints the descriptor's 64 bytes in hex under `identifier`. */
void MUSPI_DescriptorDumpHex(char* identifier, MUHWI_Descriptor_t* desc);
void MUSPI_SetRecPutOffset(MUHWI_Descriptor_t* desc, uint64_t offset);
void MUSPI_SetPayload(MUHWI_Descriptor_t* desc, uint64_t pa, uint64_t bytes);

/* ---- reception FIFOs ---- */
typedef struct {
  uint32_t System;
} Kernel_RecFifoAttributes_t;
typedef struct {
  uint32_t subgroup;
  uint32_t fifo; /* global FIFO id */
} MUSPI_RecFifo_t;
typedef struct {
  uint32_t subgroup;
  MUSPI_RecFifo_t fifos[4];
} MUSPI_RecFifoSubGroup_t;
/* Called by MUSPI_RecFifoPoll for each packet: `hdr` is the 32-byte header followed by the payload, padded with
 * zeros to whole 32-byte chunks; `bytes` is the packet's size, header included. */
typedef int (*MUSPI_RecvFunction_t)(void* param, MUHWI_PacketHeader_t* hdr, uint32_t bytes);
int32_t Kernel_AllocateRecFifos(uint32_t subgroup, MUSPI_RecFifoSubGroup_t* sg, uint32_t nfifos, uint32_t* fifoids,
                                Kernel_RecFifoAttributes_t* attrs);
int32_t Kernel_RecFifoInit(MUSPI_RecFifoSubGroup_t* sg, uint32_t fifoid, Kernel_MemoryRegion_t* region,
                           uint64_t startoffset, uint64_t sizeMinus1);
/* enableBits: bit (15 - 4 * (subgroup % 4) - fifo) of group `group` (the driver's layout). */
int32_t Kernel_RecFifoEnable(uint32_t group, uint64_t enableBits);
MUSPI_RecFifo_t* MUSPI_IdToRecFifo(uint32_t fifoid, MUSPI_RecFifoSubGroup_t* sg);
#define MUSPI_MAX_FUNCTION_IDS 256
int32_t MUSPI_RegisterRecvFunction(MUSPI_RecvFunction_t fn, void* param, uint32_t id);
/* Registers `fn` at the first free id; returns the id, or -1 when all 256 are taken. */
int32_t MUSPI_RegisterReceiveFunction(MUSPI_RecvFunction_t fn, void* param);
int32_t MUSPI_DeRegisterReceiveFunction(uint32_t id);
/* Calls the registered function of each waiting packet until `bytes` bytes were processed or the FIFO is empty;
 * returns the bytes processed (packet sizes on the wire). */
uint32_t MUSPI_RecFifoPoll(MUSPI_RecFifo_t* fifo, uint32_t bytes);

/* ---- global-interrupt barrier (spi/include/mu/GIBarrier.h) ---- */
typedef struct {
  uint32_t classRoute;
  uint64_t generation;
} MUSPI_GIBarrier_t;
int32_t MUSPI_GIBarrierInit(MUSPI_GIBarrier_t* b, uint32_t classRouteId);
int32_t MUSPI_GIBarrierEnter(MUSPI_GIBarrier_t* b);
/* 0 when every node has entered; -1 after the timeout (not modelled: hopsim waits). */
int32_t MUSPI_GIBarrierPollWithTimeout(MUSPI_GIBarrier_t* b, uint64_t timeoutCycles);

/* ---- collective class routes (spi/include/kernel/collective.h) ----
 * Route 0 is the job's user comm-world route, set on every node before main runs (a tree over the whole
 * block rooted at node 0); routes 1..14 are free for the program, 15 is the system's. */
int32_t Kernel_QueryCollectiveClassRoutes(uint32_t* nClassRoutes, uint32_t* classRouteIds, size_t sizeOfClassRouteIds);
int32_t Kernel_AllocateCollectiveClassRoute(uint32_t id);
int32_t Kernel_DeallocateCollectiveClassRoute(uint32_t id);
/* 0, or the driver's codes: 1 more than one output link, 2 local bit in the output, 3 no local bit in the
 * input, 4 a link both in and out; -1 for an id that is not allocated. */
int32_t Kernel_SetCollectiveClassRoute(uint32_t id, ClassRoute_t* cr);

#define MUSPI_assert(x) assert(x)

/* ---- time base (hwi/include/bqc/A2_inlines.h) ---- */
uint64_t GetTimeBase(void);
/* Wait `cycles` core cycles (simulated: the rank's clock moves; native: a busy wait on the time base). */
void DelayTimeBase(uint64_t cycles);
void Delay(uint64_t cycles);

/* ---- the node's process layout (spi/include/kernel/location.h, process.h): one process per node ---- */
uint32_t Kernel_ProcessCount(void);
uint32_t Kernel_PhysicalProcessorID(void);
uint32_t Kernel_GetRank(void);

/* ---- the MU's resources (hwi/include/bqc/MU_Macros.h) ---- */
#define BGQ_MU_NUM_FIFO_SUBGROUPS_PER_NODE 68
#define BGQ_MU_NUM_INJ_FIFOS_PER_SUBGROUP 8
#define BGQ_MU_NUM_REC_FIFOS_PER_SUBGROUP 4
#define BGQ_MU_NUM_INJ_FIFO_SUBGROUPS 68
#define BGQ_MU_NUM_REC_FIFO_SUBGROUPS 68

/* ---- memory barriers: no-ops on the host (native runs order with the atomic counter) ---- */
#define mbar() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define msync() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define ppc_msync() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define _bgq_msync() __atomic_thread_fence(__ATOMIC_SEQ_CST)

#ifdef __cplusplus
}
#endif

#endif
