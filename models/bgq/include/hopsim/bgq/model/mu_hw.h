/* hopsim model of the Blue Gene/Q messaging unit (MU): the hardware
 * structures a kernel builds (64-byte descriptor, 32-byte packet header,
 * destination) and their constants, with the names of the BG/Q driver
 * headers (hwi/include/bqc/MU_Descriptor.h, MU_PacketHeader.h,
 * MU_PacketCommon.h, MU_Addressing.h).
 *
 * The layout follows the hardware's sizes (descriptor 64 bytes, header 32:
 * a 12-byte network header and a 20-byte MU header) but the bit placement
 * inside the bytes is hopsim's own; kernels set fields only through the
 * names below and the MUSPI_* helpers, so they never depend on it.
 * Addresses are host virtual addresses: hopsim's "physical" address of a
 * memory region is its virtual address. C-compatible. */
#ifndef HOPSIM_BGQ_MU_HW_H
#define HOPSIM_BGQ_MU_HW_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- destination: torus coordinates A..E, 6 bits each ---- */
typedef union {
  uint32_t Destination;
} MUHWI_Destination_t;

#define MUHWI_DEST_A_SHIFT 24
#define MUHWI_DEST_B_SHIFT 18
#define MUHWI_DEST_C_SHIFT 12
#define MUHWI_DEST_D_SHIFT 6
#define MUHWI_DEST_E_SHIFT 0

/* ---- packet types (Byte8, top two bits) ---- */
#define MUHWI_PACKET_TYPE_FIFO 0x00
#define MUHWI_PACKET_TYPE_PUT 0x40
#define MUHWI_PACKET_TYPE_GET 0x80
#define MUHWI_PACKET_TYPE_PACED_GET 0xC0

/* ---- hint bits (Hints byte for A..D, Byte2 for E) ---- */
#define MUHWI_PACKET_HINT_AP 0x80
#define MUHWI_PACKET_HINT_AM 0x40
#define MUHWI_PACKET_HINT_BP 0x20
#define MUHWI_PACKET_HINT_BM 0x10
#define MUHWI_PACKET_HINT_CP 0x08
#define MUHWI_PACKET_HINT_CM 0x04
#define MUHWI_PACKET_HINT_DP 0x02
#define MUHWI_PACKET_HINT_DM 0x01
#define MUHWI_PACKET_HINT_A_NONE 0x00
#define MUHWI_PACKET_HINT_B_NONE 0x00
#define MUHWI_PACKET_HINT_C_NONE 0x00
#define MUHWI_PACKET_HINT_D_NONE 0x00

/* ---- Byte2 (the descriptor info's Pt2Pt.Misc1) ---- */
#define MUHWI_PACKET_HINT_EP 0x80
#define MUHWI_PACKET_HINT_EM 0x40
#define MUHWI_PACKET_HINT_E_NONE 0x00
#define MUHWI_PACKET_ROUTE_TO_IO_NODE 0x20
#define MUHWI_PACKET_DO_NOT_ROUTE_TO_IO_NODE 0x00
#define MUHWI_PACKET_RETURN_FROM_IO_NODE 0x10
#define MUHWI_PACKET_USE_DYNAMIC_ROUTING 0x04
#define MUHWI_PACKET_USE_DETERMINISTIC_ROUTING 0x00
#define MUHWI_PACKET_DEPOSIT 0x02
#define MUHWI_PACKET_DO_NOT_DEPOSIT 0x00
#define MUHWI_PACKET_INTERRUPT_ON_PACKET_ARRIVAL 0x01
#define MUHWI_PACKET_DO_NOT_INTERRUPT_ON_PACKET_ARRIVAL 0x00
/* Zone routing (which dimensions dynamic routing may take first) is not
 * modelled: hopsim's dynamic routing always chooses among all minimal
 * dimensions. The bits are kept in the header. */
