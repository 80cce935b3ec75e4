# Sourced by scripts/make-image.sh and scripts/test-image.sh: sets PODMAN (podman and its global
# flags, as an array) and PODMAN_LIMITS (the --ulimit flags for build and run).
# On this kind of host crun refuses a hybrid cgroup v1/v2 layout ("cgroups in hybrid mode not
# supported, drop all controllers from cgroupv2") and runc does not, so runc is used when
# installed (PODMAN_RUNTIME overrides). podman asks the runtime for RLIMIT_NOFILE 1048576 and a
# large RLIMIT_NPROC, which a root without CAP_SYS_RESOURCE cannot set ("setrlimit
# `RLIMIT_NOFILE`: Operation not permitted"): the limits are given explicitly, at most this
# shell's hard limits.
podman_setup() {
  local runtime="${PODMAN_RUNTIME:-}" nofile nproc
  if [ -z "$runtime" ] && command -v runc >/dev/null; then runtime=runc; fi
  PODMAN=(podman)
  [ -z "$runtime" ] || PODMAN+=(--runtime "$runtime")
  nofile="$(ulimit -Hn)"
  nproc="$(ulimit -Hu)"
  if [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; then nofile=65536; fi
  if [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; then nproc=32768; fi
  PODMAN_LIMITS=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
}
