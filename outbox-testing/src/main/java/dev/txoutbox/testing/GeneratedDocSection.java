package dev.txoutbox.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A part of a document that code makes (an option table), kept between a start and an end marker
 * line, for a test that compares the document with what the code makes now. With the system
 * property {@code txoutbox.writeDocs=true} the part is rewritten first, so a changed definition is
 * documented by running its test once. Stateless.
 */
public final class GeneratedDocSection {

  /** The system property that rewrites the part before it is read. */
  public static final String WRITE_PROPERTY = "txoutbox.writeDocs";

  private GeneratedDocSection() {}

  /**
   * The text between {@code start} and {@code end} in {@code doc} (after rewriting it as {@code
   * "\n" + made + "\n"} if {@value #WRITE_PROPERTY} is set), to compare with {@link
   * #expected(String)}.
   *
   * @throws IllegalStateException if a marker is missing or the end comes before the start
   */
  public static String documented(Path doc, String start, String end, String made)
      throws IOException {
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int from = text.indexOf(start);
    int to = text.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalStateException(
          doc + " must hold the marker lines '" + start + "' and, after it, '" + end + "'");
    }
    if (Boolean.getBoolean(WRITE_PROPERTY)) {
      text = text.substring(0, from + start.length()) + expected(made) + text.substring(to);
      Files.writeString(doc, text, StandardCharsets.UTF_8);
    }
    return text.substring(from + start.length(), text.indexOf(end));
  }

  /** What {@link #documented} returns when the document holds {@code made}. */
  public static String expected(String made) {
    return "\n" + made + "\n";
  }
}
