# A full disk loses nothing: the result file, its journal, -l logs and a sweep's sweep.json
# on a small tmpfs that fills up mid-run. One clear line names the file and the error, the
# journal holds every interval that fit, a result file being replaced stays as it was,
# `pgarena recover` works once there is room, and nothing is reported written that was not.

# full_disk_mount: a 512 KB tmpfs at $T/full (root only; the test passes with a note else).
full_disk_mount() {
    mkdir -p "$T/full"
    if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=512k tmpfs "$T/full" 2>/dev/null; then
        echo "cannot mount a tmpfs here (not root?): nothing to test"
        return 1
    fi
    LIB_CLEANUP="${LIB_CLEANUP:-}; umount -l '$T/full'"
}

# fill_leaving BYTES: a filler file leaving about BYTES free on $T/full.
fill_leaving() {
    local avail
    rm -f "$T/full/filler"
    avail=$(df -B1 --output=avail "$T/full" | tail -n 1)
    [ "$avail" -gt "$1" ] || fail "only $avail bytes free on the tmpfs"
    head -c $((avail - $1)) /dev/zero >"$T/full/filler" || true
}

test_full_disk_loses_nothing() {
    full_disk_mount || return 0
    db=$(pgbench_db pga_full)
    cd "$T/full"
    # An earlier run's result, which the next run is to replace.
    pga run -S -c 2 -T 1 -q -o r.json "$db"
    assert_rc 0
    old=$(md5sum <r.json)
    # Room for the journal's header and a few intervals, not for the result file.
    fill_leaving 8192
    pga run -S -c 2 -T 8 -o r.json "$db"
    assert_rc 1
    assert_err '^pgarena: warning: cannot write the journal r.json.journal: No space left on device; later intervals are kept in memory$'
    assert_err '^pgarena: cannot write result file r.json: No space left on device$'
    [ "$(grep -c 'No space left' "$T/err")" -eq 2 ] || { cat "$T/err"; fail "the disk's error named more than once a file"; }
    n=$(sed -nE 's/^pgarena: the first ([0-9]+) intervals measured are in r.json.journal; the last ([0-9]+) are lost$/\1/p' "$T/err")
    [ -n "$n" ] && [ "$n" -ge 1 ] || { cat "$T/err"; fail "the journal's intervals are not counted"; }
    ! grep -q '^result:' "$T/out" || fail "a result reported written"
    [ "$(md5sum <r.json)" = "$old" ] || fail "the result file being replaced changed"
    ! ls r.json.tmp-* >/dev/null 2>&1 || fail "a temporary file was left"
    # The journal: its header and n whole intervals, each a line of its own (and the events
    # lines between them).
    [ "$(tail -c 1 r.json.journal | od -An -c | tr -d ' ')" = '\n' ] || fail "the journal ends with a torn line"
    [ "$(grep -c '^{"t_s":' r.json.journal)" -eq "$n" ] || fail "the journal holds $(grep -c '^{"t_s":' r.json.journal) intervals, not $n"
    python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' r.json.journal || fail "a journal line is not JSON"
    # Once there is room, recover makes the result, replacing the earlier run's.
    rm -f filler
    pga recover r.json
    assert_rc 0
    assert_out "^intervals recovered: +$n\$"
    pyjson r.json "d['complete'] is False and len(d['intervals']) == $n"
    cp r.json "$T/recovered.json" # validated against the schema after the tmpfs is gone

    # -l: the log that does not fit is named with its error; the result (elsewhere) is kept.
    fill_leaving 4096
    pga run -S -c 2 -T 1 -q -l --log-prefix tx -o "$T/logged.json" "$db"
    assert_rc 1
    assert_err '^pgarena: could not write the transaction log tx\.[0-9]+: No space left on device$'
    pyjson "$T/logged.json" 'd["summary"]["transactions"] > 0'
    rm -f tx.* filler
}

# The sweep's manifest and a cell's result on a disk that fills up after the first cell: the
# sweep exits 1 naming sweep.json once, and the same command finishes it once there is room.
test_full_disk_sweep_resumes() {
    full_disk_mount || return 0
    db=$(pgbench_db pga_fullsw)
    cd "$T/full"
    set -- sweep "$db" -c 1,2 -S -T 2 -o s -q
    pga_bg "$@"
    for _ in $(seq 1 200); do
        grep -q '"complete"' s/sweep.json 2>/dev/null && break
        sleep 0.1
    done
    fill_leaving 0
    pga_wait
    assert_rc 1
    assert_err "^pgarena: cannot write s/sweep.json: No space left on device\$"
    [ "$(grep -c 'sweep.json' "$T/err")" -eq 1 ] || { cat "$T/err"; fail "sweep.json named more than once"; }
    assert_err 'default, 2 client\(s\), trial 1 failed: cannot write result file s/default-c2-t1.json: No space left on device'
    [ ! -e s/default-c2-t1.json ] || fail "the second cell's result exists"
    pyjson s/sweep.json '[c["status"] for c in d["cells"]][0] == "complete"'
    sum=$(md5sum <s/default-c1-t1.json)
    rm -f filler
    pga "$@"
    assert_rc 0
    pyjson s/sweep.json 'all(c["status"] == "complete" for c in d["cells"])'
    [ "$(md5sum <s/default-c1-t1.json)" = "$sum" ] || fail "the finished cell was rerun"
    cp -r s "$T/sweep-copy"
}
