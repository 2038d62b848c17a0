# SPDX-License-Identifier: GPL-2.0-or-later
# pfclab: one non-recursive Makefile. Sources are found per component folder, so a new
# file in traffic/, monitor/, lab/ or lib/ is built without touching this file.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/pfclab
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/pfclab
DESTDIR ?=
BUILD   ?= build

CC      ?= cc
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1.0)

# Library -> Debian package that provides its pkg-config file.
PKGS := libibverbs:libibverbs-dev libmnl:libmnl-dev libpcap:libpcap-dev \
	libpci:libpci-dev ncursesw:libncurses-dev json-c:libjson-c-dev \
	yaml-0.1:libyaml-dev libsodium:libsodium-dev
PKG_NAMES := $(foreach p,$(PKGS),$(firstword $(subst :, ,$(p))))

# test, demo and bench install the packages first (deps), then build in a sub-make.
ifeq ($(filter deps clean distclean test demo sweep-lossless bench,$(MAKECMDGOALS)),)
MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(firstword $(subst :, ,$(p))) && echo y),,$(p))))
ifneq ($(MISSING),)
$(error missing build dependencies: $(foreach p,$(MISSING),$(firstword $(subst :, ,$(p))) (Debian package $(lastword $(subst :, ,$(p))))); run 'make deps' or apt-get install them)
endif
endif

# Warning set of iproute2/rdma-core.
WARN := -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes \
	-Wold-style-definition -Wmissing-declarations -Wshadow -Wwrite-strings \
	-Wformat=2 -Wformat-security -Wpointer-arith -Wundef -Wredundant-decls \
	-Wimplicit-fallthrough -Wnull-dereference -Wno-unused-parameter

PKG_CFLAGS := $(shell pkg-config --cflags $(PKG_NAMES) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKG_NAMES) 2>/dev/null)

CFLAGS  ?= -O2 -g
CPPFLAGS += -I. -I$(BUILD)/gen -D_GNU_SOURCE
ALL_CFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
LDLIBS  += $(PKG_LIBS) -ldl -lm -lpthread

SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

# Every component's C files except entry points, fuzz targets and tests.
LIB_SRCS := $(sort $(shell find lib traffic monitor lab scripts -name '*.c' \
	-not -path '*/fuzz/*' 2>/dev/null))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
SAN_OBJS := $(LIB_SRCS:%.c=$(BUILD)/asan/%.o)

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_SAN  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/asan/tests/%)

.PHONY: all deps install uninstall man unit test test-unit test-gpu demo sweep-lossless bench fuzz clean
.DEFAULT_GOAL := all

BIN ?= pfclab

# Quiet build, as kbuild and iproute2 do: one short line per target ("  CC      lib/opt.o");
# V=1 prints the commands themselves, make -s prints neither. $(call msg,WHAT,NAME) goes in
# front of a rule's command, in the same line.
V ?= 0
ifeq ($(V),1)
msg :=
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
msg = @
else
msg = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

all: $(BIN)

