package dev.txoutbox.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The UI's files, served from the jar: the page shell every page URL answers with (the script then
 * renders the page from the JSON API), its script and its style sheet. Read once. Thread-safe.
 */
final class Assets {

  private static final String ROOT = "/dev/txoutbox/console/assets/";

  private static final Map<String, String> TYPES =
      Map.of(
          "app.js", "text/javascript; charset=utf-8",
          "app.css", "text/css; charset=utf-8");

  private final String shell;
  private final Map<String, byte[]> files;

  Assets() {
    this.shell = new String(read("shell.html"), StandardCharsets.UTF_8);
    this.files = Map.of("app.js", read("app.js"), "app.css", read("app.css"));
  }

  /** The page shell for a console mounted at {@code mountPath}. */
  ConsoleResponse shell(String mountPath) {
    return ConsoleResponse.of(
        200,
        "text/html; charset=utf-8",
        shell.replace("{{mount}}", attribute(mountPath)).getBytes(StandardCharsets.UTF_8),
        Map.of());
  }

  /**
   * The asset {@code name}.
   *
   * @throws Refusal 404 if there is none
   */
  ConsoleResponse file(String name) {
    byte[] bytes = files.get(name);
    if (bytes == null) {
      throw Refusal.notFound("no asset " + Text.quoted(name));
    }
    return ConsoleResponse.of(200, TYPES.get(name), bytes, Map.of());
  }

  /** {@code value} escaped for an HTML attribute in double quotes. */
  static String attribute(String value) {
    return value
        .replace("&", "&amp;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;")
        .replace("<", "&lt;")
        .replace(">", "&gt;");
  }

  private static byte[] read(String name) {
    try (InputStream in = Assets.class.getResourceAsStream(ROOT + name)) {
      if (in == null) {
        throw new IllegalStateException(
            "the console's jar must hold " + ROOT + name + " but does not");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + ROOT + name, e);
    }
  }
}