#define MUHWI_PACKET_ZONE_ROUTING_0 0x00
#define MUHWI_PACKET_ZONE_ROUTING_1 0x08
#define MUHWI_PACKET_ZONE_ROUTING_2 0x10
#define MUHWI_PACKET_ZONE_ROUTING_3 0x18

/* ---- Byte3 (Pt2Pt.Misc2): virtual channel in the top three bits ---- */
#define MUHWI_PACKET_VIRTUAL_CHANNEL_DYNAMIC 0x00
#define MUHWI_PACKET_VIRTUAL_CHANNEL_DETERMINISTIC 0x20
#define MUHWI_PACKET_VIRTUAL_CHANNEL_HIGH_PRIORITY 0x40
#define MUHWI_PACKET_VIRTUAL_CHANNEL_SYSTEM 0x60
#define MUHWI_PACKET_VIRTUAL_CHANNEL_USER_COMM_WORLD 0x80
#define MUHWI_PACKET_VIRTUAL_CHANNEL_USER_SUB_COMM 0xA0
#define MUHWI_PACKET_VIRTUAL_CHANNEL_SYSTEM_COLLECTIVE 0xC0
#define MUHWI_PACKET_VIRTUAL_CHANNEL_MASK 0xE0
/* Byte3: keep a dynamic packet on the bubble escape channel (not modelled). */
#define MUHWI_PACKET_STAY_ON_BUBBLE 0x04

/* ---- collectives (MU_CollectiveNetworkHeader.h) ---- */
#define MUHWI_COLLECTIVE_DATA_PACKET_TYPE 0x5a
#define MUHWI_COLLECTIVE_OP_CODE_AND 0x00
#define MUHWI_COLLECTIVE_OP_CODE_OR 0x10
#define MUHWI_COLLECTIVE_OP_CODE_XOR 0x20
#define MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_ADD 0x40
#define MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_MIN 0x50
#define MUHWI_COLLECTIVE_OP_CODE_UNSIGNED_MAX 0x60
#define MUHWI_COLLECTIVE_OP_CODE_SIGNED_ADD 0x80
#define MUHWI_COLLECTIVE_OP_CODE_SIGNED_MIN 0x90
#define MUHWI_COLLECTIVE_OP_CODE_SIGNED_MAX 0xa0
#define MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_ADD 0xc0
#define MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MIN 0xd0
#define MUHWI_COLLECTIVE_OP_CODE_FLOATING_POINT_MAX 0xe0
#define MUHWI_COLLECTIVE_TYPE_BROADCAST 0x00
#define MUHWI_COLLECTIVE_TYPE_ALLREDUCE 0x10
#define MUHWI_COLLECTIVE_TYPE_REDUCE 0x18
#define MUHWI_COLLECTIVE_TYPE_MASK 0x18

/* ---- class routes (hwi/include/bqc/classroute.h): a node's part in a
 * collective tree. `input`: the links (and the local contribution) that
 * feed this node; `output`: the one link towards the root, none at the
 * root. ---- */
#define BGQ_COLL_CLASS_MAX_CLASSROUTES 16
#define BGQ_GI_CLASS_MAX_CLASSROUTES 16
#define BGQ_CLASS_INPUT_VC_USER (0 << 12)
#define BGQ_CLASS_INPUT_VC_SYSTEM (1 << 12)
#define BGQ_CLASS_INPUT_VC_SUBCOMM (2 << 12)
#define BGQ_CLASS_INPUT_VC_MASK (3 << 12)
#define BGQ_CLASS_LINK_AM (1 << 11)
#define BGQ_CLASS_LINK_AP (1 << 10)
#define BGQ_CLASS_LINK_BM (1 << 9)
#define BGQ_CLASS_LINK_BP (1 << 8)
#define BGQ_CLASS_LINK_CM (1 << 7)
#define BGQ_CLASS_LINK_CP (1 << 6)
#define BGQ_CLASS_LINK_DM (1 << 5)
#define BGQ_CLASS_LINK_DP (1 << 4)
#define BGQ_CLASS_LINK_EM (1 << 3)
#define BGQ_CLASS_LINK_EP (1 << 2)
#define BGQ_CLASS_LINK_IO (1 << 1)
#define BGQ_CLASS_INPUT_LINK_LOCAL (1 << 0)
typedef struct ClassRoute {
  uint16_t input;
  uint16_t output;
} ClassRoute_t;

