/* hopsim: the e-hal header under another of its eSDK names. */
#include "e-hal.h"
