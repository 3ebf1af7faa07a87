#!/usr/bin/env bash
# Fills the seed corpora fuzz/corpus/<target>/ (gitignored) from the repository's own files and,
# when it exists, the shared conformance corpus (../shared/corpus, read only; override with
# SHARED_CORPUS=<dir>, or SHARED_CORPUS= to skip it). See docs/fuzzing.md.
#
#   project            projects/*.msim, <shared>/**/*.msim
#   model_description  fmus/*/models/*/modelDescription.xml, and the modelDescription.xml of
#                      every .fmu below (fmus/packed, <shared>)
#   table              every .csv/.tsv under projects/ and <shared>; files above 16 KiB are
#                      cut to their first 40 lines (the header is what matters)
#   ssd                every .ssd under projects/ and <shared> (the SystemStructure.ssd of
#                      every .ssp archive below them too, when unzip is there)
#   fmu_archive        fmus/packed/*.fmu and <shared>/**/*.fmu up to SEED_MAX_FMU bytes
#                      (default 600 KiB), plus for every .fmu a small zip that holds only its
#                      modelDescription.xml (Fmu::load then gets as far as the missing binary)
#
# Files are named by their SHA-1, like libFuzzer's own corpus entries, so running the script again
# adds nothing twice. Nothing is ever written outside fuzz/corpus/. Needs sha1sum; unzip and zip
# for the FMU-derived seeds (skipped with a note when missing).
set -euo pipefail

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$FUZZ_DIR")"
SHARED="${SHARED_CORPUS-$REPO/../shared/corpus}"
SEED_MAX_FMU="${SEED_MAX_FMU:-614400}"
CORPUS="$FUZZ_DIR/corpus"

if [[ -n "$SHARED" && ! -d "$SHARED" ]]; then
    echo "seed.sh: no shared corpus at $SHARED, using the repository's files only" >&2
    SHARED=""
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# add <target> <file>: copies the file into the target's corpus under its SHA-1.
add() {
    local dir="$CORPUS/$1" sum
    mkdir -p "$dir"
    sum="$(sha1sum < "$2" | cut -d' ' -f1)"
    # cat, not cp: the shared files are read only and their copies must not be.
    [[ -e "$dir/$sum" ]] || cat "$2" > "$dir/$sum"
}

# find_in <name pattern> <dir...>: NUL-separated list of matching regular files.
find_in() {
    local pattern="$1"
    shift
    local dirs=()
    for d in "$@"; do
        [[ -n "$d" && -d "$d" ]] && dirs+=("$d")
    done
    ((${#dirs[@]})) || return 0
    find -H "${dirs[@]}" -type f -name "$pattern" -print0
}

have() { command -v "$1" > /dev/null 2>&1; }

# --- project ---------------------------------------------------------------------------------
while IFS= read -r -d '' f; do add project "$f"; done \
    < <(find_in '*.msim' "$REPO/projects" "$SHARED")

# --- ssd -------------------------------------------------------------------------------------
while IFS= read -r -d '' f; do add ssd "$f"; done < <(find_in '*.ssd' "$REPO/projects" "$SHARED")
if have unzip; then
    while IFS= read -r -d '' f; do
        unzip -p "$f" SystemStructure.ssd > "$WORK/ssd" 2> /dev/null && [[ -s "$WORK/ssd" ]] \
            && add ssd "$WORK/ssd"
    done < <(find_in '*.ssp' "$REPO/projects" "$SHARED")
fi

# --- table -----------------------------------------------------------------------------------
while IFS= read -r -d '' f; do
    if (($(stat -c %s "$f") <= 16384)); then
        add table "$f"
    else
        head -n 40 "$f" > "$WORK/table"
        add table "$WORK/table"
    fi
done < <(find_in '*.csv' "$REPO/projects" "$SHARED"; find_in '*.tsv' "$REPO/projects" "$SHARED")

# --- model_description and fmu_archive --------------------------------------------------------
for f in "$REPO"/fmus/*/models/*/modelDescription.xml; do
    [[ -f "$f" ]] && add model_description "$f"
done

fmus=()
while IFS= read -r -d '' f; do fmus+=("$f"); done \
    < <(find_in '*.fmu' "$REPO/fmus/packed" "$SHARED")

if ! have unzip || ! have zip; then
    echo "seed.sh: unzip/zip missing, no seeds derived from .fmu files" >&2
fi
for f in "${fmus[@]}"; do
    if (($(stat -c %s "$f") <= SEED_MAX_FMU)); then
        add fmu_archive "$f"
    fi
    if have unzip && have zip; then
        rm -rf "$WORK/md" && mkdir "$WORK/md"
        if unzip -p "$f" modelDescription.xml > "$WORK/md/modelDescription.xml" 2> /dev/null \
            && [[ -s "$WORK/md/modelDescription.xml" ]]; then
            add model_description "$WORK/md/modelDescription.xml"
            rm -f "$WORK/md.fmu"
            (cd "$WORK/md" && zip -q -X "$WORK/md.fmu" modelDescription.xml)
            add fmu_archive "$WORK/md.fmu"
        fi
    fi
done

for t in project model_description table fmu_archive ssd; do
    mkdir -p "$CORPUS/$t"
    printf '%-18s %4d files %8d bytes\n' "$t" "$(find "$CORPUS/$t" -type f | wc -l)" \
        "$(find "$CORPUS/$t" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
done
