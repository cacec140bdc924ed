package dev.txoutbox.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Reads a properties file that a flag names ({@code --publisher-config}, {@code --retry-config}):
 * UTF-8, keys and values trimmed, in the order of the file, and a key given twice refused (a {@link
 * Properties} file would otherwise keep the last one silently). Stateless.
 */
final class PropertiesFile {

  private PropertiesFile() {}

  /**
   * The entries of {@code file}, in the order they appear.
   *
   * @throws IllegalArgumentException naming {@code flag} if the file cannot be read or a key
   *     appears twice
   */
  static Map<String, String> read(String flag, Path file) {
    Map<String, String> out = new LinkedHashMap<>();
    Properties p =
        new Properties() {
          @Override
          public synchronized Object put(Object key, Object value) {
            String k = ((String) key).trim();
            if (out.containsKey(k)) {
              throw new IllegalArgumentException(
                  "a key of " + flag + " " + file + " must be given once but '" + k + "' is twice");
            }
            out.put(k, ((String) value).trim());
            return super.put(key, value);
          }
        };
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw unreadable(flag, file, e);
    }
    return Collections.unmodifiableMap(out);
  }

  /** The error for a file flag whose file cannot be read; says why, not what the file holds. */
  static IllegalArgumentException unreadable(String flag, Path file, IOException e) {
    return new IllegalArgumentException(
        flag
            + " must name a readable file but "
            + file
            + " could not be read ("
            + e.getClass().getSimpleName()
            + ")");
  }
}
