#!/usr/bin/env bash
# The secrets of the one-machine deployment (deploy/single-host/manaforge.yaml), made on the host before its first
# `podman kube play` (docs/deployment.md, "One machine"), as root:
#   deploy/single-host/secrets.sh [--replace] [NAME-OR-ADDRESS...]
# - the podman secret "manaforge-secrets": the Redis password, REDIS_URL with it, and the operator key
#   (MANAFORGE_OPERATOR_KEY: the Admin calls and the console, docs/operations.md); the pod reads them as
#   environment variables (secretKeyRef);
# - TLS: a certificate authority of this deployment and a server certificate it signs for localhost, 127.0.0.1 and
#   every NAME-OR-ADDRESS given (the names players connect to: the machine's DNS name, its address), ECDSA P-256,
#   in $MANAFORGE_SECRETS_DIR/tls (default /etc/manaforge/tls), which the pod mounts read-only; readable by the
#   containers' user (uid 10001) and root only;
# - copies for the operator in $MANAFORGE_SECRETS_DIR (root only): ca.crt (give it to players' clients), ca.key (to
#   sign a new certificate later), operator-key, redis-url (for one-off containers in the pod: the migration and
#   backups, docs/operations.md).
# --replace makes new ones over existing ones; then play the pod again (`podman kube play --replace ...`).
# (Why the TLS files are not in the podman secret too: podman 4.3's secret volumes write a Secret's data still in
# base64, so the files would not be PEM.)
set -euo pipefail

NAME=manaforge-secrets
USER_ID=10001  # the Manaforge image's user (deploy/Dockerfile)
replace=0
if [[ ${1:-} == --replace ]]; then
    replace=1
    shift
fi
out=${MANAFORGE_SECRETS_DIR:-/etc/manaforge}

if podman secret inspect "$NAME" >/dev/null 2>&1; then
    if ((!replace)); then
        echo "secrets.sh: the podman secret $NAME exists already (--replace to make new ones)" >&2
        exit 1
    fi
    podman secret rm "$NAME" >/dev/null
fi
command -v openssl >/dev/null || { echo "secrets.sh: openssl is needed (Debian: apt-get install openssl)" >&2; exit 1; }

umask 077
mkdir -p "$out/tls"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

san="DNS:localhost,IP:127.0.0.1"
for name in "$@"; do
    if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then san+=",IP:$name"; else san+=",DNS:$name"; fi
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj "/CN=Manaforge deployment CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=${1:-localhost}" \
    -keyout "$work/tls.key" -out "$work/tls.csr" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n' \
    "$san" >"$work/extensions"
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -days 825 \
    -extfile "$work/extensions" -out "$work/tls.crt" 2>/dev/null

password=$(openssl rand -hex 24)  # letters and digits only: it goes into REDIS_URL unescaped
printf %s "$(openssl rand -hex 24)" >"$work/operator-key"
printf 'redis://default:%s@127.0.0.1:6379/0' "$password" >"$work/redis-url"  # redis-cli -u needs the user
# A podman secret that secretKeyRef reads: a JSON object of base64 values.
b64() { base64 -w0 "$@"; }
printf '{"redis-password": "%s", "redis-url": "%s", "operator-key": "%s"}' \
    "$(printf %s "$password" | b64)" "$(b64 "$work/redis-url")" "$(b64 "$work/operator-key")" \
    | podman secret create "$NAME" - >/dev/null

cp "$work/ca.crt" "$work/ca.key" "$work/operator-key" "$work/redis-url" "$out/"
cp "$work/tls.crt" "$work/tls.key" "$work/ca.crt" "$out/tls/"
chown -R "$USER_ID:$USER_ID" "$out/tls"
chmod 500 "$out/tls"
chmod 400 "$out/tls/"*
echo "podman secret $NAME made (the Redis password, REDIS_URL, the operator key)"
echo "TLS in $out/tls for: ${san//DNS:/}; the CA players' clients trust: $out/ca.crt"
echo "the operator key: $out/operator-key; REDIS_URL for one-off containers in the pod: $out/redis-url"
