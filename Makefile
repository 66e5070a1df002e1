# bloomfilter: PostgreSQL extension (PGXS build)
EXTENSION = bloomfilter
# The version is written in one place: default_version in the control file.
EXTVERSION := $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(EXTENSION).control)
ifeq ($(EXTVERSION),)
$(error no default_version in $(EXTENSION).control)
endif
MODULE_big = bloomfilter

# src/ in floors that only look down (doc/architecture.md; checked by
# scripts/check-house.pl): the plain-C core (src/core/, no PostgreSQL
# headers), the types' glue (src/types/), the aggregates (src/aggregates/),
# the helpers the features share (src/helpers/), then one wing per feature:
# the batched scan (src/scan/), managed summaries (src/summaries/), the
# semijoin prefilter (src/semijoin/) and, above it, Citus (src/citus/); the
# module file on top (src/module.c).  Every file includes others by their
# path under src/ ("core/filter.h", "types/bloomfilter.h").
WINGS = types aggregates helpers scan summaries semijoin joinfilter citus
CORE_SRCS = $(sort $(wildcard src/core/*.c))
CORE_HDRS = $(sort $(wildcard src/core/*.h))
GLUE_SRCS = $(sort $(foreach w,$(WINGS),$(wildcard src/$(w)/*.c))) src/module.c
GLUE_HDRS = $(wildcard src/*.h) $(foreach w,$(WINGS),$(wildcard src/$(w)/*.h))
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)
PG_CPPFLAGS = -Isrc

# The extension's SQL scripts, installed into $(pg_config --sharedir)/extension,
# are kept in extension/.  The install script of the current version is
# assembled from one piece per family of objects (extension/install/NN_*.sql).
# Beside it: one frozen base script (extension/bloomfilter--1.0.sql) and the
# update scripts (extension/bloomfilter--OLD--NEW.sql), each frozen once its
# version is released.  The procedure: doc/versions.md, "Releasing a version".
INSTALL_PIECES = $(sort $(wildcard extension/install/*.sql))
DATA_built = extension/$(EXTENSION)--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard extension/$(EXTENSION)--*.sql))

# Regression tests: every sql/NNN_*.sql, in order, against expected/
# (pg_regress's own places, as contrib modules keep them; it writes
# results/ and regression.diffs here too; families: doc/developer.md).
REGRESS = $(sort $(patsubst sql/%.sql,%,$(wildcard sql/[0-9]*.sql)))
REGRESS_OPTS = --load-extension=$(EXTENSION)

# Isolation specs (interleavings of sessions): test/isolation/specs/*.spec
# against test/isolation/expected/; they need the library preloaded
# (scripts/test runs them on a cluster of its own, doc/developer.md).
ISOLATION = $(sort $(patsubst test/isolation/specs/%.spec,%,$(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=$(EXTENSION)

TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl

# No -Werror here: a packager's newer compiler may warn where ours does not.
# scripts/test adds it (make COPT=-Werror), so the test command still fails
# on any warning.
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare
EXTRA_CLEAN = results regression.diffs regression.out output_iso

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

extension/$(EXTENSION)--$(EXTVERSION).sql: $(INSTALL_PIECES)
	cat $^ > $@

# C unit tests of the plain-C core (no server needed): one program per
# test/unit/test_*.c, each linked with every src/core/*.c.  Sources include
# "core/....h" and the shared helpers of test/unit/unit.h.
UNIT_CFLAGS = -O2 -g -std=c99 -Wall -Wextra -Werror -Isrc -Itest/unit
UNIT_TESTS = $(patsubst %.c,%,$(sort $(wildcard test/unit/test_*.c)))
EXTRA_CLEAN += $(UNIT_TESTS)

unit: $(UNIT_TESTS)
	@status=0; for t in $(UNIT_TESTS); do ./$$t || status=1; done; exit $$status

test/unit/test_%: test/unit/test_%.c $(wildcard test/unit/*.h) $(CORE_SRCS) $(CORE_HDRS)
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(CORE_SRCS) -lm

.PHONY: unit

# ---- Fuzzing (libFuzzer): the plain-C parsers and set operations ----
# make fuzz FUZZ_SECONDS=600   runs every harness for that long, from its
#                              committed seeds test/fuzz/seeds/<name>, growing
#                              test/fuzz/work/<name>
# make fuzz-check              a 30-second run of each, for the test suite
# make fuzz-seeds              regenerates the committed seed corpus
# A crash leaves test/fuzz/work/<harness>-crash-*; rerun with test/fuzz/<harness> FILE.
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 600
FUZZ_CFLAGS = -g -O1 -std=c99 -Isrc -Itest/fuzz -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_HARNESSES = $(patsubst %.c,%,$(sort $(wildcard test/fuzz/fuzz_*.c)))
EXTRA_CLEAN += $(FUZZ_HARNESSES) test/fuzz/make_seeds test/fuzz/work

test/fuzz/fuzz_%: test/fuzz/fuzz_%.c test/fuzz/fuzz.h $(CORE_SRCS) $(CORE_HDRS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(CORE_SRCS) -lm

test/fuzz/make_seeds: test/fuzz/make_seeds.c $(CORE_SRCS) $(CORE_HDRS)
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(CORE_SRCS) -lm

fuzz-seeds: test/fuzz/make_seeds
	rm -rf test/fuzz/seeds
	./test/fuzz/make_seeds test/fuzz/seeds

fuzz: $(FUZZ_HARNESSES)
	@for h in $(FUZZ_HARNESSES); do \
		name=$$(basename $$h); mkdir -p test/fuzz/work/$$name; \
		echo "== $$name for $(FUZZ_SECONDS) s"; \
		./$$h -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=test/fuzz/work/$$name- \
			test/fuzz/work/$$name test/fuzz/seeds/$$name || exit 1; \
	done

fuzz-check:
	$(MAKE) fuzz FUZZ_SECONDS=30

.PHONY: fuzz fuzz-check fuzz-seeds

# ---- Sanitizers and memcheck: the regression suite against an instrumented
# build, in a private copy of the PostgreSQL installation (see
# test/sanitize/run.sh; SAN_PORT picks the port, default 5551) ----
sanitize-check:
	bash test/sanitize/run.sh asan

valgrind-check:
	bash test/sanitize/run.sh valgrind

.PHONY: sanitize-check valgrind-check

# ---- PGXN: make dist writes bloomfilter-<version>.zip, the committed tree
# of HEAD (git archive) under a bloomfilter-<version>/ prefix ----
DIST_NAME = $(EXTENSION)-$(EXTVERSION)

dist:
	git archive --format=zip --prefix=$(DIST_NAME)/ -o $(DIST_NAME).zip HEAD

EXTRA_CLEAN += $(DIST_NAME).zip

.PHONY: dist

# Every object depends on every header of src/ and src/core/ (a small
# project: simpler than generated dependency files, and a changed header
# never links stale code).
$(OBJS): $(GLUE_HDRS) $(CORE_HDRS)
