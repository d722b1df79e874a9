# bash completion of collsel, collsel-replay and collsel-bench (installed
# into share/bash-completion/completions).  Commands and options are read
# from the programs' own --help, so they never fall behind.
_collsel_opts() { "$@" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }

_collsel()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} i
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then # the application and its arguments
            if ((i == COMP_CWORD - 1)); then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return
        fi
    done
    if [[ $prog == collsel ]] && ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | awk '/^  [a-z]/ { print $1 }') --help --version" -- "$cur"))
    elif [[ $cur == -* ]]; then
        if [[ $prog == collsel ]]; then
            COMPREPLY=($(compgen -W "$(_collsel_opts "$prog" "${COMP_WORDS[1]}")" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_collsel_opts "$prog")" -- "$cur"))
        fi
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _collsel collsel collsel-replay collsel-replay-mpich collsel-bench collsel-bench-mpich
