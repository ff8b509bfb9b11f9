#!/usr/bin/env bash
# The bash completion for playola, driven as bash-completion drives it: commands, options, station names
# from the configuration (--config FILE on the line), values of the options that have a fixed set.
# Usage: Tests/packaging/test-completion.sh [COMPLETION-FILE]   (default: etc/bash-completion/playola)
set -uo pipefail
cd "$(dirname "$0")/../.."
file=${1:-etc/bash-completion/playola}
passed=0
failed=0

# shellcheck disable=SC1091
source /usr/share/bash-completion/bash_completion
# shellcheck disable=SC1090
source "$file"

work=$(mktemp -d "${TMPDIR:-/tmp}/playola-completion.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '[player]\nstation = porch\n\n[station porch]\ntype = local\npath = /tmp\n\n[station kexp]\ntype = stream\nurl = http://x/\n' \
    >"$work/playola.ini"

# completes EXPECTED WORDS...: the line is the words, the last one being completed.
completes() {
    local expected=$1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _playola
    local got
    got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd' ' -)
    if [[ $got == "$expected" ]]; then
        passed=$((passed + 1)); echo "ok   '$*' → $got"
    else
        failed=$((failed + 1)); echo "FAIL '$*': got '$got', want '$expected'"
    fi
}

completes "pause play previous" playola p
completes "check-config" playola ch
completes "bass" playola b
completes "treble" playola t
completes "--json" playola treble 3 --js
completes "kexp porch" playola play --config "$work/playola.ini" ""
completes "kexp" playola play --config "$work/playola.ini" k
completes "--ago" playola play --a
completes "--json" playola status --j
completes "--watch" playola status --w
completes "--json" playola next --js
completes "44100 48000" playola render --rate ""
completes "f32 s16 s24" playola render --format ""
completes "--fallback --for" playola run --f
completes "" playola volume 5
completes "" playola bass -3

echo "$passed passed, $failed failed"
((failed == 0))
