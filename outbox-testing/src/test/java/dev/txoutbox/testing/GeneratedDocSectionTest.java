package dev.txoutbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GeneratedDocSectionTest {

  private static final String START = "<!-- table -->";
  private static final String END = "<!-- end of table -->";

  @AfterEach
  void tearDown() {
    System.clearProperty(GeneratedDocSection.WRITE_PROPERTY);
  }

  @Test
  void readsThePartBetweenTheMarkersAndLeavesTheDocumentAsItIs(@TempDir Path dir) throws Exception {
    Path doc = Files.writeString(dir.resolve("doc.md"), "a\n" + START + "\nold\n" + END + "\nb\n");

    assertThat(GeneratedDocSection.documented(doc, START, END, "new")).isEqualTo("\nold\n");
    assertThat(GeneratedDocSection.expected("old")).isEqualTo("\nold\n");
    assertThat(Files.readString(doc)).contains("old").doesNotContain("new");
  }

  @Test
  void rewritesThePartWhenAskedAndKeepsTheRest(@TempDir Path dir) throws Exception {
    Path doc = Files.writeString(dir.resolve("doc.md"), "a\n" + START + "\nold\n" + END + "\nb\n");
    System.setProperty(GeneratedDocSection.WRITE_PROPERTY, "true");

    assertThat(GeneratedDocSection.documented(doc, START, END, "new"))
        .isEqualTo(GeneratedDocSection.expected("new"));
    assertThat(Files.readString(doc)).isEqualTo("a\n" + START + "\nnew\n" + END + "\nb\n");
  }

  @Test
  void aMissingOrMisplacedMarkerIsNamed(@TempDir Path dir) throws Exception {
    Path noEnd = Files.writeString(dir.resolve("a.md"), START + "\n");
    Path reversed = Files.writeString(dir.resolve("b.md"), END + "\n" + START + "\n");

    assertThatThrownBy(() -> GeneratedDocSection.documented(noEnd, START, END, "x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(END);
    assertThatThrownBy(() -> GeneratedDocSection.documented(reversed, START, END, "x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("b.md");
  }
}
