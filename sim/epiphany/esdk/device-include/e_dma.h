/* hopsim: part of e-lib, under its eSDK header name. */
#include "e_lib.h"
