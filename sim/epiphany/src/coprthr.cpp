// stdcl for host programs with their own main() (Brown Deer COPRTHR 1.x
// programs): the device is e-hal's (HOPSIM_MODE, simulated in the host's
// simulated time), kernels come from clcc objects linked into the program
// or from .cl files compiled at run time by clopen (clcc, as COPRTHR's JIT).
// A program clcc built holds, per kernel, the kernel, a wrapper taking its
// arguments by index and its parameters' record; its main() runs the core's
// work items (stdcl's __hopsim_cl_core).
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "e_hal_system.hpp"
#include "hopsim/core/error.hpp"
#include "hopsim/epiphany/device_program.hpp"
#include "hopsim/epiphany/esdk.hpp"
#include "stdcl_runtime.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): posix_spawn passes it on

namespace hopsim::epiphany::stdcl {
namespace {

namespace fs = std::filesystem;
using ehal::Hal;

// A program's two builds: for the cores (through the device pass) and for host threads (stdcpu).
struct Program {
  std::string source;  // for messages: the .cl file (or files) it came from
  std::string file;    // clopen's file, compiled at clbuild ("" for clcc's)
  bool built = false;
  std::shared_ptr<const DeviceProgram> device;
  void* device_handle = nullptr;
  void* cpu_handle = nullptr;
  std::deque<hopsim_cl_kernel> kernels;
};

// A program clcc linked into the executable, before its first use.
struct Embedded {
  std::string source;
  const void* device = nullptr;
  std::size_t device_size = 0;
  const void* cpu = nullptr;
  std::size_t cpu_size = 0;
  Program* program = nullptr;
};

std::vector<Embedded>& embedded() {
  static std::vector<Embedded> e;
  return e;
}

std::string folder_of_this_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&folder_of_this_library), &info) == 0 || !info.dli_fname) return ".";
  return fs::path(info.dli_fname).parent_path().string();
}

// clcc of this tree: EPIPHANY_HOME/tools/e-gnu/bin, next to tools/host/lib (HOPSIM_CLCC overrides).
std::string clcc_path() {
  if (const char* c = std::getenv("HOPSIM_CLCC"); c && *c) return c;
  return (fs::path(folder_of_this_library()) / ".." / ".." / "e-gnu" / "bin" / "clcc").lexically_normal().string();
}

// A fresh folder for a program's files, removed (with them) when it goes
// out of scope: once the program is loaded, or when loading it failed.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/hopsim-stdcl-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw Error(fmt::format("cannot create a folder for kernels ({})", tmpl));
    dir_ = tmpl;
  }
  ~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
};

void write_file(const fs::path& p, const void* data, std::size_t n) {
  std::ofstream f(p, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  if (!f) throw Error(fmt::format("cannot write {}", p.string()));
}

// Splits clbuild's options into clcc's arguments: -D, -U and -I pass on
// (with or without a space before the value); OpenCL's -cl-* and -w are
// accepted; anything else is refused by name.
std::vector<std::string> build_options(const std::string& options) {
  std::vector<std::string> words, out;
  std::string w;
  for (const char c : options + " ") {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& o = words[i];
    if (o == "-D" || o == "-U" || o == "-I") {
      if (i + 1 >= words.size()) throw Error(fmt::format("clbuild: option {} needs a value", o));
      out.push_back(o + words[++i]);
    } else if (o.rfind("-D", 0) == 0 || o.rfind("-U", 0) == 0 || o.rfind("-I", 0) == 0) {
      out.push_back(o);
    } else if (o.rfind("-cl-", 0) != 0 && o != "-w") {
      throw Error(fmt::format("clbuild: unknown compiler option '{}' (hopsim takes -D, -U, -I, -cl-*, -w)", o));
    }
  }
  return out;
}

// Runs clcc; throws Error naming the file when it fails (its messages,
// the compiler's, are already on stderr).
void run_clcc(const std::vector<std::string>& args, const std::string& what) {
  std::vector<std::vector<char>> storage;  // posix_spawn takes mutable strings
  std::vector<char*> argv;
  storage.reserve(args.size());
  argv.reserve(args.size() + 1);
  for (const auto& a : args) storage.emplace_back(a.c_str(), a.c_str() + a.size() + 1);
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0].c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw Error(fmt::format("clopen: cannot run {} to compile {}", args[0], what));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(fmt::format("clopen: {} does not compile (the compiler's messages are above)", what));
}

