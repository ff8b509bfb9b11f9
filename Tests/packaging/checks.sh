# The packaging tests' tally, sourced by each: `pass`/`fail` count and print one line, `check` passes when its
# command succeeds, `same` when two strings are equal, `finish` prints the counts and exits non-zero on a failure.
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1${2:+: $2}"; }
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
    local description=$1
    shift
    if "$@"; then pass "$description"; else fail "$description"; fi
}
# same DESCRIPTION GOT WANT
same() {
    if [[ "$2" == "$3" ]]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit
}
