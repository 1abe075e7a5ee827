// Bad files, newer schemas, interrupted runs and what they leave behind.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "helpers.hpp"

using namespace trace_test;

namespace {

void write_bytes(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out << bytes;
}

std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A trace with enough rows to span many pages.
void write_bigger_trace(const fs::path& path) {
    TraceWriter w(path, sample_meta(), Detail::hops, quiet());
    for (int i = 0; i < 5000; ++i) w.add_hop({i, i % 7, double(i), double(i) + 2});
    w.finish();
}

}  // namespace

TEST_CASE("random bytes are not a hopsim trace", "[reader][validation]") {
    TempDir dir;
    const auto path = dir / "noise.trace";
    std::mt19937 rng(1);
    std::string noise(8192, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    write_bytes(path, noise);
    CHECK_THROWS_WITH(TraceReader(path), Catch::Contains("not a hopsim trace") && Catch::Contains("noise.trace") &&
                                             Catch::Contains("not an SQLite database"));
}

TEST_CASE("random bytes behind a valid sqlite header are not a hopsim trace", "[reader][validation]") {
    TempDir dir;
    const auto path = dir / "good.trace";
    write_bigger_trace(path);
    std::string bytes = read_bytes(path);
    std::mt19937 rng(2);
    for (std::size_t i = 100; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
    const auto bad = dir / "scrambled.trace";
    write_bytes(bad, bytes);
    try {
        const TraceReader r(bad);
        // SQLite may still find a page it can parse; the data must not then pass as a trace.
        r.hops(0, 1e9);
        FAIL("a scrambled file was read as a trace");
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Catch::Contains("scrambled.trace"));
    }
}

TEST_CASE("truncated database is rejected", "[reader][validation]") {
    TempDir dir;
    const auto path = dir / "full.trace";
    write_bigger_trace(path);
    const std::string bytes = read_bytes(path);
    REQUIRE(bytes.size() > 8 * 4096);
    const auto cut = dir / "cut.trace";
    write_bytes(cut, bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_WITH(TraceReader(cut), Catch::Contains("not a hopsim trace") && Catch::Contains("truncated") &&
                                            Catch::Contains("cut.trace"));
    const auto tiny = dir / "tiny.trace";
    write_bytes(tiny, bytes.substr(0, 50));
    CHECK_THROWS_WITH(TraceReader(tiny), Catch::Contains("not a hopsim trace"));
}

TEST_CASE("newer schema version names both versions", "[reader][validation]") {
    TempDir dir;
    const auto path = dir / "future.trace";
    write_small_trace(path, Detail::counters);
    {
        sql::Db db(path, sql::OpenMode::create);
        db.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
    }
    try {
        TraceReader r(path);
        FAIL("a newer schema was accepted");
    } catch (const TraceError& e) {
        CHECK(e.reason() == TraceError::Reason::newer_schema);
        CHECK_THAT(e.what(), Catch::Contains("version 7") &&
                                 Catch::Contains("version " + std::to_string(kSchemaVersion)) &&
                                 Catch::Contains("future.trace"));
    }
    CHECK(probe_trace(path) == TraceFileState::complete);  // a newer trace is never clobbered
}

TEST_CASE("sqlite database without meta is not a hopsim trace", "[reader][validation]") {
    TempDir dir;
    const auto path = dir / "other.db";
    {
        sql::Db db(path, sql::OpenMode::create);
        db.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);");
    }
    CHECK_THROWS_WITH(TraceReader(path), Catch::Contains("not a hopsim trace (no meta table)"));
    {
        sql::Db db(path, sql::OpenMode::create);
        db.exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);");
    }
    CHECK_THROWS_WITH(TraceReader(path), Catch::Contains("no schema_version"));
}

TEST_CASE("missing file is an error naming it", "[reader][validation]") {
    TempDir dir;
    CHECK_THROWS_WITH(TraceReader(dir / "absent.trace"), Catch::Contains("absent.trace"));
    CHECK(probe_trace(dir / "absent.trace") == TraceFileState::missing);
}

