# shellcheck shell=bash
# scripts/citus.sh: Citus for the Citus TAP tests (test/t/96x_citus_*.pl).
# Source it after scripts/lib.sh.
#
#   ensure_citus PG_CONFIG   make sure citus.so is in that installation:
#                            built from the vendored source archive when
#                            missing, once per machine; returns non-zero
#                            (and says why) when it cannot be had
#
# Citus is a test and benchmark tool here, never shipped: its source stays
# in the archive and in a build tree under $PG_CACHE, nothing of it is
# committed.  The archive is looked for in $CITUS_ARCHIVE, else next to the
# checkout in ../shared/vendor/ (from the main checkout or from a worktree
# two levels down).  Citus 13.2 supports PostgreSQL 15, 16 and 17.

CITUS_VERSION=13.2.2
# Built for 15 and 17, the majors Citus 13.2 shares with this project (about
# two minutes each on a cold machine, once); BLOOMFILTER_CITUS_MAJORS="15"
# builds one.  A citus.so already installed is used whatever the list says.
read -r -a CITUS_MAJORS <<<"${BLOOMFILTER_CITUS_MAJORS:-15 17}"
# Debian build dependencies (the archive's README names them); the server
# headers include zstd.h whatever configure is told.
CITUS_BUILD_PACKAGES=(libcurl4-gnutls-dev liblz4-dev libzstd-dev libkrb5-dev libssl-dev
                      libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev libicu-dev
                      uuid-dev flex)

citus_archive() {
    local candidate
    for candidate in "${CITUS_ARCHIVE:-}" \
            "$REPO_ROOT/../shared/vendor/citus-$CITUS_VERSION.tar.gz" \
            "$REPO_ROOT/../../shared/vendor/citus-$CITUS_VERSION.tar.gz"; do
        [ -n "$candidate" ] && [ -f "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
}

# The recipe a build is stamped with: a change here rebuilds.
# The stamp names the installation the tree was configured for: a tree
# configured for one pg_config installs into that one only.
citus_build_recipe() { echo "citus $CITUS_VERSION recipe 1 (no LLVM bitcode) for $1"; }

# The build tree of an installation: citus-NN for the machine's and the
# cached majors, a directory of its own for any other installation (a
# private copy), so that no two installations share a configured tree.
citus_cache_dir() {
    local pgc=$1 major=$2
    if [ "$pgc" = "/usr/lib/postgresql/$major/bin/pg_config" ] ||
        [ "$pgc" = "$PG_CACHE/pg$major/bin/pg_config" ]; then
        echo "$PG_CACHE/citus-$major"
    else
        echo "$PG_CACHE/citus-$major-$(echo "$pgc" | md5sum | cut -c1-12)"
    fi
}

# citus_compat_fix TREE PG_CONFIG: since 15.20, PostgreSQL 15's
# commands/dbcommands.h declares have_createdb_privilege() extern, which
# Citus's compatibility header still defines as a static function for 15.
# Where the server header has the declaration, the compat copy goes.
citus_compat_fix() {
    local tree=$1 header
    header="$("$2" --includedir-server)/commands/dbcommands.h"
    grep -q 'have_createdb_privilege' "$header" || return 0
    perl -0pi -e 's/static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n//s' \
        "$tree/src/include/pg_version_compat.h"
    ! grep -q '^have_createdb_privilege(void)' "$tree/src/include/pg_version_compat.h"
}

# build_citus PG_CONFIG MAJOR ARCHIVE: configure, make (without the LLVM
# bitcode a JIT-enabled PostgreSQL would also compile: half the build time,
# and the tests do not use JIT), make install into
# that installation; the build tree is kept (citus_cache_dir), so a new
# installation at the same path (a reinstalled package) only needs
# `make install` again.
build_citus() {
    local pgc=$1 major=$2 archive=$3 dir start=$SECONDS
    dir=$(citus_cache_dir "$pgc" "$major")
    local tree="$dir/citus-$CITUS_VERSION"
    install_packages "${CITUS_BUILD_PACKAGES[@]}"
    if [ "$(cat "$dir/.bloomfilter-stamp" 2>/dev/null)" != "$(citus_build_recipe "$pgc")" ]; then
        log "Citus $CITUS_VERSION: building for PostgreSQL $major (log: $dir/build.log)"
        rm -rf "$dir"
        mkdir -p "$dir"
        tar -C "$dir" -xzf "$archive"
        [ -d "$tree" ] || die "$archive did not unpack to citus-$CITUS_VERSION"
        if ! (
            umask 022
            cd "$tree" &&
            citus_compat_fix "$tree" "$pgc" &&
            # without libcurl: a test cluster must not report usage statistics
            ./configure PG_CONFIG="$pgc" --without-libcurl &&
            make -j"$(nproc)" with_llvm=no
        ) >"$dir/build.log" 2>&1; then
            tail -n 60 "$dir/build.log" >&2
            die "building Citus for PostgreSQL $major failed (log: $dir/build.log)"
        fi
        citus_build_recipe "$pgc" >"$dir/.bloomfilter-stamp"
        log "Citus $CITUS_VERSION: built for PostgreSQL $major in $((SECONDS - start))s"
    fi
    make -C "$tree" with_llvm=no install >>"$dir/build.log" 2>&1 ||
        { tail -n 60 "$dir/build.log" >&2; die "make install of Citus failed (log: $dir/build.log)"; }
}

# ensure_citus PG_CONFIG: 0 when citus.so is (now) installed there.
ensure_citus() {
    local pgc=$1 major archive fd
    major=$("$pgc" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
    [ -f "$("$pgc" --pkglibdir)/citus.so" ] && return 0
    if [[ " ${CITUS_MAJORS[*]} " != *" $major "* ]]; then
        log "Citus: not built for PostgreSQL $major (Citus $CITUS_VERSION supports 15 to 17; this project builds it for ${CITUS_MAJORS[*]})"
        return 1
    fi
    if ! archive=$(citus_archive); then
        log "Citus: no citus.so for PostgreSQL $major and no citus-$CITUS_VERSION.tar.gz (set CITUS_ARCHIVE, or put it in ../shared/vendor/)"
        return 1
    fi
    mkdir -p "$PG_CACHE"
    exec {fd}>>"$PG_CACHE/citus-$major.lock"
    flock "$fd"
    [ -f "$("$pgc" --pkglibdir)/citus.so" ] || build_citus "$pgc" "$major" "$archive"
    exec {fd}>&-
    [ -f "$("$pgc" --pkglibdir)/citus.so" ]
}

# citus_for_tests: before the TAP tests of the installation in use
# ($PG_CONFIG): Citus there if it can be had; otherwise the reason is said
# and only the Citus tests skip themselves (they look for citus.so).  A
# failed build is reported, not fatal: the subshell keeps its die() from
# ending the caller.
citus_for_tests() {
    ( ensure_citus "$PG_CONFIG" ) ||
        log "Citus: not available for PostgreSQL $PG_MAJOR; the Citus tests (test/t/96x_citus_*.pl) will be skipped"
}
