#!/usr/bin/env bash
# Runs one fuzz target with cargo-fuzz on the stable toolchain (no sanitizer), the way
# docs/fuzzing.md documents it.
#
#   fuzz/run.sh <target> <seconds> [extra libFuzzer flags…]
#
# <target> is one of: project, model_description, table, fmu_archive, ssd.
# The growing corpus lives in fuzz/corpus/<target>/ (not committed); fuzz/seeds/<target>/ is read
# as a second, read-only corpus directory, and so is every directory listed, colon-separated, in
# FUZZ_EXTRA_CORPUS (for example a shared corpus that must not be copied into the repository).
# fuzz/dicts/<target>.dict, when present, is passed as -dict.
# Crashes, timeouts and out-of-memory inputs go to fuzz/artifacts/<target>/; the full log goes
# to fuzz/logs/<target>-<UTC time>.log. The exit status is libFuzzer's (0: nothing found).
set -euo pipefail

usage() {
    echo "usage: $0 <project|model_description|table|fmu_archive|ssd> <seconds> [libFuzzer flags…]" >&2
    exit 2
}
[[ $# -ge 2 ]] || usage
target=$1
seconds=$2
shift 2
case $target in
    project | model_description | table | fmu_archive | ssd) ;;
    *) usage ;;
esac
[[ $seconds =~ ^[0-9]+$ ]] || usage

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$fuzz_dir")
cd "$repo"

corpus=$repo/fuzz/corpus/$target
seeds=$repo/fuzz/seeds/$target
artifacts=$repo/fuzz/artifacts/$target
mkdir -p "$corpus" "$artifacts" "$repo/fuzz/logs"
log=$repo/fuzz/logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log

dirs=("$corpus" "$seeds")
if [[ -n ${FUZZ_EXTRA_CORPUS:-} ]]; then
    IFS=: read -r -a extra <<<"$FUZZ_EXTRA_CORPUS"
    dirs+=("${extra[@]}")
fi

# A libFuzzer dictionary of the format's keywords, when there is one.
dict=()
if [[ -f $repo/fuzz/dicts/$target.dict ]]; then
    dict=(-dict="$repo/fuzz/dicts/$target.dict")
fi

# The archive target writes every input to a file and extracts it: keep that in memory.
if [[ $target == fmu_archive && -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then
    export TMPDIR=/dev/shm
fi

# --sanitizer none: the only mode that builds on a stable toolchain without RUSTC_BOOTSTRAP.
# Debug assertions and overflow checks stay on (cargo-fuzz's default without -O).
# A separate target dir keeps this build apart from sanitizer builds of the same crate.
set +e
cargo fuzz run --sanitizer none --target-dir "$repo/fuzz/target/stable" "$target" "${dirs[@]}" -- \
    -max_total_time="$seconds" \
    -timeout=10 \
    -rss_limit_mb=4096 \
    -artifact_prefix="$artifacts/" \
    -print_final_stats=1 \
    "${dict[@]}" \
    "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# libFuzzer exits without running destructors, so the archive target's per-process sandbox
# ($TMPDIR/mastersim-fuzz-archive-<pid>) stays behind; remove those of ended processes.
if [[ $target == fmu_archive ]]; then
    for dir in "${TMPDIR:-/tmp}"/mastersim-fuzz-archive-*; do
        pid=${dir##*-}
        if [[ -d $dir && $pid =~ ^[0-9]+$ && ! -e /proc/$pid ]]; then
            rm -rf -- "$dir"
        fi
    done
fi
echo "log: $log; corpus: $(find "$corpus" -type f | wc -l) files" >&2
exit "$status"
