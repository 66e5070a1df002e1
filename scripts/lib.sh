# shellcheck shell=bash
# scripts/lib.sh: helpers shared by scripts/test and scripts/demo.
# Source it; it expects to run as root on Debian 12 and needs no stdin.
#
#   ensure_packages       install the build and test dependencies that are missing
#   ensure_pg_major N     print the pg_config of PostgreSQL N: Debian's for 15,
#                         else built from Debian's source package into $PG_CACHE
#   use_postgres CONFIG   run against the installation of that pg_config
#                         (sets PG_CONFIG, PGBIN, PG_MAJOR, PG_VERSION)
#   copy_checkout DIR     copy the checkout to DIR (owned by postgres)
#   build_and_install DIR build a copy of the checkout in DIR, make install
#                         (build_copy, take_install_lock, install_copy)
#   start_cluster NAME    initdb + start a throwaway cluster (as postgres) on a free port
#   cluster_port NAME / cluster_host NAME   where to connect to it
#   psql_on NAME ARGS...  psql into it
#   as_postgres CMD...    run a command as the postgres OS user
#                         (these four: scripts/cluster.sh, which it sources)
#
# PG_CONFIG in the environment picks the installation (default: Debian's
# PostgreSQL 15).  Everything temporary lives under $WORK_DIR, removed
# (clusters stopped first) when the calling script exits.

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The majors the project supports; Debian 12 packages only the first.
SUPPORTED_PG_MAJORS=(15 17 18)
DEBIAN_PG_MAJOR=15
# What the caller asked for (empty: the caller decides, e.g. all majors).
REQUESTED_PG_CONFIG=${PG_CONFIG:-}

# `make install` writes into a PostgreSQL installation shared by every
# checkout on the machine, so concurrent runs from different checkouts would
# test each other's builds.  Each run holds the installation's lock from its
# `make install` to its exit.  Runs that test several installations take
# their locks in ascending major order, so no two runs wait for each other.
INSTALL_LOCK=/tmp/bloomfilter-install.lock
LOCK_FDS=()

# Debian 12 ships postgres_fdw inside postgresql-15 (postgresql-contrib is
# only a metapackage pulling in the same thing), so it is not listed.
REQUIRED_PACKAGES=(build-essential postgresql-15 postgresql-server-dev-15
                   libipc-run-perl postgresql-15-hll libclang-rt-14-dev
                   python3-psycopg2 nodejs)   # test/clients/check_*.{py,js}

log() { printf '==> %s\n' "$*"; }
# die, as_postgres and the throwaway clusters
source "$REPO_ROOT/scripts/cluster.sh"

# ---------------------------------------------------------------------------
# Packages

package_installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# install_packages PKG...: apt-get install of those not installed yet.
install_packages() {
    local missing=() p aptlog
    for p in "$@"; do
        package_installed "$p" || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    log "installing ${missing[*]}"
    aptlog=$(mktemp /tmp/bloomfilter-apt.XXXXXX.log)
    # Quiet unless it fails; no stdin, no prompts, wait for a dpkg lock
    # held by a concurrent run instead of failing at once.
    if ! {
        DEBIAN_FRONTEND=noninteractive apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
    } </dev/null >"$aptlog" 2>&1; then
        cat "$aptlog" >&2
        die "package installation failed (log: $aptlog)"
    fi
    rm -f "$aptlog"
}

ensure_packages() {
    [ "$(id -u)" -eq 0 ] || die "run as root (packages are installed with apt-get)"
    install_packages "${REQUIRED_PACKAGES[@]}"
    # The postgres user exists only once postgresql-common is installed.
    chown postgres: "$WORK_DIR"
}

# ---------------------------------------------------------------------------
# PostgreSQL majors that Debian 12 does not package, built from source
#
# Debian's archive carries the source packages of newer majors (17 in
# trixie, 18 in sid).  They are fetched with a private apt configuration
# (own sources list, state and cache directories under $PG_CACHE; the
# machine's /etc/apt is only read, for its mirror) and built from their
# original tarball into $PG_CACHE/pgNN.  A stamp file names the version and
# the build recipe: a machine that has the build reuses it.

