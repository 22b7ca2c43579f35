#!/usr/bin/env bash
# make demo: start `resellerd dev` (a temporary SQLite store with one funded account, accepting
# http:// webhooks on loopback; it prints the endpoint and key to export) and the example webhook
# receiver with a generated secret, apply the demo configuration through a dev_overrides CLI config (never the registry), print the
# outputs and the events the receiver verified, destroy, and stop both. Usage: run.sh BIN_DIR
# (holding resellerd, webhook-receiver and the provider).
set -euo pipefail

bin_dir=${1:?usage: run.sh BIN_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$root/.demo
rm -rf "$work" && mkdir -p "$work/tf"

# free_port PORT prints the first port from PORT on that nothing listens on.
free_port() {
	local port=$1
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	echo "$port"
}

server_pid="" receiver_pid=""
cleanup() {
	for pid in $receiver_pid $server_pid; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}
trap cleanup EXIT

port=$(free_port 18080)

if [ ! -x "$bin_dir/webhook-receiver" ]; then
	echo "==> building the example webhook receiver"
	(cd "$root" && go build -o "$bin_dir/webhook-receiver" ./examples/webhook-receiver)
fi

# start_dev ARGS...: starts resellerd dev with ARGS and waits for its env file; returns 2 when it
# refused its flags (exit 2: what --machines sandbox lacks on this host), 1 on any other failure.
start_dev() {
	rm -f "$work/reseller.env"
	"$bin_dir/resellerd" dev --listen "127.0.0.1:$port" --env-file "$work/reseller.env" \
		--deploy-delay 2s --credentials-delay 1s "$@" >"$work/resellerd.out" 2>"$work/resellerd.log" &
	server_pid=$!
	for _ in $(seq 1 300); do
		[ -s "$work/reseller.env" ] && return 0
		if ! kill -0 "$server_pid" 2>/dev/null; then
			local code=0
			wait "$server_pid" || code=$?
			server_pid=""
			[ "$code" -eq 2 ] && return 2
			cat "$work/resellerd.log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "resellerd dev did not start" >&2
	cat "$work/resellerd.log" >&2
	return 1
}

# Servers you can log into (--machines sandbox) need root, ip, iptables and busybox; where they
# cannot run, one line says why and the demo runs with simulated servers, as before.
machines=sim
if [ "$(id -u)" -eq 0 ]; then
	echo "==> starting resellerd dev on 127.0.0.1:$port with servers you can log into (--machines sandbox)"
	if start_dev --machines sandbox --machines-dir "$work/machines"; then
		machines=sandbox
	else
		[ $? -eq 2 ] || exit 1
		echo "==> no servers to log into here: $(grep -m1 -i 'machines' "$work/resellerd.log" || echo 'resellerd refused --machines sandbox')"
	fi
else
	echo "==> no servers to log into: --machines sandbox needs root (run make demo as root to log into the server)"
fi
if [ "$machines" = sim ]; then
	echo "==> starting resellerd dev on 127.0.0.1:$port (a temporary database with one funded account)"
	start_dev || exit 1
fi
# shellcheck source=/dev/null
. "$work/reseller.env" # RESELLER_ENDPOINT and RESELLER_API_KEY

# The receiver verifies every delivery with this secret; Terraform sends it as the write-only
# secret_wo, so it is never written to the plan or the state.
webhook_secret=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
receiver_port=$(free_port $((port + 1000)))
webhook_url="http://127.0.0.1:$receiver_port/hook"
echo "==> starting the webhook receiver on $webhook_url"
WEBHOOK_SECRET="$webhook_secret" "$bin_dir/webhook-receiver" --listen "127.0.0.1:$receiver_port" \
	>"$work/receiver.log" 2>"$work/receiver.err" &
receiver_pid=$!
for _ in $(seq 1 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$receiver_port") 2>/dev/null && break
	kill -0 "$receiver_pid" 2>/dev/null || { cat "$work/receiver.err" >&2; exit 1; }
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
export TF_VAR_webhook_url="$webhook_url" TF_VAR_webhook_secret="$webhook_secret"
tf() { terraform -chdir="$work/tf" "$@"; }

echo "==> terraform apply"
tf apply -auto-approve -input=false -no-color
echo "==> outputs"
tf output -no-color

if [ "$machines" = sandbox ]; then
	ip=$(tf output -json server | sed -n 's/.*"ipv4":"\([0-9.]*\)".*/\1/p')
	echo "==> logging into the server over SSH: ssh root@$ip"
	if command -v sshpass >/dev/null 2>&1; then
		SSHPASS=$(tf output -raw server_password) sshpass -e ssh -o StrictHostKeyChecking=no \
			-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "root@$ip" \
			'echo "$(hostname): $(. /etc/os-release && echo "$PRETTY_NAME"), $(($(ps -o pid | wc -l) - 1)) processes, apps installed: $(ls /etc/reseller/apps)"'
	else
		echo "(sshpass is not installed: apt-get install sshpass, or log in by hand with the password from 'terraform output -raw server_password')"
	fi
	echo "==> the server runs on the busybox image (fast); for a real Debian with python3, MariaDB and WordPress:"
	echo "    sudo resellerd image build --out /var/lib/resellerd/images/debian12 --apps mysql,wordpress"
	echo "    sudo resellerd dev --machines sandbox --machines-image-for 3=/var/lib/resellerd/images/debian12"
fi

# Deliveries other than the test ping are sent by a background worker: give them a moment.
for _ in $(seq 1 100); do
	grep -q '"event":"snapshot.created"' "$work/receiver.log" && break
	sleep 0.1
done
echo "==> webhook events the receiver verified"
grep '^verified ' "$work/receiver.log" || { echo "no verified events; receiver log:" >&2; cat "$work/receiver.err" >&2; exit 1; }
grep -q '"event":"ping"' "$work/receiver.log" || { echo "the test ping was not verified" >&2; exit 1; }
if grep -q 'refused a delivery' "$work/receiver.err"; then
	echo "the receiver refused deliveries:" >&2
	grep 'refused a delivery' "$work/receiver.err" >&2
	exit 1
fi

# The request journal of `resellerd dev` (GET /_dev/requests) keeps what the apply sent and got
# back, secrets redacted; the demo leaves it beside its state for a look.
curl -fsS "http://127.0.0.1:$port/_dev/requests?limit=1000" >"$work/journal.json" &&
	echo "==> the apply's requests, as the journal kept them: $work/journal.json"

echo "==> terraform destroy"
tf destroy -auto-approve -input=false -no-color >/dev/null
echo "==> done: the backend and the receiver stop now"
