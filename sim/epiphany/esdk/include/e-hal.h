/* hopsim's e-hal: the Epiphany SDK host library (names, types and
 * semantics of the eSDK's e-hal) on hopsim's device. The host program
 * links -le-hal -le-loader as on the board; it drives the simulated
 * E16G301 by default, or the native device (host threads) with
 * HOPSIM_MODE=native. HOPSIM_PRESET chooses the chip (e16g301, e64g401). */
#ifndef HOPSIM_E_HAL_H
#define HOPSIM_E_HAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
typedef enum { E_FALSE = false, E_TRUE = true } e_bool_t;
#else
typedef enum { E_FALSE = 0, E_TRUE = 1 } e_bool_t;
#endif

typedef enum { H_D0 = 0, H_D1 = 1, H_D2 = 2, H_D3 = 3, H_D4 = 4 } e_hal_diag_t;
typedef enum { E_OK = 0, E_ERR = -1, E_WARN = -2 } e_return_stat_t;
typedef enum { E_SYNC = 0, E_USER_INT = 9 } e_signal_t;
typedef enum { E_RD = 1, E_WR = 2, E_RDWR = 3 } e_memtype_t;
typedef enum {
  E_NULL = 0,
  E_EPI_PLATFORM = 1,
  E_EPI_CHIP = 2,
  E_EPI_GROUP = 3,
  E_EPI_CORE = 4,
  E_EXT_MEM = 5,
  E_MAPPING = 6,
  E_SHARED_MEM = 7
} e_objtype_t;
typedef enum { E_E16G301 = 0, E_E64G401 = 1, E_ESIM = 2 } e_chiptype_t;
typedef enum {
  E_GENERIC = 0,
  E_EMEK301 = 1,
  E_EMEK401 = 2,
  E_ZEDBOARD1601 = 3,
  E_ZEDBOARD6401 = 4,
  E_PARALLELLA1601 = 5,
  E_PARALLELLA6401 = 6,
  E_PARALLELLASIM = 7
} e_platformtype_t;

/* Core registers, as offsets in a core's address space (e_read/e_write). */
typedef enum {
  E_REG_CONFIG = 0xf0400,
  E_REG_STATUS = 0xf0404,
  E_REG_PC = 0xf0408,
  E_REG_DEBUGSTATUS = 0xf040c,
  E_REG_LC = 0xf0414,
  E_REG_LS = 0xf0418,
  E_REG_LE = 0xf041c,
  E_REG_IRET = 0xf0420,
  E_REG_IMASK = 0xf0424,
  E_REG_ILAT = 0xf0428,
  E_REG_ILATST = 0xf042C,
  E_REG_ILATCL = 0xf0430,
  E_REG_IPEND = 0xf0434,
  E_REG_CTIMER0 = 0xf0438,
  E_REG_CTIMER1 = 0xf043C,
  E_REG_FSTATUS = 0xf0440,
  E_REG_DEBUGCMD = 0xf0448,
  E_REG_DMA0CONFIG = 0xf0500,
  E_REG_DMA0STRIDE = 0xf0504,
  E_REG_DMA0COUNT = 0xf0508,
  E_REG_DMA0SRCADDR = 0xf050c,
  E_REG_DMA0DSTADDR = 0xf0510,
  E_REG_DMA0AUTODMA0 = 0xf0514,
  E_REG_DMA0AUTODMA1 = 0xf0518,
  E_REG_DMA0STATUS = 0xf051c,
  E_REG_DMA1CONFIG = 0xf0520,
  E_REG_DMA1STRIDE = 0xf0524,
  E_REG_DMA1COUNT = 0xf0528,
  E_REG_DMA1SRCADDR = 0xf052c,
  E_REG_DMA1DSTADDR = 0xf0530,
  E_REG_DMA1AUTODMA0 = 0xf0534,
  E_REG_DMA1AUTODMA1 = 0xf0538,
  E_REG_DMA1STATUS = 0xf053c,
  E_REG_MEMSTATUS = 0xf0604,
  E_REG_MEMPROTECT = 0xf0608,
  E_REG_MESHCONFIG = 0xf0700,
  E_REG_COREID = 0xf0704,
  E_REG_MULTICAST = 0xf0708,
  E_REG_RESETCORE = 0xf070c,
  E_REG_CMESHROUTE = 0xf0710,
  E_REG_XMESHROUTE = 0xf0714,
  E_REG_RMESHROUTE = 0xf0718
} e_core_reg_id_t;

typedef struct {
  e_objtype_t objtype;
  off_t phy_base; /* global address of the region */
  off_t page_base;
  off_t page_offset;
  size_t map_size;
  void* mapped_base;
  void* base; /* where the host program reaches it */
} e_mmap_t;