PG_CACHE=${BLOOMFILTER_CACHE:-/var/cache/bloomfilter}
# configure options: what the suite needs (TAP support, readline for psql,
# zlib for pg_dump's compressed formats, ICU as Debian builds it); no docs.
PG_CONFIGURE_OPTS=(--enable-tap-tests --with-icu --with-readline --with-zlib)
PG_BUILD_PACKAGES=(bison flex libreadline-dev zlib1g-dev libicu-dev pkg-config
                   libipc-run-perl dpkg-dev bzip2)

# The machine's Debian mirror, as its own apt configuration names it (the
# URI of the main archive for this release; not the security archive).
debian_mirror() {
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    # shellcheck disable=SC2016  # apt expands $(...) in --format itself
    apt-get indextargets --no-release-info \
            --format '$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT)' |
        awk -v c="$codename" '$1 == "deb" && $3 == c && $4 == "main" { sub(/\/$/, "", $2); print $2; exit }'
}

# private_apt ARGS...: apt-get or apt-cache (first argument) with the private
# configuration under $PG_CACHE/apt: deb-src lines for trixie and sid from
# the machine's mirror, nothing else.
private_apt() {
    local tool=$1; shift
    local dir="$PG_CACHE/apt" mirror
    if [ ! -s "$dir/sources.list" ]; then
        mirror=$(debian_mirror)
        [ -n "$mirror" ] || die "no Debian mirror found in the machine's apt configuration"
        mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
        : >"$dir/status"
        {
            echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main"
            echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main"
        } >"$dir/sources.list.new"
        mv "$dir/sources.list.new" "$dir/sources.list"
    fi
    "$tool" -q -o Dir::Etc::sourcelist="$dir/sources.list" \
        -o Dir::Etc::sourceparts=/nonexistent \
        -o Dir::State="$dir" -o Dir::State::lists="$dir/lists" \
        -o Dir::State::status="$dir/status" \
        -o Dir::Cache="$dir/cache" -o Dir::Cache::archives="$dir/cache/archives" \
        -o APT::Sandbox::User=root "$@"
}

# The recipe a build is stamped with: a change here rebuilds.
pg_build_recipe() { echo "recipe 1: ${PG_CONFIGURE_OPTS[*]}"; }

# Known-good original tarballs (version, SHA-256 from the signed .dsc of
# that Debian upload), fetched from the mirror's pool with apt's own
# downloader when the archive's current upload cannot be had: a mirror may
# list an upload in its index before (or without) carrying its files.
PG_FALLBACK_SOURCES=(
    "17 17.11 dd27f2b3c59e73ed14aa3324901242bf69a032a6347805f274e6260322d42979"
    "18 18.6 555610c24d53e4316da5b7d3fc25c279d96856d5e0e23ee308c328c5fa881d9f"
)

