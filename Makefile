# hopsim: the two set-up commands are `make demo` and `make test`.
BUILD ?= build
JOBS  ?= 2
CMAKE_FLAGS ?=

DEB_PACKAGES = cmake g++ make pkg-config git libsystemc-dev libboost-graph-dev \
  libboost-context-dev libspdlog-dev libfmt-dev catch2 libcli11-dev nlohmann-json3-dev \
  libsqlite3-dev qt6-base-dev libopenmpi-dev openmpi-bin

.PHONY: all deps configure build demo test clean

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

clean:
	rm -rf $(BUILD)
