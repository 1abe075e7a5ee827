// Plain records stored in a trace: what the writer takes and the reader returns.
// Times are device cycles (double: models work in half cycles and fractions).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace hopsim::traces {

/// How much a TraceWriter records; each level includes the ones before it.
enum class Detail {
    counters,      ///< nodes, links and per-bucket link counters only
    transactions,  ///< plus one row per transaction and the PE state timeline
    hops,          ///< plus one row per link traversal of every transaction
};

/// "counters", "transactions" or "hops".
std::string_view to_string(Detail d) noexcept;
/// Inverse of to_string; nullopt for anything else.
std::optional<Detail> parse_detail(std::string_view s) noexcept;

/// What a processing element is doing; a PE is in one state at a time.
enum class PeState { compute, waiting, barrier, polling };

/// "compute", "waiting", "barrier" or "polling".
std::string_view to_string(PeState s) noexcept;
/// Inverse of to_string; nullopt for anything else.
std::optional<PeState> parse_pe_state(std::string_view s) noexcept;

/// Run description written to the meta table at creation.
struct Meta {
    std::string hopsim_version;                ///< e.g. "0.1.0"
    std::string git_revision;                  ///< short hash or "unknown"
    std::string scenario;                      ///< the scenario as JSON text; empty means "{}"
    std::string machine;                       ///< preset name, e.g. "e16g301"
    std::string mode;                          ///< "sim" or "native"
    std::uint64_t seed = 0;                    ///< scenario seed
    double clock_hz = 0;                       ///< device clock; 0 = unknown (exporters take 1 cycle = 1 us)
    double bucket_cycles = 10000;              ///< width of a link counter bucket in cycles (> 0)
    std::map<std::string, std::string> extra;  ///< further keys; must not reuse the reserved ones
};

/// The meta of a run's trace: this build's version and git revision, the
/// scenario (JSON text), machine, mode ("sim" or "native"), seed and device
/// clock; the default bucket width; `family` in extra.
Meta run_meta(std::string family, std::string scenario, std::string machine, std::string mode, std::uint64_t seed,
              double clock_hz);

/// A router, core, host or card. Ids are the simulator's own.
struct Node {
    std::int64_t id = 0;  ///< unique node id
    std::string name;     ///< display name, e.g. "core (32,8)"
    std::string kind;     ///< e.g. "core", "router", "host"
    std::string coords;   ///< JSON array: "[0,3]" (mesh row/col), "[a,b,c,d,e]" (torus), or a label path
    bool operator==(const Node&) const = default;
};

/// A directed link of one network between two nodes.
struct Link {
    std::int64_t id = 0;   ///< unique link id, referenced by hops and counters
    std::string net;       ///< network, e.g. "cmesh", "rmesh", "xmesh", "pcie"
    std::int64_t src = 0;  ///< source node id
    std::int64_t dst = 0;  ///< destination node id
    std::string name;      ///< display name
    bool operator==(const Link&) const = default;
};

/// One message between nodes (a write, a read request, a DMA burst).
struct Transaction {
    std::int64_t id = 0;     ///< assigned by TraceWriter::add_transaction; ignored on input
    std::int64_t src = 0;    ///< source node id
    std::int64_t dst = 0;    ///< destination node id
    std::int64_t bytes = 0;  ///< payload size
    double inject = 0;       ///< cycle it entered the network
    double arrive = 0;       ///< cycle it was delivered (>= inject)
    std::string kind;        ///< e.g. "write", "read", "dma"
    bool operator==(const Transaction&) const = default;
};

/// One link traversal of a transaction, occupying the link over [enter, leave).
struct Hop {
    std::int64_t txn = 0;   ///< transaction id (0 when transactions are not recorded)
    std::int64_t link = 0;  ///< link id
    double enter = 0;       ///< cycle the head entered the link
    double leave = 0;       ///< cycle the link was free again (>= enter)
    bool operator==(const Hop&) const = default;
};

/// A PE's state over [start, end).
struct PeStateSpan {
    std::int64_t pe = 0;               ///< PE (node) id
    PeState state = PeState::compute;  ///< what it was doing
    double start = 0;                  ///< first cycle in the state
    double end = 0;                    ///< first cycle after it (>= start)
    bool operator==(const PeStateSpan&) const = default;
};

/// One launch of a kernel as the host program timed it, in either mode. A
/// trace of a `--mode both` run holds the simulated run's detail and the
/// launches of both modes, so native and simulated timings sit side by side.
struct Launch {
    std::string mode;        ///< "native" or "sim"
    std::string method;      ///< the host program's name for what it launched, e.g. "unicast"
    std::int64_t n = 0;      ///< problem size of the launch
    double seconds = 0;      ///< launch duration (simulated or wall)
    double cycles = 0;       ///< device cycles (simulated; wall time x clock natively)
    std::int64_t bytes = 0;  ///< bytes the PEs wrote to other PEs during the launch
    bool check_ok = true;    ///< the launch's data check passed (known faults excused)
    /// Cycle the launch began on the run's clock (simulated; natively wall time since the
    /// device opened x clock); absent in traces of schema version 1 and where not recorded.
    std::optional<double> start;
    bool operator==(const Launch&) const = default;
};

/// Counters of one link in one time bucket [bucket*bucket_cycles, (bucket+1)*bucket_cycles).
struct LinkCounter {
    std::int64_t link = 0;     ///< link id
    std::int64_t bucket = 0;   ///< floor(sample time / bucket_cycles)
    std::int64_t bytes = 0;    ///< bytes carried
    std::int64_t packets = 0;  ///< number of samples added
    double busy = 0;           ///< cycles the link was transferring
    double stall = 0;          ///< cycles senders waited for the link
    bool operator==(const LinkCounter&) const = default;
};

/// Counters of one link summed over the whole run.
struct LinkTotals {
    std::int64_t link = 0;     ///< link id
    std::int64_t bytes = 0;    ///< bytes carried
    std::int64_t packets = 0;  ///< samples added
    double busy = 0;           ///< cycles transferring
    double stall = 0;          ///< cycles senders waited
    bool operator==(const LinkTotals&) const = default;
};

}  // namespace hopsim::traces
