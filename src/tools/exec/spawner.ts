// The spawner: the one process a warm sandbox starts (`bash --noprofile --norc -c`), which
// starts the session's commands inside the sandbox's namespaces. It reads requests from its
// stdin, NUL-separated fields:
//   R id dir out err command file   start `command` (or the one in `file`) in `dir`,
//                                   stdout and stderr to the FIFOs
//   K pgid signal              signal a command's process group
// and answers on its stdout, a line each:
//   S id pid                   the command has its outputs open and is starting as `pid`
//   [n]+ pid status text       `jobs -l` lines: how it ended (Exit n, Done, or a signal's name)
//   E id pid status            its shell ended with `status` (128 + n after signal n)
// Each command has a runner, a subshell of the spawner that starts it in a process group of
// its own (job control) and waits for it. When the command's shell ends, its runner kills at
// once what it left behind, in its group or not (a process that ran `setsid`): every process
// of the sandbox but the spawner, the runners and their descendants (the running commands).
// So a command leaves nothing behind, as when each had a sandbox of its own, whose end took
// every process in it. Its arguments: the file BASH_ENV names for commands (the snapshot),
// SHLVL as a command starts with it (empty: unset), and whether OLDPWD is set (1) and to what.
export const SPAWNER_SCRIPT = `
set -m
snapshot=$1 shlvl=$2 oldpwd_set=$3 oldpwd=$4
# The sweep kills every process it sees but the commands': it runs only in the sandbox's
# own pid namespace, where bwrap is pid 1 and the spawner pid 2 (on a host, pid 2 is a
# kernel thread), never anywhere else.
read -r init < /proc/1/comm
[[ $$ == 2 && $init == bwrap ]] && own_namespace=1 || own_namespace=0
exec 3>&1

child() {
  exec </dev/null >"$3" 2>"$4"
  printf 'S %s %s\\n' "$1" "$BASHPID" >&3
  exec 3>&-
  cd -- "$2" || exit 1
  if [[ $oldpwd_set == 1 ]]; then OLDPWD=$oldpwd; else unset OLDPWD; fi
  if [[ -n $shlvl ]]; then export SHLVL=$shlvl; else unset SHLVL; fi
  export BASH_ENV=$snapshot
  exec bash -c "$5"
}

runner() {
  local p s r
  # A long command comes in a file: bash reads a pipe a byte at a time, a file by blocks.
  if [[ -n $6 ]]; then IFS= read -r -d '' command < "$6"; set -- "$1" "$2" "$3" "$4" "$command"; fi
  set -m
  # In bash's own words (not translated): how the command's shell ended.
  trap 'LC_ALL=C jobs -l >&3' CHLD
  child "$@" &
  p=$!
  wait "$p"; s=$?
  while kill -0 "$p" 2>/dev/null; do wait "$p"; s=$?; done
  # A wait cut short by the trap: the status once more, as bash kept it.
  wait "$p" 2>/dev/null && s=0 || { r=$?; ((r == 127)) || s=$r; }
  trap - CHLD
  printf 'E %s %s %s\\n' "$1" "$p" "$s" >&3
  sweep
}

sweep() {
  ((own_namespace)) || return
  local -A parent=()
  local f p q stat fields keep
  for f in /proc/[0-9]*/stat; do
    read -r stat < "$f" 2>/dev/null || continue
    p=\${f#/proc/}; p=\${p%/stat}
    read -r -a fields <<< "\${stat##*) }"
    parent[$p]=\${fields[1]}
  done
  for p in "\${!parent[@]}"; do
    [[ $p == 1 || $p == $$ ]] && continue
    keep=0 q=$p
    while [[ -n $q && $q != 0 && $q != 1 ]]; do
      if [[ \${parent[$q]} == $$ ]]; then keep=1; break; fi
      q=\${parent[$q]}
    done
    ((keep)) || kill -KILL "$p" 2>/dev/null
  done
}

while IFS= read -r -d '' kind; do
  if [[ $kind == R ]]; then
    IFS= read -r -d '' id; IFS= read -r -d '' dir; IFS= read -r -d '' out
    IFS= read -r -d '' err; IFS= read -r -d '' command; IFS= read -r -d '' file
    ( runner "$id" "$dir" "$out" "$err" "$command" "$file" ) &
  elif [[ $kind == K ]]; then
    IFS= read -r -d '' pgid; IFS= read -r -d '' signal
    kill -s "$signal" -- "-$pgid" 2>/dev/null
  fi
done
`