#define MUHWI_PT2PT_DATA_PACKET_TYPE 0x55
#define MUHWI_DIRECT_PUT_IS_NOT_PACED 0
#define MUHWI_PACKET_DIRECT_PUT_IS_NOT_PACED 0
#define MUHWI_PACKET_DIRECT_PUT_IS_PACED 1

/* ---- Torus_FIFO_Map: which network injection FIFOs a descriptor may use ---- */
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AM 0x8000ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_AP 0x4000ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BM 0x2000ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_BP 0x1000ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CM 0x0800ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CP 0x0400ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DM 0x0200ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_DP 0x0100ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EM 0x0080ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_EP 0x0040ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_LOCAL0 0x0020ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_LOCAL1 0x0010ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_PRIORITY 0x0008ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_SYSTEM 0x0004ULL
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CUSER 0x0002ULL   /* the user collective FIFO */
#define MUHWI_DESCRIPTOR_TORUS_FIFO_MAP_CSYSTEM 0x0001ULL /* the system collective FIFO */
#define MUHWI_DESCRIPTOR_PRE_FETCH_ONLY_YES 1
#define MUHWI_DESCRIPTOR_PRE_FETCH_ONLY_NO 0
#define MUHWI_DESCRIPTOR_INTERRUPT_ON_PACKET_ARRIVAL 1
#define MUHWI_DESCRIPTOR_DO_NOT_INTERRUPT_ON_PACKET_ARRIVAL 0

/* ---- atomic addresses (MU_Addressing.h): opcode above the address ---- */
#define MUHWI_ATOMIC_OPCODE_LOAD 0x0ULL
#define MUHWI_ATOMIC_OPCODE_STORE 0x1ULL
#define MUHWI_ATOMIC_OPCODE_STORE_ADD 0x2ULL
#define MUHWI_ATOMIC_OPCODE_STORE_OR 0x3ULL
#define MUHWI_ATOMIC_OPCODE_SHIFT 58
#define MUHWI_ATOMIC_ADDRESS_MASK ((1ULL << MUHWI_ATOMIC_OPCODE_SHIFT) - 1)
#define MUHWI_ATOMIC_FLAG (1ULL << 62)

/* ---- packet geometry (MU_PacketCommon.h) ---- */
#define MUHWI_PACKET_HEADER_BYTES 32
#define MUHWI_PAYLOAD_CHUNK_SIZE 32
#define MUHWI_PACKET_MAX_PAYLOAD 512
#define MUHWI_DESCRIPTOR_SIZE_IN_BYTES 64

/* 12-byte point-to-point network header. */
typedef struct {
  uint8_t Data_Packet_Type; /* MUHWI_PT2PT_DATA_PACKET_TYPE */
  uint8_t Hints;            /* A..D hint bits */
  uint8_t Byte2;            /* E hints, routing flags (Misc1) */
  uint8_t Byte3;            /* virtual channel (Misc2) */
  MUHWI_Destination_t Destination;
  uint8_t Byte8; /* packet type | (chunks - 1) */
  uint8_t Injection_Info[3];
} MUHWI_Pt2PtNetworkHeader_t;

/* 20-byte MU header: its meaning depends on the packet type. */
typedef struct {
  uint16_t Rec_Payload_Base_Address_Id;
  uint8_t Pacing;
  uint8_t Put_Offset_MSB;
  uint32_t Put_Offset_LSB;
  uint16_t Rec_Counter_Base_Address_Id;
  uint8_t Valid_Bytes_In_Payload;
  uint8_t Unused;
  uint64_t Counter_Offset;
} __attribute__((packed)) MUHWI_MU_DirectPutHeader_t;

