/* hopsim: the e-loader header under another of its eSDK names. */
#include "e-loader.h"