TEST_CASE("exception mid-write leaves a readable incomplete trace", "[writer][validation]") {
    TempDir dir;
    const auto path = dir / "crash.trace";
    std::vector<std::string> notices;
    try {
        TraceWriter w(path, sample_meta(), Detail::hops, quiet(&notices, 100));
        w.add_node({0, "core 0", "core", "[0,0]"});
        for (int i = 0; i < 1050; ++i) w.add_hop({i, 1, double(i), double(i) + 1});
        throw std::runtime_error("kernel broke a device rule");
    } catch (const std::runtime_error&) {
    }
    REQUIRE(fs::exists(path));
    CHECK_FALSE(fs::exists(dir / "crash.trace.partial"));
    const TraceReader r(path);
    CHECK_FALSE(r.complete());
    CHECK_THAT(r.meta().at("incomplete_reason"), Catch::Contains("before finish()"));
    CHECK(r.hop_count() == 1050);  // the unfinished batch was flushed too
    CHECK(r.nodes().size() == 1);
    CHECK(probe_trace(path) == TraceFileState::incomplete);
    REQUIRE_FALSE(notices.empty());
}

TEST_CASE("incomplete run never overwrites a complete trace", "[writer][validation]") {
    TempDir dir;
    const auto path = dir / "keep.trace";
    write_small_trace(path, Detail::hops);
    std::vector<std::string> notices;
    try {
        TraceWriter w(path, sample_meta(), Detail::hops, quiet(&notices));
        w.add_hop({1, 1, 0, 1});
        throw std::runtime_error("interrupted");
    } catch (const std::runtime_error&) {
    }
    const TraceReader old(path);
    CHECK(old.complete());
    CHECK(old.hop_count() == 3);
    const auto aside = dir / "keep.trace.incomplete";
    REQUIRE(fs::exists(aside));
    const TraceReader kept(aside);
    CHECK_FALSE(kept.complete());
    CHECK(kept.hop_count() == 1);
    bool told = false;
    for (const auto& n : notices) told = told || n.find("keep.trace.incomplete") != std::string::npos;
    CHECK(told);
}

TEST_CASE("abort keeps a complete trace and reports where the new one went", "[writer][validation]") {
    TempDir dir;
    const auto path = dir / "ab.trace";
    write_small_trace(path, Detail::counters);
    TraceWriter w(path, sample_meta(), Detail::counters, quiet());
    CHECK(w.abort("interrupted by SIGINT") == dir / "ab.trace.incomplete");
    CHECK(TraceReader(dir / "ab.trace.incomplete").meta().at("incomplete_reason") == "interrupted by SIGINT");
}

TEST_CASE("complete run replaces an older trace", "[writer][validation]") {
    TempDir dir;
    const auto path = dir / "again.trace";
    write_small_trace(path, Detail::hops);
    {
        TraceWriter w(path, sample_meta(), Detail::counters, quiet());
        w.add_node({7, "only", "core", "[0]"});
        CHECK(w.finish() == path);
    }
    const TraceReader r(path);
    CHECK(r.complete());
    CHECK(r.nodes().size() == 1);
    CHECK_FALSE(fs::exists(dir / "again.trace.incomplete"));
}

TEST_CASE("writer refuses to overwrite a file that is not a trace", "[writer][validation]") {
    TempDir dir;
    const auto path = dir / "notes.txt";
    write_bytes(path, "my precious notes\n");
    CHECK_THROWS_WITH(TraceWriter(path, sample_meta(), Detail::hops, quiet()),
                      Catch::Contains("notes.txt") && Catch::Contains("not a hopsim trace"));
    CHECK(read_bytes(path) == "my precious notes\n");
    CHECK_FALSE(fs::exists(dir / "notes.txt.partial"));
}

TEST_CASE("a background write failure surfaces and leaves an incomplete trace", "[writer][validation]") {
    TempDir dir;
    const auto path = dir / "locked.trace";
    TraceWriter w(path, sample_meta(), Detail::hops, quiet(nullptr, 10));
    // Another connection holding the partial file's write lock makes the writer thread's
    // next transaction fail once SQLite's busy timeout runs out.
    sql::Db other(dir / "locked.trace.partial", sql::OpenMode::create);
    other.exec("BEGIN EXCLUSIVE");
    bool threw = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (int i = 0; !threw && std::chrono::steady_clock::now() < deadline; ++i) {
        try {
            w.add_hop({i, 1, double(i), double(i) + 1});
            if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        } catch (const TraceError& e) {
            CHECK_THAT(e.what(), Catch::Contains("writing failed") && Catch::Contains("locked"));
            threw = true;
        }
    }
    CHECK(threw);
    other.exec("ROLLBACK");
    CHECK_THROWS_AS(w.finish(), TraceError);
    const TraceReader r(w.final_path());
    CHECK_FALSE(r.complete());
    CHECK_THAT(r.meta().at("incomplete_reason"), Catch::Contains("writing failed"));
}
