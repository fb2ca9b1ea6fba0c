# Sourced by the setup scripts: `phase NAME COMMAND...` runs a command, then prints how long it
# took; `phases_summary` prints every phase's duration on one line, and `ccache_zero` /
# `ccache_report` print the build's ccache hits (a second build of the same tree should hit).
_phase_names=()
_phase_seconds=()
_phase_script=$(basename "$0" .sh)

phase() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  _phase_names+=("$name")
  _phase_seconds+=($((SECONDS - start)))
  echo "${_phase_script}: ${name}: $((SECONDS - start)) s"
  return $status
}

phases_summary() {
  local line="" i
  for i in "${!_phase_names[@]}"; do
    line+="${line:+, }${_phase_names[$i]} ${_phase_seconds[$i]} s"
  done
  echo "${_phase_script}: phases: ${line}"
}

ccache_zero() {
  command -v ccache > /dev/null 2>&1 && ccache -z > /dev/null 2>&1 || true
}

ccache_report() {
  command -v ccache > /dev/null 2>&1 || return 0
  local hits
  hits=$(ccache -s 2> /dev/null | grep -m1 -E '^ *Hits:' | sed 's/^ *//') || true
  # ccache prints no Hits line when nothing was compiled (an up-to-date build).
  echo "${_phase_script}: ccache ${hits:-(nothing compiled)}"
  return 0
}
