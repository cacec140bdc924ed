#!/bin/bash
# The container image's relay from a fresh start, with and without its trained class-data sharing
# archive, side by side in one run: each round fills the outbox with N events, starts the image's
# entrypoint (unpacked, run with unshare + chroot as a container runtime would) as a relay to
# RabbitMQ, and records the time to the first published event, the time until all N are published,
# and the JVM's CPU (user + system) over the run. The reference is the same image with
# -Xshare:off (no archive at all, as the image was before it had one); rounds are interleaved.
#
# Usage (as root, or where unshare can map a user namespace), after `mvn -B package -Pimage`:
#   benchmarks/image-start.sh outbox-cli/target/txoutbox-image.tar [ROUNDS] [EVENTS]
# Needs PostgreSQL at 127.0.0.1:5432 (user postgres, trust; the script creates database
# txoutbox_image_start) and RabbitMQ at 127.0.0.1:5672 (guest), psql and a JDK on the PATH.
set -euo pipefail
tar=$(realpath "$1")
rounds=${2:-5}
events=${3:-30000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$work/image" "$root/dev"
tar -xf "$tar" -C "$work/image"
manifest=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['manifests'][0]['digest'][7:])" "$work/image/index.json")
for layer in $(python3 -c "import json,sys; print(' '.join(l['digest'][7:] for l in json.load(open(sys.argv[1]))['layers']))" "$work/image/blobs/sha256/$manifest"); do
  tar --warning=no-unknown-keyword -xzf "$work/image/blobs/sha256/$layer" -C "$root"
done

db=txoutbox_image_start
psql="psql -h 127.0.0.1 -U postgres -qAt"
$psql -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
url="jdbc:postgresql://127.0.0.1:5432/$db?user=postgres"

# The queue the relay publishes to (default exchange, routing key = event type), purged per round.
cat >"$work/Queue.java" <<'EOF'
import com.rabbitmq.client.ConnectionFactory;
public class Queue {
  public static void main(String[] args) throws Exception {
    ConnectionFactory f = new ConnectionFactory();
    f.setHost("127.0.0.1");
    try (var c = f.newConnection(); var ch = c.createChannel()) {
      ch.queueDeclare("image.start", false, false, false, null);
      ch.queuePurge("image.start");
    }
  }
}
EOF
amqp=$(ls "$root"/app/libs/amqp-client-*.jar)
slf4j=$(ls "$root"/app/libs/slf4j-api-*.jar)

# relay.sh JVM_OPTION...: the image's java with those options, then its class path, main class
# and the relay's arguments, in the unpacked image.
cat >"$work/relay.sh" <<EOF
#!/bin/sh
exec unshare --mount --pid --fork --kill-child --mount-proc="$root/proc" \\
  sh -c 'mount --rbind /dev "\$0/dev" && exec chroot --userspec=65532:65532 "\$0" "\$@"' "$root" \\
  /opt/java/bin/java "\$@" -cp @/app/jib-classpath-file @/app/jib-main-class-file --jdbc-url '$url' \\
  relay --publisher rabbit --amqp-uri amqp://guest:guest@127.0.0.1:5672/%2F --exchange ''
EOF
chmod +x "$work/relay.sh"
unshare --mount --pid --fork --kill-child --mount-proc="$root/proc" \
  sh -c 'mount --rbind /dev "$0/dev" && exec chroot --userspec=65532:65532 "$0" "$@"' "$root" \
  /opt/java/bin/java -cp @/app/jib-classpath-file @/app/jib-main-class-file --jdbc-url "$url" \
  migrate >/dev/null 2>&1

# run LABEL JVM_OPTION...: one round; prints "LABEL first_ms drained_ms cpu_s".
run() {
  local label=$1
  shift
  $psql -d $db -c "TRUNCATE outbox_events" -c "INSERT INTO outbox_events (id, aggregate_type, aggregate_id, event_type, payload) SELECT gen_random_uuid(), 'order', (g % 100)::text, 'image.start', jsonb_build_object('n', g) FROM generate_series(1, $events) g" -c "VACUUM ANALYZE outbox_events" >/dev/null
  java -cp "$amqp:$slf4j" "$work/Queue.java" >/dev/null 2>&1
  local start first="" drained="" now n
  start=$(date +%s%N)
  /usr/bin/time -o "$work/time" -f "%U %S" "$work/relay.sh" "$@" >"$work/log" 2>&1 &
  local pid=$!
  while true; do
    n=$($psql -d $db -c "SELECT count(*) FROM outbox_events WHERE processed_at IS NOT NULL")
    now=$(date +%s%N)
    if [ -z "$first" ] && [ "$n" -gt 0 ]; then first=$(((now - start) / 1000000)); fi
    if [ "$n" -ge "$events" ]; then drained=$(((now - start) / 1000000)); break; fi
    if ! kill -0 $pid 2>/dev/null; then echo "$label: the relay exited early:" >&2; tail -5 "$work/log" >&2; exit 1; fi
    sleep 0.05
  done
  pkill -TERM -f "^/opt/java/bin/java .*$db" || true
  wait $pid || true
  echo "$label $first $drained $(tail -1 "$work/time" | awk '{print $1 + $2}')"
}

echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $events events per round, $rounds rounds"
echo "# label first_publish_ms all_published_ms jvm_cpu_s"
for r in $(seq "$rounds"); do
  run no-archive -Xshare:off
  run trained-archive -Xshare:on -XX:SharedArchiveFile=/opt/java/lib/server/txoutbox.jsa
done | tee "$work/rounds"
echo "# medians, and the trained archive's ratio to no archive"
python3 - "$work/rounds" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith('#')]
med = {}
for label in ('no-archive', 'trained-archive'):
    cols = [[float(r[i]) for r in rows if r[0] == label] for i in (1, 2, 3)]
    med[label] = [statistics.median(c) for c in cols]
    print(f"{label}: first publish {med[label][0]:.0f} ms, all published {med[label][1]:.0f} ms, JVM CPU {med[label][2]:.2f} s")
a, b = med['trained-archive'], med['no-archive']
print(f"ratio trained/no-archive: first publish {a[0]/b[0]:.2f}x, all published {a[1]/b[1]:.2f}x, JVM CPU {a[2]/b[2]:.2f}x")
EOF
