// Shared fixtures for the trace tests.
#pragma once

#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include "hopsim/traces/traces.hpp"

namespace trace_test {

namespace fs = std::filesystem;
using namespace hopsim::traces;

/// A fresh directory, removed with everything in it on destruction.
class TempDir {
public:
    TempDir() {
        static std::atomic<int> counter{0};
        std::random_device rd;
        path_ = fs::temp_directory_path() / ("hopsim-traces-" + std::to_string(::getpid()) + "-" +
                                             std::to_string(counter++) + "-" + std::to_string(rd()));
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    /// `name` inside the directory.
    fs::path operator/(const std::string& name) const { return path_ / name; }

private:
    fs::path path_;
};

/// A plausible run description.
inline Meta sample_meta() {
    Meta m;
    m.hopsim_version = "0.1.0";
    m.git_revision = "abc1234";
    m.scenario = R"({"machine":{"preset":"e16g301"},"kernel":{"name":"passing"}})";
    m.machine = "e16g301";
    m.mode = "sim";
    m.seed = 42;
    m.clock_hz = 600e6;
    m.bucket_cycles = 100;
    return m;
}

/// Collects writer notices instead of printing them.
inline WriterOptions quiet(std::vector<std::string>* notices = nullptr, std::size_t batch_rows = 20000) {
    WriterOptions o;
    o.batch_rows = batch_rows;
    o.notice = [notices](std::string_view s) {
        if (notices) notices->emplace_back(s);
    };
    return o;
}

/// Writes a small 2x2 mesh run with every kind of record; returns nothing, finishes the trace.
inline void write_small_trace(const fs::path& path, Detail detail, Meta meta = sample_meta()) {
    TraceWriter w(path, std::move(meta), detail, quiet());
    for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < 2; ++c) {
            const int id = r * 2 + c;
            std::string coords = "[";  // appended piecewise: GCC 12 -Wrestrict misfires on a + chain
            coords.append(std::to_string(r)).append(",").append(std::to_string(c)).append("]");
            w.add_node({id, "core " + std::to_string(id), "core", coords});
        }
    }
    w.add_link({10, "cmesh", 0, 1, "0->1, east"});
    w.add_link({11, "cmesh", 1, 3, "1->3"});
    const auto t1 = w.add_transaction({0, 0, 3, 8, 10.0, 25.5, "write"});
    const auto t2 = w.add_transaction({0, 0, 1, 64, 30.0, 50.0, "dma"});
    w.add_hop({t1, 10, 11.5, 13.0});
    w.add_hop({t1, 11, 13.0, 14.5});
    w.add_hop({t2, 10, 31.5, 39.5});
    w.add_link_sample(10, 11.5, 8, 1.5, 0);
    w.add_link_sample(11, 13.0, 8, 1.5, 0.5);
    w.add_link_sample(10, 31.5, 64, 8, 2);
    w.add_link_sample(10, 150, 16, 2, 0);  // second bucket (bucket_cycles = 100)
    w.add_pe_state(0, PeState::compute, 0, 10);
    w.add_pe_state(0, PeState::waiting, 10, 26);
    w.add_pe_state(3, PeState::polling, 0, 25.5);
    w.add_pe_state(3, PeState::barrier, 25.5, 60);
    w.finish();
}

}  // namespace trace_test