/* The software bytes start at byte 6 of the MU header, as on the hardware
 * (programs overlay their own structures on the header). */
typedef struct {
  uint16_t Reserved1 : 1;
  uint16_t Rec_FIFO_Id : 9;
  uint16_t Unused1 : 1;
  uint16_t Put_Offset_MSB : 5; /* Rec_Put_Offset plus this packet's offset in the message */
  uint32_t Put_Offset_LSB;
  uint8_t Unused2[14]; /* software bytes; MUSPI_RecFifoPoll dispatches on Unused2[0] (the receive function id) */
} __attribute__((packed)) MUHWI_MU_MemoryFIFOHeader_t;

typedef struct {
  uint16_t Rget_Inj_FIFO_Id; /* the remote node's injection FIFO that receives the payload descriptors */
  uint8_t Unused1[18];
} __attribute__((packed)) MUHWI_MU_RemoteGetHeader_t;

typedef struct {
  union {
    MUHWI_MU_DirectPutHeader_t Direct_Put;
    MUHWI_MU_MemoryFIFOHeader_t Memory_FIFO;
    MUHWI_MU_RemoteGetHeader_t Remote_Get;
  } Packet_Types;
} MUHWI_MessageUnitHeader_t;

/* 12-byte collective network header (MU_CollectiveNetworkHeader.h): the
 * same bytes as the point-to-point one, read differently. */
typedef struct {
  uint8_t Data_Packet_Type;        /* MUHWI_COLLECTIVE_DATA_PACKET_TYPE */
  uint8_t Byte1;                   /* op code (high nibble) | log2 of the word length in bytes (low nibble) */
  uint8_t Byte2;                   /* class route (high nibble) | interrupt (bit 0) */
  uint8_t Byte3;                   /* virtual channel (top three bits) | collective type (MUHWI_COLLECTIVE_TYPE_*) */
  MUHWI_Destination_t Destination; /* the root of a reduce */
  uint8_t Byte8;                   /* packet type | (chunks - 1) */
  uint8_t Injection_Info[3];
} MUHWI_CollectiveNetworkHeader_t;

typedef struct {
  union {
    MUHWI_Pt2PtNetworkHeader_t pt2pt;
    MUHWI_CollectiveNetworkHeader_t collective;
  } NetworkHeader;
  MUHWI_MessageUnitHeader_t messageUnitHeader;
} MUHWI_PacketHeader_t;

typedef struct {
  uint16_t Half_Word0; /* bit 0: Prefetch_Only */
  uint16_t Half_Word1; /* bit 0: Interrupt */
  uint32_t Reserved;
  uint64_t Pa_Payload;
  uint64_t Message_Length;
  uint64_t Torus_FIFO_Map;
  MUHWI_PacketHeader_t PacketHeader;
} __attribute__((aligned(64))) MUHWI_Descriptor_t;

#ifdef __cplusplus
static_assert(sizeof(MUHWI_Pt2PtNetworkHeader_t) == 12, "network header is 12 bytes");
static_assert(sizeof(MUHWI_MessageUnitHeader_t) == 20, "MU header is 20 bytes");
static_assert(sizeof(MUHWI_CollectiveNetworkHeader_t) == 12, "collective network header is 12 bytes");
static_assert(offsetof(MUHWI_MU_MemoryFIFOHeader_t, Unused2) == 6, "software bytes at byte 6 of the MU header");
static_assert(sizeof(MUHWI_PacketHeader_t) == 32, "packet header is 32 bytes");
static_assert(sizeof(MUHWI_Descriptor_t) == 64, "descriptor is 64 bytes");
}
#else
_Static_assert(sizeof(MUHWI_PacketHeader_t) == 32, "packet header is 32 bytes");
_Static_assert(sizeof(MUHWI_Descriptor_t) == 64, "descriptor is 64 bytes");
#endif

#endif
