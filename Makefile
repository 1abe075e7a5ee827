# hopsim: the two set-up commands are `make demo` and `make test`.
BUILD ?= build
JOBS  ?= 2
CMAKE_FLAGS ?=

DEB_PACKAGES = cmake g++ make pkg-config git libsystemc-dev libboost-graph-dev \
  libboost-context-dev libspdlog-dev libfmt-dev catch2 libcli11-dev nlohmann-json3-dev \
  libsqlite3-dev qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libopenmpi-dev openmpi-bin \
  clang-16 llvm-16-dev libomp-16-dev

.PHONY: all deps configure build demo test docs-check test-sanitize clean lint lint-deps lint-tidy format fuzz fuzz-build

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "hopsim: installing missing Debian packages:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "hopsim: missing Debian packages. Run as root:"; \
	    echo "  apt-get install -y --no-install-recommends$$missing"; \
	    exit 1; \
	  fi; \
	fi

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	$(BUILD)/sim/cli/hopsim run kernels/epiphany/passing.json --mode both
	$(BUILD)/sim/cli/hopsim run kernels/bgq/halo.json --mode both

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# Every command block (sh) of README.md, docs/*.md and docs/*/README.md, at the
# small sizes their docs-check directives set, in scratch copies of the tree
# (tests/docs/docs_check.sh; `tests/docs/docs_check.sh --list $(BUILD)` shows them).
# The docs also use GNU time (/usr/bin/time) and python3 (tests/bench).
docs-check: build
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="time python3"
	tests/docs/docs_check.sh $(BUILD)

# The whole suite with hopsim's own code under AddressSanitizer and
# UndefinedBehaviorSanitizer (clang 16), in $(SAN_BUILD); a nightly-style
# target, not part of CI (about an hour on 2 cores). Leak checking is off:
# runs end by exit() with their simulators alive, by design. Under ASan the
# Epiphany tests cannot map the chip's memory at its device addresses
# (0x80800000 lies in ASan's low shadow, 0x7fff8000-0x8fff6fff on x86-64):
# SANITIZE=undefined covers them. ASan's fake stacks for use-after-return
# (on by default since LLVM 15) break under SystemC's stack switching (its
# processes read corrupted locals; Boost.Context fibers switch the same way),
# so they are off.
SAN_BUILD ?= build-sanitize
SANITIZE ?= address,undefined
test-sanitize:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) libclang-rt-16-dev"
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
	  -DCMAKE_CXX_COMPILER=clang++-16 -DHOPSIM_SANITIZE=$(SANITIZE) $(CMAKE_FLAGS)
	cmake --build $(SAN_BUILD) -j$(JOBS)
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:detect_stack_use_after_return=0 \
	  UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j$(JOBS)

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD) $(SAN_BUILD)

# Fuzzing (tests/fuzz): every reader of user input under libFuzzer with
# AddressSanitizer and UndefinedBehaviorSanitizer, FUZZ_SECONDS each; a
# table of executions, coverage and crashes; crashes in $(FUZZ_BUILD)/crashes.
# `make fuzz FUZZ=trace_file` runs one harness. CI runs it for 30 s each.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ ?=
fuzz-build:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) libclang-rt-16-dev"
	cmake -S tests/fuzz -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16
	cmake --build $(FUZZ_BUILD) -j$(JOBS)

fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ)

# Style: clang-format 14 (the version pins the output) over the project's
# sources; the stand-in headers that mirror vendor headers (BG/Q spi/, hwi/,
# mpi.h; the eSDK's e_lib.h, coreid16.h, stdcl.h) and the architecture
# test's fixtures keep their own layout.
CLANG_FORMAT ?= clang-format-14
RUN_CLANG_TIDY ?= run-clang-tidy-14
FORMAT_FILES = $(shell git ls-files '*.cpp' '*.hpp' '*.h' '*.c' '*.cl' \
  ':!:tests/arch/fixtures' ':!:sim/bgq/api/spi' ':!:sim/bgq/api/hwi' ':!:sim/bgq/api/mpi.h' \
  ':!:sim/epiphany/api/e_lib.h' ':!:sim/epiphany/api/coreid16.h' ':!:sim/epiphany/api/stdcl.h')
lint-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="clang-format-14"

lint: lint-deps
	$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES)
	@$(MAKE) --no-print-directory lint-tidy

format: lint-deps
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

# clang-tidy with .clang-tidy (readability-function-size at 80 lines among
# its checks) over the library and GUI sources; about 15 minutes on 2 cores.
# It reads the build's compile_commands.json and the GUI's generated moc
# files, so it builds first (nothing to do after make test).
lint-tidy: build
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="clang-tidy-14"
	$(RUN_CLANG_TIDY) -p $(BUILD) -j$(JOBS) -quiet '^$(CURDIR)/(sim|models|topologies|traces|gui)/.*\.cpp$$'
