#!/bin/sh
# Makes the part of the container image's file system that a base image would otherwise bring,
# from the JDK running the build, for `mvn package -Pimage` (Linux with glibc only):
#   OUT/opt/java       a Java runtime made by jlink with the modules the CLI uses;
#   OUT/lib*, OUT/usr  the shared libraries that runtime loads (glibc, libstdc++, zlib...), copied
#                      from this machine at the paths its dynamic loader expects;
#   OUT/tmp            the scratch directory of the JVM and the Kafka client;
#   OUT/proc           where the container runtime mounts /proc, which the loader reads.
# Usage: runtime.sh OUT JDK_HOME
set -eu
out=$1
jdk=$2

if [ "$(uname -s)" != Linux ] || ! command -v ldd >/dev/null 2>&1; then
  echo "runtime.sh: building the image needs Linux with glibc and ldd (it copies this machine's shared libraries)" >&2
  exit 1
fi
if [ ! -x "$jdk/bin/jlink" ] || [ ! -d "$jdk/jmods" ]; then
  echo "runtime.sh: $jdk has no bin/jlink or jmods; run Maven on a full JDK 17" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out/opt" "$out/tmp" "$out/proc"

# The modules jdeps finds in target/txoutbox.jar (java.desktop for java.beans, which jOOQ, Jackson
# and Micrometer touch), plus those loaded only as services or by name: EC and other TLS
# algorithms, DNS for JNDI, every charset a database may use.
"$jdk/bin/jlink" \
  --add-modules java.base,java.compiler,java.desktop,java.naming,java.security.jgss,java.security.sasl,java.sql,jdk.httpserver,jdk.management,jdk.unsupported,jdk.crypto.ec,jdk.naming.dns,jdk.charsets \
  --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$out/opt/java"

# The CA certificates: Debian's JDK links lib/security/cacerts to a system file, so the runtime
# gets the file itself.
cacerts=$out/opt/java/lib/security/cacerts
if [ -h "$cacerts" ] || [ ! -s "$cacerts" ]; then
  rm -f "$cacerts"
  cp -L "$jdk/lib/security/cacerts" "$cacerts"
fi

# The shared libraries of every executable and library of the runtime, except those of AWT's
# display, font, sound and image code, which a headless relay never loads (they would bring X11).
find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper \) |
  grep -Ev '/lib(awt_xawt|jawt|fontmanager|splashscreen|jsound|lcms|javajpeg|mlib_image)\.so$' |
  while read -r elf; do
    ldd "$elf" 2>/dev/null || true
  done |
  sed -n 's/^[[:space:]]*\([^[:space:]]*\) => \(\/[^[:space:]]*\) .*/\2/p; s/^[[:space:]]*\(\/[^[:space:]]*\) (.*/\1/p' |
  grep -v "^$out" | sort -u |
  while read -r lib; do
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
  done

# The runtime must start with nothing but what was copied.
if [ ! -e "$out/lib64/ld-linux-x86-64.so.2" ] && [ ! -e "$out/lib/ld-linux-aarch64.so.1" ]; then
  echo "runtime.sh: no dynamic loader among the copied libraries" >&2
  exit 1
fi
echo "runtime.sh: $(du -sh "$out" | cut -f1) in $out"
