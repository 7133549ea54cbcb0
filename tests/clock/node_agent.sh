#!/bin/sh
# node_agent.sh - Open MPI's rsh launcher agent for the simulated nodes of
# multinode.py (--mca plm_rsh_agent): "node_agent.sh [ssh options] HOST
# COMMAND..." runs COMMAND inside the network, UTS and time namespaces of
# the node whose address is HOST, as ssh would on a real node. The map
# from address to the pid of the process holding that node's namespaces is
# $SP_NODES_MAP ("ADDRESS PID" lines).
while [ $# -gt 0 ]; do
  case "$1" in
    -*) shift ;; # ssh-style options Open MPI may add
    *) break ;;
  esac
done
host=$1
shift
pid=$(awk -v h="$host" '$1 == h { print $2 }' "$SP_NODES_MAP")
if [ -z "$pid" ]; then
  echo "node_agent.sh: no simulated node '$host' in $SP_NODES_MAP" >&2
  exit 255
fi
exec nsenter -t "$pid" -n -u -T sh -c "$*"