class Host final : public Standalone {
 public:
  Host() { set_standalone(this); }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;
  ~Host() override = default;

  void ensure_device() override { Hal::init(); }
  void call(const std::function<void()>& f) override {
    Hal::init();
    Hal::get()->call(f);
  }
  double host_seconds() override {
    Hal::init();
    return Hal::get()->host_seconds();
  }

  void* open(const char* file, int flags) override {
    if (!file) return &linked_in_;  // the kernels clcc linked into the program
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw Error(fmt::format("clopen: {}: no such kernel file", file));
    const std::lock_guard lock(m_);
    auto& p = programs_.emplace_back(std::make_unique<Program>());
    p->source = file;
    p->file = file;
    if ((flags & CLLD_NOBUILD) == 0) build_file(*p, {});
    return p.get();
  }

  void* build(void* handle, const char* options) override {
    if (handle == &linked_in_) return handle;  // built by clcc
    const std::lock_guard lock(m_);
    Program& p = program_of(handle, "clbuild");
    if (p.file.empty()) return handle;  // clcc built it
    if (p.built) throw Error(fmt::format("clbuild: {} is built already (open it with CLLD_NOBUILD)", p.source));
    build_file(p, build_options(options ? options : ""));
    return handle;
  }

  int close(void* handle) override {
    const std::lock_guard lock(m_);
    if (handle && handle != &linked_in_)
      program_of(handle, "clclose");  // the program stays loaded: its kernels may still be used
    return 0;
  }

  cl_kernel sym(void* handle, const char* name) override {
    const std::lock_guard lock(m_);
    std::vector<Program*> where;
    if (handle == &linked_in_) handle = nullptr;
    if (handle) {
      Program& p = program_of(handle, "clsym");
      if (!p.built)
        throw Error(fmt::format("clsym: {} was opened with CLLD_NOBUILD and has not been built (clbuild)", p.source));
      where.push_back(&p);
    } else {
      for (auto& e : embedded()) where.push_back(materialise(e));
    }
    std::string known;
    for (Program* p : where) {
      for (auto& k : p->kernels) {
        if (k.name == name) return &k;
        known += (known.empty() ? "" : ", ") + k.name;
      }
    }
    std::fflush(stdout);
    const std::string from = handle ? static_cast<Program*>(handle)->source : "the kernels linked in with clcc";
    std::fprintf(stderr, "hopsim: clsym: no kernel '%s' in %s (%s)\n", name, from.c_str(),
                 known.empty() ? "none" : ("kernels: " + known).c_str());
    return nullptr;
  }

  void launch(cl_kernel krn) override {
    const auto* prog = static_cast<const Program*>(krn->program);
    Device& d = Device::current();
    const auto& p = d.params();
    if (loaded_ != prog) {
      for (std::uint32_t c = 0; c < p.num_cores(); ++c) {
        prog->device->load(d, c);
        std::memset(d.windows().core(c) + kRuntimeAreaOffset, 0, kRuntimeAreaSize);
        api::set_group(c, static_cast<unsigned>(p.first_row), static_cast<unsigned>(p.first_col),
                       static_cast<unsigned>(p.rows), static_cast<unsigned>(p.cols));
      }
      loaded_ = prog;
    }
    d.set_kernel_host_stacks(true);
    auto program = prog->device;
    d.launch([program] { program->run(); });
  }

