#!/bin/sh
# A results database made by an earlier ringsim (without the columns and
# the requests table added since): a run appends to it, merge copies it
# (the missing columns read NULL), plot draws it.
. "$(dirname "$0")/lib.sh"
S="$RINGSIM_TOP/scenarios/scale_out_3_to_4.yaml"
export RINGSIM_PLOTS="$RINGSIM_TOP/plots"   # a binary outside the tree (make asan) finds the scripts
cd "$T" || exit 1

expect_exit 0 "a run into a new file" "$RINGSIM" run "$S" -o old.db --quiet --set duration=20s --set events.0.at=10s
# make it look like a file of the earlier schema
sqlite3 old.db "ALTER TABLE ticks DROP COLUMN redirects; ALTER TABLE ticks DROP COLUMN warm_copies;
                ALTER TABLE ticks DROP COLUMN warm_db_reads; ALTER TABLE ticks DROP COLUMN cache_errors;
                ALTER TABLE ticks DROP COLUMN fallback_reads; DROP TABLE requests;" 2>"$T/sqlerr"
ok $? "the file is made to lack the newer columns and table"
expect_exit 1 "(it does lack them)" sqlite3 old.db "SELECT redirects FROM ticks LIMIT 1"

expect_exit 0 "a run appends to the older file" "$RINGSIM" run "$S" -o old.db --quiet --set duration=20s --set events.0.at=10s
expect_eq "$(sqlite3 old.db 'SELECT count(*) FROM ticks WHERE redirects IS NULL')" 20 \
    "the older run's rows read NULL in the added columns"
expect_eq "$(sqlite3 old.db 'SELECT count(*) FROM ticks WHERE run_id=2 AND redirects = 0')" 20 \
    "the new run fills them"
expect_eq "$(sqlite3 old.db "SELECT count(*) FROM sqlite_master WHERE name='requests'")" 1 \
    "the requests table is added"

expect_exit 0 "a run into a second file" "$RINGSIM" run "$S" -o old2.db --quiet --set duration=20s --set events.0.at=10s
sqlite3 old2.db "ALTER TABLE ticks DROP COLUMN redirects; DROP TABLE requests;"
expect_exit 0 "merge reads the older file" "$RINGSIM" merge m.db old2.db
expect_eq "$(sqlite3 m.db 'SELECT count(*), count(redirects) FROM ticks')" "20|0" \
    "the column it lacks is NULL in the merged rows"
expect_exit 0 "plot draws the older file" "$RINGSIM" plot old2.db -d plots
finish
