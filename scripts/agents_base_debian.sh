#!/usr/bin/env bash
# A base image for `make agents-image` where Docker Hub cannot be reached (the project's CI
# machines reach only the PyPI, Debian and npm registries): Debian 12 from Debian's registry
# (debootstrap, as root) with node and rg, this host's Python interpreter (the image needs 3.11.5
# or newer; Debian 12's own python3 is 3.11.2) without its site-packages, and this host's CA
# bundle (pip inside the build trusts what the host trusts). About 3 minutes.
#
#   scripts/agents_base_debian.sh [TAG]     (default todo-bench-base:bookworm)
set -euo pipefail
tag=${1:-todo-bench-base:bookworm}
python=${PYTHON:-python3}
prefix=$("$python" -c 'import sys; print(sys.base_prefix)')
root=$(mktemp -d /var/tmp/todo-bench-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=ripgrep,nodejs,ca-certificates,procps \
  bookworm "$root" http://deb.debian.org/debian >/dev/null
tar -C "$prefix" --exclude='./lib/python3*/site-packages/*' -c . | tar -C "$root/usr/local" -x
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
chroot "$root" ldconfig
tar -C "$root" -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' - "$tag" >/dev/null
echo "agents-base: built $tag ($("$python" --version) from $prefix)"
