/* A core's state across host calls, one case per run:
 *   state_host ilat                ILATCL clears only the bits written
 *   state_host reset OLD NEW       e_reset_group, then e_load of NEW: nothing of
 *                                  OLD's interrupt state is left (irq_*_dev.c)
 *   state_host run DEV             DEV on core (0,0), its mailbox at 0x7000 */
#include <e-hal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ILAT bits (e-lib's e_irq_type_t; e-hal names only E_USER_INT). */
enum { TIMER0_INT = 3 };

/* Polls core (0,0)'s mailbox until its first word is `want` (0: its
 * C0DE mark); returns the three words. */
static int wait_mailbox(e_epiphany_t* dev, unsigned want, unsigned m[3]) {
  for (int polls = 0; polls < 20000; polls++) {
    if (e_read(dev, 0, 0, 0x7000, m, 3 * sizeof m[0]) != 3 * sizeof m[0]) return 0;
    if (want ? m[0] == want : (m[0] >> 16) == 0xC0DE) return 1;
    usleep(100);
  }
  return 0;
}

static int run(e_epiphany_t* dev, const char* prog, int signal_when_ready) {
  const unsigned zero[3] = {0, 0, 0};
  unsigned m[3] = {0, 0, 0};
  e_write(dev, 0, 0, 0x7000, zero, sizeof zero);
  if (e_load(prog, dev, 0, 0, E_TRUE) != E_OK) return 0;
  if (signal_when_ready && (!wait_mailbox(dev, 1, m) || e_signal(dev, 0, 0) != E_OK)) return 0;
  const int done = wait_mailbox(dev, 0, m);
  printf("%s: mailbox 0x%08x 0x%x %s\n", prog, m[0], m[1], done && m[2] ? "ok" : "WRONG");
  return done && m[2];
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  e_epiphany_t dev;
  if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_open(&dev, 0, 0, 1, 1) != E_OK) return 1;
  int ok = 0;
  if (!strcmp(argv[1], "ilat")) {
    unsigned v = (1u << TIMER0_INT) | (1u << E_USER_INT), after = 0;
    ok = e_write(&dev, 0, 0, E_REG_ILATST, &v, 4) == 4;
    v = 1u << E_USER_INT;
    ok &= e_write(&dev, 0, 0, E_REG_ILATCL, &v, 4) == 4;
    ok &= e_read(&dev, 0, 0, E_REG_ILAT, &after, 4) == 4;
    printf("ILAT 0x%x after ILATST 0x%x and ILATCL 0x%x\n", after, (1u << TIMER0_INT) | (1u << E_USER_INT), v);
    ok &= after == 1u << TIMER0_INT;
  } else if (!strcmp(argv[1], "reset") && argc > 3) {
    ok = run(&dev, argv[2], 1);
    ok &= e_reset_group(&dev) == E_OK;
    ok = ok && run(&dev, argv[3], 1);
  } else if (!strcmp(argv[1], "run") && argc > 2) {
    ok = run(&dev, argv[2], 0);
  } else {
    return 2;
  }
  e_close(&dev);
  e_finalize();
  printf("state: %s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}
