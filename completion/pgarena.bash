# bash completion for pgarena                                       -*- shell-script -*-
# Commands and each command's options are read from pgarena's own --help output, so they
# follow the installed binary; workload and built-in script names likewise, with a fixed list
# as fallback.

_pgarena_help_words()
{
    # Options named in the usage lines and the option lines of a help text: -x or --long-name
    # after a space, bracket, bar or comma.
    "$1" "${@:2}" --help 2>/dev/null | grep -E '^(Usage:|CONN:| +\[| +-)' |
        grep -oE -- '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ ,|]//' | sort -u
}

_pgarena_commands()
{
    "$1" --help 2>/dev/null | sed -nE 's/^ +pgarena +([a-z][a-z-]*) .*/\1/p' | sort -u
}

_pgarena_workloads()
{
    local names
    names=$("$1" --help 2>/dev/null |
        awk '/^Workloads:/ { on = 1; sub(/^Workloads:/, ""); print; next }
             on && /^ / { print; next } { on = 0 }' |
        grep -oE '(^| )[a-z][a-z0-9]*(-[a-z0-9]+)*([ ,]|$)' | tr -d ' ,' | grep -v '^default$')
    [ -n "$names" ] || names="tpcb-like simple-update select-only oltp-read-write
        oltp-read-only oltp-point-select oltp-write-only"
    echo $names
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
    local prog=${words[0]} cmd="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        -*) ;;
        *) cmd=${words[i]}; break ;;
        esac
    done

    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "$(_pgarena_commands "$prog") --help --version" -- "$cur"))
        return
    fi

    # replay takes a subcommand first (its names from `pgarena replay --help`), then its options.
    local sub=""
    if [ "$cmd" = replay ]; then
        for ((i = i + 1; i < cword; i++)); do
            case ${words[i]} in -*) ;; *) sub=${words[i]}; break ;; esac
        done
        if [ -z "$sub" ]; then
            COMPREPLY=($(compgen -W "$("$prog" replay --help 2>/dev/null |
                sed -nE 's/^ +pgarena +replay +([a-z]+) .*/\1/p') --help" -- "$cur"))
            return
        fi
    fi

    case $prev in
    -w | --workload)
        COMPREPLY=($(compgen -W "$(_pgarena_workloads "$prog")" -- "$cur"))
        return
        ;;
    -b | --builtin)
        COMPREPLY=($(compgen -W "tpcb-like simple-update select-only list" -- "$cur"))
        return
        ;;
    --show-script)
        COMPREPLY=($(compgen -W "tpcb-like simple-update select-only" -- "$cur"))
        return
        ;;
    -M | --protocol)
        COMPREPLY=($(compgen -W "simple extended prepared" -- "$cur"))
        return
        ;;
    --partition-method)
        COMPREPLY=($(compgen -W "range hash" -- "$cur"))
        return
        ;;
    -f | --file)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    --replay)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    --dir)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -d -- "$cur"))
        return
        ;;
    --report)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -X '!*.html' -- "$cur") $(compgen -d -- "$cur"))
        return
        ;;
    -o | --output)
        compopt -o filenames 2>/dev/null
        if [ "$cmd" = sweep ]; then
            COMPREPLY=($(compgen -d -- "$cur"))
        elif [ "$cmd" = report ]; then
            COMPREPLY=($(compgen -f -X '!*.html' -- "$cur") $(compgen -d -- "$cur"))
        else
            COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
        fi
        return
        ;;
    -h | -p | -U | -c | -j | -s | -T | -t | -R | -P | -D | --define | --label | --seed | \
        --scale | --clients | --jobs | --time | --transactions | --rate | --progress | \
        --tables | --table-size | --partitions | --latency-limit | --warmup | --max-tries | \
        --timeout | --margin | --title | --setup | --set | --trials | --slo | -L | --client | \
        --random-seed | --log-prefix | --sampling-rate | --aggregate-interval | -I | \
        --init-steps | -F | --fillfactor | --tablespace | --index-tablespace | --speed | \
        --map-db | --map-user | --reset-from)
        return # a value of the user's
        ;;
    --by)
        COMPREPLY=($(compgen -W "label workload.name workload.scale options.clients options.rate options.protocol server.version server.settings. meta." -- "$cur"))
        return
        ;;
    --compare)
        COMPREPLY=($(compgen -W "setup clients rate scale speed none" -- "$cur"))
        return
        ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_pgarena_help_words "$prog" "$cmd" $sub) --help" -- "$cur"))
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
