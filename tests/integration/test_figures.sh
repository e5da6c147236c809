# One place derives figures (result/figures.c): merge and recover of the same inputs give the
# same file, byte for byte. tests/data/figures holds the inputs (two runs of two scripts, one
# sampled with -R, one with -C; two replays of one capture; the journals of a killed run and of
# a killed replay, made by the pgarena before the one place, and of a killed run with sampler
# lines, ks.journal) and what merge and recover made of them; a change that changes a figure
# writes them anew and says why in its commit:
#   pgarena merge a.json b.json -o merged-ab.json --force
#   pgarena merge r1.json r2.json -o merged-r.json --force
#   cp k.journal x.json.journal; touch -d "$FIGURES_TIME" x.json.journal; pgarena recover x.json

FIGURES_TIME='2026-12-01 12:00:00 UTC'

test_figures_merge_pinned() {
    local d=$PGARENA_TEST_TOP/tests/data/figures
    pga merge "$d/a.json" "$d/b.json" -o m.json --force
    assert_rc 0
    cmp m.json "$d/merged-ab.json" || fail "merge of a.json and b.json differs from merged-ab.json"
    pga merge "$d/r1.json" "$d/r2.json" -o m.json --force
    assert_rc 0
    cmp m.json "$d/merged-r.json" || fail "merge of r1.json and r2.json differs from merged-r.json"
}

test_figures_recover_pinned() {
    local d=$PGARENA_TEST_TOP/tests/data/figures
    for j in k rk ks; do
        cp "$d/$j.journal" x.json.journal
        touch -d "$FIGURES_TIME" x.json.journal
        pga recover x.json
        assert_rc 0
        cmp x.json "$d/recovered-$j.json" || fail "recover of $j.journal differs from recovered-$j.json"
        rm x.json
    done
}
