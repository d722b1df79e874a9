#!/bin/bash
# One source for every help text, held by a test: help.sh SRC COLLSEL REPLAY BENCH
#  - the README's command table names the commands of `collsel --help`, and
#    every flag a row shows is in that command's --help;
#  - the README's environment table is the environment section of
#    `collsel --help` (printed from shim/config.c's table): the same
#    VARIABLE=VALUE entries;
#  - every flag a command parses (each "--flag" literal of its source) is in
#    its --help (collsel's commands, collsel-replay and collsel-bench).
src=${1:?usage: help.sh SRC COLLSEL REPLAY BENCH} collsel=$2 replay=$3
bench=${4:?usage: help.sh SRC COLLSEL REPLAY BENCH}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
help=$("$collsel" --help) || bad "collsel --help failed"
cmds=$(echo "$help" | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' | sort)
[ -n "$cmds" ] || bad "collsel --help lists no command"

# The README's tables: the rows after the header `| command |` and `| variable |`.
table() { awk -v h="$1" 'index($0, "| " h " |") == 1 { on = 1; getline; next } on && !/^\|/ { exit } on' "$src/README.md"; }
readme_cmds=$(table command | grep -o '`collsel [a-z]*' | awk '{ print $2 }' | grep -v '^$' | sort -u)
[ "$cmds" = "$readme_cmds" ] || bad "README command table vs collsel --help:
$(diff <(echo "$readme_cmds") <(echo "$cmds"))"
# each `collsel CMD ...` span of the first cell: its flags in CMD's --help
while IFS= read -r span; do
    c=$(echo "$span" | awk '{ print $2 }')
    h=$("$collsel" "$c" --help 2>&1) || { bad "collsel $c --help failed"; continue; }
    for f in $(echo "$span" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        echo "$h" | grep -q -- "$f\\b" || bad "README shows collsel $c $f, its --help does not"
    done
done < <(table command | awk -F'|' '{ print $2 }' | grep -o '`collsel [a-z][^`]*`')
env_help=$(echo "$help" | grep -o '^  COLLSEL_[A-Z_]*=[^ ]*' | sed 's/^  //' | sort)
env_readme=$(table variable | awk -F'|' '{ print $2 }' | grep -o '`COLLSEL_[A-Z_]*=[^`]*`' | tr -d '`' | sort)
[ -n "$env_help" ] || bad "collsel --help has no environment section"
[ "$env_help" = "$env_readme" ] || bad "README environment table vs collsel --help:
$(diff <(echo "$env_readme") <(echo "$env_help"))"

# Every flag parsed is documented.  The command -> source files it parses in.
parsed() { # strcmp(ARG, "--flag"), an option table's {"--flag", and getopt_long's {"flag", ..._argument
    { cat "$@" | grep -o 'str[n]*cmp([^,]*, *"--[a-z][a-z0-9-]*' | grep -o -- '--[a-z][a-z0-9-]*'
      cat "$@" | grep -o '{"--[a-z][a-z0-9-]*",' | grep -o -- '--[a-z][a-z0-9-]*'
      cat "$@" | grep -o '{"[a-z][a-z0-9-]*", *[a-z]*_argument' | sed 's/^{"/--/; s/".*//'; } | sort -u
}
check_flags() { # NAME HELP-TEXT FILES...
    local name=$1 h=$2
    shift 2
    for f in $(parsed "$@"); do
        echo "$h" | grep -q -- "$f\\b" || bad "$name parses $f, its --help does not say it"
    done
}
declare -A files=(
    [autotune]="cli/autotune.c" [exec]="shim/exec_cmd.c" [show]="record/show.c record/compare.c"
    [methods]="cli/methods_cmd.c" [tune]="select/cmd_tune.c" [compare]="select/render/cmd_compare.c"
    [tree]="select/cmd_tree.c" [penalty]="select/cmd_penalty.c" [map]="select/render/map_cmd.c"
    [codegen]="select/render/codegen.c" [export]="select/render/export.c")
for c in $cmds; do
    [ -n "${files[$c]}" ] || { bad "help.sh: no source files for command $c"; continue; }
    check_flags "collsel $c" "$("$collsel" "$c" --help 2>&1)" $(printf "$src/%s " ${files[$c]})
done
check_flags collsel-replay "$("$replay" --help 2>&1)" "$src/replay/replay.c" "$src/replay/spec.c"
# collsel-bench: --help before MPI_Init (no launcher needed)
bh=$("$bench" --help 2>&1) || bad "collsel-bench --help failed"
echo "$bh" | grep -q "^usage: .*collsel-bench" || bad "collsel-bench --help prints no usage line"
check_flags collsel-bench "$bh" "$src/replay/bench.c"
[ "$fail" = 0 ] && echo "help texts: ok"
exit $fail
