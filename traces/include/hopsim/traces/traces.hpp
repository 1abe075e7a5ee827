// Everything of hopsim::traces in one include.
#pragma once

#include "hopsim/traces/db.hpp"
#include "hopsim/traces/error.hpp"
#include "hopsim/traces/export.hpp"
#include "hopsim/traces/import.hpp"
#include "hopsim/traces/reader.hpp"
#include "hopsim/traces/records.hpp"
#include "hopsim/traces/schema.hpp"
#include "hopsim/traces/writer.hpp"
