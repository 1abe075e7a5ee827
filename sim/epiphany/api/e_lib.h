/* hopsim's e-lib: the Epiphany SDK kernel library subset, same names and
 * semantics as adapteva/epiphany-libs e-lib, mapped onto hopsim's device
 * (native threads or the simulated eMesh). Usable from C and C++ kernels.
 *
 * One difference a kernel can see: on the device a pointer to the core's
 * own memory is a small local address; in hopsim it is the core's global
 * address (its window is mapped at coreid<<20). e_get_global_address and
 * e_write/e_read therefore treat a pointer into the calling core's own
 * window as local, exactly as the device treats a local address. */
#ifndef HOPSIM_E_LIB_H
#define HOPSIM_E_LIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ALIGN
#define ALIGN(x) __attribute__((aligned(x)))
#endif
#ifndef PACKED
#define PACKED __attribute__((packed))
#endif
#ifndef SECTION
#define SECTION(x) __attribute__((section(x)))
#endif

typedef unsigned int e_coreid_t;
typedef enum { E_FALSE = 0, E_TRUE = 1 } e_bool_t;
typedef enum { E_OK = 0, E_ERR = -1, E_WARN = -2 } e_return_stat_t;
typedef enum {
  E_NULL = 0,
  E_EPI_PLATFORM,
  E_EPI_CHIP,
  E_EPI_GROUP,
  E_EPI_CORE,
  E_EXT_MEM,
  E_MAPPING,
  E_SHARED_MEM
} e_objtype_t;
typedef enum { E_E16G301 = 0, E_E64G401 = 1 } e_chiptype_t;

typedef struct {
  e_objtype_t objtype;
  e_chiptype_t chiptype;
  e_coreid_t group_id;   /* coreid of the group's first core */
  unsigned group_row;    /* absolute row of the group's first core */
  unsigned group_col;
  unsigned group_rows;
  unsigned group_cols;
  unsigned core_row;     /* this core's row inside the group */
  unsigned core_col;
  unsigned alignment_padding;
} e_group_config_t;

typedef struct {
  e_objtype_t objtype;
  unsigned base;  /* global address of external memory */
} e_emem_config_t;

/* Per-core objects (each core has its own on the device). */
e_group_config_t* hopsim_e_group_config(void);
e_emem_config_t* hopsim_e_emem_config(void);
#define e_group_config (*hopsim_e_group_config())
#define e_emem_config (*hopsim_e_emem_config())

/* ids and addresses */
e_coreid_t e_get_coreid(void);
e_coreid_t e_coreid_from_coords(unsigned row, unsigned col);
void e_coords_from_coreid(e_coreid_t coreid, unsigned* row, unsigned* col);
void* e_get_global_address(unsigned row, unsigned col, const void* ptr);
e_bool_t e_is_on_core(const void* ptr);

typedef enum { E_GROUP_WRAP = 0, E_ROW_WRAP = 1, E_COL_WRAP = 2 } e_coreid_wrap_t;
typedef enum { E_PREV_CORE = 0, E_NEXT_CORE = 1 } e_coreid_dir_t;
/* The next or previous core in the group (row-major), wrapping as asked. */
void e_neighbor_id(e_coreid_dir_t dir, e_coreid_wrap_t wrap, unsigned* row, unsigned* col);

/* e-lib's e_read, e_write, e_shm_attach and e_shm_release share their
 * names with e-hal's host functions: hopsim links both into one process,
 * so device code calls them under these names. */
#define e_read hopsim_elib_e_read
#define e_write hopsim_elib_e_write
#define e_shm_attach hopsim_elib_e_shm_attach
#define e_shm_release hopsim_elib_e_shm_release

/* A segment of external memory, as e_shm_attach gives it. */
typedef struct {
  e_objtype_t objtype;
  long phy_base;  /* off_t on the device */
  long ephy_base; /* global address the cores use */
  size_t size;
  int type;
} e_memseg_t;

/* memory: `remote` is &e_group_config (core memory at row, col),
 * &e_emem_config (external memory; row and col ignored) or an attached
 * e_memseg_t (offsets into the segment). */
void* e_read(const void* remote, void* dst, unsigned row, unsigned col, const void* src, size_t bytes);
void* e_write(const void* remote, const void* src, unsigned row, unsigned col, void* dst, size_t bytes);

/* shared memory segments the host made with e_shm_alloc */
int e_shm_attach(e_memseg_t* mem, const char* name);
int e_shm_release(const char* name);

/* barrier: central flip-flop through core (0,0) of the group */
typedef volatile char e_barrier_t;
void e_barrier_init(volatile e_barrier_t bar_array[], e_barrier_t* tgt_bar_array[]);
void e_barrier(volatile e_barrier_t bar_array[], e_barrier_t* tgt_bar_array[]);

/* mutex: a word on core (row, col) taken with TESTSET */
typedef int e_mutex_t;
typedef int e_mutexattr_t;
#define MUTEXATTR_NULL 0
#define MUTEXATTR_DEFAULT MUTEXATTR_NULL
void e_mutex_init(unsigned row, unsigned col, e_mutex_t* mutex, e_mutexattr_t* attr);
void e_mutex_lock(unsigned row, unsigned col, e_mutex_t* mutex);
unsigned e_mutex_trylock(unsigned row, unsigned col, e_mutex_t* mutex);
void e_mutex_unlock(unsigned row, unsigned col, e_mutex_t* mutex);