$(BIN): $(BUILD)/obj/pfclab.o $(BUILD)/libpfclab.a
	$(call msg,LINK,$@) $(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/libpfclab.a: $(LIB_OBJS)
	@mkdir -p $(@D)
	$(call msg,AR,$@) rm -f $@ && ar rcs $@ $^

$(BUILD)/asan/libpfclab.a: $(SAN_OBJS)
	@mkdir -p $(@D)
	$(call msg,AR,$@) rm -f $@ && ar rcs $@ $^

# version.h (PFCLAB_VERSION) is rewritten only when the version changes, so the files
# that include it are rebuilt then and only then; its temporary file is this shell's own,
# as two makes can run at once (the fuzz scripts, two at a time).
VERSION_H := $(BUILD)/gen/version.h
$(VERSION_H): FORCE
	@mkdir -p $(@D)
	@t=$@.tmp.$$$$; echo '#define PFCLAB_VERSION "$(VERSION)"' >$$t; \
		cmp -s $$t $@ && rm -f $$t || mv -f $$t $@
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: %.c | $(VERSION_H)
	@mkdir -p $(@D)
	$(call msg,CC,$*.o) $(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/asan/%.o: %.c | $(VERSION_H)
	@mkdir -p $(@D)
	$(call msg,CC,$*.o [asan]) $(CC) $(ALL_CFLAGS) $(SAN_CFLAGS) -c -o $@ $<

CMOCKA_FLAGS := $(shell pkg-config --cflags --libs cmocka 2>/dev/null)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libpfclab.a
	@mkdir -p $(@D)
	$(call msg,CCLD,$@) $(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libpfclab.a $(CMOCKA_FLAGS) \
		$(LDLIBS)

$(BUILD)/asan/tests/%: tests/unit/%.c $(BUILD)/asan/libpfclab.a
	@mkdir -p $(@D)
	$(call msg,CCLD,$@) $(CC) $(ALL_CFLAGS) $(SAN_CFLAGS) -o $@ $< $(BUILD)/asan/libpfclab.a \
		$(CMOCKA_FLAGS) $(LDLIBS)

unit: $(UNIT_BINS) $(UNIT_SAN)

# Installs the Debian packages needed to build, test and run the virtual lab.
deps:
	@lab/deps.sh

# What a user runs: the binary, its man pages (man/, written by hand), the
# counter catalog (built in; installed to copy and edit for --catalog), the lab scripts
# with the GPUDirect patch series they apply, the virtual lab, and the READMEs with the
# example experiments. No source files: lab/doctor/ and scripts/run/ are C built into the
# binary. The documents keep the checkout's layout under DOCDIR, so a path the help texts
# and READMEs give (scripts/README.md, scripts/experiments/incast.yaml) names a file there
# as it does in a checkout.
LAB_INSTALL := lab/deps.sh lab/qos lab/gpudirect lab/README.md
VLAB_INSTALL := lab/vlab/vlab lab/vlab/guest-init.sh lab/vlab/guest-env.sh
DOC_INSTALL := README.md lib/README.md monitor/README.md monitor/frames/README.md \
	monitor/top/README.md lab/README.md traffic/README.md traffic/geforce/README.md $(wildcard scripts/README.md scripts/README-assets/*.png \
	scripts/experiments/*.yaml)

# The man pages are written by hand in man/ (pfclab.1, pfclab-COMMAND.1 per command,
# pfclab-experiment.5); tests/integration/man_pages.sh checks them against the commands'
# option tables. `make man` installs them alone, `make install` with the rest.
MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)

man:
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/

install: $(BIN) man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/lab/vlab $(DESTDIR)$(DOCDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/pfclab
	install -m 0644 monitor/catalog.tsv $(DESTDIR)$(DATADIR)/catalog.tsv
	install -m 0644 monitor/samples-keyed.jq $(DESTDIR)$(DATADIR)/samples-keyed.jq
	for f in $(LAB_INSTALL) $(VLAB_INSTALL); do \
		install -m $$(test -x $$f && echo 0755 || echo 0644) $$f $(DESTDIR)$(DATADIR)/$$f || exit 1; \
	done
	cp -r patches $(DESTDIR)$(DATADIR)/
	for f in $(DOC_INSTALL); do \
		install -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/$$f || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pfclab $(DESTDIR)$(MANDIR)/man1/pfclab.1 \
		$(DESTDIR)$(MANDIR)/man1/pfclab-*.1 $(DESTDIR)$(MANDIR)/man5/pfclab-*.5
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

# The README's two commands.
# test and demo build on every CPU unless make was given its own -j.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
SUBJ = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))

test: deps
	$(MAKE) $(SUBJ) all unit
	tests/run.sh

demo: deps
	$(MAKE) $(SUBJ) all
	scripts/demo.sh

# The drain sweep of the emulated lossless link in the virtual lab (a few minutes).
sweep-lossless: deps
	$(MAKE) $(SUBJ) all
	scripts/sweep_lossless.sh

test-unit: all unit
	tests/run.sh --only unit

# GPU tests: run on a host with an NVIDIA GPU; they skip elsewhere.
test-gpu: all unit
	tests/run.sh --only gpu

bench: deps
	$(MAKE) $(SUBJ) all
	bench/run.sh

clean:
	rm -rf $(BUILD) $(BIN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- fuzzing (libFuzzer, clang) -------------------------------------------------------
# `make fuzz` builds one target per reader of outside bytes; each
# tests/integration/fuzz_<name>.sh runs one for a bounded time (tests/fuzz.sh). Fuzz
# sources live under */fuzz/ and are kept out of LIB_SRCS. A target's own sources are
# instrumented (ASan, UBSan, coverage); what they call beyond links from the library as
# built, where a target needs it. FUZZ_<name>_FLAGS: compiler flags of one target.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -Wno-gnu-variable-sized-type-not-at-end -I. -D_GNU_SOURCE
FUZZ_LIB   := $(BUILD)/libpfclab.a $(LDLIBS)

# Frames and pcap files; the traffic exchange parser (both self-contained).
FUZZ_decode_SRCS  := monitor/frames/fuzz/fuzz_decode.c monitor/frames/decode.c \
	monitor/frames/pcapfile.c monitor/frames/stats.c monitor/frames/reorder.c
FUZZ_decode_DEPS  := $(wildcard monitor/frames/*.h) lib/rd.h
FUZZ_xchg_SRCS    := traffic/fuzz/fuzz_xchg.c traffic/xchg.c lib/util.c
FUZZ_xchg_DEPS    := traffic/xchg.h traffic/opts.h lib/rd.h lib/util.h
# The experiment file (YAML, then every key; traffic's option table checks its options).
FUZZ_exp_SRCS     := scripts/run/fuzz/fuzz_exp.c scripts/run/exp.c scripts/run/expval.c \
	lib/ytree.c scripts/run/cpoint.c traffic/opts.c
FUZZ_exp_DEPS     := $(wildcard scripts/run/*.h) lib/ytree.h traffic/opts.h lib/util.h
# What the dashboard reads from a remote monitor; a record as top --replay loads it.
FUZZ_feed_SRCS    := monitor/top/fuzz/fuzz_feed.c monitor/top/remote.c monitor/top/model.c
FUZZ_feed_DEPS    := $(wildcard monitor/top/*.h) lib/util.h
FUZZ_replay_SRCS  := monitor/top/fuzz/fuzz_replay.c monitor/top/replay.c monitor/top/model.c \
	monitor/top/replay_cap.c monitor/frames/timeline.c lib/fuzz/fuzzdir.c
FUZZ_replay_DEPS  := $(wildcard monitor/top/*.h) monitor/frames/timeline.h lib/fuzz/fuzzdir.h \
	lib/util.h
# What a point leaves on a host; the summary and plots of a results folder made of it.
# The timeline's reader (monitor/frames/timeline.c) is theirs too: records.c reads with it.
FUZZ_records_SRCS := scripts/run/fuzz/fuzz_records.c scripts/run/records.c \
	monitor/frames/timeline.c lib/fuzz/fuzzdir.c
FUZZ_records_DEPS := scripts/run/records.h monitor/frames/timeline.h lib/fuzz/fuzzdir.h
FUZZ_results_SRCS := scripts/run/fuzz/fuzz_results.c scripts/run/summary.c scripts/run/plots.c \
	scripts/run/records.c monitor/frames/timeline.c scripts/run/dcqcn.c lib/fuzz/fuzzdir.c
FUZZ_results_DEPS := $(wildcard scripts/run/*.h) monitor/frames/timeline.h lib/fuzz/fuzzdir.h
# What a host answers the manifest probe and `pfclab version` before a run.
FUZZ_manifest_SRCS := scripts/run/fuzz/fuzz_manifest.c scripts/run/manifest.c
FUZZ_manifest_DEPS := $(wildcard scripts/run/*.h) $(VERSION_H)
FUZZ_manifest_FLAGS := -I$(BUILD)/gen
# The traffic handshake above the exchange parser, over a socketpair (no RDMA device).
FUZZ_handshake_SRCS := traffic/fuzz/fuzz_handshake.c traffic/handshake.c traffic/auth.c \
	traffic/conn.c traffic/xchg.c lib/fuzz/fuzzdir.c
FUZZ_handshake_DEPS := traffic/handshake.h traffic/auth.h traffic/conn.h traffic/xchg.h lib/rd.h \
	lib/fuzz/fuzzdir.h

# What the kernel answers the counter sources (ioctl, netlink, sysfs and /proc text), and
# /proc/stat as the monitor reads its steal time.
FUZZ_replies_SRCS := monitor/sources/fuzz/fuzz_replies.c monitor/sources/src_ethtool_ioctl.c \
	monitor/sources/src_ethtool_nl.c monitor/sources/src_rdma_nl.c monitor/sources/src_link.c \
	monitor/sources/src_qdisc.c monitor/sources/src_pci.c lib/hw/dcb.c lib/hw/pci.c lib/hw/rm.c \
	lib/hw/steal.c
FUZZ_replies_DEPS := $(wildcard monitor/sources/*.h lib/hw/*.h) monitor/mon.h lib/rd.h

# What NVIDIA RM answers the controls of our own RM client (the GPU's PCIe byte counters).
FUZZ_rm_SRCS := lib/hw/fuzz/fuzz_rm.c lib/hw/rm.c
FUZZ_rm_DEPS := lib/hw/rm.h lib/hw/rm_abi.h lib/rd.h

FUZZ_SELF  := decode xchg
FUZZ_NAMES := $(FUZZ_SELF) exp feed replay records results replies manifest handshake rm
FUZZ_BINS  := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

fuzz: $(FUZZ_BINS)

# $(call fuzz_rule,NAME): the link rule of build/fuzz/fuzz_NAME.
define fuzz_rule
$(BUILD)/fuzz/fuzz_$(1): $$(FUZZ_$(1)_SRCS) $$(FUZZ_$(1)_DEPS) $(if $(filter $(1),$(FUZZ_SELF)),,$(BUILD)/libpfclab.a)
	@mkdir -p $$(@D)
	$$(call msg,FUZZ,$$@) $$(FUZZ_CC) $$(FUZZ_FLAGS) $$(FUZZ_$(1)_FLAGS) $(if $(filter $(1),$(FUZZ_SELF)),,$$(PKG_CFLAGS)) -o $$@ \
		$$(FUZZ_$(1)_SRCS) $(if $(filter $(1),$(FUZZ_SELF)),,$$(FUZZ_LIB))
endef
$(foreach n,$(FUZZ_NAMES),$(eval $(call fuzz_rule,$(n))))

# monitor: catalog_data.c embeds monitor/catalog.tsv with .incbin, which -MMD cannot see.
$(BUILD)/obj/monitor/catalog_data.o $(BUILD)/asan/monitor/catalog_data.o: monitor/catalog.tsv
