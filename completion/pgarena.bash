# bash completion for pgarena                                       -*- shell-script -*-
# Written by `make docs` (tools/gen_docs) from completion/pgarena.bash.in and
# src/cli/options.def: edit those, not completion/pgarena.bash. Workload names are read from
# pgarena's own --help, with a fixed list as fallback.

_pgarena_workloads()
{
    local names
    names=$("$1" --help 2>/dev/null |
        awk '/^Workloads:/ { on = 1; sub(/^Workloads:/, ""); print; next }
             on && /^ / { print; next } { on = 0 }' |
        grep -oE '(^| )[a-z][a-z0-9]*(-[a-z0-9]+)*([ ,]|$)' | tr -d ' ,' | grep -v '^default$')
    [ -n "$names" ] || names="tpcb-like simple-update select-only oltp-read-write
        oltp-read-only oltp-point-select oltp-write-only tpcc ch"
    echo $names
}

# The option words of a command (replay's subcommands as replay-SUB).
_pgarena_options()
{
    local words=""
    case $1 in
    init) words="--workload -w --file -f --scale -s --partitions --fillfactor -F --no-vacuum -n --partition-method --init-steps -I --foreign-keys --unlogged-tables --tablespace --index-tablespace --tables --table-size --warehouses --jobs -j --seed --force --local --quiet -q --host -h --port -p --dbname -d --username -U --help" ;;
    run) words="--workload -w --file -f --builtin -b --define -D --scale -s --no-vacuum -n --clients -c --jobs -j --time -T --transactions -t --protocol -M --progress -P --output -o --rate -R --latency-limit -L --warmup --max-tries --timeout --connect -C --report-per-command -r --label --report --metrics-listen --seed --local --no-statements --quiet -q --analytic-clients --queries --capture --speed --order --map-db --map-user --session-set --reset-from --read-only --force --copy-from --tables --table-size --warehouses --mix --keying-thinking --procedures --select-only -S --skip-some-updates -N --show-script --log -l --log-prefix --sampling-rate --aggregate-interval --failures-detailed --exit-on-abort --debug --progress-timestamp --agents --agent-index --run-id --coord --merged --agent-wait --sample-ms --no-sampling --meta --store --host -h --port -p --dbname -d --username -U --help" ;;
    show) words="--intervals --csv --summary --scripts --help" ;;
    compare) words="--json --csv --fail-if-worse --seed --margin --by --help" ;;
    report) words="--output -o --title --history --help" ;;
    sweep) words="--quiet -q --workload -w --file -f --builtin -b --define -D --scale -s --no-vacuum -n --clients -c --jobs -j --time -T --transactions -t --protocol -M --progress -P --output -o --rate -R --latency-limit -L --warmup --max-tries --timeout --connect -C --report-per-command -r --label --report --metrics-listen --seed --local --no-statements --analytic-clients --queries --capture --speed --order --map-db --map-user --session-set --reset-from --read-only --force --copy-from --tables --table-size --warehouses --mix --keying-thinking --procedures --select-only -S --skip-some-updates -N --show-script --log -l --log-prefix --sampling-rate --aggregate-interval --failures-detailed --exit-on-abort --debug --progress-timestamp --agents --agent-index --run-id --coord --merged --agent-wait --sample-ms --no-sampling --meta --store --init --set --setup --trials --duet --max-rate --slo --compare --json --replay --host -h --port -p --dbname -d --username -U --help" ;;
    calibrate) words="--workload -w --file -f --builtin -b --define -D --scale -s --no-vacuum -n --clients -c --jobs -j --time -T --transactions -t --protocol -M --progress -P --output -o --rate -R --latency-limit -L --warmup --max-tries --timeout --connect -C --report-per-command -r --label --report --metrics-listen --seed --local --no-statements --quiet -q --analytic-clients --queries --capture --speed --order --map-db --map-user --session-set --reset-from --read-only --force --copy-from --tables --table-size --warehouses --mix --keying-thinking --procedures --select-only -S --skip-some-updates -N --show-script --log -l --log-prefix --sampling-rate --aggregate-interval --failures-detailed --exit-on-abort --debug --progress-timestamp --agents --agent-index --run-id --coord --merged --agent-wait --sample-ms --no-sampling --meta --store --trials --json --host -h --port -p --dbname -d --username -U --help" ;;
    local) words="--dir --bin --help" ;;
    check) words="--workload -w --all --jobs -j --host -h --port -p --dbname -d --username -U --help" ;;
    recover) words="--help" ;;
    merge) words="--output -o --force --help" ;;
    store) words="--into --help" ;;
    history) words="--where --by --order --metric --min-effect --seed --json --fail-if-regressed --accept --help" ;;
    replay-prepare) words="--output -o --from --to --database --user --format --prefix --help" ;;
    replay-show) words="--top --events --help" ;;
    replay-capture) words="--seconds -s --output -o --host -h --port -p --dbname -d --username -U --help" ;;
    replay-record) words="--listen --seconds -s --output -o --tls-cert --tls-key --host -h --port -p --help" ;;
    replay-run) words="--jobs -j --progress -P --output -o --warmup --timeout --label --report --metrics-listen --local --quiet -q --sample-ms --no-sampling --speed --order --map-db --map-user --session-set --reset-from --copy-from --read-only --force --store --meta --host -h --port -p --dbname -d --username -U --help" ;;
    esac
    echo "$words"
}