/* core timers: 32-bit down-counters */
typedef enum { E_CTIMER_0 = 0, E_CTIMER_1 = 1 } e_ctimer_id_t;
typedef enum {
  E_CTIMER_OFF = 0x0,
  E_CTIMER_CLK = 0x1,
  E_CTIMER_IDLE = 0x2,
  E_CTIMER_IALU_INST = 0x4,
  E_CTIMER_FPU_INST = 0x5,
  E_CTIMER_DUAL_INST = 0x6,
  E_CTIMER_E1_STALLS = 0x7,
  E_CTIMER_RA_STALLS = 0x8,
  E_CTIMER_EXT_FETCH_STALLS = 0xc,
  E_CTIMER_EXT_LOAD_STALLS = 0xd
} e_ctimer_config_t;
#define E_CTIMER_MAX (~0u)
unsigned e_ctimer_get(e_ctimer_id_t timer);
unsigned e_ctimer_set(e_ctimer_id_t timer, unsigned val);
unsigned e_ctimer_start(e_ctimer_id_t timer, e_ctimer_config_t config);
unsigned e_ctimer_stop(e_ctimer_id_t timer);
/* Waits `clicks` core clock cycles on `timer`. */
void e_wait(e_ctimer_id_t timer, unsigned int clicks);

/* DMA */
typedef enum { E_DMA_0 = 0, E_DMA_1 = 1 } e_dma_id_t;
typedef struct e_dma_desc_s {
  unsigned config;
  unsigned inner_stride;  /* dst << 16 | src */
  unsigned count;         /* outer << 16 | inner */
  unsigned outer_stride;  /* dst << 16 | src */
  void* src_addr;
  void* dst_addr;
} e_dma_desc_t;
#define E_DMA_ENABLE (1 << 0)
#define E_DMA_MASTER (1 << 1)
#define E_DMA_CHAIN (1 << 2)
#define E_DMA_STARTUP (1 << 3)
#define E_DMA_IRQEN (1 << 4)
#define E_DMA_BYTE (0 << 5)
#define E_DMA_HWORD (1 << 5)
#define E_DMA_WORD (2 << 5)
#define E_DMA_DWORD (3 << 5)
#define E_DMA_MSGMODE (1 << 10)
int e_dma_copy(void* dst, void* src, size_t n);
void e_dma_set_desc(e_dma_id_t chan, unsigned config, e_dma_desc_t* next_desc, unsigned strd_i_src,
                    unsigned strd_i_dst, unsigned count_i, unsigned count_o, unsigned strd_o_src,
                    unsigned strd_o_dst, void* addr_src, void* addr_dst, e_dma_desc_t* desc);
int e_dma_start(e_dma_desc_t* descriptor, e_dma_id_t chan);
int e_dma_busy(e_dma_id_t chan);
void e_dma_wait(e_dma_id_t chan);

/* interrupts: a latched, unmasked interrupt runs its handler on the core
 * when the core idles or next reaches the device (e-lib call, access to
 * another core or external memory), with interrupts globally enabled. */
typedef void (*e_irqhandler_t)(void);
typedef enum {
  E_SYNC = 0,
  E_SW_EXCEPTION = 1,
  E_MEM_FAULT = 2,
  E_TIMER0_INT = 3,
  E_TIMER1_INT = 4,
  E_MESSAGE_INT = 5,
  E_DMA0_INT = 6,
  E_DMA1_INT = 7,
  E_USER_INT = 9
} e_irq_type_t;
void e_irq_attach(e_irq_type_t irq, e_irqhandler_t handler);
#define e_irq_attach(i, h) e_irq_attach((i), (e_irqhandler_t)(h))
void e_irq_set(unsigned row, unsigned col, e_irq_type_t irq);
void e_irq_clear(unsigned row, unsigned col, e_irq_type_t irq);
void e_irq_global_mask(e_bool_t state);
void e_irq_mask(e_irq_type_t irq, e_bool_t state);

/* registers */
#define E_REG_CONFIG 0xf0400
#define E_REG_STATUS 0xf0404
#define E_REG_IMASK 0xf0424
#define E_REG_ILAT 0xf0428
#define E_REG_ILATST 0xf042C
#define E_REG_ILATCL 0xf0430
#define E_REG_IPEND 0xf0434
#define E_REG_CTIMER0 0xf0438
#define E_REG_CTIMER1 0xf043C
#define E_REG_DMA0CONFIG 0xf0500
#define E_REG_DMA0STRIDE 0xf0504
#define E_REG_DMA0COUNT 0xf0508
#define E_REG_DMA0SRCADDR 0xf050c
#define E_REG_DMA0DSTADDR 0xf0510
#define E_REG_DMA0AUTODMA0 0xf0514
#define E_REG_DMA0AUTODMA1 0xf0518
#define E_REG_DMA0STATUS 0xf051c
#define E_REG_DMA1CONFIG 0xf0520
#define E_REG_DMA1STRIDE 0xf0524
#define E_REG_DMA1COUNT 0xf0528
#define E_REG_DMA1SRCADDR 0xf052c
#define E_REG_DMA1DSTADDR 0xf0530
#define E_REG_DMA1AUTODMA0 0xf0534
#define E_REG_DMA1AUTODMA1 0xf0538
#define E_REG_DMA1STATUS 0xf053c
#define E_REG_MESHCFG 0xf0700
#define E_REG_MESHCONFIG 0xf0700
#define E_REG_COREID 0xf0704
unsigned e_reg_read(unsigned reg_id);
void e_reg_write(unsigned reg_id, unsigned val);

#ifdef __cplusplus
}
#endif
#endif