  void add_embedded(Embedded e) {
    const std::lock_guard lock(m_);
    embedded().push_back(std::move(e));
  }

 private:
  Program& program_of(void* handle, const char* fn) {
    for (auto& p : programs_)
      if (p.get() == handle) return *p;
    throw Error(fmt::format("{}: the handle is not one clopen returned", fn));
  }

  void build_file(Program& p, const std::vector<std::string>& options) {
    const ScratchFolder scratch;
    const fs::path& dir = scratch.path();
    std::vector<std::string> args = {clcc_path(), "--program", dir.string()};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(p.file);
    run_clcc(args, p.file);
    load(p, dir / "device.so", dir / "cpu.so");
  }

  Program* materialise(Embedded& e) {
    if (e.program) return e.program;
    auto& p = programs_.emplace_back(std::make_unique<Program>());
    p->source = e.source;
    const ScratchFolder scratch;
    const fs::path& dir = scratch.path();
    write_file(dir / "device.so", e.device, e.device_size);
    write_file(dir / "cpu.so", e.cpu, e.cpu_size);
    load(*p, dir / "device.so", dir / "cpu.so");
    e.program = p.get();
    return e.program;
  }

  // Loads a program's two builds and finds its kernels by clcc's record.
  static void load(Program& p, const fs::path& device, const fs::path& cpu) {
    p.device = DeviceProgram::open(device.string());
    p.device_handle = dlopen(fs::canonical(device).c_str(), RTLD_NOW | RTLD_NOLOAD);
    p.cpu_handle = dlopen(cpu.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!p.device_handle || !p.cpu_handle)
      throw Error(fmt::format("{}: cannot load its kernels: {}", p.source, dlerror()));
    // The record is host data: the device build keeps its globals in core memory.
    const auto* record = static_cast<const char*>(dlsym(p.cpu_handle, "__hopsim_cl_kernels"));
    if (!record) throw Error(fmt::format("{}: no kernel record (not built by hopsim's clcc)", p.source));
    for (auto& [name, params] : parse_signatures(record, p.source)) {
      hopsim_cl_kernel k;
      k.name = name;
      k.program = &p;
      k.params = params;
      const std::string wrap = "__hopsim_clwrap_" + name;
      k.device_fn = reinterpret_cast<void (*)()>(dlsym(p.device_handle, name.c_str()));
      k.device_wrapper = reinterpret_cast<void (*)(void* const*)>(dlsym(p.device_handle, wrap.c_str()));
      k.cpu_fn = reinterpret_cast<void (*)()>(dlsym(p.cpu_handle, name.c_str()));
      k.cpu_wrapper = reinterpret_cast<void (*)(void* const*)>(dlsym(p.cpu_handle, wrap.c_str()));
      if (!k.device_fn || !k.device_wrapper || !k.cpu_fn || !k.cpu_wrapper)
        throw Error(fmt::format("{}: kernel {} is recorded but missing (rebuild it with clcc)", p.source, name));
      p.kernels.push_back(std::move(k));
    }
    p.built = true;
  }

  std::mutex m_;
  std::vector<std::unique_ptr<Program>> programs_;
  const Program* loaded_ = nullptr;  // the program whose data the cores hold
  int linked_in_ = 0;                // clopen(cp, NULL, ...)'s handle: the kernels clcc linked in
};

Host& host() {
  static Host h;
  return h;
}

// A host program that links e-hal may use stdcl: it is one with its own main().
[[maybe_unused]] const bool g_registered = (host(), true);

}  // namespace
}  // namespace hopsim::epiphany::stdcl

extern "C" void hopsim_clcc_register(const char* source, const void* device, std::size_t device_size, const void* cpu,
                                     std::size_t cpu_size) {
  hopsim::epiphany::stdcl::host().add_embedded({source ? source : "?", device, device_size, cpu, cpu_size, nullptr});
}