# fetch_pg_source MAJOR DIR: the original tarball of postgresql-MAJOR,
# unpacked into DIR/postgresql-X.Y; prints that version.
fetch_pg_source() {
    local major=$1 dir=$2 orig= version entry m v sum
    log >&2 "PostgreSQL $major: fetching the source package postgresql-$major"
    private_apt apt-get update >"$dir/apt.log" 2>&1 ||
        { cat "$dir/apt.log" >&2; die "apt-get update (private sources) failed"; }
    if (cd "$dir" && private_apt apt-get source --download-only "postgresql-$major") \
            >>"$dir/apt.log" 2>&1; then
        orig=$(compgen -G "$dir/postgresql-${major}_*.orig.tar.*" | head -n 1)
    else
        for entry in "${PG_FALLBACK_SOURCES[@]}"; do
            read -r m v sum <<<"$entry"
            [ "$m" = "$major" ] || continue
            log >&2 "PostgreSQL $major: the archive's current upload is not on the mirror; fetching $v"
            orig="$dir/postgresql-${major}_$v.orig.tar.bz2"
            /usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file \
                "$(debian_mirror)/pool/main/p/postgresql-$major/$(basename "$orig")" \
                "$orig" "SHA256:$sum" >>"$dir/apt.log" 2>&1 ||
                { cat "$dir/apt.log" >&2; die "could not fetch the source of PostgreSQL $major"; }
        done
    fi
    [ -n "$orig" ] && [ -f "$orig" ] ||
        { cat "$dir/apt.log" >&2; die "no original tarball of postgresql-$major in $dir"; }
    tar -C "$dir" -xf "$orig"
    version=$(basename "$orig"); version=${version#postgresql-"$major"_}; version=${version%.orig.tar.*}
    [ -d "$dir/postgresql-$version" ] || die "$orig did not unpack to postgresql-$version"
    echo "$version"
}

# build_pg_major MAJOR: configure, make -j, install into $PG_CACHE/pgMAJOR
# (server, headers, PGXS, pg_regress, the TAP modules, postgres_fdw).
build_pg_major() {
    local major=$1 prefix="$PG_CACHE/pg$1" src version top pgxs start=$SECONDS
    install_packages "${PG_BUILD_PACKAGES[@]}"
    src=$(mktemp -d "$PG_CACHE/src-$major.XXXXXX")
    version=$(fetch_pg_source "$major" "$src")
    top="$src/postgresql-$version"
    log "PostgreSQL $major: building $version into $prefix (log: $src/build.log)"
    rm -rf "$prefix"
    if ! (
        umask 022
        cd "$top" &&
        ./configure --prefix="$prefix" "${PG_CONFIGURE_OPTS[@]}" &&
        make -j"$(nproc)" &&
        make install &&
        make -C contrib/postgres_fdw -j"$(nproc)" install
    ) >"$src/build.log" 2>&1; then
        tail -n 60 "$src/build.log" >&2
        die "building PostgreSQL $version failed (log: $src/build.log)"
    fi
    pgxs=$(dirname "$(dirname "$("$prefix/bin/pg_config" --pgxs)")")
    [ -f "$pgxs/test/perl/PostgreSQL/Test/Cluster.pm" ] ||
        die "PostgreSQL $version: the TAP modules were not installed"
    [ -x "$pgxs/test/regress/pg_regress" ] ||
        die "PostgreSQL $version: pg_regress was not installed"
    { echo "$version"; pg_build_recipe; } >"$prefix/.bloomfilter-stamp"
    rm -rf "$src"
    log "PostgreSQL $major: $version built in $((SECONDS - start))s"
}

# ensure_pg_major MAJOR: prints the pg_config of PostgreSQL MAJOR, building
# it first unless a build with the current recipe is there.  Concurrent runs
# wait for each other's build.
ensure_pg_major() {
    local major=$1 prefix="$PG_CACHE/pg$1" fd
    if [ "$major" = "$DEBIAN_PG_MAJOR" ]; then
        echo "/usr/lib/postgresql/$major/bin/pg_config"
        return
    fi
    mkdir -p "$PG_CACHE"
    exec {fd}>>"$PG_CACHE/pg$major.lock"
    flock "$fd"
    if [ "$(sed -n 2p "$prefix/.bloomfilter-stamp" 2>/dev/null)" != "$(pg_build_recipe)" ] ||
       [ ! -x "$prefix/bin/pg_config" ]; then
        build_pg_major "$major" >&2
    fi
    exec {fd}>&-
    echo "$prefix/bin/pg_config"
}

# ---------------------------------------------------------------------------
# Installations

# use_postgres PG_CONFIG: the installation the next steps build for, install
# into and start servers from.
use_postgres() {
    PG_CONFIG=$1
    [ -x "$PG_CONFIG" ] || die "$PG_CONFIG is not an executable pg_config"
    PGBIN=$("$PG_CONFIG" --bindir)
    PG_VERSION=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9][0-9.a-z]*\).*/\1/p')
    PG_MAJOR=${PG_VERSION%%[.a-z]*}
    [ -n "$PG_MAJOR" ] || die "cannot tell the version of $PG_CONFIG"
    [ -f "$("$PG_CONFIG" --sharedir)/extension/postgres_fdw.control" ] ||
        die "postgres_fdw is not installed in $("$PG_CONFIG" --sharedir)"
}

