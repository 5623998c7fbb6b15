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
# Every name here starts with _hs_: a variable of the commands' environment with the
# same name would otherwise take the spawner's value on its way to a command.
set -m
_hs_snapshot=$1 _hs_shlvl=$2 _hs_oldpwd_set=$3 _hs_oldpwd=$4
# The sweep kills every process it sees but the commands': it runs only in the sandbox's
# own pid namespace, where bwrap is pid 1 and the spawner pid 2 (on a host, pid 2 is a
# kernel thread), never anywhere else.
read -r _hs_init < /proc/1/comm
[[ $$ == 2 && $_hs_init == bwrap ]] && _hs_own_namespace=1 || _hs_own_namespace=0
exec 3>&1

_hs_child() {
  exec </dev/null >"$3" 2>"$4"
  printf 'S %s %s\\n' "$1" "$BASHPID" >&3
  exec 3>&-
  cd -- "$2" || exit 1
  if [[ $_hs_oldpwd_set == 1 ]]; then OLDPWD=$_hs_oldpwd; else unset OLDPWD; fi
  if [[ -n $_hs_shlvl ]]; then export SHLVL=$_hs_shlvl; else unset SHLVL; fi
  export BASH_ENV=$_hs_snapshot
  exec bash -c "$5"
}

_hs_runner() {
  local _hs_p _hs_s _hs_r _hs_long
  # A long command comes in a file: bash reads a pipe a byte at a time, a file by blocks.
  if [[ -n $6 ]]; then IFS= read -r -d '' _hs_long < "$6"; set -- "$1" "$2" "$3" "$4" "$_hs_long"; fi
  set -m
  # In bash's own words (not translated): how the command's shell ended.
  trap 'LC_ALL=C jobs -l >&3' CHLD
  _hs_child "$@" &
  _hs_p=$!
  wait "$_hs_p"; _hs_s=$?
  while kill -0 "$_hs_p" 2>/dev/null; do wait "$_hs_p"; _hs_s=$?; done
  # A wait cut short by the trap: the status once more, as bash kept it.
  wait "$_hs_p" 2>/dev/null && _hs_s=0 || { _hs_r=$?; ((_hs_r == 127)) || _hs_s=$_hs_r; }
  trap - CHLD
  printf 'E %s %s %s\\n' "$1" "$_hs_p" "$_hs_s" >&3
  _hs_sweep
}

_hs_sweep() {
  ((_hs_own_namespace)) || return
  local -A _hs_parent=()
  local _hs_f _hs_p _hs_q _hs_stat _hs_fields _hs_keep
  for _hs_f in /proc/[0-9]*/stat; do
    read -r _hs_stat < "$_hs_f" 2>/dev/null || continue
    _hs_p=\${_hs_f#/proc/}; _hs_p=\${_hs_p%/stat}
    read -r -a _hs_fields <<< "\${_hs_stat##*) }"
    _hs_parent[$_hs_p]=\${_hs_fields[1]}
  done
  for _hs_p in "\${!_hs_parent[@]}"; do
    [[ $_hs_p == 1 || $_hs_p == $$ ]] && continue
    _hs_keep=0 _hs_q=$_hs_p
    while [[ -n $_hs_q && $_hs_q != 0 && $_hs_q != 1 ]]; do
      if [[ \${_hs_parent[$_hs_q]} == $$ ]]; then _hs_keep=1; break; fi
      _hs_q=\${_hs_parent[$_hs_q]}
    done
    ((_hs_keep)) || kill -KILL "$_hs_p" 2>/dev/null
  done
}

while IFS= read -r -d '' _hs_kind; do
  if [[ $_hs_kind == R ]]; then
    IFS= read -r -d '' _hs_id; IFS= read -r -d '' _hs_dir; IFS= read -r -d '' _hs_out
    IFS= read -r -d '' _hs_err; IFS= read -r -d '' _hs_command; IFS= read -r -d '' _hs_file
    ( _hs_runner "$_hs_id" "$_hs_dir" "$_hs_out" "$_hs_err" "$_hs_command" "$_hs_file" ) &
  elif [[ $_hs_kind == K ]]; then
    IFS= read -r -d '' _hs_pgid; IFS= read -r -d '' _hs_signal
    kill -s "$_hs_signal" -- "-$_hs_pgid" 2>/dev/null
  fi
done
`
