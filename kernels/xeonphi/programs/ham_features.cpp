// A HAM-Offload program written the way HAM-Offload's users write theirs
// (implicit main through ham/offload.hpp), covering what such programs use:
// node queries and descriptions, every kind of argument and result HAM-Offload
// sends bitwise, futures (get, test, the waiting destructor), data transfer
// to and between targets, and offloaded functions working on target buffers.
// It needs at least two targets (--ham-targets 2, or mpirun -np 3) and
// exits 0 when every check passes, else 1 naming each failure.
// --drop-failing drops the future of a failing call instead (exit 5).
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ham/offload.hpp"

using namespace ham;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what.c_str());
    ++failures;
  }
}

template <class T>
T echo(T v) {
  return v;
}

// Sends `v` to `target` and back; checks it came back equal.
template <class T>
void round_trip(offload::node_t target, const T& v, const char* what) {
  const T back = offload::sync(target, f2f(&echo<T>, v));
  check(back == v, std::string("argument and result of type ") + what + " on node " + std::to_string(target));
}

struct Record {
  std::int32_t id;
  double weight;
  std::array<char, 12> tag;
  bool operator==(const Record&) const = default;
};

// An object with a virtual function: it travels with its vtable pointer.
struct Shape {
  virtual int sides() const = 0;
};
struct Square : Shape {
  int sides() const override { return 4; }
};
struct Triangle : Shape {
  int sides() const override { return 3; }
};
// Calls through the base class, so the call uses the vtable.
[[gnu::noinline]] int count_sides(const Shape& s) { return s.sides(); }
int sides_of_square(Square s) { return count_sides(s); }
int sides_of_triangle(Triangle t) { return count_sides(t); }

offload::node_t where() { return offload::this_node(); }
bool target_is_host() { return offload::is_host(); }
std::size_t nodes_seen() { return offload::num_nodes(); }

int calls = 0;  // each target counts the calls it ran in its own copy
void count_call() { ++calls; }
int calls_made() { return calls; }

double dot(offload::buffer_ptr<double> x, offload::buffer_ptr<double> y, std::size_t n) {
  double z = 0;
  for (std::size_t i = 0; i < n; ++i) z += x[i] * y[i];
  return z;
}
void scale(offload::buffer_ptr<double> x, std::size_t n, double f) {
  for (std::size_t i = 0; i < n; ++i) x[i] *= f;
}

void nodes() {
  check(offload::this_node() == 0 && offload::is_host(), "main runs on the host, node 0");
  check(offload::num_nodes() >= 3, "at least two targets (--ham-targets 2 or mpirun -np 3)");
  for (std::size_t n = 0; n < offload::num_nodes(); ++n) {
    const auto node = static_cast<offload::node_t>(n);
    check(std::strlen(offload::get_node_description(node).name()) > 0, "node " + std::to_string(n) + " has a name");
    std::printf("node %zu: %s\n", n, offload::get_node_description(node).name());
    if (n == 0) continue;
    check(offload::sync(node, f2f(&where)) == node, "node " + std::to_string(n) + " runs its own calls");
    check(!offload::sync(node, f2f(&target_is_host)), "node " + std::to_string(n) + " is not the host");
    check(offload::sync(node, f2f(&nodes_seen)) == offload::num_nodes(), "targets see every node");
  }
}

