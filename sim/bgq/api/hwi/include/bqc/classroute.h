/* Forwarding header: hopsim keeps the BG/Q driver's include path. */
#include "hopsim/bgq_spi.h"
