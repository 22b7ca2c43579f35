#!/usr/bin/env bash
# make demo: start resellerd on a fresh embedded SQLite store, create a funded account, apply the
# demo configuration through a dev_overrides CLI config (never the registry), print the outputs,
# destroy, and stop the backend. Usage: run.sh BIN_DIR (holding resellerd and the provider).
set -euo pipefail

bin_dir=${1:?usage: run.sh BIN_DIR}
here=$(cd "$(dirname "$0")" && pwd)
work=$(cd "$here/../.." && pwd)/.demo
rm -rf "$work" && mkdir -p "$work/tf"

port=18080
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
base="http://127.0.0.1:$port/api/v1"
db="$work/reseller.db"

echo "==> creating a funded account"
account=$("$bin_dir/resellerd" account create --db "$db" --balance 100 --language en)
api_key=$(printf '%s' "$account" | sed -n 's/.*"api_key": *"\([^"]*\)".*/\1/p')
[ -n "$api_key" ] || { echo "could not read the api key from: $account" >&2; exit 1; }

echo "==> starting resellerd on $base"
"$bin_dir/resellerd" serve --listen "127.0.0.1:$port" --db "$db" \
	--deploy-delay 2s --credentials-delay 1s >"$work/resellerd.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
	curl -fsS "$base/health" >/dev/null 2>&1 && break
	kill -0 "$server_pid" 2>/dev/null || { cat "$work/resellerd.log" >&2; exit 1; }
	sleep 0.1
done

cat >"$work/terraform.rc" <<RC
provider_installation {
  dev_overrides {
    "reseller/reseller" = "$bin_dir"
  }
  direct {}
}
RC
cp "$here"/*.tf "$work/tf/"

export TF_CLI_CONFIG_FILE="$work/terraform.rc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
export RESELLER_ENDPOINT="$base" RESELLER_API_KEY="$api_key"
tf() { terraform -chdir="$work/tf" "$@"; }

echo "==> terraform apply"
tf apply -auto-approve -input=false -no-color
echo "==> outputs"
tf output -no-color
echo "==> terraform destroy"
tf destroy -auto-approve -input=false -no-color >/dev/null
echo "==> done: the backend stops now"
