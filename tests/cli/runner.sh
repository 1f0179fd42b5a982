#!/bin/sh
# tests/run.sh itself: a file that did not run is never a pass. A -j that
# is not a positive number (or RINGSIM_TEST_JOBS) once ran nothing and ended
# "0 passed, 0 failed" with status 0; a file its runner never started (the
# pool stops when a runner is killed) counted as nothing, not as a failure;
# two files of the same name in two --unit folders shared one result file.
. "$(dirname "$0")/lib.sh"
RUNNER="${RINGSIM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/run.sh"
mkdir -p "$T/u"
cat >"$T/u/test_a" <<'EOF'
#!/bin/sh
echo "ok 1 - a"
EOF
chmod +x "$T/u/test_a"

expect_exit 0 "a folder of one passing file" sh "$RUNNER" --unit "$T/u" --unit-only
expect_match "^1 passed, 0 failed$" "$T/out" "counted"
for j in x 0 ""; do
    expect_exit 2 "-j \"$j\" is refused" sh "$RUNNER" -j "$j" --unit "$T/u" --unit-only
    expect_match "^tests/run.sh: -j .*expected a positive number" "$T/err" "saying what -j takes"
done
RINGSIM_TEST_JOBS=many expect_exit 2 "RINGSIM_TEST_JOBS=many is refused" sh "$RUNNER" \
    --unit "$T/u" --unit-only

# test_b kills the runner it was started by (the pool's --one): the pool
# stops, and test_c, never started, fails as test_b does
cat >"$T/u/test_b" <<'EOF'
#!/bin/sh
p=$PPID
while [ "$p" -gt 1 ]; do
    if tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -e ' --one '; then
        kill -KILL "$p"
        exit 0
    fi
    p=$(awk '{ print $4 }' "/proc/$p/stat")
done
EOF
cp "$T/u/test_a" "$T/u/test_c"
chmod +x "$T/u/test_b"
if [ -r /proc/self/stat ]; then
    expect_exit 1 "a killed runner fails the run" sh "$RUNNER" -j 1 --unit "$T/u" --unit-only
    expect_match "^1 passed, 2 failed$" "$T/out" "test_b and test_c fail, test_a passes"
    expect_match "not ok - test_c did not run" "$T/out" "saying test_c did not run"
else
    _n=$((_n + 1)); echo "ok $_n - a killed runner # SKIP no /proc"
fi

# two --unit folders with a file of the same name: each counts with its own results
# (both wrote NAME.tap, so one's results were counted twice and the other's lost)
mkdir -p "$T/v1" "$T/v2"
cp "$T/u/test_a" "$T/v1/test_same"
printf '#!/bin/sh\necho "not ok 1 - same, failing"\nexit 1\n' >"$T/v2/test_same"
chmod +x "$T/v1/test_same" "$T/v2/test_same"
expect_exit 1 "two files named test_same: the failing one fails the run" sh "$RUNNER" -j 2 \
    --unit "$T/v1" --unit "$T/v2" --unit-only
expect_match "^1 passed, 1 failed$" "$T/out" "one passed, one failed: each file's own results"
expect_exit 1 "the same, one file at a time" sh "$RUNNER" -j 1 --unit "$T/v1" --unit "$T/v2" \
    --unit-only
expect_match "^1 passed, 1 failed$" "$T/out" "one passed, one failed (-j 1)"
finish
