/* A kernel built the way an older hopsim-cc built kernels (compiled with
 * -fsanitize=thread, linked without libtsan): loading it must say to
 * rebuild it, not print an undefined symbol. */
int g_word;

void k_touch(int* out) { out[0] = g_word; }