# An option's value: words, or @file @dir @json @html @workload; "" is a value of the user's.
_pgarena_value()
{
    case $1 in
    "") ;;
    @file)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
        ;;
    @dir)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -d -- "$cur"))
        ;;
    @json | @html)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -X "!*.${1#@}" -- "$cur") $(compgen -d -- "$cur"))
        ;;
    @workload)
        COMPREPLY=($(compgen -W "$(_pgarena_workloads "$prog")" -- "$cur"))
        ;;
    *)
        COMPREPLY=($(compgen -W "$1" -- "$cur"))
        ;;
    esac
}

_pgarena()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -n = || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local commands="calibrate check compare history init local merge recover replay report run show store sweep"
    local subcommands="capture prepare record run show"
    local prog=${words[0]} cmd="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        -*) ;;
        *) cmd=${words[i]}; break ;;
        esac
    done

    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    # replay takes a subcommand first, then its options.
    local key=$cmd sub=""
    if [ "$cmd" = replay ]; then
        for ((i = i + 1; i < cword; i++)); do
            case ${words[i]} in -*) ;; *) sub=${words[i]}; break ;; esac
        done
        if [ -z "$sub" ]; then
            COMPREPLY=($(compgen -W "$subcommands --help" -- "$cur"))
            return
        fi
        key=replay-$sub
    fi

    case "$key $prev" in
    "init -w" | "init --workload")
        _pgarena_value "@workload"
        return
        ;;
    "init -f" | "init --file")
        _pgarena_value "@file"
        return
        ;;
    "init -s" | "init --scale")
        _pgarena_value ""
        return
        ;;
    "init --partitions")
        _pgarena_value ""
        return
        ;;
    "init -F" | "init --fillfactor")
        _pgarena_value ""
        return
        ;;
    "init --partition-method")
        _pgarena_value "range hash"
        return
        ;;
    "init -I" | "init --init-steps")
        _pgarena_value ""
        return
        ;;
    "init --tablespace")
        _pgarena_value ""
        return
        ;;
    "init --index-tablespace")
        _pgarena_value ""
        return
        ;;
    "init --tables")
        _pgarena_value ""
        return
        ;;
    "init --table-size")
        _pgarena_value ""
        return
        ;;
    "init --warehouses")
        _pgarena_value ""
        return
        ;;
    "init -j" | "init --jobs")
        _pgarena_value ""
        return
        ;;
    "init --seed")
        _pgarena_value ""
        return
        ;;
    "run -w" | "run --workload" | "sweep -w" | "sweep --workload" | "calibrate -w" | "calibrate --workload")
        _pgarena_value "@workload"
        return
        ;;
    "run -f" | "run --file" | "sweep -f" | "sweep --file" | "calibrate -f" | "calibrate --file")
        _pgarena_value "@file"
        return
        ;;
    "run -b" | "run --builtin" | "sweep -b" | "sweep --builtin" | "calibrate -b" | "calibrate --builtin")
        _pgarena_value "tpcb-like simple-update select-only list"
        return
        ;;
    "run -D" | "run --define" | "sweep -D" | "sweep --define" | "calibrate -D" | "calibrate --define")
        _pgarena_value ""
        return
        ;;
    "run -s" | "run --scale" | "calibrate -s" | "calibrate --scale")
        _pgarena_value ""
        return
        ;;
    "run -c" | "run --clients" | "calibrate -c" | "calibrate --clients")
        _pgarena_value ""
        return
        ;;
    "run -j" | "run --jobs" | "calibrate -j" | "calibrate --jobs" | "replay-run -j" | "replay-run --jobs")
        _pgarena_value ""
        return
        ;;
    "run -T" | "run --time" | "sweep -T" | "sweep --time")
        _pgarena_value ""
        return
        ;;
    "run -t" | "run --transactions" | "sweep -t" | "sweep --transactions" | "calibrate -t" | "calibrate --transactions")
        _pgarena_value ""
        return
        ;;
    "run -M" | "run --protocol" | "sweep -M" | "sweep --protocol" | "calibrate -M" | "calibrate --protocol")
        _pgarena_value "simple extended prepared"
        return
        ;;
    "run -P" | "run --progress" | "sweep -P" | "sweep --progress" | "calibrate -P" | "calibrate --progress" | "replay-run -P" | "replay-run --progress")
        _pgarena_value ""
        return
        ;;
    "run -o" | "run --output" | "replay-run -o" | "replay-run --output")
        _pgarena_value "@json"
        return
        ;;
    "run -R" | "run --rate" | "calibrate -R" | "calibrate --rate")
        _pgarena_value ""
        return
        ;;
    "run -L" | "run --latency-limit" | "sweep -L" | "sweep --latency-limit" | "calibrate -L" | "calibrate --latency-limit")
        _pgarena_value ""
        return
        ;;
    "run --warmup" | "sweep --warmup" | "calibrate --warmup" | "replay-run --warmup")
        _pgarena_value ""
        return
        ;;
    "run --max-tries" | "sweep --max-tries" | "calibrate --max-tries")
        _pgarena_value ""
        return
        ;;
    "run --timeout" | "sweep --timeout" | "calibrate --timeout" | "replay-run --timeout")
        _pgarena_value ""
        return
        ;;
    "run --label" | "calibrate --label" | "replay-run --label")
        _pgarena_value ""
        return
        ;;
    "run --report" | "sweep --report" | "calibrate --report" | "replay-run --report")
        _pgarena_value "@html"
        return
        ;;
    "run --metrics-listen" | "sweep --metrics-listen" | "calibrate --metrics-listen" | "replay-run --metrics-listen")
        _pgarena_value ""
        return
        ;;
    "run --seed" | "sweep --seed" | "calibrate --seed")
        _pgarena_value ""
        return
        ;;
    "run --analytic-clients" | "sweep --analytic-clients" | "calibrate --analytic-clients")
        _pgarena_value ""
        return
        ;;
    "run --queries" | "sweep --queries" | "calibrate --queries")
        _pgarena_value ""
        return
        ;;
    "run --capture" | "sweep --capture" | "calibrate --capture")
        _pgarena_value "@file"
        return
        ;;
    "run --speed" | "calibrate --speed")
        _pgarena_value ""
        return
        ;;
    "run --order" | "sweep --order" | "calibrate --order")
        _pgarena_value "capture session"
        return
        ;;
    "run --map-db" | "calibrate --map-db")
        _pgarena_value ""
        return
        ;;
    "run --map-user" | "calibrate --map-user")
        _pgarena_value ""
        return
        ;;
    "run --session-set" | "calibrate --session-set")
        _pgarena_value ""
        return
        ;;
    "run --reset-from" | "calibrate --reset-from")
        _pgarena_value ""
        return
        ;;
    "run --copy-from" | "sweep --copy-from" | "calibrate --copy-from")
        _pgarena_value ""
        return
        ;;
    "run --tables" | "sweep --tables" | "calibrate --tables")
        _pgarena_value ""
        return
        ;;
    "run --table-size" | "sweep --table-size" | "calibrate --table-size")
        _pgarena_value ""
        return
        ;;
    "run --warehouses" | "sweep --warehouses" | "calibrate --warehouses")
        _pgarena_value ""
        return
        ;;
    "run --mix" | "sweep --mix" | "calibrate --mix")
        _pgarena_value ""
        return
        ;;
    "run --show-script" | "sweep --show-script" | "calibrate --show-script")
        _pgarena_value "tpcb-like simple-update select-only"
        return
        ;;
    "run --log-prefix" | "sweep --log-prefix" | "calibrate --log-prefix")
        _pgarena_value ""
        return
        ;;
    "run --sampling-rate" | "sweep --sampling-rate" | "calibrate --sampling-rate")
        _pgarena_value ""
        return
        ;;
    "run --aggregate-interval" | "sweep --aggregate-interval" | "calibrate --aggregate-interval")
        _pgarena_value ""
        return
        ;;
    "run --agents" | "sweep --agents" | "calibrate --agents")
        _pgarena_value ""
        return
        ;;
    "run --agent-index" | "sweep --agent-index" | "calibrate --agent-index")
        _pgarena_value ""
        return
        ;;
    "run --run-id" | "sweep --run-id" | "calibrate --run-id")
        _pgarena_value ""
        return
        ;;
    "run --coord" | "sweep --coord" | "calibrate --coord")
        _pgarena_value ""
        return
        ;;
    "run --merged" | "sweep --merged" | "calibrate --merged")
        _pgarena_value ""
        return
        ;;
    "run --agent-wait" | "sweep --agent-wait" | "calibrate --agent-wait")
        _pgarena_value ""
        return
        ;;
    "run --sample-ms" | "sweep --sample-ms" | "calibrate --sample-ms" | "replay-run --sample-ms")
        _pgarena_value ""
        return
        ;;
    "run --meta" | "sweep --meta" | "calibrate --meta")
        _pgarena_value ""
        return
        ;;
    "run --store" | "sweep --store" | "calibrate --store")
        _pgarena_value ""
        return
        ;;
    "sweep -c" | "sweep --clients")
        _pgarena_value ""
        return
        ;;
    "sweep -R" | "sweep --rate")
        _pgarena_value ""
        return
        ;;
    "sweep -s" | "sweep --scale")
        _pgarena_value ""
        return
        ;;
    "sweep --set")
        _pgarena_value ""
        return
        ;;
    "sweep --setup")
        _pgarena_value ""
        return
        ;;
    "sweep --label")
        _pgarena_value ""
        return
        ;;
    "sweep --trials")
        _pgarena_value ""
        return
        ;;
    "sweep -j" | "sweep --jobs")
        _pgarena_value ""
        return
        ;;
    "sweep -o" | "sweep --output")
        _pgarena_value "@dir"
        return
        ;;
    "calibrate --trials")
        _pgarena_value ""
        return
        ;;
    "calibrate -T" | "calibrate --time")
        _pgarena_value ""
        return
        ;;
    "calibrate -o" | "calibrate --output")
        _pgarena_value "@json"
        return
        ;;
    "sweep --slo")
        _pgarena_value ""
        return
        ;;
    "sweep --compare")
        _pgarena_value "setup clients rate scale speed none"
        return
        ;;
    "sweep --replay")
        _pgarena_value "@file"
        return
        ;;
    "sweep --speed")
        _pgarena_value ""
        return
        ;;
    "replay-run --speed")
        _pgarena_value ""
        return
        ;;
    "replay-run --order")
        _pgarena_value "capture session"
        return
        ;;
    "sweep --map-db" | "replay-run --map-db")
        _pgarena_value ""
        return
        ;;
    "sweep --map-user" | "replay-run --map-user")
        _pgarena_value ""
        return
        ;;
    "sweep --session-set" | "replay-run --session-set")
        _pgarena_value ""
        return
        ;;
    "sweep --reset-from" | "replay-run --reset-from")
        _pgarena_value ""
        return
        ;;
    "replay-run --copy-from")
        _pgarena_value ""
        return
        ;;
    "compare --seed")
        _pgarena_value ""
        return
        ;;
    "compare --margin")
        _pgarena_value ""
        return
        ;;
    "compare --by")
        _pgarena_value "label workload.name workload.scale options.clients options.rate options.protocol server.version server.settings. meta."
        return
        ;;
    "report -o" | "report --output")
        _pgarena_value "@html"
        return
        ;;
    "report --title")
        _pgarena_value ""
        return
        ;;
    "report --history")
        _pgarena_value ""
        return
        ;;
    "check -w" | "check --workload")
        _pgarena_value "@workload"
        return
        ;;
    "check -j" | "check --jobs")
        _pgarena_value ""
        return
        ;;
    "merge -o" | "merge --output")
        _pgarena_value "@json"
        return
        ;;
    "store --into")
        _pgarena_value ""
        return
        ;;
    "history --where")
        _pgarena_value ""
        return
        ;;
    "history --by")
        _pgarena_value ""
        return
        ;;
    "history --order")
        _pgarena_value ""
        return
        ;;
    "history --metric")
        _pgarena_value ""
        return
        ;;
    "history --min-effect")
        _pgarena_value ""
        return
        ;;
    "history --seed")
        _pgarena_value ""
        return
        ;;
    "history --accept")
        _pgarena_value ""
        return
        ;;
    "replay-prepare -o" | "replay-prepare --output")
        _pgarena_value "@json"
        return
        ;;
    "replay-prepare --from")
        _pgarena_value ""
        return
        ;;
    "replay-prepare --to")
        _pgarena_value ""
        return
        ;;
    "replay-prepare --database")
        _pgarena_value ""
        return
        ;;
    "replay-prepare --user")
        _pgarena_value ""
        return
        ;;
    "replay-prepare --format")
        _pgarena_value ""
        return
        ;;
    "replay-prepare --prefix")
        _pgarena_value ""
        return
        ;;
    "replay-show --top")
        _pgarena_value ""
        return
        ;;
    "replay-capture -s" | "replay-capture --seconds")
        _pgarena_value ""
        return
        ;;
    "replay-capture -o" | "replay-capture --output")
        _pgarena_value "@json"
        return
        ;;
    "replay-record --listen")
        _pgarena_value ""
        return
        ;;
    "replay-record -s" | "replay-record --seconds")
        _pgarena_value ""
        return
        ;;
    "replay-record -o" | "replay-record --output")
        _pgarena_value ""
        return
        ;;
    "replay-record --tls-cert")
        _pgarena_value "@file"
        return
        ;;
    "replay-record --tls-key")
        _pgarena_value "@file"
        return
        ;;
    "replay-run --store")
        _pgarena_value ""
        return
        ;;
    "replay-run --meta")
        _pgarena_value ""
        return
        ;;
    "local --dir")
        _pgarena_value "@dir"
        return
        ;;
    "local --bin")
        _pgarena_value "@dir"
        return
        ;;
    "init -h" | "init --host" | "run -h" | "run --host" | "sweep -h" | "sweep --host" | "calibrate -h" | "calibrate --host" | "check -h" | "check --host" | "replay-capture -h" | "replay-capture --host" | "replay-record -h" | "replay-record --host" | "replay-run -h" | "replay-run --host")
        _pgarena_value ""
        return
        ;;
    "init -p" | "init --port" | "run -p" | "run --port" | "sweep -p" | "sweep --port" | "calibrate -p" | "calibrate --port" | "check -p" | "check --port" | "replay-capture -p" | "replay-capture --port" | "replay-record -p" | "replay-record --port" | "replay-run -p" | "replay-run --port")
        _pgarena_value ""
        return
        ;;
    "init -d" | "init --dbname" | "run -d" | "run --dbname" | "sweep -d" | "sweep --dbname" | "calibrate -d" | "calibrate --dbname" | "check -d" | "check --dbname" | "replay-capture -d" | "replay-capture --dbname" | "replay-run -d" | "replay-run --dbname")
        _pgarena_value ""
        return
        ;;
    "init -U" | "init --username" | "run -U" | "run --username" | "sweep -U" | "sweep --username" | "calibrate -U" | "calibrate --username" | "check -U" | "check --username" | "replay-capture -U" | "replay-capture --username" | "replay-run -U" | "replay-run --username")
        _pgarena_value ""
        return
        ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_pgarena_options "$key")" -- "$cur"))
        return
    fi
    case $cmd in
    show | compare | report)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
        ;;
    local)
        COMPREPLY=($(compgen -W "start stop status" -- "$cur"))
        ;;
    esac
} &&
    complete -F _pgarena pgarena
