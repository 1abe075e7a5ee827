/* DMA bandwidth on the E16G301, host side: runs each case of the table
 * below (one or two e_dma_copy flows started together), checks every
 * destination byte, and reports each flow's cycles (CTIMER0 around the
 * call on the sending core) and bandwidth.
 *
 *   dma_bw_host [DEVICE.elf [CSV]]
 *
 * Standard output holds only the data checks, so native and simulated runs
 * print the same; the timings go to standard error and, when CSV is given,
 * to that file (case,flow,bytes,cycles,bytes_per_cycle,MBps_at_600MHz). */
#include <e-hal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct flow {
  unsigned row, col;   /* the core whose DMA engine runs the copy */
  unsigned orow, ocol; /* the other core */
  unsigned bytes, soff, doff;
  unsigned read; /* 0: this core's buffer to the other core; 1: the other core's buffer here; 2: as 0, chained */
  unsigned base; /* the other core's buffer */
};
struct dma_case {
  const char* name;
  int flows;
  struct flow f[2];
};

#define CORNER(bytes, soff, rd) \
  { 0, 0, 3, 3, bytes, soff, 0, rd, 0x2000 }
static const struct dma_case cases[] = {
    {"corner write 512 B", 1, {CORNER(512, 0, 0)}},
    {"corner write 4 KiB", 1, {CORNER(4096, 0, 0)}},
    {"corner write 12 KiB", 1, {CORNER(12288, 0, 0)}},
    {"corner write 512 B, second flow (0,1)->(3,3) on shared links",
     2,
     {CORNER(512, 0, 0), {0, 1, 3, 3, 512, 0, 0, 0, 0x5000}}},
    {"corner write 4 KiB, second flow (0,1)->(3,3) on shared links",
     2,
     {CORNER(4096, 0, 0), {0, 1, 3, 3, 4096, 0, 0, 0, 0x5000}}},
    {"corner write 12 KiB, second flow (0,1)->(3,3) on shared links",
     2,
     {CORNER(12288, 0, 0), {0, 1, 3, 3, 12288, 0, 0, 0, 0x5000}}},
    {"corner write 12 KiB, crossing flow (3,0)->(0,3), no shared link",
     2,
     {CORNER(12288, 0, 0), {3, 0, 0, 3, 12288, 0, 0, 0, 0x2000}}},
    {"corner write 4 KiB, source +4 (words)", 1, {CORNER(4096, 4, 0)}},
    {"corner write 4 KiB, source +2 (half-words)", 1, {CORNER(4096, 2, 0)}},
    {"corner write 4 KiB, source +1 (bytes)", 1, {CORNER(4096, 1, 0)}},
    {"corner read 512 B", 1, {CORNER(512, 0, 1)}},
    {"corner read 4 KiB", 1, {CORNER(4096, 0, 1)}},
    {"corner read 12 KiB", 1, {CORNER(12288, 0, 1)}},
    {"corner read 4 KiB, second read (0,1)<-(3,3) on shared links",
     2,
     {CORNER(4096, 0, 1), {0, 1, 3, 3, 4096, 0, 0, 1, 0x5000}}},
    {"corner write 12 KiB, two chained descriptors of 6 KiB", 1, {CORNER(12288, 0, 2)}},
    {"neighbour write 8 KiB (0,0)->(0,1)", 1, {{0, 0, 0, 1, 8192, 0, 0, 0, 0x2000}}},
    {"neighbour read 8 KiB (0,0)<-(0,1)", 1, {{0, 0, 0, 1, 8192, 0, 0, 1, 0x2000}}},
};

static unsigned char pattern[12300], back[12300];

int main(int argc, char** argv) {
  const char* prog = argc > 1 ? argv[1] : "dma_bw_dev.elf";
  FILE* csv = NULL;
  if (argc > 2 && !(csv = fopen(argv[2], "w"))) {
    fprintf(stderr, "dma_bw_host: cannot write %s\n", argv[2]);
    return 2;
  }
  if (csv) fprintf(csv, "case,flow,bytes,cycles,bytes_per_cycle,MBps_at_600MHz\n");
  e_platform_t plat;
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_get_platform_info(&plat) != E_OK) return 1;
  if (e_open(&dev, 0, 0, plat.rows, plat.cols) != E_OK) return 1;
  int failures = 0;
  fprintf(stderr, "%-64s %4s %6s %8s %8s %9s\n", "case", "flow", "bytes", "cycles", "B/cycle", "MB/s@600");
  for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const struct dma_case* c = &cases[k];
    for (int i = 0; i < c->flows; i++) {
      const struct flow* f = &c->f[i];
      for (unsigned b = 0; b < f->bytes; b++) pattern[b] = (unsigned char)((b * 7 + k * 13 + i * 101) % 251);
      memset(back, 0, sizeof back);
      /* The source gets the pattern, the destination zeros. */
      if (f->read == 1) {
        e_write(&dev, f->orow, f->ocol, f->base + f->soff, pattern, f->bytes);
        e_write(&dev, f->row, f->col, 0x2000 + f->doff, back, f->bytes);
      } else {
        e_write(&dev, f->row, f->col, 0x2000 + f->soff, pattern, f->bytes);
        e_write(&dev, f->orow, f->ocol, f->base + f->doff, back, f->bytes);
      }
      const unsigned plan[10] = {f->orow, f->ocol, f->bytes, f->soff, f->doff, f->read, 0, f->base, 0, 0};
      e_write(&dev, f->row, f->col, 0x7000, plan, sizeof plan);
      if (e_load(prog, &dev, f->row, f->col, E_FALSE) != E_OK) return 1;
    }
    for (int i = 0; i < c->flows; i++) e_start(&dev, c->f[i].row, c->f[i].col);
    const unsigned go = 1;
    for (int i = 0; i < c->flows; i++) e_write(&dev, c->f[i].row, c->f[i].col, 0x7018, &go, sizeof go);
    for (int i = 0; i < c->flows; i++) {
      const struct flow* f = &c->f[i];
      unsigned res[2] = {0, 0};
      for (int polls = 0; polls < 1000000 && res[1] != 1; polls++) {
        if (e_read(&dev, f->row, f->col, 0x7020, res, sizeof res) != sizeof res) return 1;
        if (res[1] != 1) usleep(100);
      }
      for (unsigned b = 0; b < f->bytes; b++) pattern[b] = (unsigned char)((b * 7 + k * 13 + i * 101) % 251);
      if (f->read == 1)
        e_read(&dev, f->row, f->col, 0x2000 + f->doff, back, f->bytes);
      else
        e_read(&dev, f->orow, f->ocol, f->base + f->doff, back, f->bytes);
      const int ok = res[1] == 1 && memcmp(back, pattern, f->bytes) == 0;
      failures += !ok;
      printf("%s: flow %d: %u bytes %s\n", c->name, i, f->bytes, ok ? "ok" : "WRONG");
      const double per = res[0] ? (double)f->bytes / res[0] : 0;
      fprintf(stderr, "%-64s %4d %6u %8u %8.3f %9.1f\n", c->name, i, f->bytes, res[0], per, per * 600.0);
      if (csv) fprintf(csv, "\"%s\",%d,%u,%u,%.4f,%.1f\n", c->name, i, f->bytes, res[0], per, per * 600.0);
    }
  }
  e_close(&dev);
  e_finalize();
  if (csv) fclose(csv);
  printf("dma bandwidth: %s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