typedef struct {
  e_objtype_t objtype;
  unsigned int id;  /* coreid */
  unsigned int row; /* absolute */
  unsigned int col;
  e_mmap_t mems; /* the core's local memory */
  e_mmap_t regs; /* its registers (not mapped: use e_read/e_write) */
} e_core_t;

typedef struct {
  e_objtype_t objtype;
  e_chiptype_t type;
  char version[32];
  unsigned int arch;
  unsigned int base_coreid;
  unsigned int row;
  unsigned int col;
  unsigned int rows;
  unsigned int cols;
  unsigned int num_cores;
  unsigned int sram_base;
  unsigned int sram_size;
  unsigned int regs_base;
  unsigned int regs_size;
  off_t ioregs_n;
  off_t ioregs_e;
  off_t ioregs_s;
  off_t ioregs_w;
} e_chip_t;

typedef struct {
  e_objtype_t objtype;
  off_t phy_base;  /* as the host sees it */
  off_t ephy_base; /* as the cores see it */
  size_t size;
  e_memtype_t type;
} e_memseg_t;

typedef struct {
  e_objtype_t objtype;
  e_platformtype_t type;
  char version[32];
  unsigned int hal_ver;
  int initialized;
  int num_chips;
  e_chip_t* chip;
  unsigned int row; /* first core's absolute row */
  unsigned int col;
  unsigned int rows;
  unsigned int cols;
  int num_emems;
  e_memseg_t* emem;
  const void* target_ops;
  void* priv;
} e_platform_t;

typedef struct e_epiphany_t {
  e_objtype_t objtype;
  e_chiptype_t type;
  unsigned int num_cores;
  unsigned int base_coreid;
  unsigned int row; /* absolute row of the group's first core */
  unsigned int col;
  unsigned int rows;
  unsigned int cols;
  e_core_t** core; /* core[row][col], relative to the group */
  int memfd;
  void* priv;
} e_epiphany_t;

typedef struct e_mem_t {
  e_objtype_t objtype;
  off_t phy_base;
  off_t page_base;
  off_t page_offset;
  size_t map_size;
  off_t ephy_base; /* address the cores use */
  size_t emap_size;
  void* mapped_base;
  void* base; /* address the host program uses */
  int memfd;
  void* priv;
} e_mem_t;

typedef unsigned int e_coreid_t;

#ifndef ALIGN
#define ALIGN(x) __attribute__((aligned(x)))
#endif

int e_init(char* hdf);
int e_get_platform_info(e_platform_t* platform);
extern e_platform_t e_platform; /* filled by e_init */
int e_finalize(void);
int e_open(e_epiphany_t* dev, unsigned row, unsigned col, unsigned rows, unsigned cols);
int e_close(e_epiphany_t* dev);
int e_alloc(e_mem_t* mbuf, off_t base, size_t size);
int e_free(e_mem_t* mbuf);
/* dev: an e_epiphany_t (row, col relative to it; addr a local offset or an
 * E_REG_* register) or an e_mem_t (row, col ignored; addr an offset in it). */
ssize_t e_read(void* dev, unsigned row, unsigned col, off_t from_addr, void* buf, size_t size);
ssize_t e_write(void* dev, unsigned row, unsigned col, off_t to_addr, const void* buf, size_t size);
#define e_reset e_reset_system
int e_reset_system(void);
int e_reset_group(e_epiphany_t* dev);
int ee_reset_core(e_epiphany_t* dev, unsigned row, unsigned col); /* one core of the group (older eSDK name) */
int e_start(e_epiphany_t* dev, unsigned row, unsigned col);
int e_start_group(e_epiphany_t* dev);
int e_signal(e_epiphany_t* dev, unsigned row, unsigned col);
int e_halt(e_epiphany_t* dev, unsigned row, unsigned col);
int e_resume(e_epiphany_t* dev, unsigned row, unsigned col);
int e_shm_alloc(e_mem_t* mbuf, const char* name, size_t size);
int e_shm_attach(e_mem_t* mbuf, const char* name);
int e_shm_release(const char* name);
unsigned e_get_num_from_coords(e_epiphany_t* dev, unsigned row, unsigned col);
void e_get_coords_from_num(e_epiphany_t* dev, unsigned corenum, unsigned* row, unsigned* col);
e_bool_t e_is_addr_on_chip(void* addr);
e_bool_t e_is_addr_on_group(e_epiphany_t* dev, void* addr);
e_hal_diag_t e_set_host_verbosity(e_hal_diag_t verbose);

#ifdef __cplusplus
}
#endif

#include "e-loader.h"

#endif
