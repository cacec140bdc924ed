package dev.txoutbox.itcompat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.inbox.OutboxInbox;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.wal.WalRelay;
import java.io.IOException;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jooq.Constants;
import org.junit.jupiter.api.Test;

/**
 * The jOOQ on this module's test class path is the one the build asked for (the parent's, or a
 * jooq-3.20 / jooq-3.21 profile's), and it links with the txoutbox classes built against the
 * parent's: every jOOQ method or constructor their byte code calls exists in it, including those on
 * paths no behaviour test reaches (such as the generated tables' {@code whereExists}).
 */
class JooqRuntimeTest {

  /** The jOOQ version the pom resolved: a system property set by the module's pom. */
  static final String JOOQ_PROPERTY = "compat.jooq";

  /** A call in {@code javap -c} output: {@code Method org/jooq/impl/DSL.exists:(Lorg/jooq/…;)…}. */
  private static final Pattern JOOQ_CALL =
      Pattern.compile("Method (org/jooq/[\\w/$]+)\\.(\"?[\\w<>$]+\"?):(\\([^\\s]*)");

  @Test
  void theSuiteRunsOnTheJooqVersionTheBuildNames() throws ReflectiveOperationException {
    assertThat(runtimeVersion())
        .as("jOOQ on the class path, on Java %s", Runtime.version())
        .isEqualTo(System.getProperty(JOOQ_PROPERTY));
  }

  @Test
  void everyJooqMethodTheTxoutboxClassesCallExistsInTheJooqOnTheClassPath() throws Exception {
    Set<String> calls = new TreeSet<>();
    for (Class<?> module :
        List.of(OutboxSchema.class, Outbox.class, OutboxInbox.class, WalRelay.class)) {
      calls.addAll(
          jooqCalls(Path.of(module.getProtectionDomain().getCodeSource().getLocation().toURI())));
    }
    List<String> missing = new ArrayList<>();
    for (String call : calls) {
      if (!resolves(call)) {
        missing.add(call);
      }
    }

    assertThat(calls).hasSizeGreaterThan(100);
    assertThat(missing)
        .as("jOOQ %s lacks these calls of %d", runtimeVersion(), calls.size())
        .isEmpty();
  }

  /**
   * The loaded jOOQ's version, read at run time: {@code Constants.VERSION} is a constant the
   * compiler copies into this class, so it would give the version this class was compiled with.
   */
  private static Object runtimeVersion() throws ReflectiveOperationException {
    return Constants.class.getField("VERSION").get(null);
  }

  /** The jOOQ calls in the classes of a jar or a classes directory, read with the JDK's javap. */
  private static Set<String> jooqCalls(Path location) throws IOException, InterruptedException {
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location)) {
        files
            .filter(f -> f.toString().endsWith(".class") && !f.endsWith("module-info.class"))
            .forEach(f -> names.add(className(location.relativize(f).toString())));
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        jar.stream()
            .map(e -> e.getName())
            .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class"))
            .forEach(n -> names.add(className(n)));
      }
    }
    Path javap = Path.of(System.getProperty("java.home"), "bin", "javap");
    List<String> command =
        new ArrayList<>(List.of(javap.toString(), "-c", "-p", "-cp", location.toString()));
    command.addAll(names);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(out).isZero();
    Set<String> calls = new HashSet<>();
    Matcher m = JOOQ_CALL.matcher(out);
    while (m.find()) {
      calls.add(
          m.group(1).replace('/', '.') + "." + m.group(2).replace("\"", "") + ":" + m.group(3));
    }
    return calls;
  }

  private static String className(String file) {
    return file.substring(0, file.length() - ".class".length())
        .replace('/', '.')
        .replace('\\', '.');
  }

  /**
   * Whether {@code owner.name:descriptor} is declared by the owner or a supertype, as the JVM
   * resolves it.
   */
  private static boolean resolves(String call) throws ClassNotFoundException {
    int colon = call.indexOf(':');
    int dot = call.lastIndexOf('.', colon);
    String name = call.substring(dot + 1, colon);
    String descriptor = call.substring(colon + 1);
    Deque<Class<?>> types =
        new ArrayDeque<>(
            List.of(
                Class.forName(
                    call.substring(0, dot), false, JooqRuntimeTest.class.getClassLoader())));
    Set<Class<?>> seen = new HashSet<>();
    while (!types.isEmpty()) {
      Class<?> type = types.pop();
      if (!seen.add(type)) {
        continue;
      }
      List<Executable> candidates =
          name.equals("<init>")
              ? Arrays.asList(type.getDeclaredConstructors())
              : Arrays.asList(type.getDeclaredMethods());
      for (Executable e : candidates) {
        Class<?> returns = e instanceof Method method ? method.getReturnType() : void.class;
        String declared = e instanceof Constructor<?> ? "<init>" : e.getName();
        if (declared.equals(name)
            && MethodType.methodType(returns, e.getParameterTypes())
                .toMethodDescriptorString()
                .equals(descriptor)) {
          return true;
        }
      }
      if (name.equals("<init>")) {
        return false; // constructors are not inherited
      }
      if (type.getSuperclass() != null) {
        types.add(type.getSuperclass());
      }
      types.addAll(List.of(type.getInterfaces()));
      if (type.isInterface()) {
        types.add(Object.class);
      }
    }
    return false;
  }
}
