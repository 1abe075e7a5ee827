/* The contract between hopsim's Epiphany device pass (sim/epiphany/pass),
 * the programs it builds and the runtime that loads and runs them.
 *
 * A device program is a host shared object. The pass gives it the eCore's
 * memory model:
 *  - every address below 1 MiB is the running core's own memory: an access
 *    below HOPSIM_DEV_LOCAL_SIZE is made inline at core_base + address
 *    (core_base is the thread-local __hopsim_core_base, the core's window),
 *    any other device address calls __hopsim_dev_ptr, which validates and
 *    (simulated) times it and returns where to make the access; a volatile
 *    access is made inline only if it ends at or below the thread-local
 *    __hopsim_volatile_limit (the core's memory size natively, 0 when
 *    simulated, where the runtime must see every one);
 *  - globals and statics live in core memory at the same offset on every
 *    core, laid out as the eSDK linker scripts do (.data_bankN at N x 8 KiB,
 *    shared_dram in external memory); the image is described by
 *    __hopsim_device_image and copied in by the loader;
 *  - stack objects live on a device stack in core memory that grows down
 *    from the top of local memory; its pointer is the 32-bit word at
 *    HOPSIM_DEV_SP_SLOT, its lowest allowed value the word at
 *    HOPSIM_DEV_SP_LIMIT_SLOT;
 *  - every iteration of a loop without a computable bound (one that may
 *    spin: `while (!done)`, `for (;;)`) counts down the 32-bit word at
 *    HOPSIM_DEV_TICK_SLOT (in a register, paid into the word every
 *    HOPSIM_DEV_TICK_EVERY iterations and on return); at zero it calls
 *    __hopsim_dev_tick, which charges the iterations (simulated), lets the
 *    core be reset and takes latched interrupts, and resets the count to
 *    HOPSIM_DEV_TICK_EVERY, so a core spinning on plain loads still lets
 *    simulated time and the other cores go on;
 *  - a polling loop (no state carried in registers from one iteration to
 *    the next, no stores, no calls: only memory decides whether it goes
 *    on) calls __hopsim_dev_poll_enter on entry and __hopsim_dev_poll_next
 *    at the top of every iteration, and makes its loads with kind
 *    HOPSIM_DEV_POLL; an iteration that read the same words with the same
 *    values as the one before would repeat forever, so the simulated core
 *    sleeps until one of those words is written;
 *  - the program's own instructions are counted (sim/epiphany/pass/
 *    counting.hpp): their eCore cycles and number are added to the 64-bit
 *    words at HOPSIM_DEV_COUNT_CYCLES_SLOT and HOPSIM_DEV_COUNT_INSNS_SLOT
 *    before every call and return; the simulated runtime takes (and zeroes)
 *    them at each of its entries when the compute model is counted;
 *  - main is renamed __hopsim_device_main; inline idle/gie/gid/trap become
 *    calls of the __hopsim_asm_* functions.
 */
#ifndef HOPSIM_DEVICE_ABI_H
#define HOPSIM_DEVICE_ABI_H

#include <stdint.h>

#define HOPSIM_DEV_LOCAL_SIZE 0x8000u      /* 32 KiB of core memory (E16G301, E64G401) */
#define HOPSIM_DEV_LOCAL_SPACE 0x100000u   /* addresses below this are the core's own */
#define HOPSIM_DEV_SP_SLOT 0xF8u           /* device stack pointer (in the workgroup RAM) */
#define HOPSIM_DEV_SP_LIMIT_SLOT 0xFCu     /* lowest the stack may grow to */
#define HOPSIM_DEV_TICK_SLOT 0xF4u         /* loop iterations left before the next __hopsim_dev_tick */
#define HOPSIM_DEV_TICK_EVERY 64u          /* loop iterations per __hopsim_dev_tick */
#define HOPSIM_DEV_COUNT_INSNS_SLOT 0xE0u  /* 64-bit: counted instructions not yet taken by the runtime */
#define HOPSIM_DEV_COUNT_CYCLES_SLOT 0xE8u /* 64-bit: counted cycles not yet taken by the runtime */
#define HOPSIM_DEV_DATA_START 0x200u       /* first byte of .data_bank0 and the default data */
#define HOPSIM_DEV_BANK_SIZE 0x2000u
#define HOPSIM_DEV_SHARED_DRAM 0x8F000000u /* shared_dram section (EXTERNAL_DRAM_1 of the eSDK scripts) */
#define HOPSIM_DEV_IMAGE_MAGIC 0x48534445u /* "HSDE" */
#define HOPSIM_DEV_IMAGE_VERSION 2u

/* Access kinds passed to __hopsim_dev_ptr. */
enum hopsim_dev_kind {
  HOPSIM_DEV_LOAD = 0,
  HOPSIM_DEV_STORE = 1,
  HOPSIM_DEV_VLOAD = 2,
  HOPSIM_DEV_VSTORE = 3,
  HOPSIM_DEV_ATOMIC = 4,
  HOPSIM_DEV_POLL = 5 /* a load in a polling loop (below) */
};

struct hopsim_dev_segment {
  uint64_t addr;    /* device address: local (< 1 MiB) or external memory */
  uint64_t size;    /* bytes */
  const void* init; /* initial bytes, or NULL for zeroes (.bss) */
  const char* name; /* the global's name, for messages */
};

struct hopsim_dev_image {
  uint32_t magic;   /* HOPSIM_DEV_IMAGE_MAGIC */
  uint32_t version; /* HOPSIM_DEV_IMAGE_VERSION */
  uint32_t nsegments;
  uint32_t local_end;   /* one past the highest local byte the data uses */
  uint32_t local_bytes; /* bytes of core memory the data uses */
  uint32_t reserved;
  const struct hopsim_dev_segment* segments;
};

#endif