void transfer_rules(offload::node_t t) {
  round_trip(t, true, "bool");
  round_trip(t, 'c', "char");
  round_trip(t, u'd', "char16_t");
  round_trip(t, U'e', "char32_t");
  round_trip(t, L'f', "wchar_t");
  round_trip(t, static_cast<signed char>(-7), "signed char");
  round_trip(t, static_cast<unsigned char>(250), "unsigned char");
  round_trip(t, static_cast<short>(-1337), "short");
  round_trip(t, static_cast<unsigned short>(65000), "unsigned short");
  round_trip(t, -1338, "int");
  round_trip(t, 4000000000u, "unsigned");
  round_trip(t, -1339L, "long");
  round_trip(t, 1340UL << 40, "unsigned long");
  round_trip(t, -(1341LL << 40), "long long");
  round_trip(t, 1342ULL << 50, "unsigned long long");
  round_trip(t, 13.45f, "float");
  round_trip(t, 13.46, "double");
  round_trip(t, 13.47L, "long double");
  round_trip(t, nullptr, "std::nullptr_t");
  round_trip(t, std::array<int, 5>{1, 2, 3, 4, 5}, "std::array");
  round_trip(t, Record{7, 0.25, {'h', 'o', 'p', 's', 'i', 'm'}}, "struct");
  // Not trivially copyable, trivially destructible: sent bitwise as HAM-Offload does.
  round_trip(t, std::tuple<void*, int>(nullptr, 42), "std::tuple<void*, int>");
  round_trip(t, std::pair<int, double>(3, 0.5), "std::pair");
  check(offload::sync(t, f2f(&sides_of_square, Square{})) == 4, "a polymorphic argument (vtable) on a target");
  check(offload::sync(t, f2f(&sides_of_triangle, Triangle{})) == 3, "a second polymorphic argument");
}

void futures(offload::node_t t) {
  const int before = offload::sync(t, f2f(&calls_made));
  for (int i = 0; i < 100; ++i) offload::async(t, f2f(&count_call));  // each dropped future waits
  check(offload::sync(t, f2f(&calls_made)) == before + 100, "dropped futures ran their calls");
  auto f = offload::async(t, f2f(&echo<int>, 99));
  while (!f.test()) {
  }
  check(f.get() == 99, "test() then get()");
  std::vector<offload::future<int>> many;
  for (int i = 0; i < 10; ++i) many.push_back(offload::async(t, f2f(&echo<int>, i)));
  for (int i = 9; i >= 0; --i) check(many[static_cast<std::size_t>(i)].get() == i, "futures got in reverse order");
}

void data(offload::node_t a, offload::node_t b) {
  const std::size_t n = 4096;
  std::vector<double> x(n), y(n), back(n);
  std::iota(x.begin(), x.end(), 1.0);
  for (std::size_t i = 0; i < n; ++i) y[i] = 1.0 / static_cast<double>(i + 1);
  auto xa = offload::allocate<double>(a, n);
  auto ya = offload::allocate<double>(a, n);
  auto put_x = offload::put(x.data(), xa, n);
  offload::put(y.data(), ya, n);  // the dropped future waits: a synchronous put
  put_x.get();
  check(offload::sync(a, f2f(&dot, xa, ya, n)) == static_cast<double>(n), "dot product over put data");
  offload::sync(a, f2f(&scale, xa, n, 2.0));
  offload::get(xa, back.data(), n);  // synchronous through the dropped future
  bool doubled = true;
  for (std::size_t i = 0; i < n; ++i) doubled = doubled && back[i] == 2.0 * x[i];
  check(doubled, "scaled data read back with get");
  auto xb = offload::allocate<double>(b, n);
  offload::copy_sync(xa, xb, n);  // target to target
  std::vector<double> from_b(n);
  offload::get_sync(xb, from_b.data(), n);
  check(from_b == back, "copy_sync between two targets");
  auto xa2 = offload::allocate<double>(a, n);
  offload::copy_sync(xa, xa2, n);  // within one target
  std::vector<double> again(n);
  offload::get_sync(xa2, again.data(), n);
  check(again == back, "copy_sync within one target");
  offload::free(xa2);
  offload::free(xb);
  offload::free(ya);
  offload::free(xa);
}

void refuse() { throw std::runtime_error("refused on purpose"); }

}  // namespace

int main(int argc, char* argv[]) {
  // --drop-failing: a call that fails, its future dropped without get(); the
  // runtime reports the failure when main returns (exit status 5).
  if (argc > 1 && std::string(argv[1]) == "--drop-failing") {
    { offload::async(1, f2f(&refuse)); }
    std::printf("main returns 0\n");
    return 0;
  }
  nodes();
  if (offload::num_nodes() < 3) return 1;
  for (std::size_t t = 1; t < offload::num_nodes(); ++t) {
    transfer_rules(static_cast<offload::node_t>(t));
    futures(static_cast<offload::node_t>(t));
  }
  data(1, 2);
  std::printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