# ---------------------------------------------------------------------------
# Build

# The lock of the installation in use: Debian's PostgreSQL 15 keeps the
# name older checkouts use, so that they and this one exclude each other;
# the builds under $PG_CACHE are named by major, and any other installation
# (a private copy, say) by its pkglibdir, so that runs against different
# copies of one major do not wait for each other.
install_lock_file() {
    if [ "$PG_CONFIG" = "/usr/lib/postgresql/$DEBIAN_PG_MAJOR/bin/pg_config" ]; then
        echo "$INSTALL_LOCK"
    elif [ "$PG_CONFIG" = "$PG_CACHE/pg$PG_MAJOR/bin/pg_config" ]; then
        echo "${INSTALL_LOCK%.lock}-$PG_MAJOR.lock"
    else
        echo "${INSTALL_LOCK%.lock}-$("$PG_CONFIG" --pkglibdir | md5sum | cut -c1-12).lock"
    fi
}

# Held until the calling script exits (the descriptor closes with it).
take_install_lock() {
    local file fd
    file=$(install_lock_file)
    exec {fd}>>"$file"
    LOCK_FDS+=("$fd")
    if ! flock -n "$fd"; then
        log "waiting for another run to release $file"
        flock "$fd"
    fi
}

# copy_checkout DIR: the checkout's files in DIR, owned by postgres, without
# what a build or a test run left in it.
copy_checkout() {
    as_postgres mkdir -p "$1"
    tar -C "$REPO_ROOT" --exclude=./.git --exclude=./results --exclude=./tmp_check \
        --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./test/fuzz/work \
        -cf - . | as_postgres tar -C "$1" -xf -
}

# build_copy DIR: a copy of the checkout in DIR, owned by postgres (so that
# pg_regress and prove can write their results there), built as postgres
# for $PG_CONFIG.  Objects in the checkout are left out: they may have been
# built for another major.  Warnings are errors here (COPT), not in the
# Makefile, so that a packager's newer compiler does not fail the build.
build_copy() {
    local dir=$1 buildlog="$WORK_DIR/build-$PG_MAJOR.log"
    copy_checkout "$dir"
    log "building for PostgreSQL $PG_VERSION in $dir"
    if ! as_postgres make -C "$dir" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" COPT=-Werror \
            >"$buildlog" 2>&1; then
        cat "$buildlog" >&2
        die "build failed for PostgreSQL $PG_VERSION"
    fi
}

# install_copy DIR: make install of the build in DIR (as root: the
# installation's directories are root's).  Hold the install lock first.
install_copy() {
    local dir=$1 buildlog="$WORK_DIR/build-$PG_MAJOR.log"
    log "installing into $("$PG_CONFIG" --pkglibdir)"
    if ! make -C "$dir" PG_CONFIG="$PG_CONFIG" install >>"$buildlog" 2>&1; then
        cat "$buildlog" >&2
        die "make install failed"
    fi
}

build_and_install() {
    build_copy "$1"
    take_install_lock
    install_copy "$1"
}

# ---------------------------------------------------------------------------
# Throwaway clusters (start_cluster, psql_on, as_postgres: scripts/cluster.sh)

# Handed to the postgres user by ensure_packages.
WORK_DIR=$(mktemp -d /tmp/bloomfilter.XXXXXX)

# A package scripts/test installed and has not removed yet.
PURGE_PACKAGE=

cleanup() {
    local status=$?
    stop_clusters
    [ -z "$PURGE_PACKAGE" ] || dpkg --purge "$PURGE_PACKAGE" >/dev/null 2>&1 || true
    rm -rf "$WORK_DIR"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
