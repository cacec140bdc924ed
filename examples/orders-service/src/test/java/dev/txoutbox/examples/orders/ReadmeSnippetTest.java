package dev.txoutbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The outbox-testing README shows {@link TestingYourServiceTest} as it is, so it cannot rot. */
class ReadmeSnippetTest {

  private static final String START = "// readme-snippet-start\n";
  private static final String END = "// readme-snippet-end\n";

  @Test
  void theReadmeShowsTestingYourServiceTestAsItIs() throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/txoutbox/examples/orders/TestingYourServiceTest.java"));
    String snippet = source.substring(source.indexOf(START) + START.length(), source.indexOf(END));
    String readme = Files.readString(Path.of("../../outbox-testing/README.md"));

    assertThat(snippet).contains("class TestingYourServiceTest");
    assertThat(readme).contains("```java\n" + snippet + "```\n");
  }
}
