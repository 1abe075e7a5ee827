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

/* ---- Byte3 (Pt2Pt.Misc2): virtual channel in the top three bits ---- */
#define MUHWI_PACKET_VIRTUAL_CHANNEL_DYNAMIC 0x00
#define MUHWI_PACKET_VIRTUAL_CHANNEL_DETERMINISTIC 0x20
#define MUHWI_PACKET_VIRTUAL_CHANNEL_HIGH_PRIORITY 0x40
#define MUHWI_PACKET_VIRTUAL_CHANNEL_SYSTEM 0x60
#define MUHWI_PACKET_VIRTUAL_CHANNEL_USER_COMM_WORLD 0x80
#define MUHWI_PACKET_VIRTUAL_CHANNEL_USER_SUB_COMM 0xA0
#define MUHWI_PACKET_VIRTUAL_CHANNEL_SYSTEM_COLLECTIVE 0xC0

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

typedef struct {
  uint16_t Rec_FIFO_Id;
  uint8_t Interrupt;
  uint8_t Put_Offset_MSB; /* message offset of this packet's payload */
  uint32_t Put_Offset_LSB;
  uint8_t Unused2[12]; /* software bytes; hopsim dispatches MUSPI_RegisterRecvFunction ids on Unused2[0] */
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

typedef struct {
  union {
    MUHWI_Pt2PtNetworkHeader_t pt2pt;
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
static_assert(sizeof(MUHWI_PacketHeader_t) == 32, "packet header is 32 bytes");
static_assert(sizeof(MUHWI_Descriptor_t) == 64, "descriptor is 64 bytes");
}
#else
_Static_assert(sizeof(MUHWI_PacketHeader_t) == 32, "packet header is 32 bytes");
_Static_assert(sizeof(MUHWI_Descriptor_t) == 64, "descriptor is 64 bytes");
#endif

#endif
