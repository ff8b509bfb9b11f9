# shellcheck shell=bash
# A RAUC service of the tests' own, sourced by Tests/update: `rauc install` and `rauc status` are clients of
# the service on the system D-Bus, so the service gets a D-Bus daemon of its own (a socket in the work
# directory, reached through DBUS_SYSTEM_BUS_ADDRESS) and the throwaway system.conf the test wrote.
#   start_rauc_service DIR CONF BOOTED [PATH-PREFIX]   BOOTED: the bootname RAUC takes as booted
#   stop_rauc_service                                   (start_rauc_service's caller's EXIT trap calls it)
#   file_slots DIR      system.conf's two root slots, A and B, on the files DIR/slot-a and DIR/slot-b
# PATH-PREFIX: a directory searched first for the programs the service runs (fw_printenv, fw_setenv).
rauc_bus_pid="" rauc_service_pid=""
file_slots() {
    printf '[slot.rootfs.%s]\ndevice=%s/slot-%s\ntype=ext4\nbootname=%s\n' 0 "$1" a A 1 "$1" b B
}
start_rauc_service() {
    local dir=$1 conf=$2 booted=$3 path_prefix=${4:-}
    cat >"$dir/bus.conf" <<BUS
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>custom</type>
  <listen>unix:path=$dir/bus.socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
</busconfig>
BUS
    export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$dir/bus.socket
    dbus-daemon --config-file="$dir/bus.conf" --nofork >"$dir/bus.log" 2>&1 &
    rauc_bus_pid=$!
    for _ in $(seq 100); do [[ -S $dir/bus.socket ]] && break; sleep 0.1; done
    PATH=${path_prefix:+$path_prefix:}$PATH rauc --conf="$conf" --override-boot-slot="$booted" service >"$dir/service.log" 2>&1 &
    rauc_service_pid=$!
    for _ in $(seq 100); do rauc status >/dev/null 2>&1 && return 0; sleep 0.2; done
    echo "rauc-service: the service did not answer in 20 s: $(tail -3 "$dir/service.log")" >&2
    return 1
}
stop_rauc_service() {
    [[ -n $rauc_service_pid ]] && kill "$rauc_service_pid" 2>/dev/null && wait "$rauc_service_pid" 2>/dev/null
    [[ -n $rauc_bus_pid ]] && kill "$rauc_bus_pid" 2>/dev/null && wait "$rauc_bus_pid" 2>/dev/null
    rauc_service_pid="" rauc_bus_pid=""
}
